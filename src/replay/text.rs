//! The readable replay account: one line per step with the protocol's
//! outcome (the commit verdict per record with its reason, the gate's
//! decision with its reason, every repair with its type, as
//! [`crate::outcome_text::brief`] tells them), then the final records, the
//! rollback log, and the invariant verdicts.

use super::{Declared, ReplayReport, StepReport};
use crate::config::Compiled;
use crate::invariants::Invariant;
use crate::outcome_text::{brief, ids, log_entry};
use crate::protocol::{Record, Tier, Wording};
use crate::trace::{RecordSpec, Step, StepArgs};
use std::fmt::Write;

/// The whole account, newline-terminated.
pub fn render_text(report: &ReplayReport) -> String {
    let mut out = String::new();
    let config = &report.compiled;
    let _ = writeln!(
        out,
        "replay of {} ({} steps)",
        report.origin,
        report.steps.len()
    );
    for s in &report.steps {
        let _ = writeln!(out, "step {:<2} {}", s.index, describe_step(s, config));
    }
    let records = report.final_store.records();
    let _ = writeln!(out, "\nrecords:");
    if records.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for (id, r) in records.iter().enumerate() {
        let _ = writeln!(out, "  {}", describe_record(id, r, config));
    }
    let log = report.final_store.rollback_log();
    if !log.is_empty() {
        let _ = writeln!(out, "\nrollback log:");
        for e in log {
            let _ = writeln!(out, "  {}", log_entry(e));
        }
    }
    let _ = writeln!(out);
    if report.violations.is_empty() {
        let names: Vec<_> = Invariant::ALL.iter().map(|i| i.name()).collect();
        let _ = writeln!(out, "no invariant violated (checked: {})", names.join(", "));
    }
    for found in &report.violations {
        let v = &found.violation;
        let _ = writeln!(
            out,
            "{} ({}) violated [{}] after step {}: {}",
            v.invariant,
            v.invariant.title(),
            v.clause,
            found.step,
            v.detail
        );
    }
    if let (Some(declared), Some(status)) = (&report.declared, report.declared_status()) {
        let verdict = match status {
            Declared::Refound => "re-found at the same step".to_owned(),
            Declared::ElsewhereAt(step) => {
                format!("NOT re-found there (first seen after step {step})")
            }
            Declared::NotFound => "NOT re-found".to_owned(),
        };
        let _ = writeln!(
            out,
            "declared violation: {} after step {}: {verdict}",
            declared.property, declared.step
        );
    }
    out
}

/// One step: what was asked, then the outcome or the refusal.
fn describe_step(s: &StepReport, config: &Compiled) -> String {
    let asked = say_step(&s.step, config);
    match &s.result {
        Err(e) => format!("{asked}: refused: {e}"),
        Ok(outcome) => format!("{asked}: {}", brief(outcome)),
    }
}

/// A step in words, its record in full and its tool said reversible or
/// irreversible under `config`: `T0 calls irreversible refund on {r1}`.
pub fn say_step(step: &Step, config: &Compiled) -> String {
    step.describe(&Words(config))
}

/// How a replay says a step's arguments.
struct Words<'a>(&'a Compiled);

impl Wording<StepArgs> for Words<'_> {
    fn agent(&self, agent: &u8) -> String {
        format!("agent {agent}")
    }

    fn opened(&self, _: &u8, tier: Tier) -> String {
        format!("at {}", tier.name())
    }

    fn stage(&self, record: &RecordSpec) -> String {
        describe_spec(record)
    }

    fn call(&self, tool: &String, basis: &Vec<u8>) -> String {
        let config = self.0;
        let kind = match config.tool_index(tool) {
            Some(t) if config.invariant_context.is_irreversible(t) => "irreversible ",
            Some(_) => "reversible ",
            None => "",
        };
        format!("{kind}{tool} on {}", ids(basis.iter().copied().collect()))
    }
}

fn describe_spec(r: &RecordSpec) -> String {
    let mut text = format!(
        "{} {}.{} = {:?} (source {}, authority {}, confidence {}, {}",
        r.kind.name(),
        r.entity,
        r.attribute,
        r.value,
        r.source.as_deref().unwrap_or("none"),
        r.authority.as_decimal(),
        r.confidence.as_decimal(),
        r.scope.name()
    );
    if !r.derived_from.is_empty() {
        let _ = write!(
            text,
            ", from {}",
            ids(r.derived_from.iter().copied().collect())
        );
    }
    if r.valid_from.is_some() || r.valid_to.is_some() {
        let _ = write!(text, ", valid {}", window(r.valid_from, r.valid_to));
    }
    if let Some(owner) = r.owner {
        let _ = write!(text, ", owner {owner}");
    }
    text.push(')');
    text
}

fn describe_record(id: usize, r: &Record, config: &Compiled) -> String {
    let name = |s| config.symbols.name(s);
    let mut text = format!(
        "r{id:<2} {:<11} {:<11} {}.{} = {:?}",
        r.kind().name(),
        r.state().name(),
        name(r.entity()),
        name(r.attribute()),
        name(r.value())
    );
    if let Some(tool) = r.tool() {
        let _ = write!(text, " (tool {})", config.tool_name(tool));
    } else {
        let _ = write!(
            text,
            " (source {}, authority {}, confidence {}, owner {}, {})",
            r.source().map_or("none", name),
            r.authority().as_decimal(),
            r.confidence().as_decimal(),
            r.owner(),
            r.scope().name()
        );
    }
    if !r.derived_from().is_empty() {
        let _ = write!(text, " from {}", ids(r.derived_from()));
    }
    let w = r.window();
    if w.from.is_some() || w.to.is_some() {
        let _ = write!(text, " valid {}", window(w.from, w.to));
    }
    if let Some(reason) = r.reason() {
        let _ = write!(text, " [{}]", reason.name());
    }
    text
}

fn window(from: Option<i32>, to: Option<i32>) -> String {
    let bound = |b: Option<i32>| b.map_or("…".to_owned(), |t| t.to_string());
    format!("[{}, {}]", bound(from), bound(to))
}
