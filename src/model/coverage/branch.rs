//! The branches coverage counts, as a type: [`Branch`] names one outcome
//! branch of the protocol by the protocol's own enumerations, its bit is
//! computed from them ([`Branch::index`], exhaustive matches over
//! section bases that are sums of the enumerations' lengths), and the
//! list of every branch ([`Branch::all`]) iterates the same
//! enumerations' `ALL`. So a new reason, result, refusal, admission,
//! tier, kind or repair is counted under a branch of its own by
//! construction, and a new *kind* of outcome is a compile error here
//! until it is given one (`label.rs` matches the outcome exhaustively);
//! the tests check that every branch's index is its place in the list.

use super::MOVES;
use crate::protocol::{
    enumerated, Admission, CommitResult, CommitStatus, Kind, Reason, Refusal, Repair, Scope, Tier,
};

/// One branch of the protocol's outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// A transaction opened at this tier.
    Open(Tier),
    /// A record of this kind staged (never a tool action).
    StagedKind(Kind),
    /// A record of this scope staged.
    StagedScope(Scope),
    /// A commit with this status.
    Commit(CommitStatus),
    /// A staged record's result at commit, with the check's reason when a
    /// check quarantined it (a result without a reason that is not a
    /// commit was skipped: a cascade got there first).
    Result(CommitResult, Option<Reason>),
    /// How a committed record stood against its slot.
    Admitted(Admission),
    /// What the gate did with a tool call.
    Gate(GateBranch),
    /// One repair of a retraction.
    Repair(RepairBranch),
    /// A lifecycle move across one transition, by its index in [`MOVES`].
    Move(usize),
    /// What had quarantined a revalidated record.
    Revalidate(RevalidateBranch),
    /// What a rebuild did, or why the protocol refused it.
    Rebuild(RebuildBranch),
}

/// The gate's branches: a pass, an allowed irreversible call (plain, or
/// past a tentative record its snapshot holds), a block for each
/// [`Refusal`], and the call an aborted transaction may not make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateBranch {
    ReversiblePass,
    IrreversibleAllowed,
    AllowedWithTentativeInSnapshot,
    Blocked(Refusal),
    RefusedAbortedTransaction,
}

/// A repair's branch: the retracted record itself (revoked, or a tool
/// action compensated or leaked), or a descendant by its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepairBranch {
    Root(Repair),
    BeliefRevoked,
    ViewQuarantined,
    ViewRevoked,
    ToolActionCompensated,
    ToolActionLeaked,
}

enumerated! {
    /// What had quarantined a record revalidation takes back.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum RevalidateBranch {
        AfterCommitCheck = "revalidate.after_commit_check",
        AfterCascade = "revalidate.after_cascade",
    }
}

enumerated! {
    /// A rebuild's branches: it dropped a revoked source, or every source
    /// survived (the view's sources are held back themselves); or the
    /// protocol refused it, for each reason a model can offer one; and the
    /// registry case, a record derived from a view rebuilt and committed
    /// again, which check 3 still refuses (`revoked_parent`: the view stays
    /// in the revocation registry).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum RebuildBranch {
        DroppedRevoked = "rebuild.dropped_revoked",
        KeptEverySource = "rebuild.kept_every_source",
        RefusedNotAView = "rebuild.refused.not_a_view",
        RefusedCommitCheck = "rebuild.refused.commit_check",
        RefusedStagedElsewhere = "rebuild.refused.staged_elsewhere",
        RefusedNoSurvivingSource = "rebuild.refused.no_surviving_source",
        ChildOfRebuiltRefused = "rebuild.child_of_rebuilt_refused",
    }
}

/// Kinds a writer may stage: every kind but the tool action, which only
/// an executed call creates (the last kind, so the staged kinds are the
/// first `STAGED_KINDS` in `Kind` order).
const STAGED_KINDS: usize = Kind::ALL.len() - 1;
const _: () = assert!(Kind::ToolAction as usize == STAGED_KINDS);

/// The record results with no reason: committed, action_safe, skipped
/// because a cascade quarantined (a view) or revoked it.
const RESULTS_WITHOUT_REASON: usize = CommitResult::ALL.len();
/// The gate's branches other than blocks.
const GATE_OTHERS: usize = 4;
/// A root is revoked, compensated or leaked, never quarantined.
const ROOT_REPAIRS: usize = Repair::ALL.len() - 1;
const DESCENDANT_REPAIRS: usize = 5;

// Section bases, each the previous one plus its length.
const OPEN: usize = 0;
const STAGED_KIND: usize = OPEN + Tier::ALL.len();
const STAGED_SCOPE: usize = STAGED_KIND + STAGED_KINDS;
const COMMIT: usize = STAGED_SCOPE + Scope::ALL.len();
const RESULT: usize = COMMIT + CommitStatus::ALL.len();
const ADMITTED: usize = RESULT + RESULTS_WITHOUT_REASON + Reason::ALL.len();
const GATE: usize = ADMITTED + Admission::ALL.len();
const REPAIR: usize = GATE + GATE_OTHERS + Refusal::ALL.len();
const MOVE: usize = REPAIR + ROOT_REPAIRS + DESCENDANT_REPAIRS;
const REVALIDATE: usize = MOVE + MOVES.len();
const REBUILD: usize = REVALIDATE + RevalidateBranch::ALL.len();

