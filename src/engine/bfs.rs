//! The level-synchronous parallel BFS loop.
//!
//! A level (the full states of one depth, in canonical order) is processed
//! in *batches* of consecutive states, each in two phases that run on
//! `std::thread::scope` threads:
//!
//! 1. **Expand.** The batch is cut into contiguous chunks, claimed
//!    dynamically by the threads. For each state, in order: evaluate the
//!    undecided properties (remembering the first hit of each in the chunk);
//!    then, below the depth bound, generate its successors. A successor
//!    outside the boundary is dropped; otherwise it is a transition and,
//!    unless it is a self-loop (same fingerprint as its parent), becomes a
//!    candidate (fingerprint, parent position) in the chunk's bucket for the
//!    fingerprint's shard, the successor itself held beside it (encoded,
//!    when there is a codec).
//! 2. **Deduplicate.** The 64 shards are claimed dynamically by the threads.
//!    Shard `s` consumes bucket `s` of every chunk *in chunk order*,
//!    inserting each new fingerprint (with its parent's) into its part of
//!    the visited set and moving the held successor into the shard's part of
//!    the next level (a byte copy with a codec); duplicates are dropped. A
//!    shard's visited table is small enough to stay in cache while it is
//!    processed. When the next level is the last one the bound allows, its
//!    states are checked here instead and only their fingerprints kept.
//!
//! Batches bound the memory held by candidates, whatever the level's width.
//! The next level is the concatenation of the shards' parts in shard order.
//! Because batches are processed in order and chunks are contiguous and
//! consumed in order, the order within a shard is (parent position, action
//! index) whatever the batch and chunk sizes, so nothing depends on the
//! thread count.

use super::fingerprint::{fingerprint, shard_of, ParentMap, NO_PARENT, SHARDS};
use super::StateCodec;
use super::{
    path, EngineOptions, EngineReport, LevelProgress, LevelStats, PropertyResult, Verdict,
};
use stateright::{Expectation, Model, Property};
use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Instant;

/// Properties a model may have (a successor's hits at the last level are a
/// 64-bit set).
const MAX_PROPERTIES: usize = 64;
/// Frontier states per chunk.
const CHUNK_STATES: usize = if cfg!(test) { 4 } else { 1024 };
/// Chunks per thread in a batch.
const CHUNKS_PER_THREAD: usize = 16;
/// Below this many states (phase 1) or candidates (phase 2) a batch is
/// processed on the calling thread only.
const PAR_MIN: usize = if cfg!(test) { 8 } else { 1024 };

/// A successor awaiting deduplication: its fingerprint and the frontier
/// position of its parent. The successor itself waits in the chunk's
/// [`Part`] for the same shard, at the same index.
#[derive(Clone, Copy)]
struct Candidate {
    fp: u64,
    parent: u32,
    /// At the last level: the properties this successor decides (bit `p`
    /// for property `p`), evaluated when it was generated, so that it need
    /// not be held at all.
    hits: u64,
}

/// The output of one chunk; reused from batch to batch so that its buffers
/// stay allocated.
struct ChunkSlot<S> {
    /// Candidates per shard, in (frontier position, action index) order.
    buckets: Vec<Vec<Candidate>>,
    /// The candidates' states per shard (encoded when there is a codec).
    held: Vec<Part<S>>,
    /// Transitions generated from the chunk.
    transitions: u64,
    /// Per property: frontier position of the first state in the chunk that
    /// decides it.
    hits: Vec<Option<usize>>,
}

impl<S: Clone> ChunkSlot<S> {
    fn new(properties: usize) -> Self {
        ChunkSlot {
            buckets: (0..SHARDS).map(|_| Vec::new()).collect(),
            held: (0..SHARDS).map(|_| Part::new()).collect(),
            transitions: 0,
            hits: vec![None; properties],
        }
    }

    fn reset(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        self.held.iter_mut().for_each(Part::clear);
        self.transitions = 0;
        self.hits.iter_mut().for_each(|h| *h = None);
    }
}

