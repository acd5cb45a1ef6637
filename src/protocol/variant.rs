//! Spec variants: the card's "Paper vs code" switches, the tool-call basis
//! reading, and ablations that each remove one [`Mechanism`] (DESIGN.md
//! "Spec variants"). Defaults follow the authors' code where the card says
//! what it does, with every mechanism in force.

use serde::{Deserialize, Serialize};

/// Equal authority from the same source (card "Paper vs code").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SameSourceTie {
    /// The code: the newer write supersedes the old one.
    #[default]
    Supersede,
    /// The paper's tie rule regardless of source: user review.
    Review,
}

/// The stale-write check when the snapshot is empty (card "Paper vs code").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaleCheckEmptySnapshot {
    /// The code: skip the check on an empty snapshot.
    #[default]
    Skip,
    /// The paper: apply it always.
    Apply,
}

/// Which parents the permission-laundering check looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunderingParents {
    /// The code: active parents only.
    #[default]
    Active,
    /// The paper: any parent.
    Any,
}

/// Which records a tool call may name as its basis (DESIGN.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolBasis {
    /// Visible to the transaction and active now.
    #[default]
    Active,
    /// In the snapshot or the caller's own staging, whatever its state now.
    Snapshot,
}

/// One mechanism of the protocol. Every one is in force unless a variant
/// ablates it: `Variant::has(Mechanism::Gate)` reads "the gate is in
/// force". Model files name the ablated ones (`"ablate": ["gate"]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// The action gate: every tool call executes.
    Gate,
    /// Commit check 1.
    Evidence,
    /// Commit check 2.
    Validity,
    /// The same-slot rules of check 3 (revoked parent and laundering stay).
    Conflict,
    /// The permission-laundering rule of check 3.
    PermissionInheritance,
    /// Commit check 4.
    DependencyStability,
    /// Retraction repairs the retracted records only, no descendant.
    Cascade,
    /// Every descendant is repaired as a belief.
    TypedRepair,
}

