//! The exact bounded enumerator: a level-synchronous, parallel,
//! deterministic breadth-first explorer over any [`stateright::Model`].
//!
//! This module owns the entry points ([`enumerate`], [`enumerate_with_codec`],
//! [`enumerate_labelled`], [`enumerate_labelled_with_codec`]). The public
//! types live one concept a file: `options` ([`EngineOptions`]), `observer`
//! ([`RunObserver`]), `labels` ([`LabelledModel`]), `report`
//! ([`EngineReport`] and its parts). The algorithm: the run loop in `bfs`,
//! its two phases in `expand` and `absorb`, on the level in `level`, stored
//! in `part`s and `chunk` slots, shared between threads by `parallel`;
//! property verdicts in `decisions`, trace replay in `path`, fingerprints in
//! [`fingerprint`](mod@fingerprint), and the relation to stateright's own BFS in
//! [`stateright_mapping`].
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
//! * **Labels** (a [`LabelledModel`] through [`enumerate_labelled`]): every
//!   counted transition's label bits are counted, per label the number of
//!   transitions carrying it and the first depth at which one was taken
//!   (the depth the transition is counted under); an offered action that
//!   is no transition may carry labels of its own (an *attempt*), counted
//!   the same way but never as a transition; see `labels`.
//! * **Observer**: [`EngineOptions::observer`] is told of each level as it
//!   is discovered and, about once a second, of the progress within a level.
//! * Visited states are stored only as 64-bit fingerprints (plus the parent
//!   fingerprint), so distinct states with equal fingerprints would be
//!   merged; see [`collision_probability`].

mod absorb;
mod bfs;
mod chunk;
mod decisions;
mod expand;
pub mod fingerprint;
mod labels;
mod level;
mod observer;
mod options;
mod parallel;
mod part;
mod path;
mod report;
pub mod stateright_mapping;
#[cfg(test)]
mod tests;

pub use fingerprint::{collision_probability, collision_probability_birthday, fingerprint};
pub use labels::{LabelCount, LabelledModel, MAX_LABELS};
pub use observer::{LevelProgress, RunObserver, Silent, StderrLevels};
pub use options::EngineOptions;
pub use report::{EngineReport, LevelStats, PropertyResult, Verdict};

use labels::{Labelled, Unlabelled};
use stateright::Model;
use std::hash::Hash;

/// A trace in stateright's `Path` layout: the initial state with the first
/// action, …, each state with the action taken from it, and the final state
/// with `None`. States are real (recomputed by replaying the actions).
pub type Trace<S, A> = Vec<(S, Option<A>)>;

/// Turns a model's states into bytes and back, so that the level waiting
/// to be expanded is held compactly; `decode(encode(s)) == s` must hold
/// for every reachable state.
pub trait StateCodec<S>: Sync {
    /// Appends the encoding of `state` to `out`.
    fn encode(&self, state: &S, out: &mut Vec<u8>);
    /// The state encoded by exactly `bytes`.
    fn decode(&self, bytes: &[u8]) -> S;
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
    bfs::run::<M, Unlabelled>(model, opts, None)
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
    bfs::run::<M, Unlabelled>(model, opts, Some(codec))
}

/// [`enumerate`] for a labelled model: the same counts, verdicts and
/// traces, and [`EngineReport::labels`] counts its transition labels.
pub fn enumerate_labelled<M>(model: &M, opts: &EngineOptions) -> EngineReport<M::State, M::Action>
where
    M: LabelledModel + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    bfs::run::<M, Labelled>(model, opts, None)
}

/// [`enumerate_labelled`], holding each level's states encoded by `codec`
/// (see [`enumerate_with_codec`]).
pub fn enumerate_labelled_with_codec<M>(
    model: &M,
    codec: &dyn StateCodec<M::State>,
    opts: &EngineOptions,
) -> EngineReport<M::State, M::Action>
where
    M: LabelledModel + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    bfs::run::<M, Labelled>(model, opts, Some(codec))
}
