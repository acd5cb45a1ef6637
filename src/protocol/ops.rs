//! The protocol's operations, their structured outcomes, and the errors a
//! refused operation reports. One operation in, one outcome out.

use super::lifecycle::IllegalMove;
use super::record::{Proposal, Reason};
use super::record_set::{RecordId, RecordSet};
use super::store::Repair;
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
}

/// The outcome of an operation the protocol accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Opened {
        tx: TxId,
        snapshot: RecordSet,
    },
    Staged {
        record: RecordId,
    },
    Committed(CommitOutcome),
    ToolCall(GateOutcome),
    /// Abort and revoke: the retracted records first, then each descendant.
    Retracted {
        repairs: Vec<(RecordId, Repair)>,
    },
}

/// The overall verdict of a commit (DESIGN.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommitStatus {
    /// Every staged record committed (an empty commit included).
    Committed,
    /// Some did.
    Partial,
    /// None did.
    Aborted,
}

impl CommitStatus {
    pub fn name(self) -> &'static str {
        match self {
            CommitStatus::Committed => "committed",
            CommitStatus::Partial => "partial",
            CommitStatus::Aborted => "aborted",
        }
    }
}

/// Where one staged record ended at commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommitResult {
    Committed,
    ActionSafe,
    Quarantined,
    /// A cascade had already revoked it; it was skipped.
    Revoked,
}

impl CommitResult {
    pub fn name(self) -> &'static str {
        match self {
            CommitResult::Committed => "committed",
            CommitResult::ActionSafe => "action_safe",
            CommitResult::Quarantined => "quarantined",
            CommitResult::Revoked => "revoked",
        }
    }
}

/// The commit verdict for one staged record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordVerdict {
    pub id: RecordId,
    pub result: CommitResult,
    pub reason: Option<Reason>,
    /// Rivals this record superseded (card §3.2, `supersede_old`).
    pub superseded: RecordSet,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitOutcome {
    pub status: CommitStatus,
    pub records: Vec<RecordVerdict>,
    /// Records that reached check 3 (card §3.2: one verifier call each).
    pub verifier_calls: u32,
}

/// Why the gate refused an irreversible call (card §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// A tentative record outside the snapshot exists.
    TentativeInFlight,
    /// An external_action transaction whose snapshot holds no action_safe
    /// record.
    NoActionSafeSupport,
}

impl Refusal {
    pub fn name(self) -> &'static str {
        match self {
            Refusal::TentativeInFlight => "tentative_in_flight",
            Refusal::NoActionSafeSupport => "no_action_safe_support",
        }
    }
}

/// The gate's decision on a tool call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GateOutcome {
    pub allowed: bool,
    pub reason: Option<Refusal>,
    /// The tool_action record an executed call created.
    pub record: Option<RecordId>,
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
            ProtocolError::StoreFull => write!(
                f,
                "the store is full ({} records)",
                super::record_set::MAX_RECORDS
            ),
            ProtocolError::TooManyTransactions => {
                write!(f, "the store already holds 256 transactions")
            }
            ProtocolError::IllegalMove { record, illegal } => write!(f, "r{record}: {illegal}"),
        }
    }
}

impl std::error::Error for ProtocolError {}
