//! How the protocol's outcomes read in text: the one formatter that both
//! `replay` and the explorer print outcomes with. It reads the protocol's
//! structured [`Outcome`] and nothing else of the step, in two forms:
//!
//! - [`brief`]: one line, the replay account's "what the protocol said";
//! - [`account`]: one fact a line, the explorer's view of a step, naming
//!   each record's type and each repair's role (which needs the stores
//!   around the step, given as a [`StepStores`]).
//!
//! It also owns the pieces both forms and their callers share: a record
//! set as `{r0, r2}` ([`ids`]), a rollback-log entry ([`log_entry`]), and
//! the steps of two sides in lockstep up to where they part ([`steps_to`]).
//! It sits just above `protocol/`, below every command, so that no command
//! imports another to print an outcome.

use crate::protocol::{
    CommitOutcome, GateOutcome, LogEntry, Outcome, Proposal, Reason, RecordId, RecordSet, Repair,
    Store, Symbols,
};
use std::fmt::Write;

/// `{r0, r2}`, or `{}`.
pub fn ids(set: RecordSet) -> String {
    let names: Vec<_> = set.iter().map(|id| format!("r{id}")).collect();
    format!("{{{}}}", names.join(", "))
}

/// One rollback-log entry: `r3 quarantined (descendant, was committed)`.
pub fn log_entry(e: &LogEntry) -> String {
    let role = if e.root { "retracted" } else { "descendant" };
    format!(
        "r{} {} ({role}, was {})",
        e.record,
        e.repair.name(),
        e.from.name()
    )
}

/// Steps `0..last`, one a line with what was said of each (`said(i)`),
/// then step `last` with `mark` (`← departs here`), labels in one column.
pub fn steps_to(
    labels: &[String],
    last: usize,
    said: impl Fn(usize) -> String,
    mark: &str,
) -> String {
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (i, label) in labels.iter().enumerate().take(last) {
        let _ = writeln!(out, "step {i:<2} {label:<width$}  {}", said(i));
    }
    let _ = writeln!(out, "step {last:<2} {:<width$}  {mark}", labels[last]);
    out
}

/// `1 verifier call`, `2 verifier calls` (card §3.2: one call per record
/// that reaches check 3).
fn verifier_calls(n: u32) -> String {
    match n {
        1 => "1 verifier call".to_owned(),
        n => format!("{n} verifier calls"),
    }
}

/// The outcome in one line: `T0, snapshot {r1}`, `r2 tentative`,
/// `partial — r0 committed; r1 quarantined (low_evidence) [1 verifier call]`,
/// `blocked (tentative_in_flight)`, `r0 revoked, r1 quarantined`.
pub fn brief(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Opened { tx, snapshot } => format!("T{tx}, snapshot {}", ids(*snapshot)),
        Outcome::Staged { record } => format!("r{record} tentative"),
        Outcome::Committed(c) => brief_commit(c),
        Outcome::ToolCall(g) => {
            let decision = match (g.allowed, g.record, g.reason) {
                (true, Some(r), _) => format!("allowed → r{r}"),
                (true, None, _) => "allowed".to_owned(),
                (false, _, Some(reason)) => format!("blocked ({})", reason.name()),
                (false, _, None) => "blocked".to_owned(),
            };
            if g.in_snapshot.is_empty() {
                decision
            } else {
                format!(
                    "{decision}; tentative in its snapshot: {}",
                    ids(g.in_snapshot)
                )
            }
        }
        Outcome::Retracted { repairs, .. } if repairs.is_empty() => "nothing to retract".to_owned(),
        Outcome::Retracted { repairs, .. } => repairs
            .iter()
            .map(|(id, repair)| format!("r{id} {}", repair.name()))
            .collect::<Vec<_>>()
            .join(", "),
        Outcome::Revalidated { tx, record, reason } => {
            format!(
                "r{record} tentative again in T{tx}'s staging ({})",
                was(*reason)
            )
        }
        Outcome::Rebuilt {
            tx,
            record,
            dropped,
        } => format!(
            "r{record} rebuilt into T{tx}'s staging ({})",
            dropped_text(*dropped)
        ),
    }
}

/// The revoked sources a rebuild dropped.
fn dropped_text(dropped: RecordSet) -> String {
    if dropped.is_empty() {
        "every source survives".to_owned()
    } else {
        let ids: Vec<String> = dropped.iter().map(|p| format!("r{p}")).collect();
        format!("dropped revoked {}", ids.join(", "))
    }
}

