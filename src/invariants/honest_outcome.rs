//! Honest outcome (ours): what an operation reports is what it did to the
//! store. The other properties read the store; users, logs, replay and
//! conformance drivers read the outcome, so a commit that reports
//! "aborted" while it committed everything, or a repair reported as a move
//! the record did not make, is a bug no store property sees.
//!
//! Judged on every accepted operation, from the reported outcome beside
//! the store before and after it. Clauses: `verdict` and `status`
//! (commit), `repair` (abort, revoke), `gate` (tool call), `report` (open,
//! stage, revalidate, rebuild) and `unreported` (any: a record changed
//! state that the outcome does not name); each clause in full is in
//! docs/admission-and-outcomes.md.

use super::context::Context;
use super::fields::active;
use super::invariant::Invariant;
use super::monitor::retracted_by;
use super::transition::Transition;
use super::violation::Violation;
use crate::protocol::{
    CommitOutcome, CommitResult, CommitStatus, GateOutcome, Kind, Lifecycle, Op, Outcome, RecordId,
    RecordSet, Repair, StoreView, TxId, TxStatus,
};

pub fn check(ctx: &Context, t: Transition<'_>) -> Option<Violation> {
    let Transition {
        before, op, after, ..
    } = t;
    let named = match (op, t.outcome) {
        (Op::Commit { tx }, Outcome::Committed(c)) => commit(before, *tx, c, after)?,
        (Op::ToolCall { tool, .. }, Outcome::ToolCall(g)) => gate(before, *tool, g, after)?,
        (Op::Abort { .. } | Op::Revoke { .. }, Outcome::Retracted { roots, repairs }) => {
            if let Some(wrong) = wrong_roots(before, op, *roots) {
                return Some(wrong);
            }
            retraction(ctx, before, *roots, repairs, after)?
        }
        (Op::Open { tier, .. }, Outcome::Opened { tx, snapshot }) => {
            opened(before, *tier, *tx, *snapshot, after)?
        }
        (Op::Stage { tx, .. }, Outcome::Staged { record }) => staged(before, *tx, *record, after)?,
        (
            Op::Revalidate { tx, .. },
            Outcome::Revalidated {
                tx: t,
                record,
                reason,
            },
        ) => revalidated(before, *tx, *t, *record, *reason, after)?,
        (
            Op::Rebuild { tx, .. },
            Outcome::Rebuilt {
                tx: t,
                record,
                dropped,
            },
        ) => rebuilt(before, *tx, *t, *record, *dropped, after)?,
        _ => {
            return Some(violation(
                "report",
                RecordSet::EMPTY,
                format!("{} reported an outcome of another operation", op_name(op)),
            ))
        }
    };
    unreported(before, after, named, op)
}

/// What one operation's outcome may leave unjudged: either a violation
/// already, or the records it names.
type Named = Result<RecordSet, Violation>;

fn violation(clause: &'static str, records: RecordSet, detail: String) -> Violation {
    Violation::new(Invariant::HonestOutcome, clause, records, detail)
}

/// An operation that reports one record: it names `record` when the
/// report is `honest`, else it breaks `report` with `detail`.
fn reported(honest: bool, record: RecordId, detail: impl FnOnce() -> String) -> Option<Named> {
    let records = RecordSet::single(record);
    Some(if honest {
        Ok(records)
    } else {
        Err(violation("report", records, detail()))
    })
}

fn state_of(store: StoreView<'_>, id: RecordId) -> Option<Lifecycle> {
    store.record(id).map(|r| r.state())
}

