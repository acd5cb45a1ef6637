//! The action gate (card §3.3): it runs before every irreversible call and
//! blocks while a tentative record outside the snapshot exists (the
//! caller's own staging included), or when an external_action transaction's
//! snapshot holds no action_safe record. Reversible tools pass.
//!
//! The gate also says which tentative records it let pass because they are
//! in the caller's snapshot: only revalidation makes a record tentative
//! while it sits in a snapshot, and then the snapshot clause decides a call.

use super::dispatch::{Protocol, Tool};
use super::lifecycle::Lifecycle;
use super::outcome::Refusal;
use super::record_set::RecordSet;
use super::store::Store;
use super::transaction::{Tier, Transaction, TxId};
use super::variant::Mechanism;

impl Protocol {
    /// The gate's decision for `tx` calling `tool`: the tentative records
    /// it let pass because they are in the snapshot (empty for an ungated
    /// call), or why it refuses.
    pub(in crate::protocol) fn gate(
        &self,
        store: &Store,
        tx: TxId,
        tool: Tool,
    ) -> Result<RecordSet, Refusal> {
        if !tool.irreversible || !self.has(Mechanism::Gate) {
            return Ok(RecordSet::EMPTY);
        }
        let rules = self.rules();
        let t = &store.txs[tx as usize];
        let tentative = store.in_state(Lifecycle::Tentative);
        if !rules.in_flight(tentative, t).is_empty() {
            return Err(Refusal::TentativeInFlight);
        }
        if rules.lacks_support(store, t) {
            return Err(Refusal::NoActionSafeSupport);
        }
        Ok(tentative.intersection(t.snapshot))
    }
}

/// Card §3.3, first clause: the tentative records "that the transaction
/// did not read", its own uncommitted staging included.
pub(in crate::protocol) fn in_flight(tentative: RecordSet, t: &Transaction) -> RecordSet {
    tentative.difference(t.snapshot)
}

/// Card §3.3, second clause: an external_action transaction whose
/// snapshot holds no action_safe record.
pub(in crate::protocol) fn lacks_support(store: &Store, t: &Transaction) -> bool {
    t.tier == Tier::ExternalAction
        && !t
            .snapshot
            .iter()
            .any(|id| store.records[id as usize].state == Lifecycle::ActionSafe)
}