/// Why a revalidated record had been quarantined.
fn was(reason: Option<Reason>) -> String {
    match reason {
        Some(reason) => format!("was quarantined: {}", reason.name()),
        None => "was held back by a cascade".to_owned(),
    }
}

fn brief_commit(c: &CommitOutcome) -> String {
    let verdicts: Vec<String> = c
        .records
        .iter()
        .map(|v| {
            let mut text = format!("r{} {}", v.id, v.result.name());
            if let Some(reason) = v.reason {
                let _ = write!(text, " ({})", reason.name());
            }
            if !v.superseded.is_empty() {
                let _ = write!(text, ", superseding {}", ids(v.superseded));
            }
            text
        })
        .collect();
    let list = if verdicts.is_empty() {
        "nothing staged".to_owned()
    } else {
        verdicts.join("; ")
    };
    format!(
        "{} — {list} [{}]",
        c.status.name(),
        verifier_calls(c.verifier_calls)
    )
}

/// What [`account`] reads besides the outcome: the store after the step
/// (a record's type and fields, a transaction's tier), the names of
/// interned strings, and, for a tool call, whether the tool is
/// irreversible.
pub struct StepStores<'a> {
    pub after: &'a Store,
    pub symbols: &'a Symbols,
    pub irreversible_tool: bool,
}

/// The outcome one fact a line, every line newline-terminated: the commit
/// verdict and each record's result and reason, the gate's decision and
/// reason, or each repair with the record's type and its role.
pub fn account(outcome: &Outcome, step: &StepStores) -> String {
    let mut out = String::new();
    match outcome {
        Outcome::Opened { tx, snapshot } => {
            let tier = step.after.transaction(*tx).map_or("?", |t| t.tier().name());
            let _ = writeln!(
                out,
                "opened T{tx} at tier {tier}; its snapshot (fixed from now on): {}",
                ids(*snapshot)
            );
        }
        Outcome::Staged { record } => {
            let fields = step
                .after
                .record(*record)
                .map(|r| proposal(step.symbols, &r.proposal()))
                .unwrap_or_default();
            let _ = writeln!(out, "r{record} staged as tentative: {fields}");
        }
        Outcome::Committed(c) => account_commit(c, step.after, &mut out),
        Outcome::ToolCall(g) => account_gate(g, step.irreversible_tool, &mut out),
        Outcome::Retracted { roots, repairs } => account_repairs(*roots, repairs, step, &mut out),
        Outcome::Revalidated { tx, record, reason } => {
            let _ = writeln!(
                out,
                "r{record} ({}) revalidated: tentative again, staged by T{tx}, to be checked at its commit ({})",
                kind_of(step.after, *record),
                was(*reason)
            );
        }
        Outcome::Rebuilt {
            tx,
            record,
            dropped,
        } => {
            let parents = step
                .after
                .record(*record)
                .map(|r| r.derived_from())
                .unwrap_or_default();
            let parents: Vec<String> = parents.iter().map(|p| format!("r{p}")).collect();
            let _ = writeln!(
                out,
                "r{record} ({}) rebuilt from {}: tentative again, staged by T{tx}, to be checked at its commit ({})",
                kind_of(step.after, *record),
                parents.join(", "),
                dropped_text(*dropped)
            );
        }
    }
    out
}

fn account_commit(c: &CommitOutcome, after: &Store, out: &mut String) {
    let _ = writeln!(
        out,
        "commit verdict: {} ({})",
        c.status.name(),
        verifier_calls(c.verifier_calls)
    );
    if c.records.is_empty() {
        let _ = writeln!(out, "  nothing was staged");
    }
    for v in &c.records {
        let kind = kind_of(after, v.id);
        let _ = write!(out, "  r{} ({kind}) → {}", v.id, v.result.name());
        match v.reason {
            Some(reason) => {
                let _ = write!(out, ", reason: {}", reason.name());
            }
            None => out.push_str(", every check passed"),
        }
        if let (None, Some(admission)) = (v.reason, v.admission) {
            let _ = write!(out, " (slot: {})", admission.name());
        }
        if !v.superseded.is_empty() {
            let _ = write!(out, "; supersedes {}", ids(v.superseded));
        }
        out.push('\n');
    }
}