fn commit(
    before: StoreView<'_>,
    tx: TxId,
    c: &CommitOutcome,
    after: StoreView<'_>,
) -> Option<Named> {
    let staged = before.transaction(tx)?.staged();
    // Compared without collecting: this runs on every commit the model
    // explores; the lists are built only for the message.
    if !c.records.iter().map(|v| v.id).eq(staged.iter()) {
        let reported: Vec<RecordId> = c.records.iter().map(|v| v.id).collect();
        let expected: Vec<RecordId> = staged.iter().collect();
        return Some(Err(violation(
            "verdict",
            staged,
            format!("commit T{tx} reported verdicts for {reported:?}, but it staged {expected:?}"),
        )));
    }
    let mut named = staged;
    let mut superseded = RecordSet::EMPTY;
    for (i, v) in c.records.iter().enumerate() {
        let (was, now) = (state_of(before, v.id)?, state_of(after, v.id)?);
        let reason = after.record(v.id)?.reason();
        let skipped = matches!(was, Lifecycle::Revoked | Lifecycle::Quarantined);
        let honest = if skipped {
            let as_reported = match v.result {
                CommitResult::Revoked => Lifecycle::Revoked,
                CommitResult::Quarantined => Lifecycle::Quarantined,
                _ => Lifecycle::Raw,
            };
            as_reported == was && v.reason.is_none() && v.superseded.is_empty()
        } else {
            let ends = match v.result {
                CommitResult::Committed => Lifecycle::Committed,
                CommitResult::ActionSafe => Lifecycle::ActionSafe,
                CommitResult::Quarantined => Lifecycle::Quarantined,
                CommitResult::Revoked => Lifecycle::Raw,
            };
            let passed = matches!(v.result, CommitResult::Committed | CommitResult::ActionSafe);
            // Superseded by a later record of this commit: whether that
            // one said so is `unreported`'s question.
            let state_ok = now == ends || (passed && now == Lifecycle::Superseded);
            let reason_ok = if v.result == CommitResult::Quarantined {
                v.reason.is_some() && v.reason == reason
            } else {
                v.reason.is_none() && reason.is_none()
            };
            state_ok && reason_ok
        };
        if !honest {
            let why = v
                .reason
                .map_or(String::new(), |r| format!(" ({})", r.name()));
            let has = reason.map_or(String::new(), |r| format!(" ({})", r.name()));
            return Some(Err(violation(
                "verdict",
                RecordSet::single(v.id),
                format!(
                    "commit T{tx} reported r{} {}{why}, but it went from {was} to {now}{has}",
                    v.id,
                    v.result.name()
                ),
            )));
        }
        for x in v.superseded.iter() {
            // A record of this commit was active once an earlier verdict
            // passed it; any other, if it was active before.
            let was_active = match c.records[..i].iter().find(|e| e.id == x) {
                Some(e) => matches!(e.result, CommitResult::Committed | CommitResult::ActionSafe),
                None => !staged.contains(x) && state_of(before, x).is_some_and(active),
            };
            let moved = was_active && state_of(after, x) == Some(Lifecycle::Superseded);
            if !moved || superseded.contains(x) {
                return Some(Err(violation(
                    "verdict",
                    RecordSet::single(x),
                    format!(
                        "commit T{tx} reported r{x} superseded by r{}, but it went from {} to {}",
                        v.id,
                        state_of(before, x)?,
                        state_of(after, x)?
                    ),
                )));
            }
            superseded.insert(x);
        }
    }
    // A staged record that ends superseded was named only if a verdict
    // reported superseding it.
    let ended_superseded = staged.iter().filter(|&id| {
        state_of(after, id) == Some(Lifecycle::Superseded) && !superseded.contains(id)
    });
    for id in ended_superseded {
        named.remove(id);
    }
    named = named.union(superseded);
    let passed = c
        .records
        .iter()
        .filter(|v| matches!(v.result, CommitResult::Committed | CommitResult::ActionSafe))
        .count();
    let status = if passed == c.records.len() {
        CommitStatus::Committed
    } else if passed > 0 {
        CommitStatus::Partial
    } else {
        CommitStatus::Aborted
    };
    if status != c.status {
        return Some(Err(violation(
            "status",
            staged,
            format!(
                "commit T{tx} reported {}, but {passed} of its {} records passed: {}",
                c.status.name(),
                c.records.len(),
                status.name()
            ),
        )));
    }
    if after.transaction(tx).map(|t| t.status()) != Some(TxStatus::Committed) {
        return Some(Err(violation(
            "verdict",
            staged,
            format!("commit T{tx} reported its verdicts, but T{tx} is not committed"),
        )));
    }
    Some(Ok(named))
}

fn gate(before: StoreView<'_>, tool: u8, g: &GateOutcome, after: StoreView<'_>) -> Option<Named> {
    let new = before.records().len() as RecordId;
    let created = after.records().len() - before.records().len();
    let honest = if g.allowed {
        let made = after.record(new);
        g.reason.is_none()
            && created == 1
            && g.record == Some(new)
            && made.is_some_and(|r| r.kind() == Kind::ToolAction && r.tool() == Some(tool))
    } else {
        g.reason.is_some() && created == 0 && g.record.is_none()
    };
    if !honest {
        let said = if g.allowed { "allowed" } else { "blocked" };
        return Some(Err(violation(
            "gate",
            g.record.map_or(RecordSet::EMPTY, RecordSet::single),
            format!(
                "the gate reported the call {said} (record {:?}), but it created {created} record(s)",
                g.record
            ),
        )));
    }
    Some(Ok(g.record.map_or(RecordSet::EMPTY, RecordSet::single)))
}

/// A retraction that reports other roots than its operation retracts
/// ([`retracted_by`], as the monitor reads them).
fn wrong_roots(before: StoreView<'_>, op: &Op, roots: RecordSet) -> Option<Violation> {
    let retracts = retracted_by(before, op)?;
    (roots != retracts).then(|| {
        violation(
            "repair",
            retracts.union(roots),
            format!(
                "the {} reported roots {:?}, but it retracts {:?}",
                op_name(op),
                roots.iter().collect::<Vec<_>>(),
                retracts.iter().collect::<Vec<_>>()
            ),
        )
    })
}

