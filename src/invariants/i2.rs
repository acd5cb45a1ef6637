//! I2, cascade-repair completeness (card §3.5, DESIGN.md): for every
//! retracted record, none of the descendants that existed when it was
//! retracted is active; belief descendants are revoked; view descendants
//! are quarantined, or revoked where quarantine is not allowed; every
//! tool_action descendant has a compensated or leaked entry in the rollback
//! log (compensated exactly when its tool is reversible). A record that was
//! itself retracted is revoked, whatever its type. A view found tentative
//! again passes when the retraction that reached it left it held back (it
//! was revalidated since), and one rebuilt since is outside the
//! retraction's reach (docs/properties.md, "I2 and a revalidated or
//! rebuilt view").
//!
//! And the other direction (card §3.4: the routine "walks every
//! transitive descendant"): a retraction repairs nothing else. Every
//! revoked record, and every record a retraction held back, was reached by
//! one: retracted itself, or a descendant of a retracted record when it
//! was retracted. Only retractions revoke or hold back, so a record
//! revoked or held back that none reached is one a cascade went past its
//! descendants to repair.
//!
//! Clauses: `belief`, `view` and `tool_action` for a record of that type
//! left in the wrong state (a retracted record by its own type), `log` for
//! a tool action whose compensated or leaked entry is missing, `unreached`
//! for a record repaired that no retraction reached.
//!
//! Which records were retracted, which descendants each retraction
//! covered, which it left unrepaired and which it held back comes from
//! the actions taken (the model's [`Monitor`]: an abort retracts what its
//! transaction staged, a revoke its record), not from the log the protocol
//! writes or the quarantine reasons it keeps: a protocol that forgot to
//! log a retraction, or left a stale reason on a view it skipped, would
//! otherwise leave I2 nothing to check. Records created after a retraction
//! are judged by commit, not by repair. Whether a revoked view could have
//! been quarantined comes from the monitor too (the state it was revoked
//! from). Only the compensated or leaked entries of tool actions are read
//! from the log: they are what the card asks the log to hold.

use super::ancestry::ancestors;
use super::context::Context;
use super::fields::{active, is_view};
use super::invariant::Invariant;
use super::monitor::Monitor;
use super::violation::Violation;
use crate::protocol::{
    Kind, Lifecycle, LogEntry, Mechanism, Record, RecordId, RecordSet, Repair, StoreView,
};

pub fn check(ctx: &Context, store: StoreView<'_>, monitor: &Monitor) -> Option<Violation> {
    let retracted = monitor.retracted();
    if retracted.is_empty() {
        return unreached(store, monitor);
    }
    let log = store.rollback_log();
    for root in retracted.iter() {
        let record = store.record(root)?;
        if record.state() != Lifecycle::Revoked {
            return Some(fail(
                kind_clause(record.kind()),
                RecordSet::single(root),
                format!("retracted r{root} is {}, not revoked", record.state()),
            ));
        }
        if record.kind() == Kind::ToolAction && !tool_action_logged(ctx, record, log, root) {
            return Some(unlogged(
                ctx,
                store,
                root,
                format!("the retraction of r{root}"),
            ));
        }
    }
    for d in monitor.covered().difference(retracted).iter() {
        let record = store.record(d)?;
        if rebuilt(store, retracted, d) {
            continue;
        }
        if let Some((clause, why)) = misrepaired(ctx, record, log, monitor, d) {
            // The retracted ancestor named: the first, for the message.
            let root = ancestors(store, d).intersection(retracted).iter().next();
            let root = root.map_or_else(|| "a retracted record".to_owned(), |r| format!("r{r}"));
            let mut records = RecordSet::single(d);
            records = records.union(ancestors(store, d).intersection(retracted));
            return Some(fail(
                clause,
                records,
                format!(
                    "r{d} ({}) descends from retracted {root} and {why}",
                    record.kind().name()
                ),
            ));
        }
    }
    unreached(store, monitor)
}

