//! Transaction hygiene (ours; card §3.2): a transaction leaves nothing
//! half-done.
//!
//! - `orphan_tentative` (on states): every tentative record is in the
//!   staging of a transaction that is still open. A record belongs to the
//!   transactions whose staging holds it; one that only closed
//!   transactions hold would stay tentative for ever, blocking every
//!   irreversible call (card §3.3). (Read this way rather than "its
//!   staging transaction is open" because revalidation puts a quarantined
//!   record into a second transaction's staging.)
//! - `not_action_safe` (on transitions): every record an external_action
//!   transaction's commit takes to committed ends that commit action_safe
//!   (card §3.2, "A passing record is committed, and additionally
//!   action-safe in external-action transactions"). It is judged on the
//!   commit itself, so a later supersede or revoke is no violation.

use super::fields::where_state;
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Lifecycle, Op, RecordSet, StoreView, Tier, TxStatus};

pub fn check_state(store: StoreView<'_>) -> Option<Violation> {
    let tentative = where_state(store, |s| s == Lifecycle::Tentative);
    if tentative.is_empty() {
        return None;
    }
    let mut open_staging = RecordSet::EMPTY;
    for t in store.transactions() {
        if t.status() == TxStatus::Open {
            open_staging = open_staging.union(t.staged());
        }
    }
    let id = tentative.difference(open_staging).iter().next()?;
    let holder = store
        .transactions()
        .iter()
        .position(|t| t.staged().contains(id))
        .map_or_else(
            || "no transaction".to_owned(),
            |tx| format!("T{tx}, which is {:?}", store.transactions()[tx].status()),
        );
    Some(Violation::new(
        Invariant::TxHygiene,
        "orphan_tentative",
        RecordSet::single(id),
        format!("r{id} is tentative and staged by {holder}, not by an open transaction"),
    ))
}

pub fn check_commit(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
    let Op::Commit { tx } = *op else {
        return None;
    };
    let t = before.transaction(tx)?;
    if t.tier() != Tier::ExternalAction {
        return None;
    }
    for id in t.staged().iter() {
        let was = before.record(id)?.state();
        let now = after.record(id)?.state();
        if now == Lifecycle::Committed && was != Lifecycle::Committed {
            return Some(Violation::new(
                Invariant::TxHygiene,
                "not_action_safe",
                RecordSet::single(id),
                format!("external_action T{tx} committed r{id}, but not action_safe"),
            ));
        }
    }
    None
}
