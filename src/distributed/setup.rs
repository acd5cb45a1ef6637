//! What the workers of one process share, and how they report progress.

use crate::engine::{LevelStats, StateCodec};
use stateright::Model;
use std::sync::Arc;

/// Told of each level's totals, on the first worker of each process.
pub type Progress = Arc<dyn Fn(&LevelStats) + Send + Sync>;

/// What every worker of a process shares.
pub(crate) struct Setup<M: Model> {
    pub(crate) model: Arc<M>,
    pub(crate) codec: Arc<dyn StateCodec<M::State> + Send + Sync>,
    pub(crate) max_depth: Option<usize>,
    pub(crate) progress: Option<Progress>,
    pub(crate) threads: usize,
    pub(crate) identity: String,
}
