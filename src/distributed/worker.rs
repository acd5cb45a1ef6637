//! One worker's part of the level-synchronous BFS: it owns the states
//! whose fingerprints it owns (see `word::Word::owner`), and per level
//! (a) checks its states of the level in fingerprint order, (b) below the
//! bound expands them, sending each successor to its owner as a candidate
//! with its link (one round per batch of states, the same number of
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
use super::frontier::Frontier;
use super::guard::{self, Estimate};
use super::links::LinkLevels;
use super::net::{Net, PACKET_BYTES};
use super::setup::{Checkpointing, Setup};
use super::shard::{decided_bits, Decisions, Link, Shard};
use super::wire::{Packet, CANDIDATES, IDENTITY, LEAF_CANDIDATES, LEVELS, STATS};
use super::word::Word;
use crate::engine::{self, decides, predict_new, resident_bytes, LabelTally, Labels};
use crate::engine::{EngineReport, LevelStats, Stopped};
use stateright::Model;
use std::hash::Hash;
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

/// What a worker found at one level: new states it owns, transitions out
/// of its states (and per label those carrying it, attempts included),
/// and per property its smallest deciding state (at the level checked,
/// and at the last level built).
struct LevelReport<W> {
    new: u64,
    /// The most new states any one worker owns (in a combined report).
    widest: u64,
    transitions: u64,
    hits: Vec<Option<W>>,
    leaf: Vec<Option<(W, Link<W>)>>,
    labels: Vec<u64>,
}

impl<W: Word> LevelReport<W> {
    fn packet(&self) -> Packet {
        let mut p = Packet::new(STATS);
        p.u64(self.new).u64(self.transitions);
        for &hit in &self.hits {
            p.maybe(hit);
        }
        for leaf in &self.leaf {
            p.maybe(leaf.map(|(fp, _)| fp));
            if let Some((_, (parent, action))) = leaf {
                p.word(*parent).u32(*action);
            }
        }
        // Last, so that their number is what is left.
        for &n in &self.labels {
            p.u64(n);
        }
        p
    }

    fn read(packet: &Packet, properties: usize) -> Self {
        let mut r = packet.body();
        let (new, transitions) = (r.u64(), r.u64());
        let widest = new;
        let hits = (0..properties).map(|_| r.maybe()).collect();
        let leaf = (0..properties)
            .map(|_| r.maybe().map(|fp| (fp, (r.word(), r.u32()))))
            .collect();
        let mut labels = Vec::new();
        while !r.is_empty() {
            labels.push(r.u64());
        }
        LevelReport {
            new,
            widest,
            transitions,
            hits,
            leaf,
            labels,
        }
    }

    /// The sums and minima of every worker's report.
    fn combine(reports: Vec<LevelReport<W>>, properties: usize) -> Self {
        let mut all = LevelReport {
            new: 0,
            widest: 0,
            transitions: 0,
            hits: vec![None; properties],
            leaf: vec![None; properties],
            labels: Vec::new(),
        };
        for r in reports {
            all.labels.resize(r.labels.len().max(all.labels.len()), 0);
            for (a, n) in all.labels.iter_mut().zip(&r.labels) {
                *a += n;
            }
            all.new += r.new;
            all.widest = all.widest.max(r.widest);
            all.transitions += r.transitions;
            for (a, h) in all.hits.iter_mut().zip(r.hits) {
                *a = min_some(*a, h);
            }
            for (a, h) in all.leaf.iter_mut().zip(r.leaf) {
                *a = min_some(*a, h);
            }
        }
        all
    }
}