/// How many branches there are.
pub const COUNT: usize = REBUILD + RebuildBranch::ALL.len();

impl Branch {
    /// The branch's row in `coverage.csv` and its bit in a label.
    pub const fn index(self) -> usize {
        match self {
            Branch::Open(tier) => OPEN + tier as usize,
            Branch::StagedKind(kind) => STAGED_KIND + kind as usize,
            Branch::StagedScope(scope) => STAGED_SCOPE + scope as usize,
            Branch::Commit(status) => COMMIT + status as usize,
            Branch::Result(result, reason) => RESULT + result_offset(result, reason),
            Branch::Admitted(admission) => ADMITTED + admission as usize,
            Branch::Gate(gate) => {
                GATE + match gate {
                    GateBranch::ReversiblePass => 0,
                    GateBranch::IrreversibleAllowed => 1,
                    GateBranch::AllowedWithTentativeInSnapshot => 2,
                    GateBranch::Blocked(refusal) => 3 + refusal as usize,
                    GateBranch::RefusedAbortedTransaction => 3 + Refusal::ALL.len(),
                }
            }
            Branch::Repair(repair) => {
                REPAIR
                    + match repair {
                        RepairBranch::Root(Repair::Revoked | Repair::Quarantined) => 0,
                        RepairBranch::Root(Repair::Compensated) => 1,
                        RepairBranch::Root(Repair::Leaked) => 2,
                        RepairBranch::BeliefRevoked => ROOT_REPAIRS,
                        RepairBranch::ViewQuarantined => ROOT_REPAIRS + 1,
                        RepairBranch::ViewRevoked => ROOT_REPAIRS + 2,
                        RepairBranch::ToolActionCompensated => ROOT_REPAIRS + 3,
                        RepairBranch::ToolActionLeaked => ROOT_REPAIRS + 4,
                    }
            }
            Branch::Move(i) => MOVE + i,
            Branch::Revalidate(revalidate) => REVALIDATE + revalidate as usize,
            Branch::Rebuild(rebuild) => REBUILD + rebuild as usize,
        }
    }

    /// The label bit of the branch.
    pub const fn bit(self) -> u128 {
        1 << self.index()
    }

    /// The branch's name, as `coverage.csv` and `expect.coverage` write it.
    pub fn name(self) -> String {
        match self {
            Branch::Open(tier) => format!("open.{}", tier.name()),
            Branch::StagedKind(kind) => format!("stage.{}", kind.name()),
            Branch::StagedScope(scope) => format!("stage.{}", scope.name()),
            Branch::Commit(status) => format!("commit.{}", status.name()),
            Branch::Result(result, reason) => match (result, reason) {
                (CommitResult::Quarantined, Some(reason)) => {
                    format!("record.quarantined.{}", reason.name())
                }
                (CommitResult::Committed | CommitResult::ActionSafe, _) => {
                    format!("record.{}", result.name())
                }
                (CommitResult::Quarantined | CommitResult::Revoked, _) => {
                    format!("record.skipped.{}", result.name())
                }
            },
            Branch::Admitted(admission) => format!("record.admitted.{}", admission.name()),
            Branch::Gate(gate) => match gate {
                GateBranch::ReversiblePass => "gate.reversible_pass".to_owned(),
                GateBranch::IrreversibleAllowed => "gate.irreversible_allowed".to_owned(),
                GateBranch::AllowedWithTentativeInSnapshot => {
                    "gate.irreversible_allowed.tentative_in_snapshot".to_owned()
                }
                GateBranch::Blocked(refusal) => format!("gate.blocked.{}", refusal.name()),
                GateBranch::RefusedAbortedTransaction => {
                    "gate.refused.aborted_transaction".to_owned()
                }
            },
            Branch::Repair(repair) => match repair {
                RepairBranch::Root(r) => format!(
                    "repair.root_{}",
                    match r {
                        Repair::Quarantined => Repair::Revoked.name(),
                        r => r.name(),
                    }
                ),
                RepairBranch::BeliefRevoked => "repair.belief_revoked".to_owned(),
                RepairBranch::ViewQuarantined => "repair.view_quarantined".to_owned(),
                RepairBranch::ViewRevoked => "repair.view_revoked".to_owned(),
                RepairBranch::ToolActionCompensated => "repair.tool_action_compensated".to_owned(),
                RepairBranch::ToolActionLeaked => "repair.tool_action_leaked".to_owned(),
            },
            Branch::Move(i) => {
                let (from, to) = MOVES[i];
                format!("move.{}_to_{}", from.name(), to.name())
            }
            Branch::Revalidate(revalidate) => revalidate.name().to_owned(),
            Branch::Rebuild(rebuild) => rebuild.name().to_owned(),
        }
    }

