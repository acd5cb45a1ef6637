//! Revalidation (card §3.1: quarantined records "may be revalidated"; §3.4:
//! derived views are held back "and rebuilt from surviving sources"). An
//! open transaction takes a quarantined record back to tentative into its
//! own staging; its commit then checks the record again like any staged
//! record, so a view whose parent is still revoked is quarantined again.
//!
//! Where the card is silent, these readings hold (why each:
//! docs/readings.md, "Revalidation"): any open transaction may revalidate
//! any quarantined record, visible to it or not, but not one still staged
//! by another open transaction; the record moves to the reviser's staging
//! and keeps a commit check's reason until its next commit (a field an
//! independent checker can read); it is judged at commit in id order with
//! the other staged records.

use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::Outcome;
use super::record_set::RecordId;
use super::store::Store;
use super::transaction::{TxId, TxStatus};

/// The refusals of `revalidate {tx, record}` beyond `tx` being open, in
/// this order (the rule book's [`revalidation_refusal`]).
///
/// [`revalidation_refusal`]: super::rules::Rules::revalidation_refusal
pub(in crate::protocol) fn refusal(
    store: &Store,
    tx: TxId,
    record: RecordId,
) -> Result<(), ProtocolError> {
    let r = store
        .record(record)
        .ok_or(ProtocolError::UnknownRecord(record))?;
    if r.state() != Lifecycle::Quarantined {
        return Err(ProtocolError::NotQuarantined {
            op: "revalidate",
            record,
            state: r.state().name(),
        });
    }
    not_staged_elsewhere(store, "revalidate", tx, record)
}

/// Card §3.1: a quarantined record "may be revalidated": back to tentative
/// in `tx`'s staging, its parents as they are, for its commit to judge.
pub(in crate::protocol) fn revalidate(
    store: &mut Store,
    tx: TxId,
    record: RecordId,
) -> Result<Outcome, ProtocolError> {
    restage(store, tx, record)?;
    let reason = store.records[record as usize].reason;
    Ok(Outcome::Revalidated { tx, record, reason })
}

/// Refuses `record` when another open transaction than `tx` stages it:
/// that transaction's commit or abort decides it (revalidation and
/// rebuild alike).
pub(in crate::protocol) fn not_staged_elsewhere(
    store: &Store,
    op: &'static str,
    tx: TxId,
    record: RecordId,
) -> Result<(), ProtocolError> {
    let holder = store.txs.iter().enumerate().find(|&(id, t)| {
        id != tx as usize && t.status == TxStatus::Open && t.staged.contains(record)
    });
    match holder {
        Some((holder, _)) => Err(ProtocolError::StagedElsewhere {
            op,
            record,
            tx: holder as TxId,
        }),
        None => Ok(()),
    }
}

/// Moves quarantined `record` back to tentative, out of the staging of
/// the transaction that staged it and into `tx`'s.
pub(in crate::protocol) fn restage(
    store: &mut Store,
    tx: TxId,
    record: RecordId,
) -> Result<(), ProtocolError> {
    store.move_to(record, Lifecycle::Tentative)?;
    for t in &mut store.txs {
        t.staged.remove(record);
    }
    store.txs[tx as usize].staged.insert(record);
    Ok(())
}
