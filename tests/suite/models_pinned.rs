//! Pins what the exhaustive check finds on every model in `models/`: the
//! state and transition counts, which invariants break, at what depth and
//! with which clause, which companions stay unreached and how many
//! branches are covered — each read from the model's committed baseline
//! (`reports/NAME/summary.json`, with this file's own types), the one
//! place each of these facts is written (`memtx-check ci --bless` writes
//! it, on purpose). Every model must have a baseline blessed at its own
//! depth, every verdict and coverage expectation must hold, and together
//! the models must take every branch. Runs in release (`cargo test
//! --release`).
//!
//! A model whose baseline holds more than [`STATE_BUDGET`] states (the
//! default model at the card's depth 10; two-agents, same-source-review,
//! no-validity and no-evidence at depth 8) is checked here to the deepest
//! level within the budget (depth 7, 1.3 to 2 million states, by which
//! every violation and example of theirs is found) and pinned by its
//! baseline's own per-depth figures (`growth.csv`, `coverage-depths.csv`):
//! their deeper levels were most of this test's time (the default's
//! depths 8 to 10 alone are 129 million states). Their whole depth is
//! pinned by `.ci/run`, whose `ci models` checks every model to its own
//! bound against the same baseline.

use memtx_check::check::{self, CheckOptions, Outcome};
use memtx_check::config::{Depth, ModelConfig};
use memtx_check::model::coverage::{Coverage, BRANCHES};
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct Summary {
    bounds: Bounds,
    states: u64,
    transitions: u64,
    properties: Vec<Property>,
    coverage: SummaryCoverage,
}

#[derive(Deserialize)]
struct Bounds {
    depth: String,
}

#[derive(Deserialize)]
struct Property {
    name: String,
    kind: String,
    verdict: String,
    depth: Option<usize>,
    clause: Option<String>,
}

#[derive(Deserialize)]
struct SummaryCoverage {
    reached: usize,
}

/// What a run of a model found, in the terms of its summary.
#[derive(Debug, PartialEq, Eq)]
struct Pin {
    states: u64,
    transitions: u64,
    covered: usize,
    /// Each violated invariant, in report order: name, shortest depth,
    /// clause.
    violated: Vec<(String, usize, String)>,
    /// The companions not reached.
    unreached: Vec<String>,
}

/// The most states a model is checked to here (see the module's doc).
const STATE_BUDGET: u64 = 5_000_000;

/// The depth `model` is checked to here: `None` (its own bound) when its
/// baseline's states fit [`STATE_BUDGET`], else the deepest level whose
/// states do.
fn depth_cap(model: &str) -> Option<usize> {
    let growth: Vec<GrowthRow> = csv_rows(&Path::new("reports").join(model).join("growth.csv"));
    let last = growth.last().expect("a growth table has level 0");
    (last.total_states > STATE_BUDGET).then(|| {
        growth
            .iter()
            .filter(|r| r.total_states <= STATE_BUDGET)
            .map(|r| r.depth)
            .max()
            .expect("level 0 fits")
    })
}

/// One row of a baseline's `growth.csv`.
#[derive(Deserialize)]
struct GrowthRow {
    depth: usize,
    total_states: u64,
    total_transitions: u64,
}

/// One row of a baseline's `coverage-depths.csv`.
#[derive(Deserialize)]
struct CoverageDepthRow {
    depth: usize,
    branch: String,
    transitions: u64,
}

fn csv_rows<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    csv::Reader::from_path(path)
        .unwrap_or_else(|e| panic!("{}: a baseline table ({e})", path.display()))
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: a baseline table ({e})", path.display()))
}

