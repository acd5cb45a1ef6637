//! How to run the engine: the depth bound, the threads, whether to stop at
//! the first violation, who watches, the fingerprint width, where parent
//! links go, the memory bound, checkpoints, and a run kept on disk.

use super::fp::FingerprintWidth;
use super::observer::{RunObserver, Silent};
use std::path::PathBuf;

/// Options for a run ([`super::Engine::options`]): plain data, which the
/// command line's plans build.
pub struct EngineOptions {
    /// Deepest level to discover (and check); `None` explores to the fixpoint.
    pub max_depth: Option<usize>,
    /// Worker threads (0 is treated as 1). Results do not depend on it.
    pub threads: usize,
    /// Stop after the first level at which an `Always` property is violated
    /// (that level is fully checked, so traces stay shortest and
    /// deterministic; the report is then not `complete`).
    pub stop_on_violation: bool,
    /// Told of each level and, within long levels, of progress (by default
    /// [`Silent`]).
    pub observer: Box<dyn RunObserver>,
    /// Bits of the stored fingerprints (see [`FingerprintWidth`]).
    pub fingerprint: FingerprintWidth,
    /// Where parent links are spilled, one file per level (removed at the
    /// end of the run); `None` keeps them in memory. With a checkpoint
    /// they go to the checkpoint directory instead.
    pub spill_dir: Option<PathBuf>,
    /// The memory guard's bound in bytes: before a level whose estimated
    /// peak would pass it, the run stops ([`super::Stopped::MemoryBound`]).
    pub max_memory: Option<u64>,
    /// Write a checkpoint into this directory after each completed level.
    pub checkpoint: Option<PathBuf>,
    /// Continue from the last complete level checkpointed in this
    /// directory (which must name the same model and bounds).
    pub resume: Option<PathBuf>,
    /// What the run explores, as the caller names it (e.g. a hash of the
    /// model's configuration): written into checkpoints, and compared on
    /// resume. The bounds and fingerprint width are compared as well.
    pub identity: String,
    /// Identities of runs that differ from this one in one setting the
    /// user chooses, each with the line naming that setting: a checkpoint
    /// of one is refused with its line, not as of "another model or
    /// bounds" (the check gives the identity of its `--symmetry` turned).
    pub near_identities: Vec<(String, String)>,
    /// Stop after this many levels have been discovered (level 0
    /// included), as an interruption would ([`super::Stopped::LevelLimit`]).
    pub max_levels: Option<usize>,
    /// Keep the visited set and the levels in this directory, not in
    /// memory (a `--disk` run, see `disk`): memory then holds a batch of
    /// candidates, sized from `max_memory`, whatever the state count, and
    /// the directory is the run's checkpoint (`resume` it to continue).
    /// Needs a codec; `checkpoint` and `spill_dir` are not read.
    pub disk: Option<PathBuf>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            max_depth: None,
            threads: 1,
            stop_on_violation: false,
            observer: Box::new(Silent),
            fingerprint: FingerprintWidth::Bits64,
            spill_dir: None,
            max_memory: None,
            checkpoint: None,
            resume: None,
            identity: String::new(),
            near_identities: Vec::new(),
            max_levels: None,
            disk: None,
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

    /// The options a checkpoint made with these is named and judged by
    /// (its fingerprints, and where its levels are kept), the rest the
    /// defaults.
    pub fn probe(&self) -> EngineOptions {
        EngineOptions {
            fingerprint: self.fingerprint,
            disk: self.disk.clone(),
            ..Default::default()
        }
    }
}
