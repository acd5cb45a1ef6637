//! The structured outcome of an operation the protocol accepted: the
//! opened snapshot, the staged record, each staged record's commit verdict
//! (and, for a record that commits, how it stood against its slot), the
//! gate's decision, the repairs of a retraction, and the record a
//! revalidation took back. One operation in, one outcome out: everything a
//! caller may want to know of which branch the protocol took is here, so
//! that nobody (the model's coverage, replay, the explorer) re-derives it.

use super::enumerated::enumerated;
use super::record::Reason;
use super::record_set::{RecordId, RecordSet};
use super::store::Repair;
use super::transaction::TxId;
use smallvec::SmallVec;

/// The repairs of one retraction, inline up to eight: a model checker
/// retracts on a third of its transitions and drops each outcome at once,
/// and a heap list cost an allocation and a free each time (2% of the
/// instructions at depth 8).
pub type Repairs = SmallVec<[(RecordId, Repair); 8]>;

/// The verdicts of one commit, inline up to two (see [`Repairs`]).
pub type Verdicts = SmallVec<[RecordVerdict; 2]>;

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
        /// The retracted records themselves (the roots of the cascade).
        roots: RecordSet,
        repairs: Repairs,
    },
    /// A quarantined record taken back to tentative into `tx`'s staging.
    Revalidated {
        tx: TxId,
        record: RecordId,
        /// The commit check it had been quarantined by; `None` for a view
        /// a cascade had held back.
        reason: Option<Reason>,
    },
    /// A view a cascade held back, rebuilt from its surviving sources:
    /// tentative again in `tx`'s staging, deriving from its parents but
    /// the revoked ones (`dropped`).
    Rebuilt {
        tx: TxId,
        record: RecordId,
        dropped: RecordSet,
    },
}

enumerated! {
    /// The overall verdict of a commit (DESIGN.md).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum CommitStatus {
        /// Every staged record committed (an empty commit included).
        Committed = "committed",
        /// Some did.
        Partial = "partial",
        /// None did.
        Aborted = "aborted",
    }
}

enumerated! {
    /// Where one staged record ended at commit.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum CommitResult {
        Committed = "committed",
        ActionSafe = "action_safe",
        Quarantined = "quarantined",
        /// A cascade had already revoked it; it was skipped.
        Revoked = "revoked",
    }
}

enumerated! {
    /// How a record passed check 3 against its slot, its entity and
    /// attribute (card §3.2 `conflict_verdict`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Admission {
        /// No other active record holds its slot.
        NoRival = "no_rival",
        /// The first rival holds the same value.
        SameValue = "same_value",
        /// More authority than the first rival: the rivals are superseded.
        SupersededByAuthority = "superseded_by_authority",
        /// Equal authority from the same source: the rivals are superseded
        /// (the code's reading, card "Paper vs code").
        SupersededBySameSource = "superseded_by_same_source",
        /// Other active records hold its slot, but none whose validity window
        /// overlaps its own: the values coexist.
        CoexistingWindows = "coexisting_windows",
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
    /// How check 3 let it pass, when it did; `None` when it did not reach
    /// or pass check 3, or when the same-slot rules are ablated.
    pub admission: Option<Admission>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitOutcome {
    pub status: CommitStatus,
    pub records: Verdicts,
    /// Records that reached check 3 (card §3.2: one verifier call each).
    pub verifier_calls: u32,
}

enumerated! {
    /// Why the gate refused an irreversible call (card §3.3).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Refusal {
        /// A tentative record outside the snapshot exists.
        TentativeInFlight = "tentative_in_flight",
        /// An external_action transaction whose snapshot holds no action_safe
        /// record.
        NoActionSafeSupport = "no_action_safe_support",
    }
}

/// The gate's decision on a tool call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GateOutcome {
    pub allowed: bool,
    pub reason: Option<Refusal>,
    /// The tool_action record an executed call created.
    pub record: Option<RecordId>,
    /// Tentative records the gate let pass because they are in the
    /// caller's snapshot (card §3.3: "that the transaction did not read");
    /// empty when the call was not gated. Only a revalidated record can be
    /// tentative and in a snapshot.
    pub in_snapshot: RecordSet,
}