/// One shard's part of a level (of the frontier, or of the level being
/// built). A level is its 64 parts in shard order; a state's *position* is
/// its index in that concatenation. Parts are reused from level to level so
/// their buffers stay allocated.
struct Part<S> {
    /// The states themselves, when there is no codec.
    states: Vec<S>,
    /// With a codec: the states' encodings back to back, and where each
    /// one ends.
    bytes: Vec<u8>,
    ends: Vec<u32>,
    fps: Vec<u64>,
    /// States of the last level counted but not held (not even their
    /// fingerprints, which the visited set already has).
    unheld: usize,
}

impl<S: Clone> Part<S> {
    fn new() -> Self {
        Part {
            states: Vec::new(),
            bytes: Vec::new(),
            ends: Vec::new(),
            fps: Vec::new(),
            unheld: 0,
        }
    }

    fn len(&self) -> usize {
        self.fps.len() + self.unheld
    }

    fn clear(&mut self) {
        self.states.clear();
        self.bytes.clear();
        self.ends.clear();
        self.fps.clear();
        self.unheld = 0;
    }

    fn push(&mut self, state: S, fp: u64, codec: Option<&dyn StateCodec<S>>) {
        match codec {
            None => self.states.push(state),
            Some(c) => {
                c.encode(&state, &mut self.bytes);
                let end = u32::try_from(self.bytes.len())
                    .expect("one shard of one level holds less than 4 GiB of encoded states");
                self.ends.push(end);
            }
        }
        self.fps.push(fp);
    }

    /// Appends state `i` of `from` with fingerprint `fp`, copying its
    /// encoding as it is when there is a codec.
    fn push_from(&mut self, from: &Part<S>, i: usize, fp: u64, codec: Option<&dyn StateCodec<S>>) {
        match codec {
            None => self.states.push(from.states[i].clone()),
            Some(_) => {
                let start = if i == 0 { 0 } else { from.ends[i - 1] as usize };
                self.bytes
                    .extend_from_slice(&from.bytes[start..from.ends[i] as usize]);
                let end = u32::try_from(self.bytes.len())
                    .expect("one shard of one level holds less than 4 GiB of encoded states");
                self.ends.push(end);
            }
        }
        self.fps.push(fp);
    }

    fn get(&self, i: usize, codec: Option<&dyn StateCodec<S>>) -> Cow<'_, S> {
        match codec {
            None => Cow::Borrowed(&self.states[i]),
            Some(c) => {
                let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
                Cow::Owned(c.decode(&self.bytes[start..self.ends[i] as usize]))
            }
        }
    }
}

/// Read-only context of a level: the model and the frontier.
struct Level<'a, M: Model> {
    model: &'a M,
    properties: &'a [Property<M>],
    /// Which properties still need evaluating.
    undecided: &'a [bool],
    parts: &'a [Part<M::State>],
    codec: Option<&'a dyn StateCodec<M::State>>,
    /// The next level is the last: its states are checked when generated.
    leaf: bool,
    /// `offsets[s]` = position of the first state of part `s`; one more
    /// entry holding the level's size.
    offsets: &'a [usize],
}

