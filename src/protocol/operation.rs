//! The protocol's operations and the errors a refused operation reports:
//! what goes in. What comes out of an accepted one is in `outcome`.

use super::lifecycle::IllegalMove;
use super::record::Proposal;
use super::record_set::{RecordId, RecordSet, MAX_RECORDS};
use super::transaction::{Tier, TxId};
use std::fmt;

/// An operation on the store (card §3.6: the memory tools plus tool calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Open {
        agent: u8,
        tier: Tier,
    },
    Stage {
        tx: TxId,
        proposal: Proposal,
    },
    Commit {
        tx: TxId,
    },
    Abort {
        tx: TxId,
    },
    Revoke {
        record: RecordId,
    },
    /// `tool` indexes the protocol's tool list.
    ToolCall {
        tx: TxId,
        tool: u8,
        basis: RecordSet,
    },
    /// Takes a quarantined record back to tentative into `tx`'s staging
    /// (card §3.1: quarantined records "may be revalidated").
    Revalidate {
        tx: TxId,
        record: RecordId,
    },
    /// Rebuilds a view a cascade held back from its surviving sources into
    /// `tx`'s staging (card §3.4: views are "held back and rebuilt from
    /// surviving sources"; `protocol::rebuild`).
    Rebuild {
        tx: TxId,
        record: RecordId,
    },
}

/// An operation the protocol refuses; the store is left unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    UnknownTransaction(TxId),
    TransactionNotOpen {
        tx: TxId,
        op: &'static str,
    },
    TransactionAborted(TxId),
    UnknownRecord(RecordId),
    UnknownParent(RecordId),
    UnknownTool(u8),
    /// Only committed or action_safe records can be revoked.
    NotRevocable {
        record: RecordId,
        state: &'static str,
    },
    /// A tool-call basis record the transaction may not use.
    BasisNotAllowed {
        record: RecordId,
        why: &'static str,
    },
    /// tool_action records come only from executed tool calls.
    StagedToolAction,
    /// Only a quarantined record can be revalidated or rebuilt; `op` is
    /// the operation's verb.
    NotQuarantined {
        op: &'static str,
        record: RecordId,
        state: &'static str,
    },
    /// The record is staged by another transaction that is still open:
    /// that transaction's commit or abort decides it.
    StagedElsewhere {
        op: &'static str,
        record: RecordId,
        tx: TxId,
    },
    /// Only a view (summary, profile, index entry, shared copy) is rebuilt.
    NotAView {
        record: RecordId,
        kind: &'static str,
    },
    /// A commit check quarantined this view: revalidation, not a rebuild,
    /// takes it back.
    QuarantinedByCheck {
        record: RecordId,
        reason: &'static str,
    },
    /// Every source of the view is revoked: nothing to rebuild it from.
    NoSurvivingSource {
        record: RecordId,
    },
    StoreFull,
    /// Transaction ids are bytes: at most 256 transactions per store.
    TooManyTransactions,
    IllegalMove {
        record: RecordId,
        illegal: IllegalMove,
    },
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::UnknownTransaction(tx) => write!(f, "unknown transaction T{tx}"),
            ProtocolError::TransactionNotOpen { tx, op } => {
                write!(f, "cannot {op}: transaction T{tx} is no longer open")
            }
            ProtocolError::TransactionAborted(tx) => {
                write!(f, "transaction T{tx} was aborted and may do nothing")
            }
            ProtocolError::UnknownRecord(r) => write!(f, "unknown record r{r}"),
            ProtocolError::UnknownParent(r) => write!(f, "parent r{r} does not exist"),
            ProtocolError::UnknownTool(t) => write!(f, "unknown tool #{t}"),
            ProtocolError::NotRevocable { record, state } => write!(
                f,
                "cannot revoke r{record}: it is {state}, only committed or action_safe records can be revoked"
            ),
            ProtocolError::BasisNotAllowed { record, why } => {
                write!(f, "tool-call basis r{record} not allowed: {why}")
            }
            ProtocolError::StagedToolAction => write!(
                f,
                "cannot stage a tool_action record: only an executed tool call creates one"
            ),
            ProtocolError::NotQuarantined { op, record, state } => write!(
                f,
                "cannot {op} r{record}: it is {state}, only a quarantined record can be {}",
                past_participle(op)
            ),
            ProtocolError::StagedElsewhere { op, record, tx } => write!(
                f,
                "cannot {op} r{record}: it is staged by T{tx}, which is still open and decides it"
            ),
            ProtocolError::NotAView { record, kind } => write!(
                f,
                "cannot rebuild r{record}: it is a {kind}, only a view (summary, profile, index entry, shared copy) is rebuilt"
            ),
            ProtocolError::QuarantinedByCheck { record, reason } => write!(
                f,
                "cannot rebuild r{record}: a commit check quarantined it ({reason}), not a cascade; revalidate it instead"
            ),
            ProtocolError::NoSurvivingSource { record } => write!(
                f,
                "cannot rebuild r{record}: every record it derives from is revoked, no source survives"
            ),
            ProtocolError::StoreFull => write!(f, "the store is full ({MAX_RECORDS} records)"),
            ProtocolError::TooManyTransactions => {
                write!(f, "the store already holds 256 transactions")
            }
            ProtocolError::IllegalMove { record, illegal } => write!(f, "r{record}: {illegal}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// "revalidate" → "revalidated", "rebuild" → "rebuilt".
fn past_participle(op: &str) -> &'static str {
    match op {
        "rebuild" => "rebuilt",
        _ => "revalidated",
    }
}
