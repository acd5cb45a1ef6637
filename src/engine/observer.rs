//! Watching a run: the engine tells a [`RunObserver`] of each level it
//! discovers and, within long levels, of how far the expansion has got.
//! Progress printers are observers, and so can be statistics or a UI,
//! without the engine knowing them (as shuttle's metrics wrap any
//! scheduler). Observers are called on the thread that called the engine,
//! between batches, never from the worker threads. A [`StateStream`] is
//! told of every state and transition instead, from the worker threads.

use super::report::LevelStats;
use stateright::Model;

/// Told of a run's progress; every method does nothing by default.
pub trait RunObserver: Send + Sync {
    /// A level has been discovered (level 0: the initial states).
    fn level_done(&self, _level: &LevelStats) {}

    /// At most once a second while a level is being expanded.
    fn heartbeat(&self, _progress: &LevelProgress) {}
}

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
    /// Milliseconds since the run started.
    pub elapsed_ms: u64,
}

/// Told of every state of a level the engine expands or checks at the
/// bound's edge (as it checks it) and of every transition it counts (as it
/// takes it), so a dump of the state space can be streamed rather than
/// held. Called on the worker threads; with one thread in the engine's own
/// order (each level in fingerprint order, each state's actions in
/// order), so the first transition that reaches a state comes from its
/// parent under the parent rule.
pub trait StateStream<M: Model>: Sync {
    /// A state of the level being processed (level 0 included).
    fn state(&self, _state: &M::State) {}

    /// A counted transition: within the boundary, self-loops included.
    fn transition(&self, _from: &M::State, _action: &M::Action, _to: &M::State) {}
}

/// The observer that observes nothing (the default).
pub struct Silent;

impl RunObserver for Silent {}
