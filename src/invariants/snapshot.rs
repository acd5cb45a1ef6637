//! Snapshots (ours, a transition property; card §3.2, "Opening a
//! transaction records the snapshot: the records visible at its isolation
//! level at open time"): each transaction's snapshot is exactly the set of
//! records visible at its tier when it opened, recomputed here from the
//! records' states at that moment — the state before the open, with the
//! tier the action asked for — and it never changes afterwards. Judged on
//! the open and on every later transition, the model's monitor keeps the
//! verdict: together they say that at every state each snapshot is the
//! set recomputed when its transaction opened, without reading one back
//! from the protocol to compare with.
//!
//! Visibility by tier (DESIGN.md "Visibility at open"): low and medium
//! see committed and action_safe records; high, those of them whose every
//! transitive ancestor is committed or action_safe; external_action,
//! action_safe records only.
//!
//! Clauses: `at_open`, `changed`.

use super::ancestry::Graph;
use super::fields::{settled, where_state};
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Lifecycle, Op, RecordSet, StoreView, Tier};

/// The records visible at `tier` in `store`.
pub fn visible_at(store: StoreView<'_>, tier: Tier) -> RecordSet {
    let committed = where_state(store, settled);
    match tier {
        Tier::Low | Tier::Medium => committed,
        Tier::High => {
            let graph = Graph::of(store);
            let mut stable = RecordSet::EMPTY;
            for id in committed.iter() {
                if graph.ancestors(id).difference(committed).is_empty() {
                    stable.insert(id);
                }
            }
            stable
        }
        Tier::ExternalAction => where_state(store, |s| s == Lifecycle::ActionSafe),
    }
}

pub fn check(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
    for (tx, (b, a)) in before
        .transactions()
        .iter()
        .zip(after.transactions())
        .enumerate()
    {
        if b.snapshot() != a.snapshot() {
            return Some(Violation::new(
                Invariant::Snapshot,
                "changed",
                b.snapshot().union(a.snapshot()),
                format!(
                    "T{tx}'s snapshot changed from {:?} to {:?}",
                    b.snapshot(),
                    a.snapshot()
                ),
            ));
        }
    }
    let Op::Open { tier, .. } = *op else {
        return None;
    };
    let tx = before.transactions().len();
    let taken = after.transaction(tx as u8)?.snapshot();
    let expected = visible_at(before, tier);
    if taken == expected {
        return None;
    }
    Some(Violation::new(
        Invariant::Snapshot,
        "at_open",
        taken.union(expected),
        format!(
            "T{tx} opened at {} with snapshot {taken:?}; the records visible at that tier were {expected:?}",
            tier.name()
        ),
    ))
}
