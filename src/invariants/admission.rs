//! Admission (ours; card §3.2, the commit checks recomputed both ways):
//! every verdict a commit gives a record it judges is what the four checks
//! decide in the card's order. A record is quarantined only when a check
//! fails, for the first failing check's reason; committed only when every
//! check passes; and the rivals it supersedes are the ones check 3's
//! `supersede_old` displaces. The gate's I1 is an "if and only if"; this
//! property makes the four checks one too, so that refusing too much
//! (a threshold or a window end made exclusive, the same-value rule
//! dropped) is as visible as admitting too much (a tie decided by the
//! wrong field, a parent in the registry let through).
//!
//! Judged on each commit, record by record in the order the commit judged
//! them (id order, DESIGN.md): each check is recomputed from the record's
//! fields and the store *as it stood at that record's check*: the states
//! before the commit, then each earlier verdict's effect (the record's
//! result, the rivals it superseded), as the commit reported them; the
//! honest-outcome property holds those reports to the store. The
//! revocation registry is what the monitor saw retracted (the retracted
//! records and, with the cascade in force, the descendants their cascades
//! reached), never the protocol's own; it only grows, so a view rebuilt
//! and committed again stays in it. Parents and ancestors come from
//! `derived_from`; rivals, windows and authority are read as
//! [`super::fields`] reads them. Mechanisms a variant ablates are not
//! checks, and the variant's switches (which parents laundering reads, the
//! same-source tie, the stale check on an empty snapshot) are read from
//! the [`Context`].
//!
//! Clauses: `evidence`, `validity`, `conflict`, `dependency` and `order`
//! judge a quarantine with reason R (R's own check passes; R's check
//! fails but an earlier one in the card's order gives another reason),
//! `committed` a record let through that some check fails, `supersede` a
//! reported supersede that check 3's `supersede_old` does not make, and
//! `rival_kept` the converse: a rival `supersede_old` displaces that the
//! commit left standing, even when check 4 then quarantines the
//! candidate (the card supersedes before check 4; in full:
//! docs/admission-and-outcomes.md).

use super::ancestry::ancestors;
use super::context::Context;
#[cfg(feature = "tutorial-committed-parents")]
use super::fields::settled;
use super::fields::{active, effective_authority, window_holds_at, windows_overlap};
use super::fields::{AUTHORITY_BYPASS, EVIDENCE_THRESHOLD};
use super::invariant::Invariant;
use super::transition::Transition;
use super::violation::Violation;
use crate::protocol::{
    Check, CommitResult, Kind, LaunderingParents, Lifecycle, Mechanism, Op, Outcome, Reason,
    RecordId, RecordSet, SameSourceTie, Scope, StoreView, MAX_RECORDS,
};

/// The store as one record's check saw it: the records' fields (which a
/// commit never changes) with the states of that moment.
struct AtCheck<'a> {
    store: StoreView<'a>,
    states: &'a [Lifecycle],
    registry: RecordSet,
    snapshot: RecordSet,
}

