//! Judging one model of a suite: a test case per property (it passes
//! when the outcome agrees with the model's `expect`; a companion has no
//! expectation and always passes) and one for the baseline (it passes
//! when the run's counts per level, verdicts and branch coverage equal
//! the baseline's, except a change to what `expect` says: a verdict that
//! changed to the expected one, e.g. an ablation whose violation is
//! caught again, or a branch newly reached that `expect.coverage` names;
//! such a change is predicted). A baseline blessed with another model
//! than the case's (its bounds, templates or switches) fails as stale
//! before any count is compared.

use crate::check::summary::{stopped_line, Written};
use crate::check::{CheckReport, Outcome, PropertyOutcome};
use crate::config::ExpectCoverage;
use crate::diff::coverage::{self, reach_lines, ReachChange};
use crate::diff::{compare, protocol_note, verdict_changes, Side};

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
    /// Each change the failure is made of, in words that do not name the
    /// model (`scope: violated [laundered] at depth 5 → holds`), so that
    /// one change seen in many models is reported once with their names.
    pub changes: Vec<String>,
}

/// What a model's baseline folder held.
pub enum Baseline {
    /// This run was written as the baseline (`--bless`), into this folder.
    Blessed(String),
    /// No baseline in this folder.
    Missing(String),
    /// One that cannot be read: the error.
    Unreadable(String),
    /// One blessed with another model than the case's: the folder, and
    /// each change ([`super::blessed::changes`]).
    Stale(String, Vec<String>),
    /// The baseline as read, coverage included.
    Found(Box<Side>),
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
    /// `same`, `differs`, `stale`, `blessed`, `missing` or `unreadable`.
    pub baseline: &'static str,
    pub cases: Vec<Case>,
}

impl Case {
    /// A case that passed, saying `output` if anything.
    pub fn passed(name: String, output: Option<String>) -> Case {
        Case {
            name,
            failure: None,
            output,
        }
    }
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
        verdicts: verdicts_text(report),
        baseline: word,
        cases,
    }
}

/// The invariants' verdicts in short: how many hold as expected, then
/// each other one (`11 hold · scope violated [laundered] at 5 (expected)`).
fn verdicts_text(report: &CheckReport) -> String {
    let mut holding = 0;
    let mut others = Vec::new();
    for p in report.invariants() {
        match (p.as_expected(), p.outcome) {
            (true, Outcome::Holds) => holding += 1,
            (expected, _) => others.push(format!(
                "{} {}{}",
                p.name,
                outcome_text(p),
                if expected {
                    " (expected)"
                } else {
                    " (UNEXPECTED)"
                }
            )),
        }
    }
    let mut parts = Vec::new();
    if holding > 0 {
        parts.push(format!("{holding} hold"));
    }
    parts.extend(others);
    parts.join(" · ")
}

