//! Evidence (ours; card §3.2, commit check 1): no committed or action_safe
//! record other than a tool_action has confidence below 0.6 and effective
//! authority below 0.9. Both thresholds are inclusive; a record without a
//! source carries authority 0.5, recomputed here ([`super::fields`]), not
//! asked of the protocol. Tool actions are created by executed calls, not
//! judged by commit, so check 1 never applies to them.
//!
//! Clause: `low_evidence`.

use super::fields::{effective_authority, settled, AUTHORITY_BYPASS, EVIDENCE_THRESHOLD};
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Kind, RecordId, RecordSet, StoreView};

pub fn check(store: StoreView<'_>) -> Option<Violation> {
    for (id, r) in store.records().iter().enumerate() {
        let weak =
            r.confidence().0 < EVIDENCE_THRESHOLD && effective_authority(r) < AUTHORITY_BYPASS;
        if weak && settled(r.state()) && r.kind() != Kind::ToolAction {
            return Some(Violation::new(
                Invariant::Evidence,
                "low_evidence",
                RecordSet::single(id as RecordId),
                format!(
                    "{} r{id} has confidence {:.2} and authority {:.2}: below 0.6 and below 0.9",
                    r.state(),
                    r.confidence().as_decimal(),
                    f64::from(effective_authority(r)) / 100.0
                ),
            ));
        }
    }
    None
}
