//! I2, cascade-repair completeness (card §3.5, DESIGN.md): for every
//! retracted record, none of the descendants that existed when it was
//! retracted is active; belief descendants are revoked; view descendants
//! are quarantined, or revoked where quarantine is not allowed; every
//! tool_action descendant has a compensated or leaked entry in the rollback
//! log (compensated exactly when its tool is reversible). A record that was
//! itself retracted is revoked, whatever its type.
//!
//! Which records were retracted, and when, comes from the actions taken
//! (the model's [`Monitor`]: an abort retracts what its transaction staged,
//! a revoke its record), not from the log the protocol writes: a protocol
//! that forgot to log a retraction would otherwise leave I2 nothing to
//! check. Records created after a retraction are judged by commit, not by
//! repair. Whether a revoked view could have been quarantined comes from
//! the monitor too (the state it was revoked from). Only the compensated
//! or leaked entries of tool actions are read from the log: they are what
//! the card asks the log to hold.

use super::ancestry::Graph;
use super::{Context, Invariant, Monitor, Violation};
use crate::protocol::{Kind, Lifecycle, LogEntry, RecordId, RecordSet, Repair, StoreView};

pub fn check(ctx: &Context, store: StoreView<'_>, monitor: &Monitor) -> Option<Violation> {
    let retracted = monitor.retracted();
    if retracted.is_empty() {
        return None;
    }
    let log = store.rollback_log();
    let graph = Graph::of(store);
    for root in retracted.iter() {
        if let Some(v) = check_retracted(ctx, store, log, root) {
            return Some(v);
        }
        let covered = RecordSet::below(monitor.horizon(root) as usize);
        let descendants = graph.descendants(root).intersection(covered);
        for d in descendants.iter() {
            if let Some(v) = check_descendant(ctx, store, log, monitor, root, d) {
                return Some(v);
            }
        }
    }
    None
}

/// A retracted record ends revoked; a retracted tool action is logged
/// compensated or leaked as well.
fn check_retracted(
    ctx: &Context,
    store: StoreView<'_>,
    log: &[LogEntry],
    id: RecordId,
) -> Option<Violation> {
    let record = store.record(id)?;
    if record.state() != Lifecycle::Revoked {
        return Some(fail(
            id,
            RecordSet::EMPTY,
            format!("retracted r{id} is {}, not revoked", record.state()),
        ));
    }
    if record.kind() == Kind::ToolAction {
        return tool_action_logged(ctx, store, log, id, id);
    }
    None
}

fn check_descendant(
    ctx: &Context,
    store: StoreView<'_>,
    log: &[LogEntry],
    monitor: &Monitor,
    root: RecordId,
    d: RecordId,
) -> Option<Violation> {
    let record = store.record(d)?;
    let state = record.state();
    if state.is_active() {
        return Some(fail(
            root,
            RecordSet::single(d),
            format!(
                "r{d} ({}) descends from retracted r{root} and is still {state}",
                record.kind().name()
            ),
        ));
    }
    if monitor.retracted().contains(d) {
        // Itself retracted: check_retracted judges it.
        return None;
    }
    match record.kind() {
        Kind::Belief if state != Lifecycle::Revoked => Some(fail(
            root,
            RecordSet::single(d),
            format!("belief r{d} descends from retracted r{root} and is {state}, not revoked"),
        )),
        Kind::Belief => None,
        Kind::ToolAction => tool_action_logged(ctx, store, log, root, d),
        _view => match state {
            Lifecycle::Quarantined => None,
            Lifecycle::Revoked => {
                if monitor.revoked_unquarantinable().contains(d) {
                    None
                } else {
                    Some(fail(root, RecordSet::single(d), format!(
                        "view r{d} ({}) descends from retracted r{root} and was revoked where it could have been quarantined",
                        record.kind().name()
                    )))
                }
            }
            other => Some(fail(
                root,
                RecordSet::single(d),
                format!(
                "view r{d} ({}) descends from retracted r{root} and is {other}, not quarantined",
                record.kind().name()
            ),
            )),
        },
    }
}

/// A tool action reached by a retraction has a compensated (reversible
/// tool) or leaked (irreversible tool) entry in the rollback log.
fn tool_action_logged(
    ctx: &Context,
    store: StoreView<'_>,
    log: &[LogEntry],
    root: RecordId,
    d: RecordId,
) -> Option<Violation> {
    let expected = match store.record(d)?.tool() {
        Some(tool) if !ctx.is_irreversible(tool) => Repair::Compensated,
        _ => Repair::Leaked,
    };
    if log.iter().any(|e| e.record == d && e.repair == expected) {
        None
    } else {
        Some(fail(root, RecordSet::single(d), format!(
            "tool action r{d} was reached by the retraction of r{root} but the rollback log has no {} entry for it",
            expected.name()
        )))
    }
}

fn fail(root: RecordId, others: RecordSet, detail: String) -> Violation {
    Violation {
        invariant: Invariant::I2,
        records: others.union(RecordSet::single(root)),
        detail,
    }
}
