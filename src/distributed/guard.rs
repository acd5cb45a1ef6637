//! The memory guard across processes: before a level is expanded every
//! worker estimates what its share of the expansion adds to its
//! process's memory at the peak (by the single-process guard's estimate,
//! `engine::added`: the growth of its visited set, and what its part of
//! the next level will hold beyond its part of this one, here with what
//! a worker builds a level with, [`building`]), and sends it
//! with its process's resident memory, address space and bounds to
//! every worker
//! (`engine::guard`'s `Estimate`, as a packet). The engine's guard judges
//! every worker's figures alike: if any process passes its bound, every
//! worker stops before the level (after checking it), so all stop
//! together and cleanly.

use super::wire::{Packet, GUARD};
use super::word::Word;
pub(crate) use crate::engine::Estimate;
use crate::engine::{over_bound, Stopped};
use std::mem::size_of;

impl Estimate {
    /// The estimate as sent to every worker, with the `batches` the
    /// sender's part of the level takes.
    pub(crate) fn packet(&self, batches: usize) -> Packet {
        let mut p = Packet::new(GUARD);
        p.u64(self.process)
            .u64(self.resident)
            .u64(self.space)
            .u64(self.added)
            .u64(self.limit)
            .u64(self.space_limit)
            .u64(batches as u64);
        p
    }

    /// An estimate [`Estimate::packet`] sent, with its batches.
    pub(crate) fn read(packet: &Packet) -> (Self, usize) {
        let mut r = packet.body();
        let estimate = Estimate {
            process: r.u64(),
            resident: r.u64(),
            space: r.u64(),
            added: r.u64(),
            limit: r.u64(),
            space_limit: r.u64(),
        };
        (estimate, r.u64() as usize)
    }
}

/// Bytes of a hash map of `W` entries sized for `items` (a power of two
/// of buckets, at most 7/8 full, a control byte each): the index of the
/// level being built.
fn set_bytes<W>(items: u64) -> u64 {
    if items == 0 {
        return 0;
    }
    let buckets = (items * 8 / 7).max(4).next_power_of_two();
    buckets * (size_of::<W>() as u64 + 1)
}

/// What each new state of a worker's share of the next level takes
/// beyond its place in a part (the engine's guard, `engine::added`,
/// counts the rest): while the level is built its link's entry and index,
/// and after it its link, if `links_held` in memory.
pub(crate) fn building<W: Word>(links_held: bool) -> u64 {
    let link = size_of::<(W, (W, u32))>() as u64;
    link * (1 + links_held as u64) + set_bytes::<(W, usize)>(1)
}

/// Why every worker stops before level `depth`, if one process would
/// pass its bound there (the engine's guard, `engine::guard`, on every
/// worker's estimate).
pub(crate) fn verdict(all: &[Estimate], depth: usize) -> Option<Stopped> {
    over_bound(all).map(|p| Stopped::MemoryBound {
        depth,
        needed: p.needed,
        limit: p.limit,
        by: p.by,
        disk_needed: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_held_in_memory_count() {
        // Links written to files as each level completes are not held.
        assert_eq!(
            building::<u64>(true) - building::<u64>(false),
            size_of::<(u64, (u64, u32))>() as u64
        );
        assert!(building::<u128>(false) > building::<u64>(false));
    }
}
