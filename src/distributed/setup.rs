//! What the workers of one process share, and how they report progress.

use super::checkpoint::Layout;
use crate::engine::{LevelStats, StateCodec};
use stateright::Model;
use std::path::PathBuf;
use std::sync::Arc;

/// Told of each level's totals, on the first worker of each process.
pub type Progress = Arc<dyn Fn(&LevelStats) + Send + Sync>;

/// What every worker of a process shares.
pub(crate) struct Setup<M: Model> {
    pub(crate) model: Arc<M>,
    pub(crate) codec: Arc<dyn StateCodec<M::State> + Send + Sync>,
    pub(crate) max_depth: Option<usize>,
    /// Stop after this many levels, as an interruption would.
    pub(crate) max_levels: Option<usize>,
    /// This process's memory bound (see `guard`).
    pub(crate) max_memory: Option<u64>,
    /// Where links are written without a checkpoint (see `links`).
    pub(crate) spill_dir: Option<PathBuf>,
    pub(crate) progress: Option<Progress>,
    pub(crate) threads: usize,
    pub(crate) identity: String,
    pub(crate) checkpoint: Option<Checkpointing>,
}

/// Where and how a run checkpoints.
pub(crate) struct Checkpointing {
    /// The directory all of this process's workers write under.
    pub(crate) dir: PathBuf,
    /// Continue from the checkpoint rather than start afresh.
    pub(crate) resume: bool,
    pub(crate) layout: Layout,
}