impl<M> Level<'_, M>
where
    M: Model,
    M::State: Hash + Clone,
    M::Action: Clone,
{
    /// The state and fingerprint at a position.
    fn locate(&self, pos: usize) -> (Cow<'_, M::State>, u64) {
        let (s, i) = self.part_of(pos);
        (self.parts[s].get(i, self.codec), self.parts[s].fps[i])
    }

    /// The fingerprint at a position.
    fn fp_at(&self, pos: usize) -> u64 {
        let (s, i) = self.part_of(pos);
        self.parts[s].fps[i]
    }

    fn part_of(&self, pos: usize) -> (usize, usize) {
        let s = self.offsets.partition_point(|&o| o <= pos) - 1;
        (s, pos - self.offsets[s])
    }

    /// The undecided properties that `state` decides, as a bit set.
    fn deciding(&self, state: &M::State) -> u64 {
        let mut hits = [None; MAX_PROPERTIES];
        self.check(state, &mut hits[..self.properties.len()], ());
        hits.iter()
            .enumerate()
            .filter(|(_, h)| h.is_some())
            .fold(0, |bits, (p, _)| bits | 1 << p)
    }

    /// The first undecided property (not yet hit in `hits`) that `state`
    /// decides, recorded at `at`.
    fn check<T: Copy>(&self, state: &M::State, hits: &mut [Option<T>], at: T) {
        for (p, prop) in self.properties.iter().enumerate() {
            if !self.undecided[p] || hits[p].is_some() {
                continue;
            }
            let holds = (prop.condition)(self.model, state);
            let hit = match prop.expectation {
                Expectation::Always => !holds,
                Expectation::Sometimes => holds,
                Expectation::Eventually => false,
            };
            if hit {
                hits[p] = Some(at);
            }
        }
    }

    /// Phase 1 on states `lo..hi` of part `s`.
    fn expand_chunk(
        &self,
        slot: &mut ChunkSlot<M::State>,
        (s, lo, hi): (usize, usize, usize),
        expand: bool,
    ) {
        let model = self.model;
        let mut actions = Vec::new();
        let part = &self.parts[s];
        for (i, k) in (self.offsets[s] + lo..).zip(lo..hi) {
            let state = part.get(k, self.codec);
            let state: &M::State = &state;
            let state_fp = part.fps[k];
            self.check(state, &mut slot.hits, i);
            if !expand {
                continue;
            }
            model.actions(state, &mut actions);
            for action in actions.drain(..) {
                let Some(next) = model.next_state(state, action) else {
                    continue;
                };
                if !model.within_boundary(&next) {
                    continue;
                }
                slot.transitions += 1;
                let fp = fingerprint(&next);
                if fp == state_fp {
                    // A self-loop (common: stuttering actions) is never new.
                    continue;
                }
                let shard = shard_of(fp);
                let parent = i as u32;
                if self.leaf {
                    let hits = self.deciding(&next);
                    slot.buckets[shard].push(Candidate { fp, parent, hits });
                } else {
                    slot.buckets[shard].push(Candidate {
                        fp,
                        parent,
                        hits: 0,
                    });
                    slot.held[shard].push(next, fp, self.codec);
                }
            }
        }
    }

    /// Phase 2 for shard `s`: consumes its buckets in chunk order, records
    /// each new fingerprint with its parent's, and moves the new states
    /// (as encoded, with a codec) into `part`; or, when the next level is
    /// the last (`leaf`), keeps only their fingerprints and records in
    /// `leaf` the fingerprint of the first new state deciding each
    /// property (from the hits evaluated in phase 1).
    fn absorb(
        &self,
        s: usize,
        visited: &mut ParentMap,
        slots: &[ChunkSlot<M::State>],
        part: &mut Part<M::State>,
        leaf: Option<&mut [Option<u64>]>,
    ) {
        let mut leaf = leaf;
        for slot in slots {
            let held = &slot.held[s];
            for (i, c) in slot.buckets[s].iter().enumerate() {
                let Entry::Vacant(e) = visited.entry(c.fp) else {
                    continue;
                };
                e.insert(self.fp_at(c.parent as usize));
                match leaf.as_deref_mut() {
                    Some(first) => {
                        for (p, slot) in first.iter_mut().enumerate() {
                            if slot.is_none() && c.hits & 1 << p != 0 {
                                *slot = Some(c.fp);
                            }
                        }
                        part.unheld += 1;
                    }
                    None => part.push_from(held, i, c.fp, self.codec),
                }
            }
        }
    }
}

/// Calls `f` on every item, on up to `threads` threads (the caller's
/// included), each claiming the next unclaimed item.
fn for_each_dynamic<T: Send>(threads: usize, items: Vec<T>, f: &(dyn Fn(T) + Sync)) {
    let threads = threads.min(items.len());
    if threads <= 1 {
        items.into_iter().for_each(f);
        return;
    }
    let queue = Mutex::new(items.into_iter());
    let work = || loop {
        let item = queue.lock().expect("work queue poisoned").next();
        match item {
            Some(item) => f(item),
            None => return,
        }
    };
    std::thread::scope(|sc| {
        let handles: Vec<_> = (1..threads).map(|_| sc.spawn(work)).collect();
        work();
        for h in handles {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        }
    });
}

