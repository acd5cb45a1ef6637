//! Judging one model of a suite: a test case per property (it passes
//! when the outcome agrees with the model's `expect`; a companion has no
//! expectation and always passes) and one for the baseline (it passes
//! when the run's counts per level, verdicts and branch coverage equal
//! the baseline's, except a change to what `expect` says: a verdict that
//! changed to the expected one, e.g. an ablation whose violation is
//! caught again, or a branch newly reached that `expect.coverage` names;
//! such a change is predicted).

use super::coverage::{change_lines, changes, BaselineCoverage};
use crate::check::summary::{stopped_line, Written};
use crate::check::{CheckReport, Outcome, PropertyOutcome};
use crate::diff::{compare, verdict_changes, Side};

/// One test case: its name, and why it failed if it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub failure: Option<Failure>,
    /// What a passing case has to say (a counterexample found as expected).
    pub output: Option<String>,
}

/// Why a case failed: one line, and the details under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    pub detail: String,
}

/// What a model's baseline folder held.
pub enum Baseline {
    /// This run was written as the baseline (`--bless`), into this folder.
    Blessed(String),
    /// No baseline in this folder.
    Missing(String),
    /// One that cannot be read: the error.
    Unreadable(String),
    /// The baseline as read, with its coverage (both capped, under
    /// `--max-depth`).
    Found(Side, BaselineCoverage),
}

/// One model's results.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelResult {
    pub model: String,
    /// The model file.
    pub file: String,
    pub states: u64,
    pub seconds: f64,
    /// `I1 holds · I2 violated at 5 (expected) · G3 holds`.
    pub verdicts: String,
    /// `same`, `differs`, `blessed`, `missing` or `unreadable`.
    pub baseline: &'static str,
    pub cases: Vec<Case>,
}

impl ModelResult {
    pub fn failures(&self) -> usize {
        self.cases.iter().filter(|c| c.failure.is_some()).count()
    }
}

/// Judges `report`, whose counterexamples were written to `written`, its
/// side `run` against `baseline`.
pub fn judge(
    report: &CheckReport,
    written: &[Written],
    file: &str,
    run: &Side,
    baseline: Baseline,
) -> ModelResult {
    let mut cases: Vec<Case> = report
        .properties
        .iter()
        .map(|p| property_case(report, written, p))
        .collect();
    let (word, case) = baseline_case(report, run, baseline);
    cases.push(case);
    ModelResult {
        model: report.config.name.clone(),
        file: file.to_owned(),
        states: report.unique_states,
        seconds: report.elapsed.as_secs_f64(),
        verdicts: report
            .invariants()
            .map(|p| {
                let note = match (p.as_expected(), p.outcome) {
                    (false, _) => " (UNEXPECTED)",
                    (true, Outcome::Violated { .. }) => " (expected)",
                    _ => "",
                };
                format!("{} {}{note}", p.name, outcome_text(p))
            })
            .collect::<Vec<_>>()
            .join(" · "),
        baseline: word,
        cases,
    }
}

fn outcome_text(p: &PropertyOutcome) -> String {
    match p.outcome.depth() {
        Some(d) => format!("{} at depth {d}", p.outcome.name()),
        None => p.outcome.name().to_owned(),
    }
}

fn property_case(report: &CheckReport, written: &[Written], p: &PropertyOutcome) -> Case {
    let trace = report
        .counterexamples
        .iter()
        .zip(written)
        .find(|(c, _)| c.invariant.name() == p.name)
        .map(|(_, w)| {
            format!(
                "counterexample {}; replay: memtx-check replay {}",
                w.trace, w.trace
            )
        });
    let found = outcome_text(p);
    match (p.as_expected(), p.expected) {
        (true, _) => Case {
            name: p.name.to_owned(),
            failure: None,
            output: trace.map(|t| format!("{} {found}, as expected; {t}", p.name)),
        },
        (false, expected) => {
            let expected = expected.map_or("nothing", |e| e.name());
            let message = match &trace {
                Some(t) => format!("{} {found}, expected {expected}: {t}", p.name),
                None => format!(
                    "{} {found}, expected {expected}: the model no longer catches what it should",
                    p.name
                ),
            };
            Case {
                name: p.name.to_owned(),
                failure: Some(Failure {
                    detail: format!("{message}\nmodel {}", report.config.name),
                    message,
                }),
                output: None,
            }
        }
    }
}

fn baseline_case(report: &CheckReport, run: &Side, baseline: Baseline) -> (&'static str, Case) {
    let fail = |word, name: String, message: String, detail: String| {
        (
            word,
            Case {
                name,
                failure: Some(Failure { message, detail }),
                output: None,
            },
        )
    };
    let bless_hint = "if the change is meant, rewrite the baseline with `memtx-check ci --bless`";
    let (base, coverage) = match baseline {
        Baseline::Blessed(dir) => {
            return (
                "blessed",
                Case {
                    name: format!("baseline {dir}"),
                    failure: None,
                    output: Some(format!("wrote this run as the baseline in {dir}")),
                },
            )
        }
        Baseline::Missing(dir) => {
            return fail(
                "missing",
                format!("baseline {dir}"),
                format!("no baseline in {dir}"),
                format!("no baseline in {dir}: write one with `memtx-check ci --bless`"),
            )
        }
        Baseline::Unreadable(error) => {
            return fail(
                "unreadable",
                "baseline".to_owned(),
                error.clone(),
                format!("{error}\n{bless_hint}"),
            )
        }
        Baseline::Found(side, coverage) => (side, coverage),
    };
    let name = format!("baseline {}", base.origin);
    let mut lines = Vec::new();
    if let Some(stopped) = stopped_line(report) {
        lines.push(stopped);
    }
    let d = compare(&base, run);
    lines.extend(d.setup);
    lines.extend(d.state_space);
    let mut predicted = Vec::new();
    for change in verdict_changes(&base, run) {
        let now = run.properties.iter().find(|v| v.name == change.name);
        let expected = report
            .properties
            .iter()
            .find(|p| p.name == change.name)
            .and_then(|p| p.expected);
        match (now, expected) {
            (Some(v), Some(e)) if v.verdict == e.name() => {
                predicted.push(format!("{} (predicted by expect)", change.line))
            }
            _ => lines.push(change.line),
        }
    }
    let (changed, expected) = change_lines(
        &changes(&coverage, &report.coverage),
        report.config.expect.coverage.as_ref(),
    );
    lines.extend(changed);
    predicted.extend(expected);
    if lines.is_empty() {
        let output = (!predicted.is_empty()).then(|| predicted.join("\n"));
        return (
            "same",
            Case {
                name,
                failure: None,
                output,
            },
        );
    }
    let message = format!("differs from {}: {}", base.origin, lines.join("; "));
    lines.extend(predicted);
    lines.push(bless_hint.to_owned());
    fail("differs", name, message, lines.join("\n"))
}
