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
//! - `unearned_action_safe` (on transitions), the same sentence read the
//!   other way: *only* an external_action transaction's commit makes a
//!   record action_safe, and only a record it judged (staged by it and
//!   tentative before it) and let pass. A low, medium or high commit, a
//!   commit that promotes a record it did not judge, or any other
//!   operation (a tool action born action_safe, say) that leaves a record
//!   action_safe which was not is a violation.
//!
//! Whether the records a commit lets pass should pass is admission's;
//! whether a record is staged where it should be, the other properties'.

use super::fields::where_state;
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Lifecycle, Op, RecordId, RecordSet, StoreView, Tier, TxStatus};

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

/// Both transition clauses on one accepted operation.
pub fn check_transition(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
    unearned(before, op, after).or_else(|| not_safe(before, op, after))
}

/// `not_action_safe`: an external_action commit left a record it
/// committed short of action_safe.
fn not_safe(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
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

/// `unearned_action_safe`: a record became action_safe other than by an
/// external_action commit that judged it.
fn unearned(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
    // The transaction whose commit this is, if it is one.
    let tx = match *op {
        Op::Commit { tx } => before.transaction(tx).map(|t| (tx, t)),
        _ => None,
    };
    // The records an external_action commit may make action_safe: those
    // it judges (its staged records that are tentative before it).
    let earned = |id: RecordId| {
        tx.is_some_and(|(_, t)| {
            t.tier() == Tier::ExternalAction
                && t.staged().contains(id)
                && before.record(id).map(|r| r.state()) == Some(Lifecycle::Tentative)
        })
    };
    // Every transition asks: one pass over the records, the rest only for
    // a record that became action_safe.
    let was = before.records();
    let id = after
        .records()
        .iter()
        .enumerate()
        .filter(|(id, r)| {
            r.state() == Lifecycle::ActionSafe
                && was
                    .get(*id)
                    .is_none_or(|b| b.state() != Lifecycle::ActionSafe)
        })
        .map(|(id, _)| id as RecordId)
        .find(|&id| !earned(id))?;
    let by = match tx {
        Some((tx, t)) => format!("{} T{tx}'s commit", t.tier().name()),
        None => format!("a {}", op.verb().name()),
    };
    Some(Violation::new(
        Invariant::TxHygiene,
        "unearned_action_safe",
        RecordSet::single(id),
        format!(
            "r{id} became action_safe by {by}: only an external_action commit makes the records it judges and passes action_safe"
        ),
    ))
}