pub(crate) fn run<M>(
    model: &M,
    opts: &EngineOptions,
    codec: Option<&dyn StateCodec<M::State>>,
) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    let start = Instant::now();
    let threads = opts.threads.max(1);
    let properties = model.properties();
    assert!(
        properties.len() <= MAX_PROPERTIES,
        "the engine checks at most {MAX_PROPERTIES} properties"
    );
    // Per property: (depth, fingerprint) of the state that decided it.
    let mut decided: Vec<Option<(usize, u64)>> = vec![None; properties.len()];
    // The visited set, sharded by fingerprint: fingerprint -> parent's.
    let mut visited: Vec<ParentMap> = (0..SHARDS).map(|_| ParentMap::default()).collect();
    let mut slots: Vec<ChunkSlot<M::State>> = (0..threads * CHUNKS_PER_THREAD)
        .map(|_| ChunkSlot::new(properties.len()))
        .collect();

    // Level 0: the in-boundary initial states, first occurrence wins (all
    // in part 0).
    let mut frontier: Vec<Part<M::State>> = (0..SHARDS).map(|_| Part::new()).collect();
    let mut next: Vec<Part<M::State>> = (0..SHARDS).map(|_| Part::new()).collect();
    for s in model.init_states() {
        if !model.within_boundary(&s) {
            continue;
        }
        let fp = fingerprint(&s);
        if let Entry::Vacant(e) = visited[shard_of(fp)].entry(fp) {
            e.insert(NO_PARENT);
            frontier[0].push(s, fp, codec);
        }
    }
    let mut levels = Vec::new();
    let push_level = |levels: &mut Vec<LevelStats>, new: u64, transitions: u64| {
        let (total, total_tr) = levels.last().map_or((0, 0), |l: &LevelStats| {
            (l.total_states, l.total_transitions)
        });
        let stats = LevelStats {
            depth: levels.len(),
            new_states: new,
            total_states: total + new,
            transitions,
            total_transitions: total_tr + transitions,
            elapsed_ms: start.elapsed().as_millis() as u64,
        };
        if let Some(progress) = &opts.progress {
            progress(&stats);
        }
        levels.push(stats);
    };
    push_level(&mut levels, frontier[0].len() as u64, 0);

    let mut depth = 0;
    let complete = loop {
        let mut offsets = Vec::with_capacity(SHARDS + 1);
        offsets.push(0);
        for part in &frontier {
            offsets.push(offsets.last().copied().unwrap_or(0) + part.len());
        }
        let n = offsets[SHARDS];
        if n == 0 {
            break true;
        }
        assert!(n <= u32::MAX as usize, "a level of more than 2^32 states");
        let mut expanding = opts.max_depth.is_none_or(|d| depth < d);
        // The next level is the last: check its states as they are found
        // and keep only their fingerprints.
        let leaf = opts.max_depth == Some(depth + 1);
        let mut leaf_hits: Vec<Vec<Option<u64>>> = if leaf {
            vec![vec![None; properties.len()]; SHARDS]
        } else {
            Vec::new()
        };
        let undecided: Vec<bool> = properties
            .iter()
            .zip(&decided)
            .map(|(p, d)| d.is_none() && p.expectation != Expectation::Eventually)
            .collect();
        let level = Level {
            model,
            properties: &properties,
            undecided: &undecided,
            parts: &frontier,
            codec,
            leaf,
            offsets: &offsets,
        };
        // The level's chunks, in position order, never straddling parts.
        let chunks: Vec<(usize, usize, usize)> = (0..SHARDS)
            .flat_map(|s| {
                let len = frontier[s].len();
                (0..len)
                    .step_by(CHUNK_STATES)
                    .map(move |lo| (s, lo, len.min(lo + CHUNK_STATES)))
            })
            .collect();
        next.iter_mut().for_each(Part::clear);
        let mut level_hits: Vec<Option<usize>> = vec![None; properties.len()];
        let mut transitions = 0;
        let mut expanded = 0;
        let mut last_beat = Instant::now();
        for batch in chunks.chunks(slots.len()) {
            let used = batch.len();
            let states: usize = batch.iter().map(|&(_, lo, hi)| hi - lo).sum();
            if let Some(beat) = &opts.heartbeat {
                if last_beat.elapsed().as_secs() >= 1 {
                    last_beat = Instant::now();
                    beat(&LevelProgress {
                        depth,
                        expanded,
                        level_size: n as u64,
                        discovered: visited.iter().map(|v| v.len() as u64).sum(),
                        elapsed_ms: start.elapsed().as_millis() as u64,
                    });
                }
            }
            expanded += states as u64;
            let work: Vec<_> = slots[..used].iter_mut().zip(batch).collect();
            let par = if states >= PAR_MIN { threads } else { 1 };
            let level = &level;
            for_each_dynamic(par, work, &|(slot, &chunk)| {
                level.expand_chunk(slot, chunk, expanding)
            });
            let slots_used = &slots[..used];
            for (p, hit) in level_hits.iter_mut().enumerate() {
                if hit.is_none() {
                    *hit = slots_used.iter().find_map(|s| s.hits[p]);
                }
            }
            transitions += slots_used.iter().map(|s| s.transitions).sum::<u64>();
            let violated = properties.iter().enumerate().any(|(p, prop)| {
                prop.expectation == Expectation::Always
                    && (decided[p].is_some() || level_hits[p].is_some())
            });
            if opts.stop_on_violation && violated {
                // Finish checking this level, but build no next level.
                expanding = false;
            }
            if expanding {
                let candidates: usize = slots_used
                    .iter()
                    .flat_map(|s| s.buckets.iter())
                    .map(Vec::len)
                    .sum();
                let par = if candidates >= PAR_MIN { threads } else { 1 };
                let mut leaf_parts: Vec<Option<&mut [Option<u64>]>> = if leaf {
                    leaf_hits
                        .iter_mut()
                        .map(|h| Some(h.as_mut_slice()))
                        .collect()
                } else {
                    (0..SHARDS).map(|_| None).collect()
                };
                let shards: Vec<_> = visited
                    .iter_mut()
                    .zip(next.iter_mut())
                    .zip(leaf_parts.drain(..))
                    .enumerate()
                    .collect();
                for_each_dynamic(par, shards, &|(s, ((v, part), hits))| {
                    level.absorb(s, v, slots_used, part, hits)
                });
            }
            slots[..used].iter_mut().for_each(ChunkSlot::reset);
        }
        for (slot, hit) in decided.iter_mut().zip(&level_hits) {
            if slot.is_none() {
                *slot = hit.map(|pos| (depth, level.locate(pos).1));
            }
        }
        if !expanding {
            break false;
        }
        std::mem::swap(&mut frontier, &mut next);
        let new: usize = frontier.iter().map(Part::len).sum();
        depth += 1;
        push_level(&mut levels, new as u64, transitions);
        if leaf {
            // The first state deciding each property, in canonical order:
            // the first shard with a hit, its first hit.
            for (p, slot) in decided.iter_mut().enumerate() {
                if slot.is_none() {
                    *slot = leaf_hits.iter().find_map(|h| h[p]).map(|fp| (depth, fp));
                }
            }
            break new == 0;
        }
    };
    drop(frontier);
    drop(next);

    let parent_of = |fp: u64| -> u64 {
        *visited[shard_of(fp)]
            .get(&fp)
            .expect("fingerprint on a parent chain is not in the visited set")
    };
    let results = properties
        .iter()
        .zip(&decided)
        .map(|(p, d)| {
            let verdict = match (&p.expectation, d) {
                (Expectation::Eventually, _) => Verdict::Unsupported,
                (Expectation::Always, None) => Verdict::Holds,
                (Expectation::Sometimes, None) => Verdict::NotReached,
                (e, Some((depth, fp))) => {
                    let trace = path::reconstruct(model, *fp, parent_of);
                    debug_assert_eq!(trace.len(), depth + 1);
                    if *e == Expectation::Always {
                        Verdict::Violated {
                            depth: *depth,
                            trace,
                        }
                    } else {
                        Verdict::Reached {
                            depth: *depth,
                            trace,
                        }
                    }
                }
            };
            PropertyResult {
                name: p.name,
                expectation: p.expectation.clone(),
                verdict,
            }
        })
        .collect();
    let last = levels.last().expect("level 0 is always present");
    EngineReport {
        unique_states: last.total_states,
        transitions: last.total_transitions,
        levels,
        complete,
        properties: results,
    }
}