pub fn check(ctx: &Context, t: Transition<'_>) -> Option<Violation> {
    let Transition {
        before,
        after,
        monitor,
        ..
    } = t;
    let (Op::Commit { tx }, Outcome::Committed(commit)) = (t.op, t.outcome) else {
        return None;
    };
    let snapshot = before.transaction(*tx)?.snapshot();
    let registry = if ctx.has(Mechanism::Cascade) {
        monitor.reached()
    } else {
        monitor.retracted()
    };
    let n = before.records().len().min(MAX_RECORDS);
    // Rivals this commit moved to superseded that no verdict reports are
    // honest-outcome's `unreported`, not a rival kept.
    let reported = commit
        .records
        .iter()
        .fold(RecordSet::EMPTY, |all, v| all.union(v.superseded));
    let moved_unreported = |x: RecordId| {
        !reported.contains(x)
            && after.record(x).map(|r| r.state()) == Some(Lifecycle::Superseded)
            && before.record(x).map(|r| r.state()) != Some(Lifecycle::Superseded)
    };
    let mut states = [Lifecycle::Raw; MAX_RECORDS];
    for (id, r) in before.records().iter().enumerate().take(n) {
        states[id] = r.state();
    }
    for verdict in &commit.records {
        let id = verdict.id;
        let judged = states.get(id as usize) == Some(&Lifecycle::Tentative);
        if judged {
            let at = AtCheck {
                store: before,
                states: &states[..n],
                registry,
                snapshot,
            };
            let found = match verdict.result {
                CommitResult::Quarantined => after
                    .record(id)
                    .and_then(|r| r.reason())
                    .and_then(|given| judge(ctx, &at, id, given)),
                CommitResult::Committed | CommitResult::ActionSafe => passed(ctx, &at, id),
                CommitResult::Revoked => None,
            };
            let found = found
                .or_else(|| supersede(ctx, &at, id, verdict.superseded))
                .or_else(|| rival_kept(ctx, &at, id, verdict.superseded, &moved_unreported));
            if let Some(v) = found {
                return Some(v);
            }
        }
        let Some(state) = states.get_mut(id as usize) else {
            continue;
        };
        *state = match verdict.result {
            CommitResult::Committed => Lifecycle::Committed,
            CommitResult::ActionSafe => Lifecycle::ActionSafe,
            CommitResult::Quarantined => Lifecycle::Quarantined,
            CommitResult::Revoked => *state,
        };
        for x in verdict.superseded.iter().filter(|&x| (x as usize) < n) {
            states[x as usize] = Lifecycle::Superseded;
        }
    }
    None
}

/// The violation, if record `id`, which the commit let pass, should
/// have been quarantined: some check fails (clause `committed`).
fn passed(ctx: &Context, at: &AtCheck<'_>, id: RecordId) -> Option<Violation> {
    let first = first_failure(ctx, at, id)?;
    Some(Violation::new(
        Invariant::Admission,
        "committed",
        RecordSet::single(id),
        format!(
            "r{id} was committed, but {} fails: it must be quarantined for {}",
            check_name(first.check()),
            first.name()
        ),
    ))
}

/// The violation, if the rivals record `id`'s verdict superseded are not
/// ones check 3's `supersede_old` displaces at its check (clause
/// `supersede`): none unless checks 1 and 2 pass and check 3 decides to
/// supersede, and then only the overlapping rivals of another value. A
/// rival left standing is [`rival_kept`]'s (and, if the candidate
/// commits, one-value-per-slot's), a supersede left unreported
/// honest-outcome's.
fn supersede(
    ctx: &Context,
    at: &AtCheck<'_>,
    id: RecordId,
    superseded: RecordSet,
) -> Option<Violation> {
    if superseded.is_empty() {
        return None;
    }
    let decides = decides_to_supersede(ctx, at, id);
    let displaced = if decides {
        displaced(at, id)
    } else {
        RecordSet::EMPTY
    };
    let wrong = superseded.difference(displaced).iter().next()?;
    let why = if decides {
        "it is no overlapping rival of another value"
    } else {
        "check 3 does not decide to supersede"
    };
    Some(Violation::new(
        Invariant::Admission,
        "supersede",
        RecordSet::single(id).union(RecordSet::single(wrong)),
        format!("r{id} superseded r{wrong}, but {why}"),
    ))
}

/// The violation, if check 3 decides `supersede_old` for record `id`
/// (checks 1 and 2 passing) and a rival it displaces is not among
/// `superseded`, what the verdict reports it superseded, nor one the
/// commit moved without reporting it (clause `rival_kept`). The card supersedes
/// before check 4 runs, so this holds of a record check 4 then
/// quarantines as much as of one committed.
fn rival_kept(
    ctx: &Context,
    at: &AtCheck<'_>,
    id: RecordId,
    superseded: RecordSet,
    moved_unreported: &dyn Fn(RecordId) -> bool,
) -> Option<Violation> {
    // The rivals first: a scan, where check 3 may walk ancestors.
    let kept = displaced(at, id)
        .difference(superseded)
        .iter()
        .find(|&x| !moved_unreported(x))?;
    if !decides_to_supersede(ctx, at, id) {
        return None;
    }
    Some(Violation::new(
        Invariant::Admission,
        "rival_kept",
        RecordSet::single(id).union(RecordSet::single(kept)),
        format!(
            "check 3 decides that r{id} supersedes its rivals, but r{kept}, an overlapping rival of another value, was not superseded"
        ),
    ))
}

