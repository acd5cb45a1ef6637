//! I1, action-safety gating (card §3.5), a transition property: an
//! irreversible tool call executes if and only if, in the state before it,
//! no tentative record outside the caller's snapshot exists and, for an
//! external_action transaction, some record in its snapshot is action_safe.
//! Reversible calls always execute. Both directions are checked: a gate
//! that blocks a call it should allow violates I1 too.

use super::context::Context;
use super::invariant::Invariant;
use super::transition::Transition;
use super::violation::Violation;
use crate::protocol::{Kind, Lifecycle, Op, RecordId, RecordSet, StoreView, Tier};

/// Whether the gate conditions allow an irreversible call by `tx` in
/// `store`, recomputed from record states and the snapshot; with the
/// records that stand in the way when they do not.
pub fn irreversible_allowed(store: StoreView<'_>, tx: u8) -> Result<(), RecordSet> {
    let Some(t) = store.transaction(tx) else {
        return Err(RecordSet::EMPTY);
    };
    let snapshot = t.snapshot();
    let in_flight: RecordSet = store
        .records()
        .iter()
        .enumerate()
        .filter(|(id, r)| r.state() == Lifecycle::Tentative && !snapshot.contains(*id as RecordId))
        .map(|(id, _)| id as RecordId)
        .collect();
    if !in_flight.is_empty() {
        return Err(in_flight);
    }
    let supported = t.tier() != Tier::ExternalAction
        || snapshot.iter().any(|id| {
            store
                .record(id)
                .is_some_and(|r| r.state() == Lifecycle::ActionSafe)
        });
    if supported {
        Ok(())
    } else {
        Err(snapshot)
    }
}

/// The tool_action record a call created, if it executed.
fn created_tool_action(before: StoreView<'_>, after: StoreView<'_>) -> Option<RecordId> {
    let n = before.records().len();
    after
        .records()
        .get(n..)?
        .iter()
        .position(|r| r.kind() == Kind::ToolAction)
        .map(|i| (n + i) as RecordId)
}

pub fn check(ctx: &Context, t: Transition<'_>) -> Option<Violation> {
    let Transition { before, after, .. } = t;
    let Op::ToolCall { tx, tool, .. } = *t.op else {
        return None;
    };
    let executed = created_tool_action(before, after);
    let expected: Result<(), RecordSet> = if ctx.is_irreversible(tool) {
        irreversible_allowed(before, tx)
    } else {
        Ok(())
    };
    match (executed, expected) {
        (Some(_), Ok(())) | (None, Err(_)) => None,
        (Some(record), Err(blockers)) => {
            let (clause, why) = describe(before, tx, blockers);
            Some(Violation::new(
                Invariant::I1,
                clause,
                blockers.union(RecordSet::single(record)),
                format!(
                    "T{tx}'s irreversible call executed (r{record}) although the gate conditions did not hold: {why}"
                ),
            ))
        }
        (None, Ok(())) => Some(Violation::new(
            Invariant::I1,
            "blocked",
            RecordSet::EMPTY,
            format!(
                "T{tx}'s {} call was blocked although the gate conditions held",
                if ctx.is_irreversible(tool) {
                    "irreversible"
                } else {
                    "reversible"
                }
            ),
        )),
    }
}

/// The gate condition that failed: its clause and a description.
fn describe(store: StoreView<'_>, tx: u8, blockers: RecordSet) -> (&'static str, String) {
    let tentative = blockers
        .iter()
        .filter(|&id| {
            store
                .record(id)
                .is_some_and(|r| r.state() == Lifecycle::Tentative)
        })
        .map(|id| format!("r{id}"))
        .collect::<Vec<_>>();
    if !tentative.is_empty() {
        (
            "in_flight",
            format!(
                "tentative outside T{tx}'s snapshot: {}",
                tentative.join(", ")
            ),
        )
    } else {
        (
            "unsupported",
            format!("T{tx} is external_action and its snapshot holds no action_safe record"),
        )
    }
}
