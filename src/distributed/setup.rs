//! What the workers of one process share, and how they report progress.

use super::checkpoint::Layout;
use crate::engine::{LabelledModel, LevelStats, StateCodec, Symmetric};
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
    pub(crate) semantics: Semantics<M>,
    pub(crate) checkpoint: Option<Checkpointing>,
}

/// A transition written into the last argument (a state the worker
/// reuses for every transition) with its label bits (`Ok`), or an
/// attempt's labels.
pub(crate) type Attempt<M> = fn(
    &M,
    &<M as Model>::State,
    <M as Model>::Action,
    &mut <M as Model>::State,
) -> Result<u128, u128>;

/// How a worker takes a transition and what it stores (the engine's
/// `Transitions` adapters, as values).
pub struct Semantics<M: Model> {
    /// The successor with its label bits, or for an offered action that is
    /// no transition the labels of the attempt (`engine::LabelledModel`).
    pub(crate) attempt: Attempt<M>,
    /// The labels' names, bit `i` named by entry `i` (none for a plain
    /// model).
    pub(crate) label_names: Vec<&'static str>,
    /// The state the run stores for a state: the state itself, or under a
    /// symmetry its representative (`engine::Symmetric`).
    pub(crate) canonical: fn(&M, M::State) -> M::State,
    /// `canonical` picks representatives: traces are realised as real
    /// traces of the model afterwards.
    pub(crate) reduced: bool,
}

impl<M: Model> Semantics<M> {
    /// A plain model's transitions, no label, states stored as they are.
    pub fn plain() -> Self {
        Semantics {
            attempt: |model, state, action, into| {
                *into = model.next_state(state, action).ok_or(0u128)?;
                Ok(0)
            },
            label_names: Vec::new(),
            canonical: |_, state| state,
            reduced: false,
        }
    }

    /// A labelled model's transitions, their labels counted.
    pub fn labelled(model: &M) -> Self
    where
        M: LabelledModel,
    {
        Semantics {
            attempt: M::attempt_labelled_into,
            label_names: model.label_names(),
            ..Semantics::plain()
        }
    }

    /// The same transitions, each state stored as its representative, so
    /// that counts are of classes (traces stay real).
    pub fn symmetric(self) -> Self
    where
        M: Symmetric,
    {
        Semantics {
            canonical: M::representative_owned,
            reduced: true,
            ..self
        }
    }
}

/// Where and how a run checkpoints.
pub(crate) struct Checkpointing {
    /// The directory all of this process's workers write under.
    pub(crate) dir: PathBuf,
    /// Continue from the checkpoint rather than start afresh.
    pub(crate) resume: bool,
    pub(crate) layout: Layout,
}
