//! The on-disk level store: a `--disk` run's [`DiskLevels`] behind the
//! level-storage interface. Its frontier parts are read from the folder as
//! the batches reach them, a batch's candidates go to its shard buffers,
//! the level's merges give the next level and its links files, and every
//! level is sealed as the folder's checkpoint. Its batches are bounded by
//! its budget, not by `--max-memory`; the memory guard stops it only at
//! an address-space limit (issue 51.5).

use super::{Batch, Building, LevelStore, Stored, WriteMeta};
use crate::engine::absorb::LeafHits;
use crate::engine::checkpoint::LevelRecord;
use crate::engine::disk::DiskLevels;
use crate::engine::fp::Fp;
use crate::engine::guard::{over_bound, Estimate};
use crate::engine::level::Chunk;
use crate::engine::links::LinkStore;
use crate::engine::part::Part;
use crate::engine::report::{DiskIo, LevelStats, Stopped};

impl<S: Clone + Send + Sync, W: Fp> LevelStore<S, W> for DiskLevels<W> {
    fn store_initial(&mut self, frontier: &[Part<S, W>]) -> Result<(), String> {
        DiskLevels::store_initial(self, frontier)
    }

    fn sizes(&self, _: &[Part<S, W>]) -> Vec<u64> {
        self.sizes.clone()
    }

    fn discovered(&self) -> u64 {
        self.visited()
    }

    fn begin_level(
        &mut self,
        at: Building,
        levels: &[LevelStats],
        _: &[Part<S, W>],
    ) -> Option<Stopped> {
        let peak = Estimate::here(self.peak_bytes(at.threads), None, at.threads);
        let passed = over_bound(&[peak])?;
        Some(Stopped::MemoryBound {
            depth: levels.len(),
            needed: passed.needed,
            limit: passed.limit,
            by: passed.by,
            disk_needed: None,
        })
    }

    fn load_parts(
        &mut self,
        at: Building,
        frontier: &mut [Part<S, W>],
        batch: &[Chunk],
    ) -> Result<(), String> {
        for &(s, lo, _) in batch {
            if lo == 0 && frontier[s].len() == 0 && self.sizes[s] > 0 {
                frontier[s] = self.load_part(at.depth, s)?;
            }
        }
        Ok(())
    }

    fn absorb_batch(
        &mut self,
        at: Building,
        batch: &Batch<'_, S, W>,
        _: &mut [LeafHits<W>],
    ) -> Result<(), String> {
        DiskLevels::absorb_batch(self, batch.slots, at.leaf, at.threads)
            .inspect_err(|_| self.abandon_level())
    }

    fn end_level(
        &mut self,
        at: Building,
        _: &mut Vec<Part<S, W>>,
        leaf_hits: &mut Vec<LeafHits<W>>,
        links: &mut LinkStore,
    ) -> Result<u64, String> {
        let end = DiskLevels::end_level(self, at.depth, at.leaf, at.properties, at.threads)?;
        if !at.leaf {
            if let Err(e) = links.push_level_files(&end.links) {
                // The level built goes with its links (issue 38.5).
                self.discard_built(at.depth + 1);
                return Err(e);
            }
        }
        *leaf_hits = end.leaf_hits;
        Ok(end.new)
    }

    fn checkpoint(
        &mut self,
        record: &LevelRecord,
        _: &[Part<S, W>],
        write_meta: &mut WriteMeta<'_>,
    ) -> Result<(), String> {
        let stored = self.meta();
        self.seal(record.depth, |tmp| write_meta(tmp, Stored::Disk(stored)))
    }

    fn disk_io(&self) -> Option<DiskIo> {
        Some(DiskIo {
            written: self.written,
            read: self.read,
        })
    }
}
