//! What the workers of one process share.

use super::checkpoint::Layout;
use crate::engine::{EngineOptions, StateCodec};
use stateright::Model;
use std::path::PathBuf;
use std::sync::Arc;

/// What every worker of a process shares.
pub(crate) struct Setup<M: Model> {
    pub(crate) model: Arc<M>,
    pub(crate) codec: Arc<dyn StateCodec<M::State> + Send + Sync>,
    /// The engine's options: bounds, fingerprint width, memory bound
    /// (this process's, see `guard`), where links are spilled without a
    /// checkpoint (see `links`), and the observer told of each level's
    /// totals on the first worker of each process.
    pub(crate) opts: EngineOptions,
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
