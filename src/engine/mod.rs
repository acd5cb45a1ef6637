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
//! docs/architecture.md.
//!
//! What a run promises — depth, transitions, the boundary, properties,
//! the parent rule, determinism, symmetry, labels, the observer and the
//! stream, fingerprints, stopping early, checkpoints — is
//! docs/architecture.md's "The engine's semantics": one statement of it,
//! which the engine's tests (`engine/tests/`) hold it to.
//!
//! The relation to stateright's own BFS is in [`stateright_mapping`].

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
mod state_check;
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
#[cfg(test)]
pub(crate) use checkpoint::reseal_file;
pub(crate) use checkpoint::{
    check_memory_level, clear, read_memory_level, refuse_in_the_way, save_memory_level, survey,
    LevelRecord,
};
pub use checkpoint::{check_resumable, prepare_checkpoint, Resumable};
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
pub(crate) use guard::{added, growth_over_bound, over_bound, Estimate};
pub(crate) use labels::Transitions;
pub use labels::{InPlace, LabelCount, Labelled, LabelledModel, StepInto, Unlabelled, MAX_LABELS};
pub(crate) use links::{Link, LinkStore, Record};
pub use observer::{LevelProgress, RunObserver, Silent, StateStream};
pub use options::EngineOptions;
pub(crate) use part::Part;
pub(crate) use path::initial_level;
pub use report::{DiskIo, EngineReport, LevelStats, MemoryLimit, PropertyResult, Stopped, Verdict};
pub use state_check::StateCheck;
pub(crate) use store::{Batch, Building, Found, LevelStore, WaysBack, WriteMeta};
pub use symmetry::{Reduced, Symmetric};
pub(crate) use visited::Visited;

/// A trace in stateright's `Path` layout: the initial state with the first
/// action, …, each state with the action taken from it, and the final state
/// with `None`. States are real (recomputed by replaying the actions).
pub type Trace<S, A> = Vec<(S, Option<A>)>;
