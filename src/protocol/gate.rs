//! The action gate (card §3.3): it runs before every irreversible call and
//! blocks while a tentative record outside the snapshot exists (the
//! caller's own staging included), or when an external_action transaction's
//! snapshot holds no action_safe record. Reversible tools pass.

use super::dispatch::{Protocol, Tool};
use super::lifecycle::Lifecycle;
use super::outcome::Refusal;
use super::store::Store;
use super::transaction::{Tier, TxId};
use super::variant::{Fault, Mechanism};

impl Protocol {
    /// The gate's refusal for `tx` calling `tool`, or `None` when it allows.
    pub(in crate::protocol) fn gate_refusal(
        &self,
        store: &Store,
        tx: TxId,
        tool: Tool,
    ) -> Option<Refusal> {
        if !tool.irreversible || !self.has(Mechanism::Gate) {
            return None;
        }
        let t = &store.txs[tx as usize];
        let in_flight = store.in_state(Lifecycle::Tentative).difference(t.snapshot);
        if !in_flight.is_empty() {
            return Some(Refusal::TentativeInFlight);
        }
        if t.tier == Tier::ExternalAction
            && !self.faulty(Fault::GateIgnoresSupport)
            && !t
                .snapshot
                .iter()
                .any(|id| store.records[id as usize].state == Lifecycle::ActionSafe)
        {
            return Some(Refusal::NoActionSafeSupport);
        }
        None
    }
}
