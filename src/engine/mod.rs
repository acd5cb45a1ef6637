//! The exact bounded enumerator: a level-synchronous, parallel,
//! deterministic breadth-first explorer over any [`stateright::Model`].
//!
//! This module owns the public API ([`enumerate`], [`EngineOptions`],
//! [`EngineReport`], [`LevelStats`], [`PropertyResult`], [`Verdict`]); the
//! algorithm lives in `bfs`, fingerprints in [`fingerprint`], trace replay in
//! `path`, and the relation to stateright's own BFS in [`stateright_mapping`].
//!
//! # Semantics
//!
//! * **Depth** is the number of actions from an initial state. A state's depth
//!   is its shortest distance, and it is counted exactly once, at that depth.
//! * With `max_depth = Some(D)` every state reachable in ≤ D actions is
//!   discovered and checked against every property (level D included), and
//!   successors are generated from every state at depth < D, never from a
//!   state at depth D. `None` explores to the fixpoint.
//! * `transitions` of level d counts the (state at depth d−1, action) pairs
//!   for which `next_state` returned `Some` *and* the successor is within the
//!   boundary — edges to already-seen states included. Actions whose
//!   `next_state` is `None` are not transitions.
//! * **Boundary** (mirrors stateright's BFS): initial states and successors
//!   for which `Model::within_boundary` is false are discarded outright — not
//!   counted as states, not counted as transitions, not checked, not
//!   expanded.
//! * **Properties**: each state is checked once, when its level is processed.
//!   `Always` reports the shallowest violation, `Sometimes` the shallowest
//!   example; among several states of that depth the first in canonical
//!   order wins. `Eventually` is reported as [`Verdict::Unsupported`]: it is
//!   a path property that this state-based enumerator does not evaluate.
//!   Once a property is decided it is no longer evaluated (its verdict
//!   cannot change).
//! * **Determinism**: counts, verdicts and traces are identical for every
//!   thread count and run (only `elapsed_ms` varies). The canonical order of
//!   a level is: shard by shard (fingerprint bits 32..38, 64 shards), and
//!   within a shard by discovery order, i.e. (parent position in the previous
//!   level, action index). A state's parent is its first discoverer in that
//!   order.
//! * Stateright's `symmetry` is not supported (stateright's own BFS ignores
//!   it too).
//! * The level at the depth bound is never held in memory: its states are
//!   checked as they are discovered and only their fingerprints kept.
//! * Visited states are stored only as 64-bit fingerprints (plus the parent
//!   fingerprint), so distinct states with equal fingerprints would be
//!   merged; see [`collision_probability`].

mod bfs;
pub mod fingerprint;
mod path;
pub mod stateright_mapping;
#[cfg(test)]
mod tests;

pub use fingerprint::{collision_probability, collision_probability_birthday, fingerprint};
use stateright::{Expectation, Model};
use std::hash::Hash;

/// A trace in stateright's `Path` layout: the initial state with the first
/// action, …, each state with the action taken from it, and the final state
/// with `None`. States are real (recomputed by replaying the actions).
pub type Trace<S, A> = Vec<(S, Option<A>)>;

/// Progress callback, invoked once per discovered level.
pub type ProgressFn = Box<dyn Fn(&LevelStats) + Send + Sync>;

/// Heartbeat callback, invoked at most once a second while a level is
/// being expanded.
pub type HeartbeatFn = Box<dyn Fn(&LevelProgress) + Send + Sync>;

/// How far the expansion of one level has got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelProgress {
    /// The depth of the states being expanded.
    pub depth: usize,
    /// States of that level expanded so far.
    pub expanded: u64,
    /// States in that level.
    pub level_size: u64,
    /// Distinct states discovered so far, all depths.
    pub discovered: u64,
    /// Milliseconds since [`enumerate`] started.
    pub elapsed_ms: u64,
}

/// Options for [`enumerate`].
pub struct EngineOptions {
    /// Deepest level to discover (and check); `None` explores to the fixpoint.
    pub max_depth: Option<usize>,
    /// Worker threads (0 is treated as 1). Results do not depend on it.
    pub threads: usize,
    /// Stop after the first level at which an `Always` property is violated
    /// (that level is fully checked, so traces stay shortest and
    /// deterministic; the report is then not `complete`).
    pub stop_on_violation: bool,
    /// Called after each level is discovered; see
    /// [`EngineOptions::with_stderr_progress`].
    pub progress: Option<ProgressFn>,
    /// Called at most once a second during a level (long levels).
    pub heartbeat: Option<HeartbeatFn>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            max_depth: None,
            threads: 1,
            stop_on_violation: false,
            progress: None,
            heartbeat: None,
        }
    }
}