fn account_gate(g: &GateOutcome, irreversible_tool: bool, out: &mut String) {
    let kind = if irreversible_tool {
        "irreversible"
    } else {
        "reversible"
    };
    match (g.allowed, g.record, g.reason) {
        (true, Some(r), _) => {
            let _ = writeln!(
                out,
                "gate decision: allowed ({kind} call) → tool_action r{r} created, committed"
            );
        }
        (true, None, _) => {
            let _ = writeln!(out, "gate decision: allowed ({kind} call)");
        }
        (false, _, reason) => {
            let why = reason.map_or("no reason given", |r| r.name());
            let _ = writeln!(
                out,
                "gate decision: blocked, reason: {why}; no record created"
            );
        }
    }
    if !g.in_snapshot.is_empty() {
        let _ = writeln!(
            out,
            "  tentative but in the caller's snapshot, so not in flight: {}",
            ids(g.in_snapshot)
        );
    }
}

fn account_repairs(
    roots: RecordSet,
    repairs: &[(RecordId, Repair)],
    step: &StepStores,
    out: &mut String,
) {
    if repairs.is_empty() {
        let _ = writeln!(out, "nothing to retract");
    }
    let _ = writeln!(out, "repairs:");
    for (id, repair) in repairs {
        let role = if roots.contains(*id) {
            "retracted"
        } else {
            "descendant reached by the cascade"
        };
        let _ = writeln!(
            out,
            "  r{id} ({}) → {} ({role})",
            kind_of(step.after, *id),
            repair.name()
        );
    }
}

fn kind_of(store: &Store, id: RecordId) -> &'static str {
    store.record(id).map_or("?", |r| r.kind().name())
}

/// A staged proposal's fields: `belief order.refund = "yes" (source crm,
/// authority 0.90, confidence 0.80, private), derived from {r0}`.
fn proposal(symbols: &Symbols, p: &Proposal) -> String {
    let name = |s| symbols.name(s).to_owned();
    let mut text = format!(
        "{} {}.{} = {:?} (source {}, authority {}, confidence {}, {})",
        p.kind.name(),
        name(p.entity),
        name(p.attribute),
        name(p.value),
        p.source.map_or_else(|| "none".to_owned(), name),
        p.authority.as_decimal(),
        p.confidence.as_decimal(),
        p.scope.name()
    );
    if !p.derived_from.is_empty() {
        let _ = write!(text, ", derived from {}", ids(p.derived_from));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{CommitResult, CommitStatus, Lifecycle, RecordVerdict, Refusal};

    #[test]
    fn ids_and_log_entries() {
        assert_eq!(ids(RecordSet::EMPTY), "{}");
        let set = RecordSet::single(0).union(RecordSet::single(2));
        assert_eq!(ids(set), "{r0, r2}");
        let e = LogEntry {
            record: 3,
            repair: Repair::Quarantined,
            root: false,
            from: Lifecycle::Committed,
            horizon: 4,
        };
        assert_eq!(log_entry(&e), "r3 quarantined (descendant, was committed)");
    }

    #[test]
    fn brief_forms() {
        let commit = Outcome::Committed(CommitOutcome {
            status: CommitStatus::Partial,
            records: smallvec::smallvec![
                RecordVerdict {
                    id: 0,
                    result: CommitResult::Committed,
                    reason: None,
                    superseded: RecordSet::single(1),
                    admission: None,
                },
                RecordVerdict {
                    id: 2,
                    result: CommitResult::Quarantined,
                    reason: Some(Reason::LowEvidence),
                    superseded: RecordSet::EMPTY,
                    admission: None,
                },
            ],
            verifier_calls: 2,
        });
        assert_eq!(
            brief(&commit),
            "partial — r0 committed, superseding {r1}; r2 quarantined (low_evidence) [2 verifier calls]"
        );
        let blocked = Outcome::ToolCall(GateOutcome {
            allowed: false,
            reason: Some(Refusal::TentativeInFlight),
            record: None,
            in_snapshot: RecordSet::EMPTY,
        });
        assert_eq!(brief(&blocked), "blocked (tentative_in_flight)");
        let allowed = Outcome::ToolCall(GateOutcome {
            allowed: true,
            reason: None,
            record: Some(3),
            in_snapshot: RecordSet::single(1),
        });
        assert_eq!(
            brief(&allowed),
            "allowed → r3; tentative in its snapshot: {r1}"
        );
        let none = Outcome::Retracted {
            roots: RecordSet::EMPTY,
            repairs: Default::default(),
        };
        assert_eq!(brief(&none), "nothing to retract");
        let back = Outcome::Revalidated {
            tx: 2,
            record: 1,
            reason: None,
        };
        assert_eq!(
            brief(&back),
            "r1 tentative again in T2's staging (was held back by a cascade)"
        );
    }
}