impl Mechanism {
    pub const ALL: [Mechanism; 8] = [
        Mechanism::Gate,
        Mechanism::Evidence,
        Mechanism::Validity,
        Mechanism::Conflict,
        Mechanism::PermissionInheritance,
        Mechanism::DependencyStability,
        Mechanism::Cascade,
        Mechanism::TypedRepair,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Gate => "gate",
            Mechanism::Evidence => "evidence",
            Mechanism::Validity => "validity",
            Mechanism::Conflict => "conflict",
            Mechanism::PermissionInheritance => "permission_inheritance",
            Mechanism::DependencyStability => "dependency_stability",
            Mechanism::Cascade => "cascade",
            Mechanism::TypedRepair => "typed_repair",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A deliberate bug of one line or two, for the tests that show a checker
/// catches it (`check::faults`). Only test builds can set one: in a normal
/// build a [`Variant`] holds none, every check of one is `false`, and the
/// protocol behaves exactly as without this type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) enum Fault {
    /// The gate drops its external_action clause (I1).
    GateIgnoresSupport,
    /// Cascading repair reaches direct children only (I2).
    CascadeSkipsGrandchildren,
    /// Check 4 looks at direct parents only (G3).
    DependencyParentsOnly,
    /// Check 1 reads a missing source's authority field, not 0.5
    /// (evidence).
    MissingSourceKeepsAuthority,
    /// Check 2 accepts a window that ended the day before (validity).
    ValidityOffByOne,
    /// `supersede_old` moves no rival (one value per slot).
    SupersedeForgetsRivals,
    /// Laundering refuses only public children of private parents (scope).
    LaunderingPublicOnly,
    /// Repair quarantines an action_safe view, past the state machine
    /// (lifecycle).
    QuarantineFromActionSafe,
    /// A retraction writes no root entry (log completeness).
    UnloggedRetraction,
    /// The stale-write check never fires (stale writes).
    StaleCheckSkipped,
    /// Abort closes the transaction and retracts nothing (transaction
    /// hygiene).
    AbortLeavesTentative,
    /// An external_action commit stops at committed (transaction hygiene).
    ExternalCommitNotSafe,
    /// An external_action snapshot also sees committed records
    /// (snapshots).
    ExternalSnapshotSeesCommitted,
    /// Revoke moves its record to revoked and stops: no cascade, no log
    /// entry (I2, read from the actions taken).
    SilentRevoke,
    /// Typed repair revokes a view it could have quarantined (I2, view).
    ViewRevokedNotQuarantined,
    /// A cascade holds back a belief descendant like a view instead of
    /// revoking it (I2, belief).
    CascadeQuarantinesBeliefs,
    /// The gate's first clause ignores the snapshot: every tentative
    /// record blocks an irreversible call, read or not (card §3.3 says
    /// only records "that the transaction did not read" do; I1,
    /// blocked).
    GateIgnoresSnapshot,
    /// The gate's first clause is off: tentative records in flight do
    /// not block (I1, in_flight).
    GateIgnoresInFlight,
    /// Staging adds the record to its transaction's snapshot ("read your
    /// writes"; snapshots, changed).
    StageJoinsSnapshot,
    /// The stale-write check is skipped when the candidate has more
    /// authority than its rival (stale writes).
    StaleCheckSkippedForStronger,
    /// Check 1's confidence threshold is exclusive: 0.6 is refused
    /// (admission).
    EvidenceThresholdExclusive,
    /// Check 1's authority bypass is exclusive: 0.9 does not bypass
    /// (admission).
    AuthorityBypassExclusive,
    /// Check 2's window end is exclusive: a window ending today is over
    /// (admission).
    WindowEndExclusive,
    /// Check 3 drops its same-value rule: a rival with the same value
    /// is judged by authority (admission).
    SameValueConflicts,
    /// Check 4 also counts a superseded ancestor as unstable (admission).
    DependencyRejectsSuperseded,
    /// Check 3 tests laundering before the revoked-parent rule
    /// (admission, check order).
    LaunderingBeforeRevokedParent,
    /// A commit counts only committed verdicts as passed, not
    /// action_safe ones (honest outcome, status).
    StatusIgnoresActionSafe,
    /// An action_safe verdict is reported committed (honest outcome).
    ActionSafeReportedCommitted,
    /// A quarantined view is reported revoked (honest outcome, repair).
    QuarantineReportedRevoked,
    /// An executed call reports no tool action record (honest outcome,
    /// gate).
    ExecutedCallReportsNoRecord,
    /// A supersede moves its rivals but reports none (honest outcome,
    /// unreported).
    SupersedeUnreported,
    /// An external_action open reports an empty snapshot (honest
    /// outcome, report).
    OpenReportsEmptySnapshot,
    /// A rebuild keeps every parent, the revoked ones too (lifecycle,
    /// rebuilt_from_survivors).
    RebuildKeepsRevokedSource,
    /// A revalidation quietly drops the record's revoked parents, as a
    /// rebuild would (lifecycle, provenance).
    RevalidateDropsRevokedSources,
    /// The rollback log writes an irreversible tool action's repair as
    /// compensated; the outcome still reports it leaked (I2, log).
    LogCompensatesLeaks,
    /// A cascade logs the repair of a tool action it reaches twice
    /// (log completeness, tool_action_entry).
    ToolRepairLoggedTwice,
    /// A revoke of a tool action writes its log entry and stops: the
    /// record stays committed, and the outcome reports no root and no
    /// repair (I2, tool_action).
    ToolActionRevokeOnlyLogs,
    /// An executed call creates its tool action raw, not committed
    /// (lifecycle, birth).
    ToolActionBornRaw,
    /// An abort whose staged records are the newest drops them from the
    /// store once it has repaired and logged them (lifecycle, vanished).
    AbortDropsItsRecords,
    /// A stage replaces its transaction's staging with the new record, so
    /// the records staged before it belong to no transaction (tx-hygiene,
    /// orphan_tentative).
    StageReplacesStaging,
}

/// The variant a protocol runs: every switch plus the mechanisms it ablates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    pub same_source_tie: SameSourceTie,
    pub stale_check_empty_snapshot: StaleCheckEmptySnapshot,
    pub laundering_parents: LaunderingParents,
    pub tool_basis: ToolBasis,
    /// One bit per ablated mechanism.
    pub(in crate::protocol) ablated: u8,
    /// A deliberate bug (test builds only).
    #[cfg(test)]
    pub(in crate::protocol) fault: Option<Fault>,
}

impl Variant {
    /// This variant with `mechanism` ablated.
    pub fn without(mut self, mechanism: Mechanism) -> Self {
        self.ablated |= mechanism.bit();
        self
    }

    /// Whether `mechanism` is in force (not ablated).
    pub fn has(&self, mechanism: Mechanism) -> bool {
        self.ablated & mechanism.bit() == 0
    }

    /// This variant with the deliberate bug `fault` (test builds only).
    #[cfg(test)]
    pub(crate) fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = Some(fault);
        self
    }

    /// Whether the deliberate bug `fault` is in.
    #[cfg(test)]
    pub(in crate::protocol) fn faulty(&self, fault: Fault) -> bool {
        self.fault == Some(fault)
    }

    /// Never, in a normal build.
    #[cfg(not(test))]
    #[inline(always)]
    pub(in crate::protocol) fn faulty(&self, _fault: Fault) -> bool {
        false
    }

    /// The ablated mechanisms, in [`Mechanism::ALL`] order.
    pub fn ablated(&self) -> Vec<Mechanism> {
        Mechanism::ALL
            .into_iter()
            .filter(|m| !self.has(*m))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_authors_code() {
        let v = Variant::default();
        assert_eq!(v.same_source_tie, SameSourceTie::Supersede);
        assert_eq!(v.stale_check_empty_snapshot, StaleCheckEmptySnapshot::Skip);
        assert_eq!(v.laundering_parents, LaunderingParents::Active);
        assert_eq!(v.tool_basis, ToolBasis::Active);
        assert!(v.ablated().is_empty());
    }

    #[test]
    fn each_ablation_is_independent() {
        for a in Mechanism::ALL {
            let v = Variant::default().without(a);
            assert_eq!(v.ablated(), vec![a]);
            for b in Mechanism::ALL {
                assert_eq!(v.has(b), a != b);
            }
        }
    }
}
