//! The visited set: fingerprints only, split into [`SHARDS`] ordered tables
//! by their top bits, each sized once per level from the growth so far so
//! that it ends the level near [`LOAD`] (no doubling: a table grows by
//! itself only when a level outgrows its prediction).

use super::fp::{Fp, SHARDS};
use super::parallel::for_each_dynamic;
use super::table::FpTable;

/// The load a table is sized to reach at the end of a level.
pub(super) const LOAD: f64 = 0.9;

pub(crate) struct Visited<W> {
    shards: Vec<FpTable<W>>,
}

impl<W: Fp> Visited<W> {
    pub(crate) fn new() -> Self {
        Visited {
            shards: (0..SHARDS).map(|_| FpTable::new()).collect(),
        }
    }

    /// Fingerprints held.
    pub(crate) fn len(&self) -> u64 {
        self.shards.iter().map(|t| t.len() as u64).sum()
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        self.shards.iter().map(|t| t.bytes() as u64).sum()
    }

    /// Bytes the tables would hold after [`Visited::prepare`] for
    /// `expected_new` more states.
    pub(crate) fn bytes_after(&self, expected_new: u64) -> u64 {
        let capacity = (self.len() + expected_new) as f64 / LOAD;
        (capacity as u64).max(self.shards.iter().map(|t| t.capacity() as u64).sum())
            * std::mem::size_of::<W>() as u64
    }

    /// Prefetches the slot where `fp` would go (see [`FpTable::touch`]).
    #[inline]
    pub(crate) fn touch(&self, fp: W) {
        self.shards[fp.shard()].touch(fp)
    }

    #[inline]
    pub(crate) fn insert(&mut self, fp: W) -> bool {
        self.shards[fp.shard()].insert(fp)
    }

    pub(super) fn shards_mut(&mut self) -> &mut [FpTable<W>] {
        &mut self.shards
    }

    pub(super) fn shard(&self, s: usize) -> &FpTable<W> {
        &self.shards[s]
    }

    /// Sizes each table for its share of `expected_new` more states, on
    /// `threads` threads (one table at a time each, so a resize never
    /// holds more than a few tables twice).
    pub(crate) fn prepare(&mut self, expected_new: u64, threads: usize) {
        let share = expected_new.div_ceil(SHARDS as u64) as usize;
        let work: Vec<_> = self
            .shards
            .iter_mut()
            .filter(|t| (t.len() + share) as f64 > t.capacity() as f64 * LOAD)
            .collect();
        for_each_dynamic(threads, work, &|t| {
            t.resize(((t.len() + share) as f64 / LOAD).ceil() as usize)
        });
    }

    /// A set of the shards' fingerprints, each shard's in ascending order.
    pub(super) fn from_shards(shards: Vec<FpTable<W>>) -> Self {
        assert_eq!(shards.len(), SHARDS);
        Visited { shards }
    }
}
