//! `check --dump DIR`: the state space as two CSV files, streamed as the
//! engine takes each state and transition ([`crate::engine::StateStream`]),
//! beside a copy of the model as run (`model.json`, so a trace can be
//! rebuilt from the dump alone):
//!
//! - `states.csv`: `state,depth,parent,action,records,transactions,violations`,
//!   one row per distinct state, written when the state is first reached;
//! - `transitions.csv`: `from,action,to,outcome`, one row per transition
//!   counted in growth.csv.
//!
//! A state is named by its [`canonical`] fingerprint, which depends on the
//! store's content only, not on Rust's `Hash`, the build, the thread count
//! or the version, so two versions of the spec can be compared state by
//! state (`diff DIR_A DIR_B`, [`crate::diff::states`]).

pub mod canonical;
mod render;
mod sink;

pub use render::{records_text, transactions_text};
pub use sink::{DumpSink, DumpTotals};

/// The header of `states.csv`.
pub const STATES_HEADER: [&str; 7] = [
    "state",
    "depth",
    "parent",
    "action",
    "records",
    "transactions",
    "violations",
];

/// The header of `transitions.csv`.
pub const TRANSITIONS_HEADER: [&str; 4] = ["from", "action", "to", "outcome"];
