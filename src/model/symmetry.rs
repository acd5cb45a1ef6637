//! Symmetry reduction over transaction identities (`--symmetry`,
//! `"symmetry": true`): states that differ only by a renaming of
//! transaction ids are one state to the engine, represented by the
//! renaming that puts the transactions in ascending order of their values
//! (`Store::sort_transactions`).
//!
//! Why this is sound, in short (docs/symmetry.md, "Why it is sound", argues it
//! rule by rule): a transaction id is only a position in the store's
//! transaction list. Every rule that reads one — stage, commit and abort
//! into transaction `tx`, the gate and the tool call for `tx`, the stale
//! check against `tx`'s snapshot — reads that one transaction's own fields
//! (tier, status, snapshot, staging), never its position or another
//! transaction's; opening appends, and its snapshot comes from the records.
//! Records, the revocation registry and the rollback log name records and
//! agents, never transactions. The model's actions are generated per
//! transaction, and the agent-symmetry rule (`MemtxModel::openers`) reads
//! the set of agents, not their order. So renaming transactions maps each
//! transition to a transition (of the renamed action), and every property
//! (I1's monitor bit, I2, G3 and the companions, which quantify over all
//! transactions) has one value on a whole class. Record ids are not
//! renamed: they are creation order, and staging order, "the first rival in
//! id order" and the cascade's horizon all read that order.

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