impl EngineOptions {
    /// Options exploring to depth `max_depth` with `threads` threads.
    pub fn new(max_depth: Option<usize>, threads: usize) -> Self {
        EngineOptions {
            max_depth,
            threads,
            ..Default::default()
        }
    }

    /// Print one line per level on stderr.
    pub fn with_stderr_progress(mut self) -> Self {
        self.progress = Some(Box::new(|l: &LevelStats| {
            eprintln!(
                "depth {:>4}: {:>12} new, {:>13} total states, {:>13} transitions, {:>9} ms",
                l.depth, l.new_states, l.total_states, l.total_transitions, l.elapsed_ms
            )
        }));
        self
    }
}

/// Counts for one BFS level (depth).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelStats {
    /// Number of actions from an initial state.
    pub depth: usize,
    /// States whose shortest depth is `depth`.
    pub new_states: u64,
    /// States at depth ≤ `depth`.
    pub total_states: u64,
    /// Transitions out of level `depth − 1` (0 for depth 0).
    pub transitions: u64,
    /// Transitions out of levels < `depth`.
    pub total_transitions: u64,
    /// Milliseconds since [`enumerate`] started, when the level was
    /// discovered (the only non-deterministic field).
    pub elapsed_ms: u64,
}

impl LevelStats {
    /// Every field but the timing: what must not differ between runs.
    pub fn counts(&self) -> (usize, u64, u64, u64, u64) {
        (
            self.depth,
            self.new_states,
            self.total_states,
            self.transitions,
            self.total_transitions,
        )
    }
}

/// The outcome for one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict<S, A> {
    /// `Always`: no explored state violates it (a proof only if the report
    /// is `complete`).
    Holds,
    /// `Always`: violated; `trace` is a shortest counterexample of `depth`
    /// actions.
    Violated { depth: usize, trace: Trace<S, A> },
    /// `Sometimes`: a shortest example of `depth` actions.
    Reached { depth: usize, trace: Trace<S, A> },
    /// `Sometimes`: no explored state satisfies it.
    NotReached,
    /// `Eventually`: not evaluated by this engine.
    Unsupported,
}

/// A property's name, expectation and verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyResult<S, A> {
    pub name: &'static str,
    pub expectation: Expectation,
    pub verdict: Verdict<S, A>,
}

/// The result of [`enumerate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineReport<S, A> {
    /// One entry per depth 0..=last explored depth. When the fixpoint is
    /// reached before the bound, the last entry has `new_states == 0`.
    pub levels: Vec<LevelStats>,
    /// True iff the whole reachable (in-boundary) state space was explored:
    /// some level added no new state. False when stopped by `max_depth`
    /// with a non-empty last level, or by `stop_on_violation`.
    pub complete: bool,
    /// Distinct states discovered.
    pub unique_states: u64,
    /// Transitions taken (see the module docs).
    pub transitions: u64,
    /// One entry per `model.properties()`, in that order.
    pub properties: Vec<PropertyResult<S, A>>,
}

impl<S, A> EngineReport<S, A> {
    /// The deepest level discovered.
    pub fn max_depth(&self) -> usize {
        self.levels.last().map_or(0, |l| l.depth)
    }

    /// The levels without timings, for comparing runs.
    pub fn level_counts(&self) -> Vec<(usize, u64, u64, u64, u64)> {
        self.levels.iter().map(LevelStats::counts).collect()
    }

    /// [`collision_probability`] for this run.
    pub fn collision_probability(&self) -> f64 {
        collision_probability(self.unique_states, self.transitions)
    }

    /// The verdict of the property called `name`.
    pub fn property(&self, name: &str) -> Option<&Verdict<S, A>> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.verdict)
    }
}

/// Enumerates the states of `model` breadth-first, level by level, with
/// `opts.threads` threads; see the module docs for the exact semantics.
///
/// Panics if a trace cannot be replayed, which means the model is not
/// deterministic (`init_states`/`actions`/`next_state` vary between calls)
/// or two states collided on their fingerprint.
pub fn enumerate<M>(model: &M, opts: &EngineOptions) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    bfs::run(model, opts, None)
}

/// Turns a model's states into bytes and back, so that the level waiting
/// to be expanded is held compactly; `decode(encode(s)) == s` must hold
/// for every reachable state.
pub trait StateCodec<S>: Sync {
    /// Appends the encoding of `state` to `out`.
    fn encode(&self, state: &S, out: &mut Vec<u8>);
    /// The state encoded by exactly `bytes`.
    fn decode(&self, bytes: &[u8]) -> S;
}

/// [`enumerate`], holding each level's states encoded by `codec` rather
/// than as values: same results, a fraction of the memory when states own
/// heap data.
pub fn enumerate_with_codec<M>(
    model: &M,
    codec: &dyn StateCodec<M::State>,
    opts: &EngineOptions,
) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    bfs::run(model, opts, Some(codec))
}
