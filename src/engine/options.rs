//! How to run the engine: the depth bound, the threads, whether to stop at
//! the first violation, and who watches.

use super::{RunObserver, Silent, StderrLevels};

/// Options for [`super::enumerate`] and the other entry points.
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
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            max_depth: None,
            threads: 1,
            stop_on_violation: false,
            observer: Box::new(Silent),
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

    /// These options, watched by `observer`.
    pub fn with_observer(mut self, observer: impl RunObserver + 'static) -> Self {
        self.observer = Box::new(observer);
        self
    }

    /// Print one line per level on stderr ([`StderrLevels`]).
    pub fn with_stderr_progress(self) -> Self {
        self.with_observer(StderrLevels)
    }
}
