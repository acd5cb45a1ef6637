//! The run: the level-synchronous parallel BFS loop, as a [`Run`] object
//! whose phases are named methods.
//!
//! A level (the full states of one depth, in fingerprint order) is
//! processed in *batches* of consecutive states, each in two phases that
//! run on `std::thread::scope` threads: expansion (`expand`: the batch is
//! cut into contiguous chunks, claimed dynamically by the threads, each
//! writing its successors into its chunk slot, bucketed by shard) and
//! deduplication (`absorb`: the 64 shards are claimed dynamically, each
//! consuming its bucket of every chunk in chunk order). Batches bound the
//! memory held by candidates, whatever the level's width, and each part of
//! the frontier is freed as soon as it has been expanded, so the level
//! being built grows into the memory the frontier gives back. When the
//! next level is the last one the bound allows, its states are checked as
//! they are generated and only their fingerprints kept.
//!
//! Once built, each shard's part of the next level is sorted by
//! fingerprint and its links are stored: the next level is then in
//! fingerprint order, which is what makes a state's first discoverer its
//! smallest (see `absorb`), whatever the thread count.

use super::allocator;
use super::chunk::{ChunkSlot, CHUNKS_PER_THREAD};
use super::codec::StateCodec;
use super::decisions::Decisions;
use super::expand::MAX_PROPERTIES;
use super::fp::{Fp, SHARDS};
use super::labels::{LabelTally, TallyCounts, Transitions};
use super::level::{Chunk, Level};
use super::level_files::remove_unsealed_links;
use super::links::LinkStore;
use super::observer::{LevelProgress, StateStream};
use super::options::EngineOptions;
use super::part::Part;
use super::path::{initial_level, replay};
use super::report::{EngineReport, LevelStats, Stopped};
use super::store::{pick, Batch, Building, Found, Store};
use stateright::{Model, Property};
use std::hash::Hash;
use std::marker::PhantomData;
use std::time::Instant;

/// How a run ended.
pub(super) enum End {
    /// Some level added nothing: the whole space was explored.
    Complete,
    /// At the depth bound, or stopped by a violation.
    Bounded,
    Stopped(Stopped),
}

/// Runs the engine on `model`, taking transitions as `T` says and storing
/// fingerprints as `W`, its levels in the store the options ask for.
pub(crate) fn run<M, T, W>(
    model: &M,
    opts: &EngineOptions,
    codec: Option<&dyn StateCodec<M::State>>,
    stream: Option<&dyn StateStream<M>>,
) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    let properties = model.properties();
    let mut run = match &opts.resume {
        Some(dir) => Run::<M, T, W>::resume(model, &properties, opts, codec, dir),
        None => Run::<M, T, W>::new(model, &properties, opts, codec, pick::open(opts)),
    };
    run.stream = stream;
    run.finish().expect("a run in one process reports")
}

/// A run in progress: the frontier, the store of what was visited and of
/// the level being built, the parent links and the counts so far.
pub(crate) struct Run<'a, M: Model, T, W> {
    pub(super) model: &'a M,
    pub(super) properties: &'a [Property<M>],
    pub(super) opts: &'a EngineOptions,
    pub(super) codec: Option<&'a dyn StateCodec<M::State>>,
    /// Told of each state and transition, if anyone is.
    pub(super) stream: Option<&'a dyn StateStream<M>>,
    pub(super) threads: usize,
    pub(super) start: Instant,
    /// Where the visited states and the levels live (see `store`).
    pub(super) store: Store<'a, M::State, W>,
    /// One slot per chunk of a batch.
    pub(super) slots: Vec<ChunkSlot<M::State, W>>,
    /// The level to expand next (at `depth`), one part per shard (those
    /// the store has not made readable yet empty).
    pub(super) frontier: Vec<Part<M::State, W>>,
    pub(super) links: LinkStore,
    pub(super) depth: usize,
    pub(super) levels: Vec<LevelStats>,
    pub(super) decisions: Decisions<W>,
    pub(super) labels: LabelTally,
    /// The checkpoint of the frontier could not be written: the frontier
    /// is checked, not expanded, and the run stops on this line.
    pub(super) write_failed: Option<String>,
    pub(super) marker: PhantomData<fn() -> T>,
}

/// A completed level to continue from, as a checkpoint recorded it: its
/// depth, the counts of every level to it, the decisions and label counts
/// so far, and the level itself (the store's parts of it).
pub(crate) struct Restored<S, W> {
    pub(crate) depth: usize,
    pub(crate) levels: Vec<LevelStats>,
    pub(crate) decisions: Decisions<W>,
    pub(crate) labels: TallyCounts,
    pub(crate) frontier: Vec<Part<S, W>>,
}