fn retraction(
    ctx: &Context,
    before: StoreView<'_>,
    roots: RecordSet,
    repairs: &[(RecordId, Repair)],
    after: StoreView<'_>,
) -> Option<Named> {
    let mut named = RecordSet::EMPTY;
    for &(id, repair) in repairs {
        let (was, now) = (state_of(before, id)?, state_of(after, id)?);
        let r = after.record(id)?;
        let ends = match repair {
            Repair::Quarantined => Lifecycle::Quarantined,
            _ => Lifecycle::Revoked,
        };
        let kind_ok = match repair {
            Repair::Compensated => {
                r.kind() == Kind::ToolAction && r.tool().is_some_and(|t| !ctx.is_irreversible(t))
            }
            Repair::Leaked => {
                r.kind() == Kind::ToolAction && r.tool().is_none_or(|t| ctx.is_irreversible(t))
            }
            // Whether a tool action should have been compensated or leaked
            // instead is I2's question (and the typed-repair ablation's
            // answer); the move reported is the move made.
            Repair::Revoked | Repair::Quarantined => true,
        };
        if named.contains(id) || was == now || now != ends || !kind_ok {
            return Some(Err(violation(
                "repair",
                RecordSet::single(id),
                format!(
                    "the retraction reported r{id} {}, but the {} went from {was} to {now}{}",
                    repair.name(),
                    r.kind().name(),
                    if named.contains(id) {
                        " (reported twice)"
                    } else {
                        ""
                    }
                ),
            )));
        }
        named.insert(id);
    }
    if let Some(root) = roots.difference(named).iter().next() {
        if state_of(before, root) != Some(Lifecycle::Revoked) {
            return Some(Err(violation(
                "repair",
                RecordSet::single(root),
                format!("the retraction reported root r{root} but no repair of it"),
            )));
        }
    }
    Some(Ok(named))
}

fn opened(
    before: StoreView<'_>,
    tier: crate::protocol::Tier,
    tx: TxId,
    snapshot: RecordSet,
    after: StoreView<'_>,
) -> Option<Named> {
    let new = before.transactions().len();
    let t = after.transaction(tx);
    let honest = tx as usize == new
        && after.transactions().len() == new + 1
        && t.is_some_and(|t| t.snapshot() == snapshot && t.tier() == tier);
    if !honest {
        return Some(Err(violation(
            "report",
            snapshot,
            format!("open reported T{tx} with snapshot {snapshot:?}, but opened T{new} as {t:?}"),
        )));
    }
    Some(Ok(RecordSet::EMPTY))
}

fn staged(
    before: StoreView<'_>,
    tx: TxId,
    record: RecordId,
    after: StoreView<'_>,
) -> Option<Named> {
    let new = before.records().len() as RecordId;
    let honest = record == new
        && after.records().len() == before.records().len() + 1
        && tentative_in(after, tx, record);
    reported(honest, record, || {
        format!("stage into T{tx} reported r{record}, but the new record is r{new}")
    })
}

fn revalidated(
    before: StoreView<'_>,
    tx: TxId,
    reported_tx: TxId,
    record: RecordId,
    reason: Option<crate::protocol::Reason>,
    after: StoreView<'_>,
) -> Option<Named> {
    let kept = before.record(record).and_then(|r| r.reason());
    let honest = reported_tx == tx
        && state_of(before, record) == Some(Lifecycle::Quarantined)
        && reason == kept
        && tentative_in(after, tx, record);
    reported(honest, record, || {
        format!(
            "revalidate reported r{record} back into T{reported_tx}, but it is {:?} in T{tx}",
            state_of(after, record)
        )
    })
}

fn rebuilt(
    before: StoreView<'_>,
    tx: TxId,
    reported_tx: TxId,
    record: RecordId,
    dropped: RecordSet,
    after: StoreView<'_>,
) -> Option<Named> {
    let parents = |s: StoreView<'_>| s.record(record).map(|r| r.derived_from());
    let was = parents(before)?;
    let honest = reported_tx == tx
        && state_of(before, record) == Some(Lifecycle::Quarantined)
        && dropped.difference(was).is_empty()
        && parents(after) == Some(was.difference(dropped))
        && tentative_in(after, tx, record);
    reported(honest, record, || {
        format!(
            "rebuild reported r{record} rebuilt into T{reported_tx} without {:?}, but it is {:?} in T{tx} deriving from {:?}",
            dropped.iter().collect::<Vec<_>>(),
            state_of(after, record),
            parents(after).unwrap_or_default().iter().collect::<Vec<_>>()
        )
    })
}

/// Whether `record` is tentative in `tx`'s staging.
fn tentative_in(store: StoreView<'_>, tx: TxId, record: RecordId) -> bool {
    state_of(store, record) == Some(Lifecycle::Tentative)
        && store
            .transaction(tx)
            .is_some_and(|t| t.staged().contains(record))
}

/// The first record whose state changed that `named` leaves out.
fn unreported(
    before: StoreView<'_>,
    after: StoreView<'_>,
    named: Named,
    op: &Op,
) -> Option<Violation> {
    let named = match named {
        Ok(named) => named,
        Err(v) => return Some(v),
    };
    for (id, r) in before.records().iter().enumerate() {
        let id = id as RecordId;
        let now = state_of(after, id)?;
        if now != r.state() && !named.contains(id) {
            return Some(violation(
                "unreported",
                RecordSet::single(id),
                format!(
                    "{} moved r{id} from {} to {now}, and its outcome does not say so",
                    op_name(op),
                    r.state()
                ),
            ));
        }
    }
    None
}

fn op_name(op: &Op) -> &'static str {
    op.verb().name()
}