    /// Every branch, in index order, from the protocol's enumerations.
    pub fn all() -> Vec<Branch> {
        let mut all = Vec::with_capacity(COUNT);
        all.extend(Tier::ALL.map(Branch::Open));
        all.extend(
            Kind::ALL
                .into_iter()
                .filter(|&k| k != Kind::ToolAction)
                .map(Branch::StagedKind),
        );
        all.extend(Scope::ALL.map(Branch::StagedScope));
        all.extend(CommitStatus::ALL.map(Branch::Commit));
        for result in CommitResult::ALL {
            match result {
                CommitResult::Committed | CommitResult::ActionSafe => {
                    all.push(Branch::Result(result, None))
                }
                CommitResult::Quarantined => all.extend(
                    Reason::ALL
                        .into_iter()
                        .map(|r| Branch::Result(result, Some(r))),
                ),
                CommitResult::Revoked => {}
            }
        }
        // Skipped at commit: a cascade revoked it, or held a view back.
        all.push(Branch::Result(CommitResult::Revoked, None));
        all.push(Branch::Result(CommitResult::Quarantined, None));
        all.extend(Admission::ALL.map(Branch::Admitted));
        all.push(Branch::Gate(GateBranch::ReversiblePass));
        all.push(Branch::Gate(GateBranch::IrreversibleAllowed));
        all.push(Branch::Gate(GateBranch::AllowedWithTentativeInSnapshot));
        all.extend(Refusal::ALL.map(|r| Branch::Gate(GateBranch::Blocked(r))));
        all.push(Branch::Gate(GateBranch::RefusedAbortedTransaction));
        for repair in Repair::ALL {
            match repair {
                // A root is never quarantined.
                Repair::Quarantined => {}
                _ => all.push(Branch::Repair(RepairBranch::Root(repair))),
            }
        }
        all.extend(
            [
                RepairBranch::BeliefRevoked,
                RepairBranch::ViewQuarantined,
                RepairBranch::ViewRevoked,
                RepairBranch::ToolActionCompensated,
                RepairBranch::ToolActionLeaked,
            ]
            .map(Branch::Repair),
        );
        all.extend((0..MOVES.len()).map(Branch::Move));
        all.extend(RevalidateBranch::ALL.map(Branch::Revalidate));
        all.extend(RebuildBranch::ALL.map(Branch::Rebuild));
        all
    }
}

/// A record result's place in its section: the results without a reason
/// first (committed, action_safe), every quarantine reason in check
/// order, then the two skips.
const fn result_offset(result: CommitResult, reason: Option<Reason>) -> usize {
    match (result, reason) {
        (CommitResult::Committed, _) => 0,
        (CommitResult::ActionSafe, _) => 1,
        (CommitResult::Quarantined, Some(reason)) => 2 + reason as usize,
        (CommitResult::Revoked, _) => 2 + Reason::ALL.len(),
        (CommitResult::Quarantined, None) => 3 + Reason::ALL.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_branch_sits_at_its_index_and_the_sections_add_up() {
        let all = Branch::all();
        assert_eq!(all.len(), COUNT);
        for (i, b) in all.iter().enumerate() {
            assert_eq!(b.index(), i, "{b:?} ({})", b.name());
        }
    }

    #[test]
    fn names_are_unique_and_read_as_before() {
        let names: Vec<String> = Branch::all().into_iter().map(Branch::name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        for (branch, name) in [
            (Branch::Open(Tier::ExternalAction), "open.external_action"),
            (
                Branch::Result(CommitResult::Quarantined, Some(Reason::StaleWrite)),
                "record.quarantined.stale_write",
            ),
            (
                Branch::Result(CommitResult::Quarantined, None),
                "record.skipped.quarantined",
            ),
            (
                Branch::Result(CommitResult::Revoked, None),
                "record.skipped.revoked",
            ),
            (
                Branch::Result(CommitResult::ActionSafe, None),
                "record.action_safe",
            ),
            (
                Branch::Repair(RepairBranch::Root(Repair::Leaked)),
                "repair.root_leaked",
            ),
            (
                Branch::Gate(GateBranch::Blocked(Refusal::NoActionSafeSupport)),
                "gate.blocked.no_action_safe_support",
            ),
        ] {
            assert_eq!(branch.name(), name);
        }
    }

    /// Every quarantine reason, whatever the build has (a test-only spec
    /// change adds one), is its own branch: none is counted under another
    /// branch's row.
    #[test]
    fn every_reason_has_its_own_row() {
        let all = Branch::all();
        for reason in Reason::ALL {
            let b = Branch::Result(CommitResult::Quarantined, Some(reason));
            assert_eq!(all[b.index()], b);
            assert_eq!(b.name(), format!("record.quarantined.{}", reason.name()));
        }
    }
}
