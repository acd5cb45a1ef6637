//! The level store across processes (the third behind the engine's
//! `LevelStore`, beside memory and disk): a worker keeps the states whose
//! fingerprints it owns (`word::Word::owner`) — its share of the visited
//! set and of each level (`shard`) — and its parent links, by fingerprint
//! (`links`). A batch's successors go to their owners as candidates
//! (`outbox`), one exchange round per batch, the same number of rounds on
//! every worker so that what is in flight stays bounded; after the level
//! every worker sends its counts and hits to every worker (`totals`), so
//! that all add the same totals, decide the same properties and go on or
//! stop together. Before a level one round agrees on its batches and
//! judges the memory guard (`guard`); the way back to a deciding state
//! takes a round a hop (`chain`); the checkpoint is the worker's own part
//! (`checkpoint`).

use super::chain::walk_chains;
use super::checkpoint::{self, worker_dir, SavedPart};
use super::guard::{self, Estimate};
use super::links::LinkLevels;
use super::net::Net;
use super::outbox::Outbox;
use super::parts::no_common_level;
use super::setup::{Checkpointing, Setup};
use super::shard::Shard;
use super::totals::LevelReport;
use super::wire::{Packet, CANDIDATES, IDENTITY, LEAF_CANDIDATES, LEVELS};
use super::word::Word;
use super::BadInput;
use crate::engine::level_files::remove_unsealed_links;
use crate::engine::{self, predict_new, Batch, Building, Decisions};
use crate::engine::{Found, LevelRecord, LevelStats, LevelStore, Link, LinkStore, Part, Restored};
use crate::engine::{Stopped, Transitions, WaysBack, WriteMeta};
use stateright::Model;
use std::hash::Hash;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use timely::worker::Worker;

/// One worker's store (see the module docs).
pub(crate) struct Peers<'w, M: Model, T, W> {
    worker: &'w mut Worker,
    setup: &'w Setup<M>,
    net: Net<M::State, W>,
    me: usize,
    peers: usize,
    /// Per level 1, 2, …: this worker's states' (fp, parent, action), in
    /// fingerprint order, in memory or in files (`links`).
    links: LinkLevels<W>,
    /// The batches every worker expands the level being built in.
    rounds: usize,
    /// The new states of the level being built: every worker's, once
    /// combined.
    new: u64,
    /// Per property: the parent of the last level's deciding state, by
    /// fingerprint (the engine's witness has its action; its parent's
    /// position is another worker's and is not read).
    leaf_parents: Vec<Option<W>>,
    marker: PhantomData<fn() -> T>,
}

