//! `conform.json`, a conformance run for programs (serialize-only wire
//! types; the format is documented in `docs/conformance.md` and versioned
//! by `format`): the model, the suite, the driver and what it says it is,
//! the traces and steps sent, the fields compared and those left out, per
//! branch its covering trace and whether it agrees, every departing trace,
//! and each kind of departure with its shrunk trace's files.

use super::{ConformReport, Suite};
use crate::check::summary::Written;
use crate::driver::compare::decision_change;
use serde::Serialize;
use serde_json::Value;

/// The format's version.
pub const FORMAT: u32 = 1;

#[derive(Serialize)]
struct ConformJson<'a> {
    format: u32,
    kind: &'static str,
    model: &'a str,
    suite: SuiteJson,
    driver: &'a str,
    implementation: Option<&'a Value>,
    traces: usize,
    steps: u64,
    elapsed_ms: u128,
    cutting_ms: u128,
    driving_ms: u128,
    steps_per_second: f64,
    agrees: bool,
    fields: FieldsJson<'a>,
    branches: Vec<BranchJson>,
    unreached: &'a [&'static str],
    departing: Vec<DepartingJson>,
    divergences: Vec<DivergenceJson<'a>>,
}

#[derive(Serialize)]
struct SuiteJson {
    name: &'static str,
    depth: Option<usize>,
    walks: Option<u64>,
    steps: Option<usize>,
    seed: Option<u64>,
}

#[derive(Serialize)]
struct FieldsJson<'a> {
    compared: Vec<&'a str>,
    not_compared: Vec<&'a str>,
}

#[derive(Serialize)]
struct BranchJson {
    branch: &'static str,
    trace: usize,
    step: usize,
    agrees: bool,
}

#[derive(Serialize)]
struct DepartingJson {
    trace: usize,
    step: usize,
    divergence: Option<usize>,
}

#[derive(Serialize)]
struct DivergenceJson<'a> {
    divergence: usize,
    op: &'static str,
    fields: Vec<&'a str>,
    traces: &'a [usize],
    original_steps: usize,
    steps: usize,
    actions: &'a [String],
    model: &'a Value,
    implementation: &'a Value,
    decision: Option<String>,
    differences: Vec<DifferenceJson<'a>>,
    trace: Option<&'a str>,
    itf: Option<&'a str>,
}

#[derive(Serialize)]
struct DifferenceJson<'a> {
    path: &'a str,
    model: &'a Option<Value>,
    implementation: &'a Option<Value>,
}

/// `conform.json`; `files[k]` are divergence `k`'s trace files.
pub fn conform_json(r: &ConformReport, files: &[Written]) -> String {
    let suite = match r.suite {
        Suite::Branches { depth } => SuiteJson {
            name: "branches",
            depth,
            walks: None,
            steps: None,
            seed: None,
        },
        Suite::Transitions { depth } => SuiteJson {
            name: "transitions",
            depth: Some(depth),
            walks: None,
            steps: None,
            seed: None,
        },
        Suite::Random { walks, steps, seed } => SuiteJson {
            name: "random",
            depth: None,
            walks: Some(walks),
            steps: Some(steps),
            seed: Some(seed),
        },
    };
    let json = ConformJson {
        format: FORMAT,
        kind: "conform",
        model: &r.config.name,
        suite,
        driver: &r.driver,
        implementation: r.implementation.as_ref(),
        traces: r.traces.traces.len(),
        steps: r.steps,
        elapsed_ms: r.elapsed.as_millis(),
        cutting_ms: r.cutting.as_millis(),
        driving_ms: r.driving.as_millis(),
        steps_per_second: r.steps_per_second().round(),
        agrees: r.agrees(),
        fields: FieldsJson {
            compared: r.fields.compared.iter().map(String::as_str).collect(),
            not_compared: r.fields.not_compared.iter().map(String::as_str).collect(),
        },
        branches: r
            .traces
            .covers
            .iter()
            .map(|c| BranchJson {
                branch: c.branch,
                trace: c.trace,
                step: c.step,
                agrees: r.covered(c),
            })
            .collect(),
        unreached: &r.traces.unreached,
        departing: r
            .departures
            .iter()
            .enumerate()
            .filter_map(|(trace, d)| {
                let (step, k) = (*d)?;
                Some(DepartingJson {
                    trace,
                    step,
                    divergence: k.map(|k| k + 1),
                })
            })
            .collect(),
        divergences: r
            .divergences
            .iter()
            .enumerate()
            .map(|(k, d)| DivergenceJson {
                divergence: k + 1,
                op: d.kind.op,
                fields: d.kind.fields.iter().map(String::as_str).collect(),
                traces: &d.traces,
                original_steps: d.original_steps,
                steps: d.actions.len(),
                actions: &d.labels,
                model: &d.departure.model,
                implementation: &d.departure.implementation,
                decision: decision_change(&d.departure.model, &d.departure.implementation),
                differences: d
                    .departure
                    .comparison
                    .differences
                    .iter()
                    .map(|f| DifferenceJson {
                        path: &f.path,
                        model: &f.before,
                        implementation: &f.now,
                    })
                    .collect(),
                trace: files.get(k).map(|f| f.trace.as_str()),
                itf: files.get(k).map(|f| f.itf.as_str()),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&json).expect("plain data serialises");
    text.push('\n');
    text
}
