//! Rebuild (card §3.4: on a retraction, derived views "are held back and
//! rebuilt from surviving sources"). An open transaction takes a view a
//! cascade held back, drops its revoked parents, and stages it again as
//! tentative; its commit then judges it with the four checks like any
//! staged record.
//!
//! Where the card is open, these readings hold (why each: docs/readings.md,
//! "Rebuild"): a source *survives* when it is not revoked (quarantined and
//! superseded parents stay); the view keeps its id, its `derived_from`
//! narrowed to the survivors, so the lifecycle gains no move; no
//! visibility rule; the rollback log records nothing, and the view stays
//! in the revocation registry; refused are a record that is not a view,
//! one not quarantined, one a commit check quarantined (revalidation's
//! job), one still staged by another open transaction, and one whose
//! every parent is revoked.

use super::dispatch::Protocol;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::Outcome;
use super::record_set::{RecordId, RecordSet};
use super::revalidate::{not_staged_elsewhere, restage};
use super::store::Store;
use super::transaction::TxId;

/// The refusals of `rebuild {tx, record}` beyond `tx` being open, in
/// this order (the rule book's [`rebuild_refusal`]).
///
/// [`rebuild_refusal`]: super::rules::Rules::rebuild_refusal
pub(in crate::protocol) fn refusal(
    store: &Store,
    tx: TxId,
    record: RecordId,
) -> Result<(), ProtocolError> {
    let r = store
        .record(record)
        .ok_or(ProtocolError::UnknownRecord(record))?;
    if !r.kind().is_view() {
        return Err(ProtocolError::NotAView {
            record,
            kind: r.kind().name(),
        });
    }
    if r.state() != Lifecycle::Quarantined {
        return Err(ProtocolError::NotQuarantined {
            op: "rebuild",
            record,
            state: r.state().name(),
        });
    }
    if let Some(reason) = r.reason() {
        return Err(ProtocolError::QuarantinedByCheck {
            record,
            reason: reason.name(),
        });
    }
    not_staged_elsewhere(store, "rebuild", tx, record)?;
    if survivors(store, record).is_empty() {
        return Err(ProtocolError::NoSurvivingSource { record });
    }
    Ok(())
}

impl Protocol {
    /// Rebuilds `record` from its surviving sources into `tx`'s staging
    /// (checked beforehand).
    pub(in crate::protocol) fn rebuild(
        &self,
        store: &mut Store,
        tx: TxId,
        record: RecordId,
    ) -> Result<Outcome, ProtocolError> {
        let parents = store.records[record as usize].derived_from();
        let kept = self.rules().kept_parents(store, record);
        let rebuilt = store.records[record as usize].with_parents(kept);
        store.records[record as usize] = rebuilt;
        restage(store, tx, record)?;
        Ok(Outcome::Rebuilt {
            tx,
            record,
            dropped: parents.difference(kept),
        })
    }
}

/// Card §3.4: the sources a view is rebuilt from, the parents of
/// `record` that are not revoked.
pub(in crate::protocol) fn survivors(store: &Store, record: RecordId) -> RecordSet {
    store.records[record as usize]
        .derived_from()
        .difference(store.in_state(Lifecycle::Revoked))
}
