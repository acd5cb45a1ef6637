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
    /// Only a quarantined record can be revalidated.
    NotQuarantined {
        record: RecordId,
        state: &'static str,
    },
    /// The record is staged by another transaction that is still open:
    /// that transaction's commit or abort decides it.
    StagedElsewhere {
        record: RecordId,
        tx: TxId,
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
            ProtocolError::NotQuarantined { record, state } => write!(
                f,
                "cannot revalidate r{record}: it is {state}, only quarantined records can be revalidated"
            ),
            ProtocolError::StagedElsewhere { record, tx } => write!(
                f,
                "cannot revalidate r{record}: it is staged by T{tx}, which is still open and decides it"
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