impl<'w, M, T, W> Peers<'w, M, T, W>
where
    M: Model,
    M::State: Hash + Clone + 'static,
    T: Transitions<M>,
    W: Word,
{
    /// The store of worker `worker`, for a model of `properties`
    /// properties.
    pub(crate) fn new(worker: &'w mut Worker, setup: &'w Setup<M>, properties: usize) -> Self {
        let (me, peers) = (worker.index(), worker.peers());
        Peers {
            net: Net::new(worker, Shard::new(properties)),
            worker,
            setup,
            me,
            peers,
            links: LinkLevels::Memory(Vec::new()),
            rounds: 0,
            new: 0,
            leaf_parents: vec![None; properties],
            marker: PhantomData,
        }
    }

    /// Before the first level: every process must run the same command
    /// (model, bounds, threads, fingerprint width), or their levels would
    /// not add up; a difference stops the run here.
    pub(crate) fn agree(&mut self) {
        let mut mine = Packet::new(IDENTITY);
        mine.buffer()
            .extend_from_slice(self.setup.identity.as_bytes());
        let all =
            self.net
                .round_with_all(self.worker, &mine, "a process left before the first level");
        if let Some(other) = all.iter().find(|p| p.0 != mine.0) {
            panic!(
                "the processes were not given the same run: this one runs {:?}, another {:?}",
                self.setup.identity,
                String::from_utf8_lossy(&other.0[1..])
            );
        }
    }

    /// A fresh run: its links go into this worker's directory, which
    /// the command made ready by name before connecting (an older run's
    /// files of the same run cleared, anything else refused:
    /// `distributed::parts`).
    pub(crate) fn start_afresh(&mut self) {
        if let Some(dir) = self.dir() {
            self.links = LinkLevels::in_dir(&dir, Vec::new());
        }
    }

    /// Continues from the deepest level every worker has checkpointed.
    pub(crate) fn resume(&mut self, c: &Checkpointing) -> Restored<M::State, W> {
        let dir = self.worker_dir(&c.dir);
        let mine = crate::engine::level_files::complete_levels(&dir);
        let mut packet = Packet::new(LEVELS);
        for &depth in &mine {
            packet.u64(depth as u64);
        }
        let all = self
            .net
            .round_with_all(self.worker, &packet, "a process left before resuming");
        let depth = mine
            .iter()
            .rev()
            .find(|&&d| all.iter().all(|p| p.holds_u64(d as u64)))
            // Bad input, found only now if the parts are on machines that
            // do not see each other's (exit 2, not 3).
            .unwrap_or_else(|| std::panic::panic_any(BadInput(no_common_level(&c.dir))));
        let SavedPart {
            restored,
            visited,
            link_seals,
        } = checkpoint::load::<M::State, W>(&dir, *depth).unwrap_or_else(|e| panic!("{e}"));
        self.net.shard.borrow_mut().restore(visited);
        self.links = LinkLevels::in_dir(&dir, link_seals);
        restored
    }

    /// Where this worker keeps its files: its part of the checkpoint, or
    /// without one its folder under the spill folder, if there is one.
    fn dir(&self) -> Option<PathBuf> {
        match (&self.setup.checkpoint, &self.setup.opts.spill_dir) {
            (Some(c), _) => Some(self.worker_dir(&c.dir)),
            (None, Some(spill)) => Some(self.worker_dir(spill)),
            (None, None) => None,
        }
    }

    /// This worker's directory under `dir` (`process-I/worker-J`).
    fn worker_dir(&self, dir: &Path) -> PathBuf {
        let threads = self.setup.threads;
        worker_dir(dir, self.me / threads, self.me % threads)
    }

    /// Removes the links spilled under the spill folder, and the folders
    /// they leave empty (a checkpoint's are kept).
    fn remove_spilled_links(&self) {
        let Some(spill) = self.setup.opts.spill_dir.as_ref() else {
            return;
        };
        if self.setup.checkpoint.is_some() {
            return;
        }
        self.links.remove();
        let process = self.worker_dir(spill);
        for dir in process.ancestors().skip(1).take(2) {
            let _ = std::fs::remove_dir(dir);
        }
    }

    /// A file of the run could not be written (a full disk): the links
    /// spilled so far are removed and the process ends on `error`, one
    /// line (`install_failure_hook`: exit 3, the run abandoned); the
    /// checkpoint keeps the levels it wrote whole, and no links file past
    /// them (as a plain run's). (Its peers could not go on without it.)
    fn abandon(&self, error: String) -> ! {
        self.remove_spilled_links();
        if let Some(c) = &self.setup.checkpoint {
            remove_unsealed_links(&self.worker_dir(&c.dir));
        }
        panic!("{error}");
    }

    /// Before building the level after `at.depth`, expecting `expected`
    /// new states: one round in which every worker sends its batches and
    /// its estimate of what the level adds to its process's memory (see
    /// `guard`). The most batches any worker takes, and why all stop
    /// before the level, if one process would pass its bound.
    fn agree_level(
        &mut self,
        at: Building,
        expected: u64,
        frontier: &[Part<M::State, W>],
    ) -> (usize, Option<Stopped>) {
        let building = guard::building::<W>(self.links.held_in_memory());
        let shard = self.net.shard.borrow();
        let added = engine::added(shard.visited(), expected, frontier, at.leaf, building);
        drop(shard);
        // Without --max-memory, only the address-space limit bounds it.
        let mine = Estimate {
            process: (self.me / self.setup.threads) as u64,
            ..Estimate::here(added, self.setup.opts.max_memory, self.setup.threads)
        };
        let packet = mine.packet(at.batches);
        let gone = "a process left the run early";
        let all = self.net.round_with_all(self.worker, &packet, gone);
        let (all, batches): (Vec<Estimate>, Vec<usize>) = all.iter().map(Estimate::read).unzip();
        let most = batches.into_iter().max().unwrap_or(at.batches);
        (most, guard::verdict(&all, at.depth + 1))
    }
}

