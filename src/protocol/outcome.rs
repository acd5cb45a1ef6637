//! The structured outcome of an operation the protocol accepted: the
//! opened snapshot, the staged record, each staged record's commit verdict,
//! the gate's decision and the repairs of a retraction. One operation in,
//! one outcome out.

use super::record::Reason;
use super::record_set::{RecordId, RecordSet};
use super::store::Repair;
use super::transaction::TxId;

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
