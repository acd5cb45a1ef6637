//! The MemTX protocol as plain, deterministic Rust (card §3), with no
//! stateright dependency: records, lifecycle, transactions and snapshots,
//! the four ordered commit checks, conflict adjudication, the action gate,
//! typed cascading repair, the rollback log, revalidation and rebuild. One
//! operation in, one structured outcome out; it is the single source of
//! truth for behaviour.
//!
//! Each rule is a plain function beside the step that runs it, citing its
//! card section; the steps ask the rule book (`rules`) for them. A normal
//! build's book calls the card's functions directly; a test build's is a
//! table in which a test-only fault (`faults`) replaces one entry.
//!
//! Everything outside this module sees records, transactions and the
//! rollback log through read-only accessors. The revocation registry and
//! the dependency walks are private to it, so the invariant checkers cannot
//! lean on the protocol's own bookkeeping; and they take a [`StoreView`],
//! from which no store can be had to run the protocol on.

pub mod bits;
mod commit;
mod conflict;
mod dispatch;
mod enumerated;
mod gate;
mod lifecycle;
mod operation;
mod outcome;
mod packed;
mod rebuild;
mod record;
mod record_set;
mod repair;
mod revalidate;
mod rules;
mod store;
mod symbols;
mod transaction;
mod variant;
mod view;

#[cfg(test)]
mod faults;
#[cfg(test)]
pub(crate) mod generate;
#[cfg(test)]
mod tests;

pub use dispatch::{Protocol, Tool};
pub(crate) use enumerated::enumerated;
#[cfg(test)]
pub(crate) use faults::Fault;
pub use lifecycle::Lifecycle;
pub use operation::{
    Blank, Op, OpArgs, Operands, Operation, ProtocolError, Translate, Verb, Wording,
};
#[cfg(test)]
pub(crate) use outcome::RecordVerdict;
pub use outcome::{
    Admission, CommitOutcome, CommitResult, CommitStatus, GateOutcome, Outcome, Refusal,
};
pub use packed::{StorePacker, MAX_PACKED_PROPOSALS, MAX_PACKED_TOOLS};
pub use record::{Check, Hundredths, Kind, Proposal, Reason, Record, Scope, Window};
pub use record_set::{RecordId, RecordSet, MAX_RECORDS};
pub use store::{LogEntry, Repair, Store};
pub use symbols::{Sym, Symbols};
pub use transaction::{Tier, Transaction, TxId, TxStatus};
pub use variant::{
    LaunderingParents, Mechanism, SameSourceTie, StaleCheckEmptySnapshot, ToolBasis, Variant,
};
pub use view::StoreView;
