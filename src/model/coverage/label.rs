//! A transition's branch bits, read off the protocol's outcome and the
//! record states around the step; and an attempt's, read off the
//! protocol's refusal.

use super::*;
use crate::model::spec::ModelSpec;
use crate::protocol::{
    Admission, CommitResult, CommitStatus, Kind, Op, Outcome, ProtocolError, Refusal, Repair,
    Store, Tier,
};

fn bit(index: usize) -> u128 {
    1 << index
}

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
            bit(OPEN_BASE + tier as usize)
        }
        Outcome::Staged { record } => match after.record(*record) {
            Some(r) => {
                bit(KIND_BASE + r.kind() as usize)
                    | bit(SCOPE_BASE + r.scope() as usize)
                    | MOVE_BITS[Lifecycle::Raw as usize][Lifecycle::Tentative as usize]
            }
            None => 0,
        },
        Outcome::Committed(c) => {
            let mut bits = bit(STATUS_BASE + status_index(c.status));
            for v in &c.records {
                bits |= bit(match (v.result, v.reason) {
                    (CommitResult::Committed, _) => RECORD_COMMITTED,
                    (CommitResult::ActionSafe, _) => RECORD_ACTION_SAFE,
                    (CommitResult::Quarantined, Some(reason)) => REASON_BASE + reason as usize,
                    (CommitResult::Quarantined, None) => SKIPPED_QUARANTINED,
                    (CommitResult::Revoked, _) => SKIPPED_REVOKED,
                });
                if let (None, Some(admission)) = (v.reason, v.admission) {
                    bits |= bit(ADMISSION_BASE + admission_index(admission));
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
            bit(match (g.reason, irreversible) {
                (Some(Refusal::TentativeInFlight), _) => GATE_BLOCKED_IN_FLIGHT,
                (Some(Refusal::NoActionSafeSupport), _) => GATE_BLOCKED_NO_SUPPORT,
                (None, Some(false)) => GATE_REVERSIBLE,
                (None, _) if !g.in_snapshot.is_empty() => GATE_ALLOWED_IN_SNAPSHOT,
                (None, _) => GATE_ALLOWED,
            })
        }
        Outcome::Retracted { roots, repairs } => {
            let mut bits = 0;
            for &(id, repair) in repairs {
                let kind = after.record(id).map_or(Kind::Belief, |r| r.kind());
                bits |= bit(repair_index(roots.contains(id), repair, kind));
            }
            bits | moves(before, after)
        }
        Outcome::Revalidated { reason, .. } => {
            let cause = if reason.is_some() {
                REVALIDATE_CHECK
            } else {
                REVALIDATE_CASCADE
            };
            bit(cause) | moves(before, after)
        }
    }
}

/// The branches an attempt took that the protocol refused: only a tool
/// call by an aborted transaction is a branch (of the gate's caller); any
/// other refusal is the model offering an action the protocol has no
/// branch for (a basis it may not use, a record it may not revoke, …).
pub fn refusal_labels(op: &Op, error: &ProtocolError) -> u128 {
    match (op, error) {
        (Op::ToolCall { .. }, ProtocolError::TransactionAborted(_)) => bit(GATE_REFUSED_ABORTED),
        _ => 0,
    }
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

pub(super) fn status_index(status: CommitStatus) -> usize {
    match status {
        CommitStatus::Committed => 0,
        CommitStatus::Partial => 1,
        CommitStatus::Aborted => 2,
    }
}

pub(super) fn admission_index(admission: Admission) -> usize {
    match admission {
        Admission::NoRival => 0,
        Admission::SameValue => 1,
        Admission::SupersededByAuthority => 2,
        Admission::SupersededBySameSource => 3,
        Admission::CoexistingWindows => 4,
    }
}

/// A repair's branch. A descendant is read by its type: under the
/// typed-repair ablation every descendant is revoked "as a belief", and a
/// revoked view still counts as `repair.view_revoked`.
fn repair_index(root: bool, repair: Repair, kind: Kind) -> usize {
    match (root, repair) {
        (true, Repair::Compensated) => ROOT_COMPENSATED,
        (true, Repair::Leaked) => ROOT_LEAKED,
        (true, _) => ROOT_REVOKED,
        (false, Repair::Compensated) => TOOL_ACTION_COMPENSATED,
        (false, Repair::Leaked) => TOOL_ACTION_LEAKED,
        (false, Repair::Quarantined) => VIEW_QUARANTINED,
        (false, Repair::Revoked) if kind.is_view() => VIEW_REVOKED,
        (false, Repair::Revoked) => BELIEF_REVOKED,
    }
}
