//! `format_step`: what the protocol decided at one step, in plain text for
//! the explorer (which shows it in place of the state's `Debug` dump): the
//! operation, then each record's commit verdict and reason, the gate's
//! decision and reason, or each repair with the record's type, and last the
//! invariants I1, I2 and G3 after the step.

use super::store;
use crate::invariants;
use crate::model::{Action, MemtxModel, ModelState};
use crate::protocol::{Outcome, Proposal, RecordId, RecordSet, Store};
use std::fmt::Write;

/// The step `action` from `last_state`; `None` when the model refuses it
/// (the explorer then lists the action as ignored).
pub fn format_step(model: &MemtxModel, last_state: &ModelState, action: &Action) -> Option<String> {
    let (next, outcome) = model.step(last_state, action).ok()?;
    let before = store(last_state);
    let after = store(&next);
    let mut out = format!("{}\n", action.describe(&model.spec));
    decision(model, action, before, after, &outcome, &mut out);
    let ctx = model.spec.context();
    let op = model.op(last_state, action);
    let (seen_before, seen_after) = (before.view(), after.view());
    let mut broken: Vec<String> = invariants::check_transition(ctx, seen_before, &op, seen_after)
        .into_iter()
        .chain(invariants::check_state(ctx, seen_after))
        .map(|v| {
            format!(
                "  {} ({}) VIOLATED: {}",
                v.invariant,
                v.invariant.title(),
                v.detail
            )
        })
        .collect();
    if broken.is_empty() {
        out.push_str("\ninvariants after this step: I1 holds, I2 holds, G3 holds\n");
    } else {
        broken.insert(0, "\ninvariants after this step:".to_owned());
        out.push_str(&broken.join("\n"));
        out.push('\n');
    }
    Some(out)
}

/// The protocol's outcome, one fact a line.
fn decision(
    model: &MemtxModel,
    action: &Action,
    before: &Store,
    after: &Store,
    outcome: &Outcome,
    out: &mut String,
) {
    match outcome {
        Outcome::Opened { tx, snapshot } => {
            let tier = after.transaction(*tx).map_or("?", |t| t.tier().name());
            let _ = writeln!(
                out,
                "opened T{tx} at tier {tier}; its snapshot (fixed from now on): {}",
                ids(*snapshot)
            );
        }
        Outcome::Staged { record } => {
            let fields = after
                .record(*record)
                .map(|r| proposal(model, &r.proposal()))
                .unwrap_or_default();
            let _ = writeln!(out, "r{record} staged as tentative: {fields}");
        }
        Outcome::Committed(c) => {
            let calls = match c.verifier_calls {
                1 => "1 verifier call".to_owned(),
                n => format!("{n} verifier calls"),
            };
            let _ = writeln!(out, "commit verdict: {} ({calls})", c.status.name());
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
                if !v.superseded.is_empty() {
                    let _ = write!(out, "; supersedes {}", ids(v.superseded));
                }
                out.push('\n');
            }
        }
        Outcome::ToolCall(g) => {
            let irreversible = match *action {
                Action::ToolCall { tool, .. } if !model.spec.context().is_irreversible(tool) => {
                    "reversible"
                }
                _ => "irreversible",
            };
            match (g.allowed, g.record, g.reason) {
                (true, Some(r), _) => {
                    let _ = writeln!(
                        out,
                        "gate decision: allowed ({irreversible} call) → tool_action r{r} created, committed"
                    );
                }
                (true, None, _) => {
                    let _ = writeln!(out, "gate decision: allowed ({irreversible} call)");
                }
                (false, _, reason) => {
                    let why = reason.map_or("no reason given", |r| r.name());
                    let _ = writeln!(
                        out,
                        "gate decision: blocked, reason: {why}; no record created"
                    );
                }
            }
        }
        Outcome::Retracted { repairs } => {
            if repairs.is_empty() {
                let _ = writeln!(out, "nothing to retract");
            }
            let new_entries = after
                .rollback_log()
                .get(before.rollback_log().len()..)
                .unwrap_or_default();
            let _ = writeln!(out, "repairs:");
            for (id, repair) in repairs {
                let root = new_entries.iter().any(|e| e.record == *id && e.root);
                let role = if root {
                    "retracted"
                } else {
                    "descendant reached by the cascade"
                };
                let _ = writeln!(
                    out,
                    "  r{id} ({}) → {} ({role})",
                    kind_of(after, *id),
                    repair.name()
                );
            }
        }
    }
}

fn kind_of(store: &Store, id: RecordId) -> &'static str {
    store.record(id).map_or("?", |r| r.kind().name())
}

fn proposal(model: &MemtxModel, p: &Proposal) -> String {
    let name = |s| model.spec.symbols().name(s).to_owned();
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

/// `{r0, r2}`, or `{}`.
pub(super) fn ids(set: RecordSet) -> String {
    let names: Vec<_> = set.iter().map(|id| format!("r{id}")).collect();
    format!("{{{}}}", names.join(", "))
}