/// What `model`'s baseline, blessed at `depth`, says a check to `cap`
/// finds: the summary's figures when `cap` is none, else the figures of
/// the levels up to `cap`.
fn baseline(model: &str, depth: &str, cap: Option<usize>) -> Pin {
    let dir = Path::new("reports").join(model);
    let (mut pin, companions) = summary_pin(&dir, depth);
    let Some(cap) = cap else {
        return pin;
    };
    let growth: Vec<GrowthRow> = csv_rows(&dir.join("growth.csv"));
    let row = growth
        .iter()
        .find(|r| r.depth == cap)
        .unwrap_or_else(|| panic!("{}: growth.csv has no depth {cap}", dir.display()));
    pin.states = row.total_states;
    pin.transitions = row.total_transitions;
    let mut reached: Vec<String> = csv_rows::<CoverageDepthRow>(&dir.join("coverage-depths.csv"))
        .into_iter()
        .filter(|r| r.depth <= cap && r.transitions > 0)
        .map(|r| r.branch)
        .collect();
    reached.sort();
    reached.dedup();
    pin.covered = reached.len();
    pin.violated.retain(|(_, d, _)| *d <= cap);
    pin.unreached = companions
        .iter()
        .filter(|p| p.verdict != "reached" || p.depth.is_some_and(|d| d > cap))
        .map(|p| p.name.clone())
        .collect();
    pin
}

/// The summary's pin, and its companions (to judge them at a cap).
fn summary_pin(dir: &Path, depth: &str) -> (Pin, Vec<Property>) {
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: every model has a baseline ({e})", path.display()));
    let s: Summary = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: a check summary ({e})", path.display()));
    assert_eq!(
        s.bounds.depth,
        depth,
        "{}: blessed at another depth than the model's own",
        path.display()
    );
    let pin = Pin {
        states: s.states,
        transitions: s.transitions,
        covered: s.coverage.reached,
        violated: s
            .properties
            .iter()
            .filter(|p| p.kind == "invariant" && p.verdict == "violated")
            .map(|p| {
                (
                    p.name.clone(),
                    p.depth.expect("a violation has a depth"),
                    p.clause.clone().expect("a violation has a clause"),
                )
            })
            .collect(),
        unreached: s
            .properties
            .iter()
            .filter(|p| p.kind == "companion" && p.verdict != "reached")
            .map(|p| p.name.clone())
            .collect(),
    };
    let companions = s.properties.into_iter().filter(|p| p.kind == "companion");
    (pin, companions.collect())
}

#[test]
fn every_model_is_pinned_by_its_baseline() {
    let files = crate::support::json_files(&["models"]);
    assert!(files.len() >= 19, "{files:?}");
    let mut failures = Vec::new();
    let mut union = Coverage::new();
    for path in &files {
        let mut config = ModelConfig::load(path).expect("a shipped model loads");
        let cap = depth_cap(&config.name);
        let pinned = baseline(&config.name, &config.bounds.depth.to_string(), cap);
        if let Some(cap) = cap {
            config.bounds.depth = Depth::Bounded(cap);
        }
        let report = check::run(&config, CheckOptions::quiet(2));
        union.merge(&report.coverage);
        let got = Pin {
            states: report.unique_states,
            transitions: report.transitions,
            covered: report.coverage.reached(),
            violated: report
                .invariants()
                .filter_map(|p| match p.outcome {
                    Outcome::Violated { depth } => {
                        Some((p.name.to_owned(), depth, p.clause.unwrap_or("?").to_owned()))
                    }
                    _ => None,
                })
                .collect(),
            unreached: report
                .companions()
                .filter(|p| !matches!(p.outcome, Outcome::Reached { .. }))
                .map(|p| p.name.to_owned())
                .collect(),
        };
        if got != pinned {
            failures.push(format!(
                "{}: got {got:?}, its baseline says {pinned:?} (a meant change is blessed with `memtx-check ci --bless`)",
                config.name
            ));
        }
        assert!(
            report.as_expected(),
            "{}: a verdict or a coverage expectation contradicts its expect block",
            config.name
        );
        // Each counterexample was replayed when built; it is as long as
        // the depth reported.
        for c in &report.counterexamples {
            assert_eq!(c.trace.steps.len(), c.depth);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Together the shipped models take every branch of the protocol.
    assert_eq!(union.unreached(), Vec::<&str>::new());
    assert_eq!(union.reached(), BRANCHES.len());
}