/// Whether record `id` reaches check 3 (checks 1 and 2 pass) and check
/// 3 decides `supersede_old`.
fn decides_to_supersede(ctx: &Context, at: &AtCheck<'_>, id: RecordId) -> bool {
    [Check::Evidence, Check::Validity]
        .iter()
        .all(|&check| failure_of(ctx, at, id, check).is_none())
        && conflict(ctx, at, id) == Some(Check3::Supersede)
}

/// The violation, if record `id`, quarantined for `given`, should not
/// have been.
fn judge(ctx: &Context, at: &AtCheck<'_>, id: RecordId, given: Reason) -> Option<Violation> {
    let first = first_failure(ctx, at, id);
    if first == Some(given) {
        return None;
    }
    let own = failure_of(ctx, at, id, given.check());
    let (clause, why) = match own {
        None => (
            clause_of(given.check()),
            format!("{} passes", check_name(given.check())),
        ),
        Some(_) => (
            "order",
            format!(
                "the first check to fail in the card's order gives {}",
                first.map_or("nothing", Reason::name)
            ),
        ),
    };
    Some(Violation::new(
        Invariant::Admission,
        clause,
        RecordSet::single(id),
        format!("r{id} was quarantined for {}, but {why}", given.name()),
    ))
}

/// The reason the first failing check in the card's order gives, or
/// `None` when every check passes.
fn first_failure(ctx: &Context, at: &AtCheck<'_>, id: RecordId) -> Option<Reason> {
    CHECKS
        .iter()
        .find_map(|&check| failure_of(ctx, at, id, check))
}

/// The checks in the card's order.
const CHECKS: &[Check] = &[
    Check::Evidence,
    Check::Validity,
    Check::Conflict,
    Check::DependencyStability,
    #[cfg(feature = "tutorial-committed-parents")]
    Check::CommittedParents,
];

/// The reason `check` gives record `id`, or `None` when it passes (or is
/// ablated).
fn failure_of(ctx: &Context, at: &AtCheck<'_>, id: RecordId, check: Check) -> Option<Reason> {
    let r = at.store.record(id)?;
    match check {
        Check::Evidence => {
            let passes = r.confidence().0 >= EVIDENCE_THRESHOLD
                || effective_authority(r) >= AUTHORITY_BYPASS;
            (ctx.has(Mechanism::Evidence) && !passes).then_some(Reason::LowEvidence)
        }
        Check::Validity => {
            let passes = ctx
                .clock()
                .is_none_or(|now| window_holds_at(r.window(), now));
            (ctx.has(Mechanism::Validity) && !passes).then_some(Reason::OutsideValidity)
        }
        Check::Conflict => match conflict(ctx, at, id)? {
            Check3::Refuse(reason) => Some(reason),
            Check3::Pass | Check3::Supersede => None,
        },
        Check::DependencyStability => {
            let stable = !ancestors(at.store, id).intersects(at.registry);
            (ctx.has(Mechanism::DependencyStability) && !stable)
                .then_some(Reason::UnstableDependency)
        }
        #[cfg(feature = "tutorial-committed-parents")]
        Check::CommittedParents => r
            .derived_from()
            .iter()
            .any(|p| !settled(at.states[p as usize]))
            .then_some(Reason::UncommittedParent),
    }
}

/// What check 3 decides for a candidate it judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check3 {
    Refuse(Reason),
    /// Passes beside what holds the slot (no rival, the same value).
    Pass,
    /// Passes and supersedes its overlapping rivals of another value.
    Supersede,
}

