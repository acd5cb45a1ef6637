//! What a random run writes: `random.csv` (one row per walk),
//! `random-coverage.csv` (one row per protocol branch, as `check`'s
//! `coverage.csv`), `random-summary.json`, and the short human summary,
//! through serialize-only wire types kept apart from the logic.

use super::RandomReport;
use crate::check::summary::{coverage_lines, CoverageJson, Written};
use crate::human;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The exact header of `random.csv`.
pub const CSV_HEADER: [&str; 6] = [
    "trace",
    "seed",
    "steps",
    "violated",
    "property",
    "violation_step",
];

/// `random.csv`: one row per walk, in walk order. `property` is the
/// walk's earliest violation (ties in I1, I2, G3 order) and
/// `violation_step` the 0-based step after which it is seen, as in trace
/// files; both are empty when the walk violated nothing.
pub fn csv_bytes(report: &RandomReport) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_HEADER)?;
    for walk in &report.walks {
        let first = walk.violations.first();
        w.write_record([
            walk.index.to_string(),
            walk.seed.to_string(),
            walk.steps.to_string(),
            first.is_some().to_string(),
            first.map_or(String::new(), |(i, _)| i.name().to_owned()),
            first.map_or(String::new(), |(_, s)| s.to_string()),
        ])?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    model: &'a str,
    seed: u64,
    threads: usize,
    traces: usize,
    max_steps: usize,
    steps_taken: u64,
    /// Distinct 64-bit state fingerprints, not a proven state count.
    distinct_states: u64,
    distinct_states_counted_as: &'static str,
    violated: bool,
    violations: BTreeMap<&'static str, ViolationJson>,
    companions: Vec<CompanionJson>,
    companions_reached: usize,
    companions_total: usize,
    /// Counted over the steps the walks took (and the attempts refused).
    coverage: CoverageJson,
    failures: Vec<FailureJson>,
    elapsed_ms: u128,
    traces_per_second: f64,
}

#[derive(Serialize)]
struct ViolationJson {
    /// Walks that violated the invariant.
    traces: u64,
    /// The index of the first such walk.
    first_trace: Option<u64>,
}

#[derive(Serialize)]
struct CompanionJson {
    name: &'static str,
    /// Walks that reached it.
    traces: u64,
    reached: bool,
}

#[derive(Serialize)]
struct FailureJson {
    property: &'static str,
    trace_index: u64,
    original_steps: usize,
    shrunk_steps: usize,
    trace: String,
    itf: String,
}

/// `random-summary.json`.
pub fn summary_json(report: &RandomReport, written: &[Written]) -> String {
    let summary = SummaryJson {
        model: &report.config.name,
        seed: report.options.seed,
        threads: report.options.threads,
        traces: report.walks.len(),
        max_steps: report.options.steps,
        steps_taken: report.steps_taken,
        distinct_states: report.distinct_states,
        distinct_states_counted_as: "distinct 64-bit state fingerprints",
        violated: report.violated(),
        violations: report
            .invariants
            .iter()
            .map(|t| {
                let v = ViolationJson {
                    traces: t.walks,
                    first_trace: t.first_walk,
                };
                (t.invariant.name(), v)
            })
            .collect(),
        companions: report
            .companions
            .iter()
            .map(|&(name, traces)| CompanionJson {
                name,
                traces,
                reached: traces > 0,
            })
            .collect(),
        companions_reached: report.companions.iter().filter(|c| c.1 > 0).count(),
        companions_total: report.companions.len(),
        coverage: CoverageJson::of(&report.coverage, None),
        failures: report
            .failures
            .iter()
            .zip(written)
            .map(|(f, w)| FailureJson {
                property: f.invariant.name(),
                trace_index: f.walk,
                original_steps: f.original_steps,
                shrunk_steps: f.counterexample.depth,
                trace: w.trace.clone(),
                itf: w.itf.clone(),
            })
            .collect(),
        elapsed_ms: report.elapsed.as_millis(),
        traces_per_second: report.traces_per_second(),
    };
    let mut text = serde_json::to_string_pretty(&summary).expect("plain data serialises");
    text.push('\n');
    text
}

/// The short human summary, with the replay command of every failure.
pub fn human_summary(report: &RandomReport, written: &[Written]) -> String {
    let o = &report.options;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "model {} — {} random walks of at most {} steps, seed {}, {} thread{}",
        report.config.name,
        human::count(report.walks.len() as u64),
        o.steps,
        o.seed,
        o.threads,
        if o.threads == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        out,
        "took {} steps, saw {} distinct states (fingerprints) in {} ({} walks/s)",
        human::count(report.steps_taken),
        human::count(report.distinct_states),
        human::duration(report.elapsed),
        human::rate(report.traces_per_second())
    );
    for t in &report.invariants {
        let verdict = match t.first_walk {
            Some(first) => format!(
                "VIOLATED in {} of {} walks (first: walk {first})",
                human::count(t.walks),
                human::count(report.walks.len() as u64)
            ),
            None => "holds on every walk".to_owned(),
        };
        let _ = writeln!(
            out,
            "  {:<18} {:<44} {verdict}",
            t.invariant.name(),
            t.invariant.title()
        );
    }
    let reached = report.companions.iter().filter(|c| c.1 > 0).count();
    let _ = writeln!(
        out,
        "companions reached: {reached} of {}",
        report.companions.len()
    );
    for &(name, traces) in &report.companions {
        let what = if traces > 0 {
            format!("reached in {} walks", human::count(traces))
        } else {
            "NOT REACHED — the invariants it guards may be vacuous here".to_owned()
        };
        let _ = writeln!(out, "  - {name:<32} {what}");
    }
    out.push_str(&coverage_lines(&report.coverage, " (over the walks)"));
    for (f, w) in report.failures.iter().zip(written) {
        let _ = writeln!(
            out,
            "{} violation: walk {} ({} steps) shrunk to {} steps → {} (ITF {})\n  replay: memtx-check replay {}",
            f.invariant.name(),
            f.walk,
            f.original_steps,
            f.counterexample.depth,
            w.trace,
            w.itf,
            w.trace
        );
    }
    out
}
