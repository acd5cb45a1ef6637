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

use super::absorb::LeafHits;
use super::allocator;
use super::chunk::{ChunkSlot, Hit, CHUNKS_PER_THREAD};
use super::codec::StateCodec;
use super::decisions::{Decisions, Witness};
use super::disk::DiskLevels;
use super::expand::MAX_PROPERTIES;
use super::fp::{Fp, SHARDS};
use super::growth::predict_new;
use super::labels::{LabelTally, Transitions};
use super::level::{Chunk, Level};
use super::level_files::complete_levels;
use super::links::LinkStore;
use super::observer::{LevelProgress, StateStream};
use super::options::EngineOptions;
use super::parallel::for_each_dynamic;
use super::part::Part;
use super::path::{initial_level, reconstruct};
use super::report::{DiskIo, EngineReport, LevelStats, Stopped};
use super::visited::Visited;
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
/// fingerprints as `W`.
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
    allocator::map_large_blocks();
    let properties = model.properties();
    let mut run = match &opts.resume {
        Some(dir) => Run::<M, T, W>::resume(model, &properties, opts, codec, dir),
        None => Run::<M, T, W>::new(model, &properties, opts, codec),
    };
    run.stream = stream;
    let end = loop {
        if let Some(end) = run.run_level() {
            break end;
        }
    };
    run.build_report(end)
}

/// A run in progress: the visited set, the frontier and the level being
/// built, the parent links and the counts so far.
pub(super) struct Run<'a, M: Model, T, W> {
    pub(super) model: &'a M,
    pub(super) properties: &'a [Property<M>],
    pub(super) opts: &'a EngineOptions,
    pub(super) codec: Option<&'a dyn StateCodec<M::State>>,
    /// Told of each state and transition, if anyone is.
    pub(super) stream: Option<&'a dyn StateStream<M>>,
    pub(super) threads: usize,
    pub(super) start: Instant,
    pub(super) visited: Visited<W>,
    /// One slot per chunk of a batch.
    pub(super) slots: Vec<ChunkSlot<M::State, W>>,
    /// The level to expand next (at `depth`), one part per shard, and the
    /// parts the level after it is built in.
    pub(super) frontier: Vec<Part<M::State, W>>,
    pub(super) next: Vec<Part<M::State, W>>,
    pub(super) links: LinkStore,
    pub(super) depth: usize,
    pub(super) levels: Vec<LevelStats>,
    pub(super) decisions: Decisions<W, Witness>,
    pub(super) labels: LabelTally,
    /// A `--disk` run's folder: its visited set and levels.
    pub(super) disk: Option<DiskLevels<W>>,
    /// The checkpoint of the frontier could not be written: the frontier
    /// is checked, not expanded, and the run stops on this line.
    pub(super) write_failed: Option<String>,
    pub(super) marker: PhantomData<fn() -> T>,
}

