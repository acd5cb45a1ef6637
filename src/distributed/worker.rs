//! One worker's part of the level-synchronous BFS: it owns the states
//! whose fingerprints it owns (see `word::Word::owner`), and per level
//! (a) checks its states of the level in fingerprint order, (b) below the
//! bound expands them (the engine's phase 1, `engine::Sweep`, on this
//! worker's parts of the level), sending each successor to its owner as a
//! candidate with its link (one round per batch of states, the same number of
//! rounds on every worker, so that what is in flight stays bounded), (c)
//! sends its counts and hits to every
//! worker (a second round), so that every worker adds the same totals and
//! decides the same properties, and knows whether to go on. The rules are
//! the engine's (see `engine`'s module docs): a level's counts are sums,
//! a property is decided by the smallest deciding fingerprint at the
//! shallowest depth, a state's parent is its smallest (parent
//! fingerprint, action index).

use super::chain::{walk_chains, Chain};
use super::checkpoint::{self, worker_dir, Snapshot};
use super::guard::{self, Estimate};
use super::links::LinkLevels;
use super::net::Net;
use super::outbox::Outbox;
use super::setup::{Checkpointing, Setup};
use super::shard::{Decisions, Shard};
use super::totals::LevelReport;
use super::wire::{Packet, CANDIDATES, IDENTITY, LEAF_CANDIDATES, LEVELS};
use super::word::Word;
use crate::engine::{self, predict_new, resident_bytes, LabelTally, Part, Sweep, Transitions};
use crate::engine::{EngineReport, LevelStats, StateCodec, Stopped};
use stateright::Model;
use std::hash::Hash;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Instant;
use timely::worker::Worker;

/// States a worker expands in one round: about 10 MB of candidates in
/// flight from it (at the MemTX model's ~1.7 successors a state).
const BATCH: usize = 1 << 17;

/// How the run ended.
enum End {
    Complete,
    Bounded,
    /// After `max_levels` levels, or by the memory guard.
    Stopped(Stopped),
}

/// Runs this worker's part; worker 0 returns the report, with traces.
pub(crate) fn run<M, T, W>(
    worker: &mut Worker,
    setup: &Setup<M>,
) -> Option<EngineReport<M::State, M::Action>>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Word,
{
    crate::engine::allocator::map_large_blocks();
    let mut run = WorkerRun::<M, T, W>::new(worker, setup);
    let end = loop {
        if let Some(end) = run.level(worker) {
            break end;
        }
    };
    let chains = run.chains(worker);
    run.remove_spilled_links();
    (worker.index() == 0).then(|| {
        super::report::build::<M, T, W>(
            setup,
            run.levels,
            run.decisions,
            chains,
            matches!(end, End::Complete),
            match end {
                End::Stopped(why) => Some(why),
                _ => None,
            },
            run.labels.into_counts(),
        )
    })
}

struct WorkerRun<'a, M: Model, T, W> {
    setup: &'a Setup<M>,
    net: Net<M::State, W>,
    me: usize,
    peers: usize,
    start: Instant,
    properties: Vec<stateright::Property<M>>,
    /// This worker's states of the level held, one part per shard.
    frontier: Vec<Part<M::State, W>>,
    /// The most states of the level held that any one worker holds.
    widest: u64,
    /// Per level 1, 2, …: this worker's states' (fp, parent, action), in
    /// fingerprint order, in memory or in files (`links`).
    links: LinkLevels<W>,
    levels: Vec<LevelStats>,
    /// Per label: transitions so far and the first depth (the same on
    /// every worker).
    labels: LabelTally,
    decisions: Decisions<W>,
    marker: PhantomData<fn() -> T>,
}

impl<'a, M, T, W> WorkerRun<'a, M, T, W>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Word,
{
    /// The run at level 0, or at the checkpoint it resumes.
    fn new(worker: &mut Worker, setup: &'a Setup<M>) -> Self {
        let (me, peers) = (worker.index(), worker.peers());
        let properties = setup.model.properties();
        assert!(
            properties.len() <= 64,
            "a distributed run checks at most 64 properties"
        );
        let shard = Shard::new(properties.len());
        let mut run = WorkerRun {
            widest: 0,
            net: Net::new(worker, shard),
            decisions: Decisions::new(properties.len()),
            properties,
            setup,
            me,
            peers,
            start: Instant::now(),
            frontier: Part::empty_level(),
            links: LinkLevels::Memory(Vec::new()),
            levels: Vec::new(),
            labels: LabelTally::new(T::label_names(&setup.model)),
            marker: PhantomData,
        };
        run.agree(worker);
        match &setup.checkpoint {
            Some(c) if c.resume => run.resume(worker, c),
            Some(c) => {
                // A fresh run: a part left by an older run is not ours.
                let _ = std::fs::remove_dir_all(run.dir(c));
                run.links = LinkLevels::in_dir(&run.dir(c), Vec::new());
                run.initial_level();
                run.save();
            }
            None => {
                if let Some(spill) = &setup.opts.spill_dir {
                    // Files left by a run that died are not ours.
                    let dir = run.worker_dir(spill);
                    let _ = std::fs::remove_dir_all(&dir);
                    run.links = LinkLevels::in_dir(&dir, Vec::new());
                }
                run.initial_level();
            }
        }
        run
    }