/// What the expansion of one level has gathered so far.
struct Pass<W> {
    /// What it found (at the last level `leaf_hits` per shard, else
    /// empty).
    found: Found<W>,
    expanded: u64,
    last_beat: Instant,
    /// The store could not read the frontier back: the level is not
    /// complete.
    failed: Option<String>,
    /// The store could not write the candidates: the level is still
    /// checked, the next one not built.
    write_failed: Option<String>,
}

impl<'a, M, T, W> Run<'a, M, T, W>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    /// An empty run with nothing discovered yet, its levels in `store`.
    fn empty(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
        store: Store<'a, M::State, W>,
    ) -> Self {
        allocator::map_large_blocks();
        assert!(
            properties.len() <= MAX_PROPERTIES,
            "the engine checks at most {MAX_PROPERTIES} properties"
        );
        let threads = opts.threads.max(1);
        let labels = LabelTally::new(T::label_names(model));
        let folder = pick::run_folder(opts);
        assert!(
            folder.is_none() || codec.is_some(),
            "a run keeping its levels in a folder needs a state codec"
        );
        let links = match folder.or(opts.spill_dir.as_deref()) {
            Some(dir) => LinkStore::in_dir(dir, Vec::new()),
            None => LinkStore::Memory(Vec::new()),
        };
        Run {
            slots: (0..threads * CHUNKS_PER_THREAD)
                .map(|_| ChunkSlot::new(properties.len(), labels.len()))
                .collect(),
            store,
            frontier: (0..SHARDS).map(|_| Part::new()).collect(),
            decisions: Decisions::new(properties.len()),
            labels,
            links,
            model,
            properties,
            opts,
            codec,
            stream: None,
            threads,
            start: Instant::now(),
            depth: 0,
            levels: Vec::new(),
            write_failed: None,
            marker: PhantomData,
        }
    }

    /// A run whose frontier holds level 0 (the states its store owns).
    pub(crate) fn new(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
        store: Store<'a, M::State, W>,
    ) -> Self {
        let mut run = Run::empty(model, properties, opts, codec, store);
        let initial = initial_level::<M, T, W>(model);
        for (fp, s) in initial.iter().filter(|(fp, _)| run.store.owns(*fp)) {
            run.frontier[fp.shard()].push(s, *fp, codec);
        }
        run.frontier.iter_mut().for_each(Part::sort);
        run.write_failed = run.store.store_initial(&run.frontier).err();
        run.push_level(initial.len() as u64, 0, &[]);
        run.level_done();
        run
    }

    /// A run continuing from the completed level `from`, its levels in
    /// `store`.
    pub(crate) fn restored(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
        store: Store<'a, M::State, W>,
        from: Restored<M::State, W>,
    ) -> Self {
        let mut run = Run::empty(model, properties, opts, codec, store);
        run.depth = from.depth;
        run.levels = from.levels;
        run.decisions = from.decisions;
        run.labels.restore(from.labels);
        run.frontier = from.frontier;
        run
    }

    /// Runs the levels until the run is over; the report, with each
    /// decided property's trace, or `None` on a worker whose peer
    /// reports.
    pub(crate) fn finish(mut self) -> Option<EngineReport<M::State, M::Action>> {
        let end = loop {
            if let Some(end) = self.run_level() {
                break end;
            }
        };
        self.build_report(end)
    }

    /// Checks the frontier and, below the bound, builds the next level from
    /// it. Returns how the run ended once it is over, `None` while it goes
    /// on.
    fn run_level(&mut self) -> Option<End> {
        let write_failed = self.write_failed.take().map(|error| Stopped::WriteFailed {
            depth: self.depth + 1,
            error,
        });
        if write_failed.is_none() && self.opts.max_levels.is_some_and(|k| self.levels.len() >= k) {
            return Some(End::Stopped(Stopped::LevelLimit));
        }
        if self.levels.last().is_some_and(|l| l.new_states == 0) {
            return Some(write_failed.map_or(End::Complete, End::Stopped));
        }
        let frontier = std::mem::take(&mut self.frontier);
        let undecided = self.decisions.undecided(self.properties);
        let sizes = self.store.sizes(&frontier);
        let mut level = Level::<M, T, W>::new(
            self.model,
            self.properties,
            &undecided,
            &sizes,
            self.codec,
            self.opts.max_depth == Some(self.depth + 1),
            self.threads,
        );
        level.expanding = self.opts.max_depth.is_none_or(|d| self.depth < d);
        level.stream = self.stream;
        let mut stop = write_failed;
        if level.expanding && stop.is_none() {
            let at = self.building(&level);
            stop = self.store.begin_level(at, &self.levels, &frontier);
        }
        // Past the memory bound, or without its checkpoint, the level is
        // still checked, not expanded.
        level.expanding &= stop.is_none();
        let mut pass = self.expand_level(&mut level, frontier);
        if let Some(error) = pass.failed {
            // The frontier could not be read back whole: the levels before
            // it are complete and checked, this one is not.
            return Some(End::Stopped(Stopped::WriteFailed {
                depth: self.depth,
                error,
            }));
        }
        self.store.combine(self.building(&level), &mut pass.found);
        self.decisions
            .record_level(self.depth, &pass.found.level_hits);
        if let Some(error) = pass.write_failed {
            return Some(End::Stopped(Stopped::WriteFailed {
                depth: self.depth + 1,
                error,
            }));
        }
        match stop {
            Some(why) => Some(End::Stopped(why)),
            None => self.finish_level(pass, &level),
        }
    }

    /// The level's batches, in order, each through both phases; each part
    /// of the frontier is dropped once expanded.
    fn expand_level(
        &mut self,
        level: &mut Level<M, T, W>,
        mut frontier: Vec<Part<M::State, W>>,
    ) -> Pass<W> {
        let properties = self.properties.len();
        let mut pass = Pass {
            found: Found {
                level_hits: vec![None; properties],
                leaf_hits: if level.leaf {
                    vec![vec![None; properties]; SHARDS]
                } else {
                    Vec::new()
                },
                transitions: 0,
                labels: vec![0; self.labels.len()],
            },
            expanded: 0,
            last_beat: Instant::now(),
            failed: None,
            write_failed: None,
        };
        // A copy: the batches below change the level's `expanding`.
        let chunks = level.chunks.clone();
        let at = self.building(level);
        // As many batches as the store asks for (its peers' number, across
        // processes), the chunks spread evenly over them.
        let batches = if level.expanding {
            self.store.batches(at)
        } else {
            at.batches
        };
        let per = chunks.len().div_ceil(batches.max(1)).max(1);
        let mut freed = 0;
        for b in 0..batches {
            let batch = &chunks[(b * per).min(chunks.len())..((b + 1) * per).min(chunks.len())];
            self.heartbeat(&mut pass, level.size());
            if let Err(e) = self.store.load_parts(at, &mut frontier, batch) {
                pass.failed = Some(e);
                break;
            }
            self.expand_batch(level, &frontier, &mut pass, batch);
            if level.expanding {
                let batch = Batch {
                    chunks: batch,
                    slots: &self.slots[..batch.len()],
                    frontier: &frontier,
                    offsets: &level.offsets,
                };
                let absorbed = self
                    .store
                    .absorb_batch(at, &batch, &mut pass.found.leaf_hits);
                if let Err(e) = absorbed {
                    pass.write_failed = Some(e);
                    level.expanding = false;
                }
            }
            self.slots[..batch.len()]
                .iter_mut()
                .for_each(ChunkSlot::reset);
            freed = free_expanded(&mut frontier, freed, batch);
        }
        // Every part is empty now; the parts are reused for the level after.
        frontier.iter_mut().for_each(|p| *p = Part::new());
        self.frontier = frontier;
        pass
    }

    /// The level being built from the frontier, as the store is told.
    fn building(&self, level: &Level<M, T, W>) -> Building {
        Building {
            depth: self.depth,
            leaf: level.leaf,
            threads: self.threads,
            properties: self.properties.len(),
            batches: level.chunks.len().div_ceil(self.slots.len()),
        }
    }

    /// Tells the observer how far the level has got, if a second has passed
    /// since it was last told.
    fn heartbeat(&self, pass: &mut Pass<W>, level_size: u64) {
        if pass.last_beat.elapsed().as_secs() < 1 {
            return;
        }
        pass.last_beat = Instant::now();
        self.opts.observer.heartbeat(&LevelProgress {
            depth: self.depth,
            expanded: pass.expanded,
            level_size,
            discovered: self.store.discovered(),
            elapsed_ms: self.elapsed_ms(),
        });
    }

    /// Phase 1 on one batch (see `expand`), its counts and hits added to
    /// the pass. At a violation, with `stop_on_violation`, the rest of the
    /// level is still checked but no next level is built.
    fn expand_batch(
        &mut self,
        level: &mut Level<M, T, W>,
        frontier: &[Part<M::State, W>],
        pass: &mut Pass<W>,
        batch: &[Chunk],
    ) {
        let slots = &mut self.slots[..batch.len()];
        pass.expanded += level.expand_batch(frontier, slots, batch);
        pass.found.add(slots);
        if self.opts.stop_on_violation
            && self
                .decisions
                .violated(self.properties, &pass.found.level_hits)
        {
            level.expanding = false;
        }
    }

    /// Ends a level. Unless the expansion was stopped, the store makes the
    /// level built the frontier, in fingerprint order, and stores its
    /// links, and it is counted; at the bound the run is over.
    fn finish_level(&mut self, mut pass: Pass<W>, level: &Level<M, T, W>) -> Option<End> {
        if !level.expanding {
            return Some(End::Bounded);
        }
        let ended = self.store.end_level(
            self.building(level),
            &mut self.frontier,
            &mut pass.found.leaf_hits,
            &mut self.links,
        );
        match ended {
            Ok(new) => self.level_built(new, &pass, level.leaf),
            // Without its links the level cannot give traces: the run
            // ends on the levels before it, all checked.
            Err(error) => Some(End::Stopped(Stopped::WriteFailed {
                depth: self.depth + 1,
                error,
            })),
        }
    }

    /// The next level is built, with `new` states: it is counted and, at
    /// the last level, the run is over; otherwise it is complete (and
    /// checkpointed) and the run goes on.
    fn level_built(&mut self, new: u64, pass: &Pass<W>, leaf: bool) -> Option<End> {
        self.depth += 1;
        self.push_level(new, pass.found.transitions, &pass.found.labels);
        if leaf {
            self.decisions
                .record_leaf(self.depth, &pass.found.leaf_hits);
            return Some(if new == 0 {
                End::Complete
            } else {
                End::Bounded
            });
        }
        self.level_done();
        None
    }

    /// Counts the next level: `new` states, reached by `transitions`
    /// transitions carrying `labels` (per label), and tells the observer.
    fn push_level(&mut self, new: u64, transitions: u64, labels: &[u64]) {
        let stats = LevelStats::next_after(&self.levels, new, transitions, self.elapsed_ms());
        self.opts.observer.level_done(&stats);
        self.labels.add_level(stats.depth, labels);
        self.levels.push(stats);
    }

    /// A level is complete and is the frontier: checkpoint it if asked to
    /// (a failed write stops the run once the level is checked).
    fn level_done(&mut self) {
        if self.write_failed.is_none() {
            self.write_failed = self.checkpoint().err();
        }
    }

    pub(super) fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The report: the counts, and each decided property's trace rebuilt
    /// from the way back the store gives (`None` if another worker
    /// reports).
    fn build_report(self, end: End) -> Option<EngineReport<M::State, M::Action>> {
        let Run {
            model,
            properties,
            levels,
            decisions,
            labels,
            links,
            opts,
            mut store,
            ..
        } = self;
        let ways = store.ways_back(&decisions, &links);
        let properties = ways.map(|ways| {
            decisions.into_results(properties, |p, d| {
                let (start, indices) = ways[p].as_ref().expect("a decided property's way back");
                replay::<M, T, W>(model, *start, indices, d.fp)
            })
        });
        match pick::run_folder(opts) {
            None => links.remove(),
            // A level whose checkpoint failed leaves no links file behind
            // the last level written whole.
            Some(dir) => {
                remove_unsealed_links(dir);
            }
        }
        let last = levels.last().expect("level 0 is always present");
        let (complete, stopped) = match end {
            End::Complete => (true, None),
            End::Bounded => (false, None),
            End::Stopped(why) => (false, Some(why)),
        };
        Some(EngineReport {
            unique_states: last.total_states,
            transitions: last.total_transitions,
            levels,
            complete,
            properties: properties?,
            labels: labels.into_counts(),
            fingerprint_bits: 8 * W::BYTES as u32,
            stopped,
            disk_io: store.disk_io(),
        })
    }
}

/// Drops the frontier parts whose every chunk is in `batch` or earlier
/// (those before `freed` are gone already); returns the new `freed`.
fn free_expanded<S: Clone, W: Copy + Ord>(
    frontier: &mut [Part<S, W>],
    freed: usize,
    batch: &[Chunk],
) -> usize {
    let Some(&(s, _, hi)) = batch.last() else {
        return freed;
    };
    let done = if hi == frontier[s].len() { s + 1 } else { s };
    for part in &mut frontier[freed..done] {
        *part = Part::new();
    }
    done.max(freed)
}

impl<W: Copy> Found<W> {
    /// Adds a batch's output: the first hit of each property (chunks in
    /// order), its transitions and label counts.
    fn add<S>(&mut self, slots: &[ChunkSlot<S, W>]) {
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
