//! The in-memory level store: the visited set (one ordered table per
//! shard, `visited`) and the parts the next level is built in; a batch's
//! candidates are deduplicated against the tables (`absorb`), and a
//! checkpoint, when the run keeps one, writes the tables and the frontier
//! (`checkpoint`). Before a level the memory guard is asked (`guard`).

use super::{Batch, Building, LevelStore, Stored, WriteMeta};
use crate::engine::absorb::{absorb_batch, LeafHits};
use crate::engine::checkpoint::LevelRecord;
use crate::engine::checkpoint::{check_memory_level, read_memory_level, save_memory_level};
use crate::engine::fp::{Fp, SHARDS};
use crate::engine::growth::predict_new;
use crate::engine::guard::memory_bound;
use crate::engine::links::LinkStore;
use crate::engine::options::EngineOptions;
use crate::engine::parallel::for_each_dynamic;
use crate::engine::part::Part;
use crate::engine::report::{LevelStats, Stopped};
use crate::engine::seal::{damaged, Seal};
use crate::engine::state_check::StateCheck;
use crate::engine::visited::Visited;
use std::path::{Path, PathBuf};

/// A run's levels in memory (see the module docs).
pub(super) struct MemoryLevels<S, W> {
    visited: Visited<W>,
    /// The parts the next level is built in.
    next: Vec<Part<S, W>>,
    /// The states visited when the level being built began.
    before: u64,
    max_memory: Option<u64>,
    /// Where checkpoints go, if they are kept.
    checkpoint: Option<PathBuf>,
}

impl<S: Clone, W: Fp> MemoryLevels<S, W> {
    pub(super) fn new(opts: &EngineOptions) -> Self {
        MemoryLevels {
            visited: Visited::new(),
            next: (0..SHARDS).map(|_| Part::new()).collect(),
            before: 0,
            max_memory: opts.max_memory,
            checkpoint: opts.checkpoint.clone(),
        }
    }

    /// The store and frontier checkpointed in level directory `level`,
    /// read back against the seals of its two files and its counts.
    pub(super) fn resumed(
        opts: &EngineOptions,
        level: &Path,
        seals: (Seal, Seal),
        counts: (u64, u64),
    ) -> Result<(Self, Vec<Part<S, W>>), String> {
        let (visited, frontier, stored) = read_memory_level(level, seals)?;
        check_counts(level, stored, counts)?;
        let store = MemoryLevels {
            visited,
            ..MemoryLevels::new(opts)
        };
        Ok((store, frontier))
    }
}

/// Reads a checkpoint's `visited.bin` and `frontier.bin` in `level` back
/// against their seals and the counts its meta records (`total` states,
/// `last` in the frontier), each state of the frontier judged by
/// `states`.
pub(super) fn check_files<W: Fp>(
    level: &Path,
    seals: (Seal, Seal),
    counts: (u64, u64),
    states: Option<&StateCheck>,
) -> Result<(), String> {
    let stored = check_memory_level::<W>(level, seals, states)?;
    check_counts(level, stored, counts)
}

/// Whether the `stored` visited and frontier states are the `recorded`
/// ones.
fn check_counts(level: &Path, stored: (u64, u64), recorded: (u64, u64)) -> Result<(), String> {
    if stored != recorded {
        let ((visited, frontier), (total, new)) = (stored, recorded);
        return Err(damaged(
            &level.join("meta.json"),
            format_args!(
                "{total} states and {new} in the last level recorded, {visited} and {frontier} stored"
            ),
        ));
    }
    Ok(())
}

impl<S: Clone + Send + Sync, W: Fp> LevelStore<S, W> for MemoryLevels<S, W> {
    fn store_initial(&mut self, frontier: &[Part<S, W>]) -> Result<(), String> {
        for part in frontier {
            part.fps.iter().for_each(|&fp| {
                self.visited.insert(fp);
            });
        }
        Ok(())
    }

    fn discovered(&self) -> u64 {
        self.visited.len()
    }

    fn begin_level(
        &mut self,
        at: Building,
        levels: &[LevelStats],
        frontier: &[Part<S, W>],
    ) -> Option<Stopped> {
        let bound = memory_bound(
            self.max_memory,
            &self.visited,
            levels,
            frontier,
            (at.leaf, at.threads),
        );
        if bound.is_some() {
            return bound;
        }
        self.visited.prepare(predict_new(levels), at.threads);
        self.next.iter_mut().for_each(Part::clear);
        self.before = self.visited.len();
        None
    }

    fn absorb_batch(
        &mut self,
        at: Building,
        batch: &Batch<'_, S, W>,
        leaf_hits: &mut [LeafHits<W>],
    ) -> Result<(), String> {
        let (visited, next) = (&mut self.visited, &mut self.next);
        absorb_batch(batch.slots, at.leaf, at.threads, visited, next, leaf_hits);
        Ok(())
    }

    fn end_level(
        &mut self,
        at: Building,
        frontier: &mut Vec<Part<S, W>>,
        _: &mut Vec<LeafHits<W>>,
        links: &mut LinkStore,
    ) -> Result<u64, String> {
        let new = self.visited.len() - self.before;
        if !at.leaf {
            let parts: Vec<_> = self.next.iter_mut().collect();
            for_each_dynamic(at.threads, parts, &|p| p.sort());
            let level = self
                .next
                .iter_mut()
                .map(|p| std::mem::take(&mut p.links))
                .collect();
            links.push_level(level)?;
        }
        std::mem::swap(frontier, &mut self.next);
        Ok(new)
    }

    fn checkpoint(
        &mut self,
        record: &LevelRecord,
        frontier: &[Part<S, W>],
        write_meta: &mut WriteMeta<'_>,
    ) -> Result<(), String> {
        let Some(dir) = &self.checkpoint else {
            return Ok(());
        };
        let depth = record.depth;
        save_memory_level(
            dir,
            (depth, depth),
            &self.visited,
            frontier,
            |tmp, visited, frontier| write_meta(tmp, Stored::Files { visited, frontier }),
        )
    }
}
