//! The model's state and the model itself (its behaviour is implemented
//! in `model/`'s other files).

use super::spec::ModelSpec;
use crate::invariants::Monitor;
use crate::protocol::Store;

/// A state of the model: the protocol's store plus the invariants'
/// monitor of the actions that led to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModelState {
    pub store: Store,
    pub monitor: Monitor,
}

/// The model: a specification plus the stateright plumbing.
#[derive(Clone, Debug)]
pub struct MemtxModel {
    pub spec: ModelSpec,
}
