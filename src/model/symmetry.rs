//! Symmetry reduction over transaction identities (`--symmetry`,
//! `"symmetry": true`): states that differ only by a renaming of
//! transaction ids are one state to the engine, represented by the
//! renaming that puts the transactions in ascending order of their values
//! (`Store::sort_transactions`).
//!
//! Why this is sound (docs/symmetry.md argues it rule by rule): a
//! transaction id is only a position in the store's transaction list,
//! every rule that reads one reads that transaction's own fields, and
//! records, the registry and the log never name transactions. So renaming
//! transactions maps each transition to a transition and every property
//! has one value on a whole class. Record ids are not renamed: they are
//! creation order, which staging, "the first rival in id order" and the
//! cascade's horizon all read.

use super::state::{MemtxModel, ModelState};
use crate::engine::Symmetric;

impl Symmetric for MemtxModel {
    fn representative(&self, state: &ModelState) -> ModelState {
        canonical(state.clone())
    }

    fn representative_owned(&self, state: ModelState) -> ModelState {
        canonical(state)
    }
}

/// The representative of `state`'s class, built in place.
fn canonical(state: ModelState) -> ModelState {
    // Every field is named, so that a field added to the state has to be
    // judged here: kept as it is if it names no transaction, renamed with
    // the transactions if it does.
    // The monitor names records and transition properties, never a
    // transaction (`invariants::Monitor`): it is kept as it is.
    let ModelState { mut store, monitor } = state;
    store.sort_transactions();
    ModelState { store, monitor }
}

#[cfg(test)]
mod tests;
