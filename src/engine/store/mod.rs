//! The level-storage interface: where a run keeps what it has visited and
//! builds the level after the frontier, behind one trait ([`LevelStore`],
//! after TLC's `FPSet` and `StateQueue`, whose memory and disk kinds sit
//! behind one interface). The search loop (`bfs`) expands the frontier
//! into chunk slots and hands each batch to its store; the store
//! deduplicates it, and at the end of the level gives the next frontier
//! and its parent links, and checkpoints it.
//!
//! Two implementations: in memory (`memory`: the visited tables and the
//! parts of the next level), and in a folder (`disk`: a `--disk` run's
//! [`DiskLevels`]). This module alone chooses between them, from the
//! options or from what a checkpoint holds.

mod disk;
mod memory;

use super::absorb::LeafHits;
use super::checkpoint::Meta;
use super::chunk::ChunkSlot;
use super::disk::DiskLevels;
use super::fp::Fp;
use super::level::Chunk;
use super::links::LinkStore;
use super::options::EngineOptions;
use super::part::Part;
use super::report::{DiskIo, LevelStats, Stopped};
use memory::MemoryLevels;
use std::path::Path;

/// The level being built, as its store is told of it: from the frontier
/// at `depth`, the last level the bound allows if `leaf`, on `threads`
/// threads, for a model of `properties` properties.
#[derive(Clone, Copy)]
pub(super) struct Building {
    pub(super) depth: usize,
    pub(super) leaf: bool,
    pub(super) threads: usize,
    pub(super) properties: usize,
}

/// Where a run's levels live (see the module docs). `S` is the state,
/// `W` the fingerprint word.
pub(super) trait LevelStore<S, W> {
    /// Takes level 0, its parts sorted and one state per fingerprint.
    fn store_initial(&mut self, frontier: &[Part<S, W>]) -> Result<(), String>;

    /// The number of states of each part of the frontier.
    fn sizes(&self, frontier: &[Part<S, W>]) -> Vec<u64>;

    /// The states discovered so far.
    fn discovered(&self) -> u64;

    /// Before the level after `levels` is built from `frontier`: why it
    /// must not be (the memory guard), or `None` with the store ready.
    fn begin_level(
        &mut self,
        at: Building,
        levels: &[LevelStats],
        frontier: &[Part<S, W>],
    ) -> Option<Stopped>;

    /// Makes the parts of `frontier` that `batch` expands readable.
    fn load_parts(
        &mut self,
        at: Building,
        frontier: &mut [Part<S, W>],
        batch: &[Chunk],
    ) -> Result<(), String>;

    /// Phase 2 of a batch: the candidates of `slots`, in chunk order; at
    /// the last level only their fingerprints, `leaf_hits[s]` keeping
    /// shard `s`'s smallest new deciding state per property (if the store
    /// finds them here). `Err` leaves the level abandoned.
    fn absorb_batch(
        &mut self,
        at: Building,
        slots: &[ChunkSlot<S, W>],
        leaf_hits: &mut [LeafHits<W>],
    ) -> Result<(), String>;

    /// Ends the level built: its new states become `frontier` (in
    /// fingerprint order) and, below the last level, their links go into
    /// `links`; at the last level `leaf_hits` holds each shard's smallest
    /// new deciding states. Returns the number of new states.
    fn end_level(
        &mut self,
        at: Building,
        frontier: &mut Vec<Part<S, W>>,
        leaf_hits: &mut Vec<LeafHits<W>>,
        links: &mut LinkStore,
    ) -> Result<u64, String>;

    /// Checkpoints the level `depth` just completed, `frontier`, with the
    /// counts of `meta` (the store fills in what it stores), if the run
    /// keeps checkpoints.
    fn checkpoint(
        &mut self,
        depth: usize,
        frontier: &[Part<S, W>],
        meta: Meta,
    ) -> Result<(), String>;

    /// The bytes written to and read from a folder, for a store in one.
    fn disk_io(&self) -> Option<DiskIo>;
}

/// A boxed store, borrowed for the run.
pub(super) type Store<'a, S, W> = Box<dyn LevelStore<S, W> + 'a>;

/// A resumed run's store and frontier.
type Resumed<'a, S, W> = (Store<'a, S, W>, Vec<Part<S, W>>);

/// The folder a run with `opts` keeps its levels' files in (checkpoints
/// and parent links), if it keeps them in one.
pub(super) fn run_folder(opts: &EngineOptions) -> Option<&Path> {
    opts.disk.as_deref().or(opts.checkpoint.as_deref())
}

/// The store of a fresh run with `opts`.
pub(super) fn open<'a, S, W>(opts: &'a EngineOptions) -> Store<'a, S, W>
where
    S: Clone + Send + Sync + 'a,
    W: Fp,
{
    match &opts.disk {
        Some(dir) => Box::new(DiskLevels::<W>::new(dir, opts.max_memory)),
        None => Box::new(MemoryLevels::new(opts)),
    }
}

/// Whether a checkpoint's meta (`meta_on_disk`: it names a `--disk`
/// run's files) may be continued by a run with `opts`: `Err` in one line
/// saying how to continue it.
pub(super) fn check_kind(
    dir: &Path,
    meta_on_disk: bool,
    opts: &EngineOptions,
) -> Result<(), String> {
    match (meta_on_disk, opts.disk.is_some()) {
        (true, false) => Err(format!(
            "{}: the checkpoint is a --disk run's folder: continue it with --disk {0} --resume {0}",
            dir.display()
        )),
        (false, true) => Err(format!(
            "{}: the checkpoint is not a --disk run's: continue it without --disk",
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// Reads the files level `meta` of `dir` (in `level`) names back against
/// their seals and its counts (see `checkpoint::check_resumable`).
pub(super) fn check_files<W: Fp>(meta: &Meta, dir: &Path, level: &Path) -> Result<(), String> {
    match &meta.disk {
        Some(disk) => {
            let (total, new) = (meta.levels[meta.depth][2], meta.new_states(meta.depth));
            DiskLevels::<W>::check_files(dir, level, disk, total, new)
        }
        None => memory::check_files::<W>(meta, level),
    }
}

/// The store and the frontier of a run resumed from level `meta` of
/// `dir` (in `level`), its files read back whole.
pub(super) fn resumed<'a, S, W>(
    opts: &'a EngineOptions,
    dir: &Path,
    level: &Path,
    meta: &Meta,
) -> Result<Resumed<'a, S, W>, String>
where
    S: Clone + Send + Sync + 'a,
    W: Fp,
{
    match &meta.disk {
        Some(disk) => {
            check_files::<W>(meta, dir, level)?;
            let disk = DiskLevels::<W>::resumed(dir, opts.max_memory, disk);
            disk.clear_unsealed();
            let frontier = (0..super::fp::SHARDS).map(|_| Part::new()).collect();
            Ok((Box::new(disk), frontier))
        }
        None => {
            let (memory, frontier) = MemoryLevels::resumed(opts, level, meta)?;
            Ok((Box::new(memory), frontier))
        }
    }
}
