//! The protocol's contracts on generated operation sequences (see
//! [`crate::protocol::generate`]): a refused operation leaves the store
//! unchanged; an accepted one moves records only along legal lifecycle
//! moves (card §3.1) and logs every retraction (card §3.4). That the
//! accepted ones keep I1, I2 and G3 is the invariant checkers' test.

use crate::protocol::generate::{config, scenario, Stepped};
use crate::protocol::{Lifecycle, Op, Outcome, Store};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_sequences_keep_the_protocols_contracts((setup, ops) in scenario()) {
        for s in &setup.run(&ops).0 {
            check_step(s)?;
        }
    }
}

/// Checks one step.
fn check_step(s: &Stepped) -> Result<(), TestCaseError> {
    let (before, op, after) = (&s.before, &s.op, &s.after);
    let outcome = match &s.result {
        Err(e) => {
            prop_assert_eq!(before, after, "refused {:?} ({}) changed the store", op, e);
            return Ok(());
        }
        Ok(outcome) => outcome,
    };
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
            Lifecycle::reachable(from).contains(&to),
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
            new.state() != Lifecycle::Raw
                && Lifecycle::reachable(Lifecycle::Raw).contains(&new.state()),
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
    if let Outcome::Retracted { repairs, .. } = outcome {
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

/// Whether `op` could have changed a record's state (everything but open
/// and stage, which only adds a tentative record).
fn may_move_records(op: &Op) -> bool {
    !matches!(op, Op::Open { .. } | Op::Stage { .. })
}
