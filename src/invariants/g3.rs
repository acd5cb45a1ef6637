//! G3 (card §3.5): no committed or action_safe record has a revoked
//! transitive ancestor, ancestry recomputed from `derived_from`.

use super::ancestry::ancestors;
use super::{Invariant, Violation};
use crate::protocol::{Lifecycle, RecordId, RecordSet, StoreView};

pub fn check(store: StoreView<'_>) -> Option<Violation> {
    let revoked: RecordSet = store
        .records()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.state() == Lifecycle::Revoked)
        .map(|(id, _)| id as RecordId)
        .collect();
    if revoked.is_empty() {
        return None;
    }
    for (id, record) in store.records().iter().enumerate() {
        let id = id as RecordId;
        if !record.state().is_committed_or_safe() || record.derived_from().is_empty() {
            continue;
        }
        let bad = ancestors(store, id).intersection(revoked);
        if let Some(ancestor) = bad.iter().next() {
            return Some(Violation {
                invariant: Invariant::G3,
                records: bad.union(RecordSet::single(id)),
                detail: format!("{} r{id} has revoked ancestor r{ancestor}", record.state()),
            });
        }
    }
    None
}