    /// Level 0: the in-boundary initial states (representatives, under a
    /// symmetry), one per fingerprint; each worker holds those it owns.
    fn initial_level(&mut self) {
        let (setup, me, peers) = (self.setup, self.me, self.peers);
        let initial = crate::engine::initial_level::<M, T, W>(&setup.model);
        let mut owned = vec![0; peers];
        for (fp, state) in &initial {
            owned[fp.owner(peers)] += 1;
            if fp.owner(peers) == me {
                self.net.shard.borrow_mut().visit(*fp);
                let codec: &dyn StateCodec<M::State> = &*setup.codec;
                self.frontier[fp.shard()].push(state, *fp, Some(codec));
            }
        }
        self.frontier.iter_mut().for_each(Part::sort);
        self.widest = owned.into_iter().max().unwrap_or(0);
        self.push_level(initial.len() as u64, 0, &[]);
    }

    /// This worker's checkpoint directory.
    fn dir(&self, c: &Checkpointing) -> PathBuf {
        self.worker_dir(&c.dir)
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

    /// Writes this worker's part of the level just completed, if asked to.
    fn save(&self) {
        let Some(c) = &self.setup.checkpoint else {
            return;
        };
        let shard = self.net.shard.borrow();
        let snapshot = Snapshot {
            depth: self.levels.len() - 1,
            levels: &self.levels,
            widest: self.widest,
            decisions: &self.decisions.0,
            labels: self.labels.counts(),
            frontier: &self.frontier,
            link_seals: self.links.seals(),
        };
        let threads = self.setup.threads;
        let part_of = [self.me / threads, self.me % threads];
        if let Err(e) =
            checkpoint::save(&self.dir(c), part_of, &c.layout, &snapshot, shard.visited())
        {
            drop(shard);
            self.abandon(e);
        }
    }

    /// A file of the run could not be written (a full disk): the links
    /// spilled so far are removed and the process ends on `error`, one
    /// line (`install_failure_hook`: exit 3, the run abandoned); the
    /// checkpoint keeps the levels it wrote whole.
    fn abandon(&self, error: String) -> ! {
        self.remove_spilled_links();
        panic!("{error}");
    }

    /// Continues from the deepest level every worker has checkpointed.
    fn resume(&mut self, worker: &mut Worker, c: &Checkpointing) {
        let dir = self.dir(c);
        let mine = crate::engine::level_files::complete_levels(&dir);
        let mut packet = Packet::new(LEVELS);
        for &depth in &mine {
            packet.u64(depth as u64);
        }
        let all = self
            .net
            .round_with_all(worker, &packet, "a process left before resuming");
        let depth = mine
            .iter()
            .rev()
            .find(|&&d| all.iter().all(|p| p.holds_u64(d as u64)))
            .unwrap_or_else(|| {
                panic!(
                    "{}: no level is checkpointed by every process (resume with the DIR each process wrote)",
                    c.dir.display()
                )
            });
        let part = checkpoint::load::<M::State, W>(&dir, *depth).unwrap_or_else(|e| panic!("{e}"));
        self.net.shard.borrow_mut().restore(part.visited);
        self.levels = part.levels;
        self.widest = part.widest;
        self.decisions = engine::Decisions(part.decisions);
        self.labels.restore(part.labels);
        self.frontier = part.frontier;
        self.links = LinkLevels::in_dir(&dir, part.link_seals);
    }

    /// Before the first level: every process must run the same command
    /// (model, bounds, threads, fingerprint width), or their levels would
    /// not add up; a difference stops the run here.
    fn agree(&mut self, worker: &mut Worker) {
        let mut mine = Packet::new(IDENTITY);
        mine.buffer()
            .extend_from_slice(self.setup.identity.as_bytes());
        let all = self
            .net
            .round_with_all(worker, &mine, "a process left before the first level");
        if let Some(other) = all.iter().find(|p| p.0 != mine.0) {
            panic!(
                "the processes were not given the same run: this one runs {:?}, another {:?}",
                self.setup.identity,
                String::from_utf8_lossy(&other.0[1..])
            );
        }
    }

    /// Counts a level and tells the progress callback (on each process's
    /// first worker).
    fn push_level(&mut self, new: u64, transitions: u64, labels: &[u64]) {
        let elapsed_ms = self.start.elapsed().as_millis() as u64;
        let stats = LevelStats::next_after(&self.levels, new, transitions, elapsed_ms);
        if self.me.is_multiple_of(self.setup.threads) {
            self.setup.opts.observer.level_done(&stats);
        }
        self.labels.add_level(stats.depth, labels);
        self.levels.push(stats);
    }

    /// Checks the level held and, below the bound, builds the next;
    /// `Some` once the run is over.
    fn level(&mut self, worker: &mut Worker) -> Option<End> {
        if self
            .setup
            .opts
            .max_levels
            .is_some_and(|k| self.levels.len() >= k)
        {
            return Some(End::Stopped(Stopped::LevelLimit));
        }
        let depth = self.levels.len() - 1;
        if self.levels[depth].new_states == 0 {
            return Some(End::Complete);
        }
        let max_depth = self.setup.opts.max_depth;
        let leaf = max_depth == Some(depth + 1);
        let mut expanding = max_depth.is_none_or(|d| depth < d);
        let mut stop = None;
        if expanding {
            stop = self.guard(worker, depth, leaf);
            // Past a memory bound the level is still checked, not expanded.
            expanding = stop.is_none();
        }
        let undecided = self.decisions.undecided(&self.properties);
        let share = self.expected_new();
        {
            let mut shard = self.net.shard.borrow_mut();
            if expanding {
                shard.prepare(share);
            }
            shard.leaf_new = 0;
            shard.leaf_best = vec![None; undecided.len()];
        }
        let frontier = std::mem::take(&mut self.frontier);
        let codec: &dyn StateCodec<M::State> = &*self.setup.codec;
        let mut sweep = Sweep::<M, T, W>::new(
            &self.setup.model,
            &self.properties,
            &undecided,
            codec,
            &frontier,
            (leaf, expanding),
        );
        let mut mine = LevelReport::empty(self.properties.len());
        let chunks = sweep.chunks();
        if expanding {
            // The same number of rounds on every worker, each expanding
            // about BATCH states: what is in flight stays bounded.
            let rounds = self.widest.div_ceil(BATCH as u64).max(1) as usize;
            let per_round = chunks.div_ceil(rounds);
            let kind = if leaf { LEAF_CANDIDATES } else { CANDIDATES };
            for round in 0..rounds {
                let range = (round * per_round).min(chunks)..((round + 1) * per_round).min(chunks);
                self.net.begin();
                let mut outbox = Outbox::new(self.peers, kind);
                sweep.expand(&frontier, range, |chunk| {
                    mine.add(chunk);
                    chunk.for_each_successor(|s| outbox.push(&mut self.net, worker, &s));
                });
                outbox.flush(&mut self.net, worker);
                self.net.end(worker);
            }
        } else {
            sweep.expand(&frontier, 0..chunks, |chunk| mine.add(chunk));
        }
        drop(sweep);
        drop(frontier);
        let (next, links) = self.net.shard.borrow_mut().take_level();
        let shard = self.net.shard.borrow();
        mine.new = if leaf {
            shard.leaf_new
        } else {
            links.len() as u64
        };
        mine.widest = mine.new;
        mine.leaf = shard.leaf_best.clone();
        drop(shard);
        let all = mine.share(&mut self.net, worker);
        let hits = all.hits.iter().map(|hit| hit.map(|fp| (fp, None)));
        self.decisions.record(depth, hits);
        if !expanding {
            return Some(stop.map_or(End::Bounded, End::Stopped));
        }
        self.push_level(all.new, all.transitions, &all.labels);
        if leaf {
            let hits = all
                .leaf
                .iter()
                .map(|hit| hit.map(|(fp, link)| (fp, Some(link))));
            self.decisions.record(depth + 1, hits);
            return Some(if all.new == 0 {
                End::Complete
            } else {
                End::Bounded
            });
        }
        if let Err(e) = self.links.push_level(vec![links]) {
            self.abandon(e);
        }
        self.frontier = next;
        self.widest = all.widest;
        self.save();
        None
    }

    /// The new states this worker expects of the next level: its share
    /// of the engine's prediction from the growth so far.
    fn expected_new(&self) -> u64 {
        predict_new(&self.levels).div_ceil(self.peers as u64)
    }

    /// With a memory bound: every worker's estimate for expanding level
    /// `depth`, and why all stop before it, if they must (see `guard`).
    fn guard(&mut self, worker: &mut Worker, depth: usize, leaf: bool) -> Option<Stopped> {
        let limit = self.setup.opts.max_memory?;
        let building = guard::building::<W>(self.links.held_in_memory());
        let visited = self.net.shard.borrow();
        let added = engine::added(
            visited.visited(),
            self.expected_new(),
            &self.frontier,
            leaf,
            building,
        );
        drop(visited);
        let mine = Estimate {
            process: (self.me / self.setup.threads) as u64,
            resident: resident_bytes(),
            added,
            limit,
        };
        let all = self
            .net
            .round_with_all(worker, &mine.packet(), "a process left the run early");
        let all: Vec<Estimate> = all.iter().map(Estimate::read).collect();
        guard::verdict(&all, depth + 1)
    }

    /// The decided properties' chains of links, walked back to level 0
    /// through their owners; worker 0 gets them all.
    fn chains(&mut self, worker: &mut Worker) -> Vec<Option<Chain<W>>> {
        walk_chains(
            &mut self.net,
            worker,
            &self.links,
            &self.decisions.0,
            self.me,
            self.peers,
        )
    }
}
