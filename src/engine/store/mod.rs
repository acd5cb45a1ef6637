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
//! `DiskLevels`). `pick` alone chooses between them, from the options or
//! from what a checkpoint holds.

mod disk;
mod memory;
pub(super) mod pick;

use super::absorb::LeafHits;
use super::chunk::ChunkSlot;
use super::disk::DiskMeta;
use super::level::Chunk;
use super::links::LinkStore;
use super::part::Part;
use super::report::{DiskIo, LevelStats, Stopped};
use super::seal::Seal;
use std::path::Path;

/// What a store put into a checkpoint level, for its meta to record.
pub(super) enum Stored {
    /// In memory: the seals of `visited.bin` and `frontier.bin`.
    Files { visited: Seal, frontier: Seal },
    /// A `--disk` run's parts and visited runs.
    Disk(DiskMeta),
}

/// Writes a checkpoint level's meta into its directory, given what the
/// store put there.
pub(super) type WriteMeta<'m> = dyn FnMut(&Path, Stored) -> Result<(), String> + 'm;

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

    /// Checkpoints the level `depth` just completed, `frontier`, if the
    /// run keeps checkpoints: `write_meta` writes its meta into the
    /// level's directory once the store's files are there.
    fn checkpoint(
        &mut self,
        depth: usize,
        frontier: &[Part<S, W>],
        write_meta: &mut WriteMeta<'_>,
    ) -> Result<(), String>;

    /// The bytes written to and read from a folder, for a store in one.
    fn disk_io(&self) -> Option<DiskIo>;
}

/// A boxed store, borrowed for the run.
pub(super) type Store<'a, S, W> = Box<dyn LevelStore<S, W> + 'a>;
