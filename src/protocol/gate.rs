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
use super::transaction::{Tier, TxId};
use super::variant::{Fault, Mechanism};

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
        let t = &store.txs[tx as usize];
        let tentative = store.in_state(Lifecycle::Tentative);
        // Records "that the transaction did not read" (card §3.3).
        let in_flight = tentative.difference(self.gate_snapshot(t.snapshot));
        if !in_flight.is_empty() && !self.faulty(Fault::GateIgnoresInFlight) {
            return Err(Refusal::TentativeInFlight);
        }
        if t.tier == Tier::ExternalAction
            && !self.faulty(Fault::GateIgnoresSupport)
            && !t
                .snapshot
                .iter()
                .any(|id| store.records[id as usize].state == Lifecycle::ActionSafe)
        {
            return Err(Refusal::NoActionSafeSupport);
        }
        Ok(tentative.intersection(t.snapshot))
    }

    /// The snapshot as the gate's first clause reads it; a test-only fault
    /// makes the gate ignore it (every tentative record blocks).
    fn gate_snapshot(&self, snapshot: RecordSet) -> RecordSet {
        if self.faulty(Fault::GateIgnoresSnapshot) {
            RecordSet::EMPTY
        } else {
            snapshot
        }
    }
}
