//! `check --dump DIR`: the state space as two CSV files, streamed as the
//! engine takes each state and transition ([`crate::engine::StateStream`]),
//! beside a copy of the model as run (`model.json`) and, written last, a
//! [`manifest`] (`dump.json`); `docs/dumps.md` is the format's contract.
//!
//! A state is named by its [`canonical`] fingerprint, which depends on the
//! store's content only, not on Rust's `Hash`, the build, the thread count
//! or the version, so two versions of the spec can be compared state by
//! state (`diff DIR_A DIR_B`, [`crate::diff::states`]).

pub mod canonical;
pub mod manifest;
mod sink;

pub use sink::{DumpSink, DumpTotals};

use crate::protocol::Store;

/// The header of `states.csv`.
pub const STATES_HEADER: [&str; 8] = [
    "state",
    "depth",
    "parent",
    "action",
    "records",
    "transactions",
    "violations",
    "step",
];

/// The header of `transitions.csv`.
pub const TRANSITIONS_HEADER: [&str; 4] = ["from", "action", "to", "outcome"];

// The readable columns of `states.csv`: `r0 belief committed; r1 summary
// quarantined`, `T0 external_action committed; T1 low open`.

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
        .map(|(j, t)| format!("T{j} {} {}", t.tier().name(), t.status().name()))
        .collect::<Vec<_>>()
        .join("; ")
}