/// Clause `unreached`: a record revoked, or held back by a retraction,
/// that no retraction reached.
fn unreached(store: StoreView<'_>, monitor: &Monitor) -> Option<Violation> {
    // Every state asks: one pass, no set built.
    let reached = monitor.reached();
    let stray = store
        .records()
        .iter()
        .enumerate()
        .map(|(id, r)| (id as RecordId, r))
        .find(|&(id, r)| {
            (r.state() == Lifecycle::Revoked || monitor.held_back().contains(id))
                && !reached.contains(id)
        })?
        .0;
    let how = if monitor.held_back().contains(stray) {
        "held back by a retraction"
    } else {
        "revoked"
    };
    Some(fail(
        "unreached",
        RecordSet::single(stray),
        format!(
            "r{stray} was {how}, but no retraction reached it: it was neither retracted nor a descendant of a retracted record when that was retracted"
        ),
    ))
}

/// Whether `d`, a record a retraction covered, is a view rebuilt from
/// surviving sources: by its parents now it has no retracted ancestor.
pub fn rebuilt(store: StoreView<'_>, retracted: RecordSet, d: RecordId) -> bool {
    store.record(d).is_some_and(|r| is_view(r.kind())) && !ancestors(store, d).intersects(retracted)
}

/// Why a descendant a retraction covered is not repaired as its type asks,
/// with the clause; `None` when it is.
fn misrepaired(
    ctx: &Context,
    record: &Record,
    log: &[LogEntry],
    monitor: &Monitor,
    d: RecordId,
) -> Option<(&'static str, String)> {
    let state = record.state();
    if active(state) {
        return Some((kind_clause(record.kind()), format!("is still {state}")));
    }
    match record.kind() {
        Kind::Belief if state != Lifecycle::Revoked => {
            Some(("belief", format!("is {state}, not revoked")))
        }
        Kind::ToolAction if !tool_action_logged(ctx, record, log, d) => Some((
            "log",
            format!(
                "the rollback log has no {} entry for it",
                expected_repair(ctx, record).name()
            ),
        )),
        kind if is_view(kind) => match state {
            Lifecycle::Quarantined => None,
            // Held back (or already quarantined) when its retraction
            // reached it, then revalidated.
            // (Without the cascade nothing holds a record back.)
            Lifecycle::Tentative
                if ctx.has(Mechanism::Cascade) && !monitor.unrepaired().contains(d) =>
            {
                None
            }
            Lifecycle::Revoked if monitor.revoked_unquarantinable().contains(d) => None,
            Lifecycle::Revoked => Some((
                "view",
                "was revoked where it could have been quarantined".to_owned(),
            )),
            other => Some(("view", format!("is {other}, not quarantined"))),
        },
        _ => None,
    }
}

/// A tool action's repair: compensated for a reversible tool, leaked
/// otherwise.
fn expected_repair(ctx: &Context, record: &Record) -> Repair {
    match record.tool() {
        Some(tool) if !ctx.is_irreversible(tool) => Repair::Compensated,
        _ => Repair::Leaked,
    }
}

/// Whether the rollback log holds the tool action's expected entry.
fn tool_action_logged(ctx: &Context, record: &Record, log: &[LogEntry], id: RecordId) -> bool {
    let expected = expected_repair(ctx, record);
    log.iter().any(|e| e.record == id && e.repair == expected)
}

fn unlogged(ctx: &Context, store: StoreView<'_>, id: RecordId, by: String) -> Violation {
    let name = store
        .record(id)
        .map_or("compensated or leaked", |r| expected_repair(ctx, r).name());
    fail(
        "log",
        RecordSet::single(id),
        format!(
            "tool action r{id} was reached by {by} but the rollback log has no {name} entry for it"
        ),
    )
}

/// The clause a record of `kind` falls under: beliefs, views, tool
/// actions.
fn kind_clause(kind: Kind) -> &'static str {
    match kind {
        Kind::Belief => "belief",
        Kind::ToolAction => "tool_action",
        _view => "view",
    }
}

fn fail(clause: &'static str, records: RecordSet, detail: String) -> Violation {
    Violation::new(Invariant::I2, clause, records, detail)
}