/// `holds`, `violated [clause] at 5`.
fn outcome_text(p: &PropertyOutcome) -> String {
    let mut text = p.outcome.name().to_owned();
    if let Some(clause) = p.clause {
        text.push_str(&format!(" [{clause}]"));
    }
    if let Some(d) = p.outcome.depth() {
        text.push_str(&format!(" at {d}"));
    }
    text
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
        (true, _) => Case::passed(
            p.name.to_owned(),
            trace.map(|t| format!("{} {found}, as expected; {t}", p.name)),
        ),
        (false, expected) => {
            let expected = expected.map_or("nothing".to_owned(), |e| e.describe());
            let change = format!("{}: {found}, expected {expected}", p.name);
            let detail = match &trace {
                Some(t) => format!("{change}\n{t}\nmodel {}", report.config.name),
                None => format!("{change}\nmodel {}", report.config.name),
            };
            Case {
                name: p.name.to_owned(),
                failure: Some(Failure {
                    message: change.clone(),
                    detail,
                    changes: vec![change],
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
                failure: Some(Failure {
                    changes: vec![format!("baseline {word}: {message}")],
                    message,
                    detail,
                }),
                output: None,
            },
        )
    };
    let bless_hint = "if the change is meant, rewrite the baseline with `memtx-check ci --bless`";
    let base = match baseline {
        Baseline::Blessed(dir) => {
            let output = format!("wrote this run as the baseline in {dir}");
            return (
                "blessed",
                Case::passed(format!("baseline {dir}"), Some(output)),
            );
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
        Baseline::Stale(dir, changes) => {
            let message = format!(
                "model changed ({}); re-bless: ci --bless",
                changes.join("; ")
            );
            let detail = format!(
                "{message}\nthe baseline in {dir} counts another model than this case's, \
                 so its counts are not compared\n{bless_hint}"
            );
            return fail("stale", format!("baseline {dir}"), message, detail);
        }
        Baseline::Found(found) => *found,
    };
    let name = format!("baseline {}", base.origin);
    let mut lines = Vec::new();
    if let Some(stopped) = stopped_line(report) {
        lines.push(stopped);
    }
    // On the depths both explored: a baseline blessed deeper than this run
    // (`--max-depth`) or shallower (`ci --bless --max-depth`).
    let cap = base.deepest().min(run.deepest());
    let (base, run) = (base.capped(cap), run.capped(cap));
    let d = compare(&base, &run);
    lines.extend(d.setup);
    lines.extend(d.state_space);
    let mut predicted = Vec::new();
    for change in verdict_changes(&base, &run) {
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
            _ => lines.push(change.neutral()),
        }
    }
    let Some(base_coverage) = &base.coverage else {
        return fail(
            "unreadable",
            name,
            format!("{}: no coverage.csv", base.origin),
            format!("{}: no coverage.csv\n{bless_hint}", base.origin),
        );
    };
    let now_coverage = run.coverage.as_ref().expect("a run has its coverage");
    let mut cov = coverage::compare(base_coverage, now_coverage);
    let expect = report.config.expect.coverage.as_ref();
    // A predicted gain covers its branch's count leaving zero.
    let gained: Vec<String> = cov
        .reach
        .iter()
        .filter(|c| predicted_gain(c, expect))
        .map(|c| c.branch.clone())
        .collect();
    cov.counts.retain(|c| !gained.contains(&c.branch));
    let (changed, expected) = reach_lines(&cov.reach, "in the baseline", &|c| {
        predicted_gain(c, expect)
    });
    lines.extend(changed.into_iter().map(|l| format!("coverage: {l}")));
    predicted.extend(expected.into_iter().map(|l| format!("coverage: {l}")));
    if !cov.counts.is_empty() {
        let (by_count, _) = cov.moved_most(3);
        let most: Vec<String> = by_count.iter().map(|c| c.line()).collect();
        lines.push(format!(
            "transitions per branch: {} branches changed, most: {}",
            cov.counts.len(),
            most.join("; ")
        ));
    }
    let notes: Vec<String> = protocol_note(base.build.as_ref(), run.build.as_ref())
        .into_iter()
        .collect();
    if lines.is_empty() {
        let output = (!predicted.is_empty()).then(|| predicted.join("\n"));
        return ("same", Case::passed(name, output));
    }
    let message = format!("differs from {}: {}", base.origin, lines.join("; "));
    let changes = lines.iter().map(|l| format!("baseline: {l}")).collect();
    lines.extend(predicted);
    lines.extend(notes);
    lines.push(bless_hint.to_owned());
    (
        "differs",
        Case {
            name,
            failure: Some(Failure {
                message,
                detail: lines.join("\n"),
                changes,
            }),
            output: None,
        },
    )
}

/// Whether `expect.coverage` predicts a newly reached branch: it names
/// it (any, for `"all"`). It only says branches are reached, so it
/// predicts no loss and no move.
fn predicted_gain(c: &ReachChange, expect: Option<&ExpectCoverage>) -> bool {
    c.before.is_none()
        && match expect {
            Some(ExpectCoverage::All) => true,
            Some(ExpectCoverage::Branches(names)) => names.contains(&c.branch),
            None => false,
        }
}