/// What the expansion of one level has gathered so far.
struct Pass<W> {
    /// Per property: the level's first state deciding it.
    level_hits: Vec<Hit<W>>,
    /// At the last level, per shard, per property: the smallest new state
    /// deciding it (empty otherwise).
    leaf_hits: Vec<LeafHits<W>>,
    transitions: u64,
    /// Per label: transitions out of this level carrying it.
    labels: Vec<u64>,
    expanded: u64,
    last_beat: Instant,
    /// A `--disk` run's frontier could not be read back: the level is
    /// not complete.
    failed: Option<String>,
    /// A `--disk` run's candidates could not be written: the level is
    /// still checked, the next one not built.
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
    /// An empty run with nothing discovered yet.
    pub(super) fn empty(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
    ) -> Self {
        assert!(
            properties.len() <= MAX_PROPERTIES,
            "the engine checks at most {MAX_PROPERTIES} properties"
        );
        let threads = opts.threads.max(1);
        let labels = LabelTally::new(T::label_names(model));
        assert!(
            opts.disk.is_none() || codec.is_some(),
            "a --disk run needs a state codec"
        );
        let links = match (&opts.checkpoint, &opts.spill_dir) {
            _ if opts.disk.is_some() => {
                LinkStore::in_dir(opts.disk.as_deref().expect("a disk"), Vec::new())
            }
            (Some(dir), _) => LinkStore::in_dir(dir, Vec::new()),
            (None, Some(dir)) => LinkStore::in_dir(dir, Vec::new()),
            (None, None) => LinkStore::Memory(Vec::new()),
        };
        Run {
            slots: (0..threads * CHUNKS_PER_THREAD)
                .map(|_| ChunkSlot::new(properties.len(), labels.len()))
                .collect(),
            visited: Visited::new(),
            frontier: (0..SHARDS).map(|_| Part::new()).collect(),
            next: (0..SHARDS).map(|_| Part::new()).collect(),
            decisions: Decisions::new(properties.len()),
            labels,
            links,
            disk: opts
                .disk
                .as_deref()
                .map(|d| DiskLevels::new(d, opts.max_memory)),
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

    /// A run whose frontier holds level 0.
    fn new(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
    ) -> Self {
        let mut run = Run::empty(model, properties, opts, codec);
        for (fp, s) in initial_level::<M, T, W>(model) {
            run.visited.insert(fp);
            run.frontier[fp.shard()].push(&s, fp, codec);
        }
        run.frontier.iter_mut().for_each(Part::sort);
        let initial = run.visited.len();
        if let Some(disk) = &mut run.disk {
            run.write_failed = disk.store_initial(&run.frontier).err();
            run.visited = Visited::new();
        }
        run.push_level(initial, 0, &[]);
        run.level_done();
        run
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
        let frontier = std::mem::take(&mut self.frontier);
        let undecided = self.decisions.undecided(self.properties);
        let sizes: Vec<u64> = match &self.disk {
            Some(disk) => disk.sizes.clone(),
            None => frontier.iter().map(|p| p.len() as u64).collect(),
        };
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
        if level.size() == 0 {
            return Some(write_failed.map_or(End::Complete, End::Stopped));
        }
        let mut stop = write_failed;
        if level.expanding && stop.is_none() && self.disk.is_none() {
            stop = self.guard(&frontier, level.leaf);
        }
        // Past the memory bound, or without its checkpoint, the level is
        // still checked, not expanded.
        level.expanding &= stop.is_none();
        if level.expanding && self.disk.is_none() {
            self.visited
                .prepare(predict_new(&self.levels), self.threads);
        }
        let pass = self.expand_level(&mut level, frontier);
        if let Some(error) = pass.failed {
            // The frontier could not be read back whole: the levels before
            // it are complete and checked, this one is not.
            return Some(End::Stopped(Stopped::WriteFailed {
                depth: self.depth,
                error,
            }));
        }
        self.decisions.record_level(self.depth, &pass.level_hits);
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
            failed: None,
            write_failed: None,
        };
        self.next.iter_mut().for_each(Part::clear);
        let chunks = level.chunks();
        let mut freed = 0;
        for batch in chunks.chunks(self.slots.len()) {
            self.heartbeat(&mut pass, level.size());
            if let Err(e) = self.load_parts(&mut frontier, batch) {
                pass.failed = Some(e);
                break;
            }
            self.expand_batch(level, &frontier, &mut pass, batch);
            if level.expanding {
                let slots = &self.slots[..batch.len()];
                match &mut self.disk {
                    Some(disk) => {
                        if let Err(e) = disk.absorb_batch(slots, level.leaf, self.threads) {
                            disk.abandon_level();
                            pass.write_failed = Some(e);
                            level.expanding = false;
                        }
                    }
                    None => level.absorb_batch(
                        slots,
                        &mut self.visited,
                        &mut self.next,
                        &mut pass.leaf_hits,
                    ),
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

    /// In a `--disk` run, reads the frontier parts `batch` expands that
    /// are not in memory yet (each is dropped once expanded).
    fn load_parts(
        &mut self,
        frontier: &mut [Part<M::State, W>],
        batch: &[Chunk],
    ) -> Result<(), String> {
        let Some(disk) = &mut self.disk else {
            return Ok(());
        };
        for &(s, lo, _) in batch {
            if lo == 0 && frontier[s].len() == 0 && disk.sizes[s] > 0 {
                frontier[s] = disk.load_part(self.depth, s)?;
            }
        }
        Ok(())
    }

    /// The states discovered so far (of a `--disk` run: those merged).
    fn discovered(&self) -> u64 {
        match &self.disk {
            Some(disk) => disk.visited(),
            None => self.visited.len(),
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
            discovered: self.discovered(),
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
        pass.add(slots);
        if self.opts.stop_on_violation && self.decisions.violated(self.properties, &pass.level_hits)
        {
            level.expanding = false;
        }
    }

    /// Ends a level. Unless the expansion was stopped, the level built is
    /// sorted, its links stored, and it becomes the frontier and is
    /// counted; at the bound the run is over.
    fn finish_level(&mut self, pass: Pass<W>, level: &Level<M, T, W>) -> Option<End> {
        if !level.expanding {
            return Some(End::Bounded);
        }
        if self.disk.is_some() {
            return self.finish_disk_level(pass, level);
        }
        let before = self.levels.last().map_or(0, |l| l.total_states);
        let new = self.visited.len() - before;
        if !level.leaf {
            let parts: Vec<_> = self.next.iter_mut().collect();
            for_each_dynamic(self.threads, parts, &|p| p.sort());
            let links = self
                .next
                .iter_mut()
                .map(|p| std::mem::take(&mut p.links))
                .collect();
            if let Err(error) = self.links.push_level(links) {
                // Without its links the level cannot give traces: the run
                // ends on the levels before it, all checked.
                return Some(End::Stopped(Stopped::WriteFailed {
                    depth: self.depth + 1,
                    error,
                }));
            }
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.level_built(new, &pass, level.leaf)
    }

    /// [`Run::finish_level`] for a `--disk` run: the shards' merges give
    /// the new states, in the order the in-memory engine sorts them into.
    fn finish_disk_level(&mut self, mut pass: Pass<W>, level: &Level<M, T, W>) -> Option<End> {
        let disk = self.disk.as_mut().expect("a --disk run");
        let ended = disk
            .end_level(self.depth, level.leaf, self.properties.len(), self.threads)
            .and_then(|end| {
                if !level.leaf {
                    if let Err(e) = self.links.push_level_files(&end.links) {
                        // The level built goes with its links (issue 38.5).
                        disk.discard_built(self.depth + 1);
                        return Err(e);
                    }
                }
                Ok((end.new, end.leaf_hits))
            });
        let (new, hits) = match ended {
            Ok(ended) => ended,
            Err(error) => {
                return Some(End::Stopped(Stopped::WriteFailed {
                    depth: self.depth + 1,
                    error,
                }))
            }
        };
        pass.leaf_hits = hits;
        self.level_built(new, &pass, level.leaf)
    }

    /// The next level is built, with `new` states: it is counted and, at
    /// the last level, the run is over; otherwise it is complete (and
    /// checkpointed) and the run goes on.
    fn level_built(&mut self, new: u64, pass: &Pass<W>, leaf: bool) -> Option<End> {
        self.depth += 1;
        self.push_level(new, pass.transitions, &pass.labels);
        if leaf {
            self.decisions.record_leaf(self.depth, &pass.leaf_hits);
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
        if self.disk.is_some() {
            if self.write_failed.is_none() {
                self.write_failed = self.seal_disk_level().err();
            }
            return;
        }
        if let Some(dir) = &self.opts.checkpoint {
            self.write_failed = self.save_checkpoint(dir).err();
        }
    }

    pub(super) fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// The report: the counts, and each decided property's trace rebuilt
    /// from the parent links.
    fn build_report(self, end: End) -> EngineReport<M::State, M::Action> {
        let Run {
            model,
            properties,
            levels,
            decisions,
            labels,
            links,
            opts,
            disk,
            ..
        } = self;
        let properties =
            decisions.into_results(properties, |_, d| reconstruct::<M, T, W>(model, d, &links));
        match opts.disk.as_ref().or(opts.checkpoint.as_ref()) {
            None => links.remove(),
            // A level whose checkpoint failed leaves no links file behind
            // the last level written whole.
            Some(dir) => links.remove_after(complete_levels(dir).last().copied().unwrap_or(0)),
        }
        let last = levels.last().expect("level 0 is always present");
        let (complete, stopped) = match end {
            End::Complete => (true, None),
            End::Bounded => (false, None),
            End::Stopped(why) => (false, Some(why)),
        };
        EngineReport {
            unique_states: last.total_states,
            transitions: last.total_transitions,
            levels,
            complete,
            properties,
            labels: labels.into_counts(),
            fingerprint_bits: 8 * W::BYTES as u32,
            stopped,
            disk_io: disk.map(|d| DiskIo {
                written: d.written,
                read: d.read,
            }),
        }
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

impl<W: Copy> Pass<W> {
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
