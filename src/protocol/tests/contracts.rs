//! What must hold after every operation of a generated sequence: a refused
//! operation leaves the store unchanged; an accepted one keeps I1 on its
//! transition and I2 and G3 on its state (G3 not under the `snapshot` tool
//! basis, where DESIGN.md expects it to break), moves records only along
//! legal lifecycle moves, and logs every retraction.

use super::strategy::{may_move_records, reachable};
use crate::invariants::{self, Context, Invariant};
use crate::protocol::{Lifecycle, Op, Outcome, ProtocolError, Store};
use proptest::prelude::*;

/// Checks one step; `g3_applies` is false under `tool_basis: snapshot`.
pub fn check_step(
    ctx: &Context,
    before: &Store,
    op: &Op,
    result: &Result<Outcome, ProtocolError>,
    after: &Store,
    g3_applies: bool,
) -> Result<(), TestCaseError> {
    let outcome = match result {
        Err(e) => {
            prop_assert_eq!(before, after, "refused {:?} ({}) changed the store", op, e);
            return Ok(());
        }
        Ok(outcome) => outcome,
    };
    if let Some(v) = invariants::check_transition(ctx, before.view(), op, after.view()) {
        prop_assert!(false, "{:?}: {}", op, v);
    }
    for v in invariants::check_state(ctx, after.view()) {
        if g3_applies || v.invariant != Invariant::G3 {
            prop_assert!(false, "after {:?}: {}", op, v);
        }
    }
    lifecycle_moves_are_legal(before, op, after)?;
    retractions_are_logged(before, outcome, after)
}

/// Every record that existed moved to a state reachable by legal moves (and
/// did not move at all on open or stage); every new record is reachable
/// from raw by at least one move.
fn lifecycle_moves_are_legal(before: &Store, op: &Op, after: &Store) -> Result<(), TestCaseError> {
    prop_assert!(after.records().len() >= before.records().len());
    for (id, old) in before.records().iter().enumerate() {
        let (from, to) = (old.state(), after.records()[id].state());
        prop_assert!(
            reachable(from).contains(&to),
            "r{} moved {} -> {} on {:?}",
            id,
            from,
            to,
            op
        );
        prop_assert!(
            may_move_records(op) || from == to,
            "r{} moved {} -> {} on {:?}",
            id,
            from,
            to,
            op
        );
    }
    for (id, new) in after
        .records()
        .iter()
        .enumerate()
        .skip(before.records().len())
    {
        prop_assert!(
            new.state() != Lifecycle::Raw && reachable(Lifecycle::Raw).contains(&new.state()),
            "new r{} is {} after {:?}",
            id,
            new.state(),
            op
        );
    }
    Ok(())
}

/// The log only grows, and each repair of a retraction has its entry among
/// the new ones.
fn retractions_are_logged(
    before: &Store,
    outcome: &Outcome,
    after: &Store,
) -> Result<(), TestCaseError> {
    let (old, new) = (before.rollback_log(), after.rollback_log());
    prop_assert!(
        new.len() >= old.len() && new[..old.len()] == *old,
        "the log was rewritten"
    );
    if let Outcome::Retracted { repairs } = outcome {
        let added = &new[old.len()..];
        for &(record, repair) in repairs {
            prop_assert!(
                added
                    .iter()
                    .any(|e| e.record == record && e.repair == repair),
                "repair of r{} ({}) is not logged",
                record,
                repair.name()
            );
        }
    }
    Ok(())
}
