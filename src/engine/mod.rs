//! The exact bounded enumerator: a level-synchronous, parallel,
//! deterministic breadth-first explorer over any [`stateright::Model`].
//!
//! This module owns the one entry point, [`Engine`] (in `builder`): a
//! builder in the shape of stateright's `CheckerBuilder`,
//! `Engine::new(&model)`, then [`Engine::options`], [`Engine::codec`],
//! [`Engine::stream`], and how transitions are taken:
//! [`Engine::labelled`] for a [`LabelledModel`], [`Engine::in_place`] for a
//! model that steps into a reused state ([`StepInto`]),
//! [`Engine::symmetric`] for a [`Symmetric`] model; then [`Engine::run`].
//! Its files, one concept each (the options, the observer, labels,
//! symmetry, the report, fingerprints; the run loop `bfs` and its phases;
//! the stores of visited states and levels; links, decisions, trace
//! replay, the memory guard, checkpoints), are mapped in
//! docs/architecture.md; the relation to stateright's own BFS is in
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
//! * **Properties**: each state is checked when its level is processed;
//!   a state of the last level is checked as it is generated, once per
//!   transition reaching it, and the result counts only for the
//!   transition that finds it new (holding the last level's successors
//!   until then was measured slower; see `chunk`). `Always` reports
//!   the shallowest violation, `Sometimes` the shallowest example.
//!   `Eventually` is reported as [`Verdict::Unsupported`]: it is a path
//!   property that this state-based enumerator does not evaluate. Once a
//!   property is decided it is no longer evaluated (its verdict cannot
//!   change).
//! * **The parent rule** (order-independent, so that any engine exploring
//!   the same levels — more threads, or several processes owning shards —
//!   gives the same traces): the parent of a state is the smallest
//!   (parent fingerprint, action index) among its discoverers at its depth,
//!   where the action index is the position of the action in the parent's
//!   `actions` list; among the states deciding a property at the shallowest
//!   depth, the one with the smallest fingerprint is reported. Fingerprints
//!   compare as unsigned integers of the width used. This engine gets the
//!   rule for free: each level is held in fingerprint order, so its states
//!   are expanded in that order, and the first discoverer of a state is the
//!   smallest.
//! * **Determinism**: counts, verdicts and traces are identical for every
//!   thread count and run (only `elapsed_ms` varies), and do not depend on
//!   the order in which states are found.
//! * **Symmetry** ([`Engine::symmetric`]): states are replaced by their
//!   representatives before they are fingerprinted, so counts are of
//!   classes; traces are real traces of the unreduced model (see
//!   `symmetry`). Stateright's own `symmetry` option is not read.
//! * The level at the depth bound is never held in memory: its states are
//!   checked as they are discovered and only their fingerprints kept.
//! * **Labels** (a [`LabelledModel`] through [`Engine::labelled`]): every
//!   counted transition's label bits are counted, per label the number of
//!   transitions carrying it and the first depth at which one was taken
//!   (the depth the transition is counted under); an offered action that
//!   is no transition may carry labels of its own (an *attempt*), counted
//!   the same way but never as a transition; see `labels`.
//! * **Observer**: [`EngineOptions::observer`] is told of each level as it
//!   is discovered and, about once a second, of the progress within a level.
//! * **Stream** ([`Engine::stream`]): a [`StateStream`] is told of every
//!   state processed and every transition counted, as the run takes them.
//! * Visited states are stored only as fingerprints of 64 or 128 bits
//!   ([`EngineOptions::fingerprint`]), so distinct states with equal
//!   fingerprints would be merged; see [`collision_probability`].
//! * **Stopping early**: the memory guard ([`EngineOptions::max_memory`])
//!   stops before a level whose estimated peak passes the bound, after
//!   checking that level's states; [`EngineReport::stopped`] says so.
//! * **Checkpoints** ([`EngineOptions::checkpoint`], `resume`): a resumed
//!   run ends exactly as an uninterrupted one. A caller resuming calls
//!   [`check_resumable`] first: it refuses, in one line, a checkpoint of
//!   another run or one whose files are damaged, which a resume would
//!   otherwise end on with a panic.

mod absorb;
pub(crate) mod allocator;
mod bfs;
mod builder;
mod checkpoint;
mod chunk;
mod codec;
mod decisions;
mod disk;
mod expand;
pub mod fingerprint;
mod fp;
mod growth;
mod guard;
mod labels;
mod level;
pub(crate) mod level_files;
mod links;
mod observer;
mod options;
mod parallel;
mod part;
mod path;
mod report;
pub(crate) mod seal;
pub mod stateright_mapping;
mod store;
mod symmetry;
mod table;
#[cfg(test)]
mod tests;
mod visited;

pub(crate) use absorb::LeafHits;
pub(crate) use bfs::{Restored, Run};
pub use builder::Engine;
pub use checkpoint::{check_resumable, prepare_checkpoint, Resumable};
pub(crate) use checkpoint::{read_memory_level, save_memory_level, LevelRecord};
pub(crate) use chunk::{Hit, Successor};
pub use codec::StateCodec;
pub(crate) use decisions::{Decision, Decisions, Witness};
pub use disk::is_disk_folder;
pub use fingerprint::{
    collision_probability, collision_probability_birthday, collision_probability_birthday_bits,
    collision_probability_bits, fingerprint,
};
pub(crate) use fp::Fp;
pub use fp::{fingerprint128, FingerprintWidth};
pub(crate) use growth::predict_new;
pub use guard::default_max_memory;
pub(crate) use guard::{added, growth_over_bound, over_bound, resident_bytes, Estimate};
pub(crate) use labels::Transitions;
pub use labels::{InPlace, LabelCount, Labelled, LabelledModel, StepInto, Unlabelled, MAX_LABELS};
pub(crate) use links::{Link, LinkStore, Record};
pub use observer::{LevelProgress, RunObserver, Silent, StateStream};
pub use options::EngineOptions;
pub(crate) use part::Part;
pub(crate) use path::initial_level;
pub use report::{DiskIo, EngineReport, LevelStats, PropertyResult, Stopped, Verdict};
pub(crate) use store::{Batch, Building, Found, LevelStore, Snapshot, WaysBack, WriteMeta};
pub use symmetry::{Reduced, Symmetric};
pub(crate) use visited::Visited;

/// A trace in stateright's `Path` layout: the initial state with the first
/// action, …, each state with the action taken from it, and the final state
/// with `None`. States are real (recomputed by replaying the actions).
pub type Trace<S, A> = Vec<(S, Option<A>)>;
