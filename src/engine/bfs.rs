//! The run: the level-synchronous parallel BFS loop, as a [`Run`] object
//! whose phases are named methods.
//!
//! A level (the full states of one depth, in canonical order) is processed
//! in *batches* of consecutive states, each in two phases that run on
//! `std::thread::scope` threads: expansion (`expand`: the batch is cut into
//! contiguous chunks, claimed dynamically by the threads, each writing its
//! successors into its chunk slot, bucketed by shard) and deduplication
//! (`absorb`: the 64 shards are claimed dynamically, each consuming its
//! bucket of every chunk in chunk order). Batches bound the memory held by
//! candidates, whatever the level's width. When the next level is the last
//! one the bound allows, its states are checked as they are generated and
//! only their fingerprints kept.
//!
//! The next level is the concatenation of the shards' parts in shard
//! order. Because batches are processed in order and chunks are contiguous
//! and consumed in order, the order within a shard is (parent position,
//! action index) whatever the batch and chunk sizes, so nothing depends on
//! the thread count.

use super::chunk::{ChunkSlot, CHUNKS_PER_THREAD};
use super::decisions::Decisions;
use super::expand::MAX_PROPERTIES;
use super::fingerprint::{fingerprint, shard_of, ParentMap, NO_PARENT, SHARDS};
use super::labels::{LabelTally, Transitions};
use super::level::{Chunk, Level};
use super::part::Part;
use super::{EngineOptions, EngineReport, LevelProgress, LevelStats, StateCodec};
use stateright::{Model, Property};
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::marker::PhantomData;
use std::time::Instant;

/// Runs the engine on `model`, taking transitions as `T` says.
pub(crate) fn run<M, T>(
    model: &M,
    opts: &EngineOptions,
    codec: Option<&dyn StateCodec<M::State>>,
) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
{
    let properties = model.properties();
    let mut run = Run::<M, T>::new(model, &properties, opts, codec);
    let complete = loop {
        if let Some(complete) = run.run_level() {
            break complete;
        }
    };
    run.build_report(complete)
}

/// A run in progress: the visited set, the frontier and the level being
/// built, the counts so far.
struct Run<'a, M: Model, T> {
    model: &'a M,
    properties: &'a [Property<M>],
    opts: &'a EngineOptions,
    codec: Option<&'a dyn StateCodec<M::State>>,
    threads: usize,
    start: Instant,
    /// The visited set, sharded by fingerprint: fingerprint -> parent's.
    visited: Vec<ParentMap>,
    /// One slot per chunk of a batch.
    slots: Vec<ChunkSlot<M::State>>,
    /// The level being expanded (at `depth`) and the one being built, one
    /// part per shard; swapped at the end of each level.
    frontier: Vec<Part<M::State>>,
    next: Vec<Part<M::State>>,
    depth: usize,
    levels: Vec<LevelStats>,
    decisions: Decisions,
    labels: LabelTally,
    transitions: PhantomData<fn() -> T>,
}

/// What the expansion of one level has gathered so far.
struct Pass {
    /// Successors are generated (false at the bound, or once stopped by a
    /// violation).
    expanding: bool,
    /// The next level is the last.
    leaf: bool,
    /// Per property: position of the level's first state deciding it.
    level_hits: Vec<Option<usize>>,
    /// At the last level, per shard, per property: the fingerprint of the
    /// shard's first new state deciding it (empty otherwise).
    leaf_hits: Vec<Vec<Option<u64>>>,
    transitions: u64,
    /// Per label: transitions out of this level carrying it.
    labels: Vec<u64>,
    expanded: u64,
    last_beat: Instant,
}

impl<'a, M, T> Run<'a, M, T>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
{
    /// A run whose frontier holds level 0: the in-boundary initial states,
    /// first occurrence wins (all in part 0).
    fn new(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
    ) -> Self {
        let start = Instant::now();
        assert!(
            properties.len() <= MAX_PROPERTIES,
            "the engine checks at most {MAX_PROPERTIES} properties"
        );
        let threads = opts.threads.max(1);
        let labels = LabelTally::new(T::label_names(model));
        let mut run = Run {
            slots: (0..threads * CHUNKS_PER_THREAD)
                .map(|_| ChunkSlot::new(properties.len(), labels.len()))
                .collect(),
            visited: (0..SHARDS).map(|_| ParentMap::default()).collect(),
            frontier: (0..SHARDS).map(|_| Part::new()).collect(),
            next: (0..SHARDS).map(|_| Part::new()).collect(),
            decisions: Decisions::new(properties.len()),
            labels,
            model,
            properties,
            opts,
            codec,
            threads,
            start,
            depth: 0,
            levels: Vec::new(),
            transitions: PhantomData,
        };
        for s in model.init_states() {
            if !model.within_boundary(&s) {
                continue;
            }
            let fp = fingerprint(&s);
            if let Entry::Vacant(e) = run.visited[shard_of(fp)].entry(fp) {
                e.insert(NO_PARENT);
                run.frontier[0].push(s, fp, codec);
            }
        }
        let initial = run.frontier[0].len() as u64;
        run.push_level(initial, 0, &[]);
        run
    }

    /// Checks the frontier and, below the bound, builds the next level from
    /// it. Returns whether the run is complete once it is over, `None`
    /// while it goes on.
    fn run_level(&mut self) -> Option<bool> {
        // Taken out while the level borrows it, so that the phases can
        // borrow the run.
        let frontier = std::mem::take(&mut self.frontier);
        let undecided = self.decisions.undecided(self.properties);
        let leaf = self.opts.max_depth == Some(self.depth + 1);
        let level = Level::<M, T>::new(
            self.model,
            self.properties,
            &undecided,
            &frontier,
            self.codec,
            leaf,
            self.threads,
        );
        if level.size() == 0 {
            drop(level);
            self.frontier = frontier;
            return Some(true);
        }
        let pass = self.expand_level(&level);
        let depth = self.depth;
        self.decisions
            .record_level(depth, &pass.level_hits, |pos| level.fp_at(pos));
        drop(level);
        self.frontier = frontier;
        self.finish_level(pass)
    }

