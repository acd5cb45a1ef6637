//! A transition's branch bits, read off the protocol's outcome and the
//! record states around the step; and an attempt's, read off the
//! protocol's refusal.

use super::branch::{Branch, GateBranch, RebuildBranch, RepairBranch, RevalidateBranch};
use super::MOVE_BITS;
use crate::model::spec::ModelSpec;
use crate::protocol::{
    Kind, Lifecycle, Op, Outcome, ProtocolError, Reason, RecordId, Repair, Store, Tier,
};

/// The branches a transition took: `op` on `before` gave `outcome` and
/// `after`.
pub fn transition_labels(
    spec: &ModelSpec,
    before: &Store,
    outcome: &Outcome,
    after: &Store,
) -> u128 {
    match outcome {
        Outcome::Opened { tx, .. } => {
            let tier = after.transaction(*tx).map_or(Tier::Low, |t| t.tier());
            Branch::Open(tier).bit()
        }
        Outcome::Staged { record } => match after.record(*record) {
            Some(r) => {
                Branch::StagedKind(r.kind()).bit()
                    | Branch::StagedScope(r.scope()).bit()
                    | MOVE_BITS[Lifecycle::Raw as usize][Lifecycle::Tentative as usize]
            }
            None => 0,
        },
        Outcome::Committed(c) => {
            let mut bits = Branch::Commit(c.status).bit();
            for v in &c.records {
                bits |= Branch::Result(v.result, v.reason).bit();
                if let (None, Some(admission)) = (v.reason, v.admission) {
                    bits |= Branch::Admitted(admission).bit();
                }
                if v.reason == Some(Reason::RevokedParent) && only_settled_parents(after, v.id) {
                    bits |= Branch::Rebuild(RebuildBranch::ChildOfRebuiltRefused).bit();
                }
            }
            bits | moves(before, after)
        }
        Outcome::ToolCall(g) => {
            let irreversible = g
                .record
                .and_then(|r| after.record(r))
                .and_then(|r| r.tool())
                .map(|t| spec.context().is_irreversible(t));
            Branch::Gate(match (g.reason, irreversible) {
                (Some(refusal), _) => GateBranch::Blocked(refusal),
                (None, Some(false)) => GateBranch::ReversiblePass,
                (None, _) if !g.in_snapshot.is_empty() => {
                    GateBranch::AllowedWithTentativeInSnapshot
                }
                (None, _) => GateBranch::IrreversibleAllowed,
            })
            .bit()
        }
        Outcome::Retracted { roots, repairs } => {
            let mut bits = 0;
            for &(id, repair) in repairs {
                let kind = after.record(id).map_or(Kind::Belief, |r| r.kind());
                bits |= Branch::Repair(repair_branch(roots.contains(id), repair, kind)).bit();
            }
            bits | moves(before, after)
        }
        Outcome::Revalidated { reason, .. } => {
            let cause = if reason.is_some() {
                RevalidateBranch::AfterCommitCheck
            } else {
                RevalidateBranch::AfterCascade
            };
            Branch::Revalidate(cause).bit() | moves(before, after)
        }
        Outcome::Rebuilt { dropped, .. } => {
            let how = if dropped.is_empty() {
                RebuildBranch::KeptEverySource
            } else {
                RebuildBranch::DroppedRevoked
            };
            Branch::Rebuild(how).bit() | moves(before, after)
        }
    }
}

/// The branches an attempt took that the protocol refused: a tool call
/// by an aborted transaction (a branch of the gate's caller) and each
/// refusal of a rebuild the model offers (every quarantined record is
/// offered one); any other refusal is the model offering an action the
/// protocol has no branch for (a basis it may not use, a record it may
/// not revoke, …).
pub fn refusal_labels(op: &Op, error: &ProtocolError) -> u128 {
    let refused = |why| Branch::Rebuild(why).bit();
    match (op, error) {
        (Op::ToolCall { .. }, ProtocolError::TransactionAborted(_)) => {
            Branch::Gate(GateBranch::RefusedAbortedTransaction).bit()
        }
        (Op::Rebuild { .. }, ProtocolError::NotAView { .. }) => {
            refused(RebuildBranch::RefusedNotAView)
        }
        (Op::Rebuild { .. }, ProtocolError::QuarantinedByCheck { .. }) => {
            refused(RebuildBranch::RefusedCommitCheck)
        }
        (Op::Rebuild { .. }, ProtocolError::StagedElsewhere { .. }) => {
            refused(RebuildBranch::RefusedStagedElsewhere)
        }
        (Op::Rebuild { .. }, ProtocolError::NoSurvivingSource { .. }) => {
            refused(RebuildBranch::RefusedNoSurvivingSource)
        }
        _ => 0,
    }
}

/// Whether every parent of `id` stands settled (committed, action_safe
/// or superseded since) in `after`: refused for `revoked_parent` all the
/// same, a parent is in the revocation registry though no state shows it,
/// which only a view rebuilt and committed again is.
fn only_settled_parents(after: &Store, id: RecordId) -> bool {
    let settled = |p| {
        after.record(p).is_some_and(|r| {
            matches!(
                r.state(),
                Lifecycle::Committed | Lifecycle::ActionSafe | Lifecycle::Superseded
            )
        })
    };
    after
        .record(id)
        .is_some_and(|r| !r.derived_from().is_empty() && r.derived_from().iter().all(settled))
}

/// The lifecycle moves of the records that existed before the step.
fn moves(before: &Store, after: &Store) -> u128 {
    before
        .records()
        .iter()
        .zip(after.records())
        .map(|(b, a)| MOVE_BITS[b.state() as usize][a.state() as usize])
        .fold(0, |bits, m| bits | m)
}

/// A repair's branch. A descendant is read by its type: under the
/// typed-repair ablation every descendant is revoked "as a belief", and a
/// revoked view still counts as `repair.view_revoked`.
fn repair_branch(root: bool, repair: Repair, kind: Kind) -> RepairBranch {
    match (root, repair) {
        (true, repair) => RepairBranch::Root(repair),
        (false, Repair::Compensated) => RepairBranch::ToolActionCompensated,
        (false, Repair::Leaked) => RepairBranch::ToolActionLeaked,
        (false, Repair::Quarantined) => RepairBranch::ViewQuarantined,
        (false, Repair::Revoked) if kind.is_view() => RepairBranch::ViewRevoked,
        (false, Repair::Revoked) => RepairBranch::BeliefRevoked,
    }
}
