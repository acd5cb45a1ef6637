//! G3 (card §3.5): no committed or action_safe record has a revoked
//! transitive ancestor, ancestry recomputed from `derived_from`.

use super::ancestry::ancestors;
use super::fields::{settled, where_state};
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Lifecycle, RecordId, RecordSet, StoreView};

pub fn check(store: StoreView<'_>) -> Option<Violation> {
    let revoked = where_state(store, |s| s == Lifecycle::Revoked);
    if revoked.is_empty() {
        return None;
    }
    for (id, record) in store.records().iter().enumerate() {
        let id = id as RecordId;
        if !settled(record.state()) || record.derived_from().is_empty() {
            continue;
        }
        let bad = ancestors(store, id).intersection(revoked);
        if let Some(ancestor) = bad.iter().next() {
            return Some(Violation::new(
                Invariant::G3,
                "revoked_ancestor",
                bad.union(RecordSet::single(id)),
                format!("{} r{id} has revoked ancestor r{ancestor}", record.state()),
            ));
        }
    }
    None
}