    /// The level's batches, in order, each through both phases.
    fn expand_level(&mut self, level: &Level<M, T>) -> Pass {
        let properties = self.properties.len();
        let mut pass = Pass {
            expanding: self.opts.max_depth.is_none_or(|d| self.depth < d),
            leaf: level.leaf,
            level_hits: vec![None; properties],
            leaf_hits: if level.leaf {
                vec![vec![None; properties]; SHARDS]
            } else {
                Vec::new()
            },
            transitions: 0,
            labels: vec![0; self.labels.len()],
            expanded: 0,
            last_beat: Instant::now(),
        };
        self.next.iter_mut().for_each(Part::clear);
        for batch in level.chunks().chunks(self.slots.len()) {
            self.heartbeat(&mut pass, level.size());
            self.expand_batch(level, &mut pass, batch);
            if pass.expanding {
                self.absorb_batch(level, &mut pass, batch.len());
            }
            self.slots[..batch.len()]
                .iter_mut()
                .for_each(ChunkSlot::reset);
        }
        pass
    }

    /// Tells the observer how far the level has got, if a second has passed
    /// since it was last told.
    fn heartbeat(&self, pass: &mut Pass, level_size: usize) {
        if pass.last_beat.elapsed().as_secs() < 1 {
            return;
        }
        pass.last_beat = Instant::now();
        self.opts.observer.heartbeat(&LevelProgress {
            depth: self.depth,
            expanded: pass.expanded,
            level_size: level_size as u64,
            discovered: self.visited.iter().map(|v| v.len() as u64).sum(),
            elapsed_ms: self.elapsed_ms(),
        });
    }

    /// Phase 1 on one batch (see `expand`), its counts and hits added to
    /// the pass. At a violation, with `stop_on_violation`, the rest of the
    /// level is still checked but no next level is built.
    fn expand_batch(&mut self, level: &Level<M, T>, pass: &mut Pass, batch: &[Chunk]) {
        let slots = &mut self.slots[..batch.len()];
        pass.expanded += level.expand_batch(slots, batch, pass.expanding);
        pass.add(slots);
        if self.opts.stop_on_violation && self.decisions.violated(self.properties, &pass.level_hits)
        {
            pass.expanding = false;
        }
    }

    /// Phase 2 on the first `used` slots (see `absorb`).
    fn absorb_batch(&mut self, level: &Level<M, T>, pass: &mut Pass, used: usize) {
        level.absorb_batch(
            &self.slots[..used],
            &mut self.visited,
            &mut self.next,
            &mut pass.leaf_hits,
        );
    }

    /// Ends a level. Unless the expansion was stopped, the level built
    /// becomes the frontier and is counted; at the bound the run is over.
    /// Returns whether the run is complete once it is over.
    fn finish_level(&mut self, pass: Pass) -> Option<bool> {
        if !pass.expanding {
            return Some(false);
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
        let new: usize = self.frontier.iter().map(Part::len).sum();
        self.depth += 1;
        self.push_level(new as u64, pass.transitions, &pass.labels);
        if pass.leaf {
            self.decisions.record_leaf(self.depth, &pass.leaf_hits);
            return Some(new == 0);
        }
        None
    }

    /// Counts the next level: `new` states, reached by `transitions`
    /// transitions carrying `labels` (per label), and tells the observer.
    fn push_level(&mut self, new: u64, transitions: u64, labels: &[u64]) {
        let (total, total_tr) = self
            .levels
            .last()
            .map_or((0, 0), |l| (l.total_states, l.total_transitions));
        let stats = LevelStats {
            depth: self.levels.len(),
            new_states: new,
            total_states: total + new,
            transitions,
            total_transitions: total_tr + transitions,
            elapsed_ms: self.elapsed_ms(),
        };
        self.opts.observer.level_done(&stats);
        self.labels.add_level(stats.depth, labels);
        self.levels.push(stats);
    }

    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The report: the counts, and each decided property's trace rebuilt
    /// from the visited set's parent links.
    fn build_report(self, complete: bool) -> EngineReport<M::State, M::Action> {
        let Run {
            model,
            properties,
            visited,
            frontier,
            next,
            levels,
            decisions,
            labels,
            ..
        } = self;
        // Only the parent links are needed now.
        drop(frontier);
        drop(next);
        let parent_of = |fp: u64| -> u64 {
            *visited[shard_of(fp)]
                .get(&fp)
                .expect("fingerprint on a parent chain is not in the visited set")
        };
        let properties = decisions.into_results(model, properties, parent_of);
        let last = levels.last().expect("level 0 is always present");
        EngineReport {
            unique_states: last.total_states,
            transitions: last.total_transitions,
            levels,
            complete,
            properties,
            labels: labels.into_counts(),
        }
    }
}

impl Pass {
    /// Adds a batch's output: the first hit of each property (chunks in
    /// order), its transitions and label counts.
    fn add<S>(&mut self, slots: &[ChunkSlot<S>]) {
        for (p, hit) in self.level_hits.iter_mut().enumerate() {
            if hit.is_none() {
                *hit = slots.iter().find_map(|s| s.hits[p]);
            }
        }
        self.transitions += slots.iter().map(|s| s.transitions).sum::<u64>();
        for slot in slots {
            for (total, n) in self.labels.iter_mut().zip(&slot.labels) {
                *total += n;
            }
        }
    }
}
