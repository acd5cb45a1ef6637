//! The level-storage interface: where a run keeps what it has visited and
//! builds the level after the frontier, behind one trait ([`LevelStore`],
//! after TLC's `FPSet` and `StateQueue`, whose memory and disk kinds sit
//! behind one interface). The search loop (`bfs`) expands the frontier
//! into chunk slots and hands each batch to its store; the store
//! deduplicates it, and at the end of the level gives the next frontier
//! and its parent links, and checkpoints it.
//!
//! Three implementations: in memory (`memory`: the visited tables and the
//! parts of the next level), in a folder (`disk`: a `--disk` run's
//! `DiskLevels`), and across processes (`distributed::Peers`: a worker's
//! share of the visited set, the next level built from what its peers
//! send it). `pick` alone chooses between the first two, from the options
//! or from what a checkpoint holds; a distributed worker gives the run
//! its store itself.

mod disk;
mod memory;
pub(super) mod pick;

use super::absorb::LeafHits;
use super::checkpoint::LevelRecord;
use super::chunk::{ChunkSlot, Hit};
use super::decisions::Decisions;
use super::disk::DiskMeta;
use super::level::Chunk;
use super::links::LinkStore;
use super::part::Part;
use super::path::walk_back;
use super::report::{DiskIo, LevelStats, Stopped};
use super::seal::Seal;
use std::path::Path;

/// What a store put into a checkpoint level, for its meta to record.
pub(crate) enum Stored {
    /// In memory: the seals of `visited.bin` and `frontier.bin`.
    Files { visited: Seal, frontier: Seal },
    /// A `--disk` run's parts and visited runs.
    Disk(DiskMeta),
}

/// Writes a checkpoint level's meta into its directory, given what the
/// store put there.
pub(crate) type WriteMeta<'m> = dyn FnMut(&Path, Stored) -> Result<(), String> + 'm;

/// The level being built, as its store is told of it: from the frontier
/// at `depth`, the last level the bound allows if `leaf`, on `threads`
/// threads, for a model of `properties` properties, in `batches` batches
/// of the run's chunk slots.
#[derive(Clone, Copy)]
pub(crate) struct Building {
    pub(crate) depth: usize,
    pub(crate) leaf: bool,
    pub(crate) threads: usize,
    pub(crate) properties: usize,
    pub(crate) batches: usize,
}

/// A batch as phase 1 left it: the `chunks` of `frontier` it expanded
/// (`offsets[s]` the position of part `s`'s first state in the level),
/// and the output of each, one slot per chunk.
pub(crate) struct Batch<'b, S, W> {
    pub(crate) chunks: &'b [Chunk],
    pub(crate) slots: &'b [ChunkSlot<S, W>],
    pub(crate) frontier: &'b [Part<S, W>],
    pub(crate) offsets: &'b [u64],
}

/// What the expansion of a level found: per property the level's first
/// state deciding it, at the last level per shard per property the
/// smallest new one, its transitions and per label those carrying it.
pub(crate) struct Found<W> {
    pub(crate) level_hits: Vec<Hit<W>>,
    pub(crate) leaf_hits: Vec<LeafHits<W>>,
    pub(crate) transitions: u64,
    pub(crate) labels: Vec<u64>,
}

/// Per property: the way back to its deciding state, the position of its
/// initial state in level 0 and the action indices from it; `None` for
/// an undecided one.
pub(crate) type WaysBack = Vec<Option<(usize, Vec<u32>)>>;

/// Where a run's levels live (see the module docs). `S` is the state,
/// `W` the fingerprint word.
pub(crate) trait LevelStore<S, W> {
    /// Whether this store keeps the state `fp` (a distributed worker
    /// keeps those it owns).
    fn owns(&self, _fp: W) -> bool {
        true
    }

    /// Takes level 0 (the states it owns), its parts sorted and one state
    /// per fingerprint.
    fn store_initial(&mut self, frontier: &[Part<S, W>]) -> Result<(), String>;

    /// The number of states of each part of the frontier (those a store
    /// holds in memory, unless it says otherwise).
    fn sizes(&self, frontier: &[Part<S, W>]) -> Vec<u64> {
        frontier.iter().map(|p| p.fps.len() as u64).collect()
    }

    /// The states discovered so far.
    fn discovered(&self) -> u64;

    /// Before the level after `levels` is built from `frontier`: why it
    /// must not be (the memory guard), or `None` with the store ready.
    fn begin_level(
        &mut self,
        _at: Building,
        _levels: &[LevelStats],
        _frontier: &[Part<S, W>],
    ) -> Option<Stopped> {
        None
    }

    /// The number of batches the level is expanded in: across processes
    /// the same on every worker, so that their rounds pair up.
    fn batches(&self, at: Building) -> usize {
        at.batches
    }

    /// Makes the parts of `frontier` that `batch` expands readable (a
    /// store in memory holds them all).
    fn load_parts(
        &mut self,
        _at: Building,
        _frontier: &mut [Part<S, W>],
        _batch: &[Chunk],
    ) -> Result<(), String> {
        Ok(())
    }

    /// Phase 2 of a batch: the candidates of its slots, in chunk order;
    /// at the last level only their fingerprints, `leaf_hits[s]` keeping
    /// shard `s`'s smallest new deciding state per property (if the store
    /// finds them here). `Err` leaves the level abandoned.
    fn absorb_batch(
        &mut self,
        at: Building,
        batch: &Batch<'_, S, W>,
        leaf_hits: &mut [LeafHits<W>],
    ) -> Result<(), String>;

    /// After the level's expansion: what this store found becomes what
    /// the whole run found (across processes, every worker's combined).
    fn combine(&mut self, _at: Building, _found: &mut Found<W>) {}

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

    /// Checkpoints the level just completed, `frontier`, if the run
    /// keeps checkpoints: `write_meta` writes the run's meta into the
    /// level's directory once the store's files are there (a store that
    /// keeps a meta of its own writes it around `record`, what the run
    /// knows).
    fn checkpoint(
        &mut self,
        record: &LevelRecord,
        frontier: &[Part<S, W>],
        write_meta: &mut WriteMeta<'_>,
    ) -> Result<(), String>;

    /// The run is over: the way back to each property's deciding state,
    /// by the run's `links` (`None` where another worker reports).
    fn ways_back(&mut self, decisions: &Decisions<W>, links: &LinkStore) -> Option<WaysBack> {
        let ways = decisions
            .0
            .iter()
            .map(|d| d.as_ref().map(|d| walk_back(d, links)));
        Some(ways.collect())
    }

    /// The bytes written to and read from a folder, for a store in one.
    fn disk_io(&self) -> Option<DiskIo> {
        None
    }
}

/// A boxed store, borrowed for the run.
pub(crate) type Store<'a, S, W> = Box<dyn LevelStore<S, W> + 'a>;