impl<M, T, W> LevelStore<M::State, W> for Peers<'_, M, T, W>
where
    M: Model,
    M::State: Hash + Clone + 'static,
    T: Transitions<M>,
    W: Word,
{
    fn owns(&self, fp: W) -> bool {
        fp.owner(self.peers) == self.me
    }

    fn store_initial(&mut self, frontier: &[Part<M::State, W>]) -> Result<(), String> {
        let mut shard = self.net.shard.borrow_mut();
        frontier
            .iter()
            .flat_map(|p| &p.fps)
            .for_each(|&fp| shard.visit(fp));
        Ok(())
    }

    fn discovered(&self) -> u64 {
        self.net.shard.borrow().visited().len()
    }

    fn begin_level(
        &mut self,
        at: Building,
        levels: &[LevelStats],
        frontier: &[Part<M::State, W>],
    ) -> Option<Stopped> {
        // This worker's share of the engine's prediction from the growth
        // so far.
        let expected = predict_new(levels).div_ceil(self.peers as u64);
        let (rounds, stop) = self.agree_level(at, expected, frontier);
        if stop.is_some() {
            return stop;
        }
        self.rounds = rounds;
        let mut shard = self.net.shard.borrow_mut();
        shard.prepare(expected);
        shard.leaf_new = 0;
        shard.leaf_best = vec![None; at.properties];
        None
    }

    fn batches(&self, _: Building) -> usize {
        self.rounds
    }

    fn absorb_batch(
        &mut self,
        at: Building,
        batch: &Batch<'_, M::State, W>,
        _: &mut [engine::LeafHits<W>],
    ) -> Result<(), String> {
        let (net, worker) = (&mut self.net, &mut *self.worker);
        net.begin();
        let kind = if at.leaf { LEAF_CANDIDATES } else { CANDIDATES };
        let mut outbox = Outbox::new(self.peers, kind);
        for (&(s, _, _), slot) in batch.chunks.iter().zip(batch.slots) {
            let parents = &batch.frontier[s].fps;
            slot.for_each_successor(parents, batch.offsets[s], |c| outbox.push(net, worker, &c));
        }
        outbox.flush(net, worker);
        net.end(worker);
        Ok(())
    }

    fn combine(&mut self, at: Building, found: &mut Found<W>) {
        let shard = self.net.shard.borrow();
        let mine = LevelReport {
            new: if at.leaf {
                shard.leaf_new
            } else {
                shard.held()
            },
            transitions: found.transitions,
            hits: found.level_hits.clone(),
            leaf: shard.leaf_best.clone(),
            labels: found.labels.clone(),
        };
        drop(shard);
        let all = mine.share(&mut self.net, self.worker);
        self.new = all.new;
        found.transitions = all.transitions;
        found.labels = all.labels;
        found.level_hits = all.hits;
        if at.leaf {
            // One "shard": the smallest of every worker's. Its parent is
            // another worker's state, named by fingerprint in
            // `leaf_parents`; the link's position is not read.
            let witness = |&(fp, (_, action)): &(W, (W, u32))| {
                (
                    fp,
                    Link {
                        parent: u32::MAX,
                        action,
                    },
                )
            };
            found.leaf_hits = vec![all.leaf.iter().map(|l| l.as_ref().map(witness)).collect()];
            self.leaf_parents = all
                .leaf
                .iter()
                .map(|l| l.map(|(_, (parent, _))| parent))
                .collect();
        }
    }

    fn end_level(
        &mut self,
        at: Building,
        frontier: &mut Vec<Part<M::State, W>>,
        _: &mut Vec<engine::LeafHits<W>>,
        _: &mut LinkStore,
    ) -> Result<u64, String> {
        if !at.leaf {
            let (next, links) = self.net.shard.borrow_mut().take_level();
            if let Err(e) = self.links.push_level(vec![links]) {
                self.abandon(e);
            }
            *frontier = next;
        }
        Ok(self.new)
    }

    fn checkpoint(
        &mut self,
        record: &LevelRecord,
        frontier: &[Part<M::State, W>],
        _: &mut WriteMeta<'_>,
    ) -> Result<(), String> {
        let Some(c) = &self.setup.checkpoint else {
            return Ok(());
        };
        // The run's record, with this worker's links files.
        let mut record = record.clone();
        record.seals.links = self.links.seals().to_vec();
        let threads = self.setup.threads;
        let part_of = [self.me / threads, self.me % threads];
        let dir = self.worker_dir(&c.dir);
        let shard = self.net.shard.borrow();
        let saved = checkpoint::save(&dir, part_of, &c.layout, record, frontier, shard.visited());
        drop(shard);
        saved.unwrap_or_else(|e| self.abandon(e));
        Ok(())
    }

    /// The decided properties' chains of links, walked back to level 0
    /// through their owners; worker 0 gets them all.
    fn ways_back(&mut self, decisions: &Decisions<W>, _: &LinkStore) -> Option<WaysBack> {
        let chains = walk_chains(
            &mut self.net,
            self.worker,
            &self.links,
            decisions,
            &self.leaf_parents,
            self.me,
            self.peers,
        );
        self.remove_spilled_links();
        if self.me != 0 {
            return None;
        }
        let initial = engine::initial_level::<M, T, W>(&self.setup.model);
        let way = |chain: &super::chain::Chain<W>| {
            let start = initial.iter().position(|&(fp, _)| fp == chain.fp).expect(
                "trace replay: the initial state recorded is gone (non-deterministic model?)",
            );
            (start, chain.actions.iter().rev().copied().collect())
        };
        Some(chains.iter().map(|c| c.as_ref().map(way)).collect())
    }
}
