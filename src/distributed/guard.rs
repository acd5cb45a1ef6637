//! The memory guard across processes: before a level is expanded every
//! worker estimates what its share of the expansion adds to its
//! process's memory at the peak (as the single-process guard does,
//! `engine::guard`: the growth of its visited set, and what its part of
//! the next level will hold beyond its part of this one), and sends it
//! with its process's resident memory and bound to every worker
//! (`engine::guard`'s `Estimate`, as a packet). The engine's guard judges
//! every worker's figures alike: if any process passes its bound, every
//! worker stops before the level (after checking it), so all stop
//! together and cleanly.

use super::wire::{Packet, GUARD};
use super::word::Word;
pub(crate) use crate::engine::Estimate;
use crate::engine::Part;
use crate::engine::{over_bound, Stopped};
use std::mem::size_of;

impl Estimate {
    /// The estimate as sent to every worker.
    pub(crate) fn packet(&self) -> Packet {
        let mut p = Packet::new(GUARD);
        p.u64(self.process)
            .u64(self.resident)
            .u64(self.added)
            .u64(self.limit);
        p
    }

    pub(crate) fn read(packet: &Packet) -> Self {
        let mut r = packet.body();
        Estimate {
            process: r.u64(),
            resident: r.u64(),
            added: r.u64(),
            limit: r.u64(),
        }
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

/// What a worker whose visited set grows by `table_growth` bytes
/// (`Visited::bytes_after` of its share less its bytes now) and whose
/// frontier holds `held` (states, heap bytes) adds at the peak of a level
/// that gives it `share` new states (only their fingerprints at the last
/// level, `leaf`), their links kept in memory after the level if
/// `links_held`.
pub(crate) fn added<W: Word>(
    table_growth: u64,
    (states, held): (u64, u64),
    share: u64,
    leaf: bool,
    links_held: bool,
) -> u64 {
    let next = if leaf {
        0
    } else {
        // Per new state: its place in a part (as a frontier state takes),
        // its link, and while the level is built its link's entry and
        // index.
        let link = if links_held {
            size_of::<(W, (W, u32))>() as u64
        } else {
            0
        };
        let per_state = held / states.max(1)
            + link
            + size_of::<(W, (W, u32))>() as u64
            + set_bytes::<(W, usize)>(1);
        share * per_state
    };
    table_growth + next.saturating_sub(held)
}

/// The states and heap bytes of a level held in `parts`.
pub(crate) fn held<S: Clone, W: Word>(parts: &[Part<S, W>]) -> (u64, u64) {
    let states = parts.iter().map(|p| p.len() as u64).sum();
    let bytes = parts.iter().map(|p| p.heap_bytes() as u64).sum();
    (states, bytes)
}

/// Why every worker stops before level `depth`, if one process would
/// pass its bound there (the engine's guard, `engine::guard`, on every
/// worker's estimate).
pub(crate) fn verdict(all: &[Estimate], depth: usize) -> Option<Stopped> {
    over_bound(all).map(|(needed, limit)| Stopped::MemoryBound {
        depth,
        needed,
        limit,
        disk_needed: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growing_set_counts_its_growth() {
        let empty = (0, 0);
        assert_eq!(added::<u64>(0, empty, 5, true, true), 0);
        assert_eq!(added::<u64>(1234, empty, 5, true, true), 1234);
        assert!(added::<u64>(0, empty, 1000, false, true) > 1000 * 8);
        // Links written to files as each level completes are not held.
        assert_eq!(
            added::<u64>(0, empty, 1000, false, true) - added::<u64>(0, empty, 1000, false, false),
            1000 * size_of::<(u64, (u64, u32))>() as u64
        );
    }
}