/// Check 3, in the card's order: a parent in the registry, a private
/// parent republished wider, then the slot's first rival in id order;
/// `None` for an unknown record.
fn conflict(ctx: &Context, at: &AtCheck<'_>, id: RecordId) -> Option<Check3> {
    let r = at.store.record(id)?;
    if r.derived_from().intersects(at.registry) {
        return Some(Check3::Refuse(Reason::RevokedParent));
    }
    if ctx.has(Mechanism::PermissionInheritance) && r.scope() != Scope::Private {
        let sources = if cfg!(feature = "tutorial-transitive-laundering") {
            ancestors(at.store, id)
        } else {
            r.derived_from()
        };
        let laundered = sources.iter().any(|p| {
            let considered = cfg!(feature = "tutorial-transitive-laundering")
                || ctx.variant().laundering_parents == LaunderingParents::Any
                || active(at.states[p as usize]);
            let private = at.store.record(p).map(|p| p.scope()) == Some(Scope::Private);
            considered && private
        });
        if laundered {
            return Some(Check3::Refuse(Reason::PermissionLaundering));
        }
    }
    if !ctx.has(Mechanism::Conflict) {
        return Some(Check3::Pass);
    }
    let Some(rival_id) = rivals(at, id).iter().next() else {
        return Some(Check3::Pass);
    };
    let rival = at.store.record(rival_id)?;
    if rival.value() == r.value() {
        return Some(Check3::Pass);
    }
    let stale_check = !at.snapshot.is_empty() || ctx.stale_check_always();
    if stale_check && !at.snapshot.contains(rival_id) {
        return Some(Check3::Refuse(Reason::StaleWrite));
    }
    let (mine, theirs) = (effective_authority(r), effective_authority(rival));
    let same_source_supersedes =
        ctx.variant().same_source_tie == SameSourceTie::Supersede && r.source() == rival.source();
    Some(
        if mine > theirs || (mine == theirs && same_source_supersedes) {
            Check3::Supersede
        } else if mine < theirs {
            Check3::Refuse(Reason::LowerAuthority)
        } else {
            Check3::Refuse(Reason::NeedsReview)
        },
    )
}

/// The rivals of record `id` at its check: active records other than it,
/// not tool actions, on its entity and attribute, their windows
/// overlapping its own.
fn rivals(at: &AtCheck<'_>, id: RecordId) -> RecordSet {
    let Some(r) = at.store.record(id) else {
        return RecordSet::EMPTY;
    };
    at.store
        .records()
        .iter()
        .enumerate()
        .filter(|&(x, other)| {
            x != id as usize
                && active(at.states[x])
                && other.kind() != Kind::ToolAction
                && other.entity() == r.entity()
                && other.attribute() == r.attribute()
                && windows_overlap(other.window(), r.window())
        })
        .map(|(x, _)| x as RecordId)
        .collect()
}

/// What `supersede_old` displaces for record `id`: its rivals of another
/// value.
fn displaced(at: &AtCheck<'_>, id: RecordId) -> RecordSet {
    let value = at.store.record(id).map(|r| r.value());
    rivals(at, id)
        .iter()
        .filter(|&x| at.store.record(x).map(|r| r.value()) != value)
        .collect()
}

/// The clause that speaks for `check` passing.
fn clause_of(check: Check) -> &'static str {
    match check {
        Check::Evidence => "evidence",
        Check::Validity => "validity",
        Check::Conflict => "conflict",
        _ => "dependency",
    }
}

fn check_name(check: Check) -> &'static str {
    match check {
        Check::Evidence => "check 1 (evidence)",
        Check::Validity => "check 2 (validity)",
        Check::Conflict => "check 3 (semantic conflict)",
        Check::DependencyStability => "check 4 (dependency stability)",
        #[cfg(feature = "tutorial-committed-parents")]
        Check::CommittedParents => "check 5 (committed parents)",
    }
}
