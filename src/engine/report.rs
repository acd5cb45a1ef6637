//! What a run reports: counts per level, a verdict (with a shortest
//! trace) per property, and per-label transition counts.

use super::fingerprint::collision_probability_bits;
use super::labels::LabelCount;
use super::Trace;
use stateright::Expectation;

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
    /// Milliseconds since the run started, when the level was
    /// discovered (the only non-deterministic field).
    pub elapsed_ms: u64,
}

impl LevelStats {
    /// The level after `levels` (all levels so far, from depth 0): `new`
    /// states reached by `transitions` transitions, at `elapsed_ms`.
    pub fn next_after(levels: &[LevelStats], new: u64, transitions: u64, elapsed_ms: u64) -> Self {
        let (total, total_tr) = levels
            .last()
            .map_or((0, 0), |l| (l.total_states, l.total_transitions));
        LevelStats {
            depth: levels.len(),
            new_states: new,
            total_states: total + new,
            transitions,
            total_transitions: total_tr + transitions,
            elapsed_ms,
        }
    }

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

/// Which bound the memory guard found a level would pass: the resident
/// memory `--max-memory` (or its default) allows, or the address space
/// an address-space or data-size limit (`ulimit -v`, `ulimit -d`)
/// allows, whatever `--max-memory` says: past the latter an allocation
/// fails however little of it is resident.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLimit {
    MaxMemory,
    AddressSpace,
}

/// Why a run stopped before its bound and its fixpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The memory guard: exploring level `depth` was estimated to need
    /// `needed` bytes at its peak, past the bound of `limit` bytes. The
    /// levels before it are complete and checked.
    MemoryBound {
        depth: usize,
        needed: u64,
        limit: u64,
        /// The bound it passed: `--max-memory`'s, or the address-space
        /// limit's (`needed` and `limit` are then of address space).
        by: MemoryLimit,
        /// The disk a `--disk` run of the same bound would need, as
        /// estimated from the growth so far (`None` where the run cannot
        /// tell, as across processes).
        disk_needed: Option<u64>,
    },
    /// [`super::EngineOptions::max_levels`] levels were discovered.
    LevelLimit,
    /// A file the run writes as it goes (a checkpoint's, or the parent
    /// links it spills) could not be written, a full disk most often:
    /// `error` says which and why, in one line. Level `depth` was not
    /// explored; the levels before it are complete and checked, and a
    /// checkpoint keeps the last level it wrote whole.
    WriteFailed { depth: usize, error: String },
}

/// What a `--disk` run wrote to and read from its folder, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskIo {
    pub written: u64,
    pub read: u64,
}

/// The result of a run ([`super::Engine::run`]).
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
    /// Transitions taken (docs/architecture.md, "The engine's
    /// semantics").
    pub transitions: u64,
    /// One entry per `model.properties()`, in that order.
    pub properties: Vec<PropertyResult<S, A>>,
    /// For a labelled model ([`super::Engine::labelled`]): one entry per
    /// label, in `label_names()` order. Empty for a plain model.
    pub labels: Vec<LabelCount>,
    /// Bits of the fingerprints the run stored (64 or 128).
    pub fingerprint_bits: u32,
    /// Why the run stopped early, if it did (the report then is not
    /// `complete`, and its verdicts cover the levels it lists).
    pub stopped: Option<Stopped>,
    /// A `--disk` run's bytes written and read (`None` in memory).
    pub disk_io: Option<DiskIo>,
}

impl<S, A> EngineReport<S, A> {
    /// The deepest level discovered.
    pub fn max_depth(&self) -> usize {
        self.levels.last().map_or(0, |l| l.depth)
    }

    /// [`super::collision_probability`] for this run, at the width it
    /// used.
    pub fn collision_probability(&self) -> f64 {
        collision_probability_bits(self.fingerprint_bits, self.unique_states, self.transitions)
    }

    /// The count of the label called `name`.
    pub fn label(&self, name: &str) -> Option<&LabelCount> {
        self.labels.iter().find(|l| l.name == name)
    }

    /// The verdict of the property called `name`.
    pub fn property(&self, name: &str) -> Option<&Verdict<S, A>> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.verdict)
    }
}
