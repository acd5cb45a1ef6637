//! The readable columns of `states.csv`: the records and the transactions
//! of a state, short (`r0 belief committed; r1 summary quarantined`,
//! `T0 external_action committed; T1 low open`).

use super::canonical::status;
use crate::protocol::Store;

/// Each record's id, kind and lifecycle state, `; `-separated.
pub fn records_text(store: &Store) -> String {
    store
        .records()
        .iter()
        .enumerate()
        .map(|(i, r)| format!("r{i} {} {}", r.kind().name(), r.state().name()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Each transaction's id, tier and status, `; `-separated.
pub fn transactions_text(store: &Store) -> String {
    store
        .transactions()
        .iter()
        .enumerate()
        .map(|(j, t)| format!("T{j} {} {}", t.tier().name(), status(t.status())))
        .collect::<Vec<_>>()
        .join("; ")
}
