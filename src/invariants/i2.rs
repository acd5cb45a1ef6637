//! I2, cascade-repair completeness (card §3.5, DESIGN.md): for every
//! retracted record, none of the descendants that existed when it was
//! retracted is active; belief descendants are revoked; view descendants
//! are quarantined, or revoked where quarantine is not allowed; every
//! tool_action descendant has a compensated or leaked entry in the rollback
//! log (compensated exactly when its tool is reversible). A record that was
//! itself retracted is revoked, whatever its type. A quarantined view may
//! since have been revalidated (DESIGN.md: quarantined → tentative):
//! tentative again, being rebuilt, it is still held back (not active,
//! visible to no one), so it passes when its quarantine shows: a
//! quarantined entry in the log (the cascade held it back) or the reason a
//! commit check quarantined it for (a cascade leaves such a view as it is).
//! A tentative view that shows neither was skipped by the repair.
//!
//! Which records were retracted, and when, comes from the rollback log's
//! root entries and their horizon (the record count at retraction):
//! records created after a retraction are judged by commit, not by repair.

use super::ancestry::Graph;
use super::{Context, Invariant, Violation};
use crate::protocol::{Kind, Lifecycle, LogEntry, RecordId, RecordSet, Repair, StoreView};

/// States from which the lifecycle allows a move to quarantined, written
/// out here from DESIGN.md rather than asked of the protocol.
fn quarantine_allowed_from(state: Lifecycle) -> bool {
    matches!(
        state,
        Lifecycle::Tentative | Lifecycle::Validated | Lifecycle::Committed
    )
}

pub fn check(ctx: &Context, store: StoreView<'_>) -> Option<Violation> {
    let log = store.rollback_log();
    if log.is_empty() {
        return None;
    }
    let retracted: RecordSet = log.iter().filter(|e| e.root).map(|e| e.record).collect();
    let graph = Graph::of(store);
    for entry in log.iter().filter(|e| e.root) {
        if let Some(v) = check_retracted(ctx, store, log, entry.record) {
            return Some(v);
        }
        let covered = RecordSet::below(entry.horizon as usize);
        let descendants = graph.descendants(entry.record).intersection(covered);
        for d in descendants.iter() {
            if let Some(v) = check_descendant(ctx, store, log, retracted, entry.record, d) {
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
    retracted: RecordSet,
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
    if retracted.contains(d) {
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
            // Held back, then revalidated: being rebuilt.
            Lifecycle::Tentative
                if record.reason().is_some()
                    || log
                        .iter()
                        .any(|e| e.record == d && e.repair == Repair::Quarantined) =>
            {
                None
            }
            Lifecycle::Revoked => {
                let justified = log.iter().any(|e| {
                    e.record == d && e.repair == Repair::Revoked && !quarantine_allowed_from(e.from)
                });
                if justified {
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