fn min_some<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Runs this worker's part; worker 0 returns the report, with traces.
pub(crate) fn run<M, W>(
    worker: &mut Worker,
    setup: &Setup<M>,
) -> Option<EngineReport<M::State, M::Action>>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone,
    M::Action: Clone,
    W: Word,
{
    crate::engine::allocator::map_large_blocks();
    let mut run = WorkerRun::<M, W>::new(worker, setup);
    let end = loop {
        if let Some(end) = run.level(worker) {
            break end;
        }
    };
    let chains = run.chains(worker);
    run.remove_spilled_links();
    (worker.index() == 0).then(|| {
        super::report::build(
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

struct WorkerRun<'a, M: Model, W> {
    setup: &'a Setup<M>,
    net: Net<W>,
    me: usize,
    peers: usize,
    start: Instant,
    properties: Vec<stateright::Property<M>>,
    frontier: Frontier<W>,
    /// The most states of the level held that any one worker holds.
    widest: u64,
    /// Per level 1, 2, …: this worker's states' (fp, parent, action), in
    /// fingerprint order, in memory or in files (`links`).
    links: LinkLevels<W>,
    levels: Vec<LevelStats>,
    /// Per label: transitions so far and the first depth (the same on
    /// every worker).
    labels: LabelTally,
    /// Per label: this worker's transitions out of the level being
    /// expanded.
    level_labels: Vec<u64>,
    decisions: Decisions<W>,
}

impl<'a, M, W> WorkerRun<'a, M, W>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone,
    M::Action: Clone,
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
            frontier: Frontier::default(),
            links: LinkLevels::Memory(Vec::new()),
            levels: Vec::new(),
            labels: LabelTally::new(setup.semantics.label_names.clone()),
            level_labels: Vec::new(),
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
                if let Some(spill) = &setup.spill_dir {
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
        let initial = super::report::initial_level::<M, W>(&setup.model, setup.semantics.canonical);
        let mut owned = vec![0; peers];
        for (fp, state) in &initial {
            owned[fp.owner(peers)] += 1;
            if fp.owner(peers) == me {
                self.net.shard.borrow_mut().visit(*fp);
                let frontier = &mut self.frontier;
                let start = frontier.arena.len();
                setup.codec.encode(state, &mut frontier.arena);
                let len = (frontier.arena.len() - start) as u32;
                frontier.states.push((*fp, start, len));
            }
        }
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
        let Some(spill) = self.setup.spill_dir.as_ref() else {
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
        let mine = checkpoint::levels(&dir);
        self.net.begin();
        let mut packet = Packet::new(LEVELS);
        for &depth in &mine {
            packet.u64(depth as u64);
        }
        for dest in 0..self.peers {
            self.net.send(worker, dest, packet.clone());
        }
        let all = self.net.end(worker);
        assert_eq!(all.len(), self.peers, "a process left before resuming");
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
        let part = checkpoint::load::<W>(&dir, *depth).unwrap_or_else(|e| panic!("{e}"));
        {
            let mut shard = self.net.shard.borrow_mut();
            shard.prepare(part.visited.len() as u64);
            part.visited.iter().for_each(|&fp| shard.visit(fp));
        }
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
        self.net.begin();
        let mut mine = Packet::new(IDENTITY);
        mine.buffer()
            .extend_from_slice(self.setup.identity.as_bytes());
        for dest in 0..self.peers {
            self.net.send(worker, dest, mine.clone());
        }
        let all = self.net.end(worker);
        assert_eq!(
            all.len(),
            self.peers,
            "a process left before the first level"
        );
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
            if let Some(progress) = &self.setup.progress {
                progress(&stats);
            }
        }
        self.labels.add_level(stats.depth, labels);
        self.levels.push(stats);
    }

    /// Checks the level held and, below the bound, builds the next;
    /// `Some` once the run is over.
    fn level(&mut self, worker: &mut Worker) -> Option<End> {
        if self
            .setup
            .max_levels
            .is_some_and(|k| self.levels.len() >= k)
        {
            return Some(End::Stopped(Stopped::LevelLimit));
        }
        let depth = self.levels.len() - 1;
        if self.levels[depth].new_states == 0 {
            return Some(End::Complete);
        }
        let max_depth = self.setup.max_depth;
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
        let mut hits = vec![None; undecided.len()];
        let mut transitions = 0;
        if expanding {
            // The same number of rounds on every worker, each expanding at
            // most BATCH states: what is in flight stays bounded.
            let batches = self.widest.div_ceil(BATCH as u64).max(1) as usize;
            for b in 0..batches {
                let lo = (b * BATCH).min(frontier.states.len());
                let hi = ((b + 1) * BATCH).min(frontier.states.len());
                self.net.begin();
                transitions +=
                    self.expand(worker, &frontier, lo..hi, &undecided, Some(leaf), &mut hits);
                self.net.end(worker);
            }
        } else {
            let all = 0..frontier.states.len();
            self.expand(worker, &frontier, all, &undecided, None, &mut hits);
        }
        drop(frontier);
        let (next, arena) = self.net.shard.borrow_mut().take_level();
        let (leaf_new, leaf_best) = {
            let shard = self.net.shard.borrow();
            (shard.leaf_new, shard.leaf_best.clone())
        };
        let new = if leaf { leaf_new } else { next.len() as u64 };
        let mine = LevelReport {
            new,
            widest: new,
            transitions,
            hits,
            leaf: leaf_best,
            labels: std::mem::take(&mut self.level_labels),
        };
        let all = self.share(worker, mine);
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
        let links = next.iter().map(|s| (s.fp, (s.parent, s.action))).collect();
        if let Err(e) = self.links.push_level(vec![links]) {
            self.abandon(e);
        }
        self.frontier = Frontier {
            states: next.iter().map(|s| (s.fp, s.start, s.len)).collect(),
            arena,
        };
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
        let limit = self.setup.max_memory?;
        let share = self.expected_new();
        let (now, after) = self.net.shard.borrow().visited_bytes(share);
        let mine = Estimate {
            process: (self.me / self.setup.threads) as u64,
            resident: resident_bytes(),
            added: guard::added(
                after.saturating_sub(now),
                &self.frontier,
                share,
                leaf,
                self.links.held_in_memory(),
            ),
            limit,
        };
        self.net.begin();
        let packet = mine.packet();
        for dest in 0..self.peers {
            self.net.send(worker, dest, packet.clone());
        }
        let all: Vec<Estimate> = self.net.end(worker).iter().map(Estimate::read).collect();
        assert_eq!(all.len(), self.peers, "a process left the run early");
        guard::verdict(&all, depth + 1)
    }

    /// Checks the states `range` of `frontier` (in fingerprint order, and
    /// ranges in order, so the first hit of a property in `hits` is this
    /// worker's smallest) and, when expanding (`Some(leaf)`), sends their
    /// successors to their owners: encoded, or checked when they are of
    /// the last level (`leaf`, `wire::LEAF_CANDIDATES`). Returns the
    /// transitions taken.
    fn expand(
        &mut self,
        worker: &mut Worker,
        frontier: &Frontier<W>,
        range: std::ops::Range<usize>,
        undecided: &[bool],
        expanding: Option<bool>,
        hits: &mut [Option<W>],
    ) -> u64 {
        let model = &*self.setup.model;
        let codec = &*self.setup.codec;
        let mut transitions = 0;
        let semantics = &self.setup.semantics;
        let labels = &mut self.level_labels;
        labels.resize(semantics.label_names.len(), 0);
        let leaf = expanding == Some(true);
        let kind = if leaf { LEAF_CANDIDATES } else { CANDIDATES };
        let mut out: Vec<Packet> = (0..self.peers).map(|_| Packet::new(kind)).collect();
        let mut actions = Vec::new();
        // Each frontier state is decoded into one state, and each
        // successor written into another, both reused (as in the engine).
        let (mut decoded, mut successor): (Option<M::State>, Option<M::State>) = (None, None);
        for &(fp, start, len) in &frontier.states[range] {
            let bytes = &frontier.arena[start..start + len as usize];
            let state = codec.decode_reusing(bytes, &mut decoded);
            for (p, prop) in self.properties.iter().enumerate() {
                if undecided[p] && hits[p].is_none() && decides(prop, model, state) {
                    hits[p] = Some(fp);
                }
            }
            if expanding.is_none() {
                continue;
            }
            model.actions(state, &mut actions);
            let next = successor.get_or_insert_with(|| state.clone());
            for (a, action) in actions.drain(..).enumerate() {
                let label = match (semantics.attempt)(model, state, action, next) {
                    Ok(label) => label,
                    Err(attempt) => {
                        // Not a transition; a labelled attempt still
                        // counts (as in the engine).
                        attempt.count_into(labels);
                        continue;
                    }
                };
                if semantics.reduced {
                    *next = (semantics.canonical)(model, next.clone());
                }
                let next = &*next;
                if !model.within_boundary(next) {
                    continue;
                }
                transitions += 1;
                label.count_into(labels);
                let next_fp = W::of(next);
                // A self-loop is never new (as in the engine).
                if next_fp == fp {
                    continue;
                }
                let dest = next_fp.owner(self.peers);
                let packet = &mut out[dest];
                packet.word(next_fp).word(fp).u32(a as u32);
                if leaf {
                    packet.u64(decided_bits(&self.properties, undecided, model, next));
                } else {
                    let at = packet.buffer().len();
                    packet.u32(0);
                    codec.encode(next, packet.buffer());
                    let len = (packet.buffer().len() - at - 4) as u32;
                    packet.buffer()[at..at + 4].copy_from_slice(&len.to_le_bytes());
                }
                if packet.len() >= PACKET_BYTES {
                    let full = std::mem::replace(packet, Packet::new(kind));
                    self.net.send(worker, dest, full);
                }
            }
        }
        for (dest, packet) in out.into_iter().enumerate() {
            if packet.len() > 0 {
                self.net.send(worker, dest, packet);
            }
        }
        transitions
    }

    /// Sends this worker's report of the level to every worker and
    /// combines everyone's: the same totals on every worker.
    fn share(&mut self, worker: &mut Worker, mine: LevelReport<W>) -> LevelReport<W> {
        self.net.begin();
        let packet = mine.packet();
        for dest in 0..self.peers {
            self.net.send(worker, dest, packet.clone());
        }
        let packets = self.net.end(worker);
        // A process that stopped early (it was given another bound) would
        // leave the totals short.
        assert_eq!(
            packets.len(),
            self.peers,
            "a process left the run early (were all given the same command?)"
        );
        let reports = packets
            .iter()
            .map(|p| LevelReport::read(p, self.properties.len()))
            .collect();
        LevelReport::combine(reports, self.properties.len())
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
