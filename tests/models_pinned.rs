//! Pins what the exhaustive check finds on every model in `models/`: the
//! state and transition counts, which invariants break and at what depth
//! (the shortest counterexample's length), and which companions stay
//! unreached, and that every verdict and coverage expectation holds. A
//! new model without a row here fails the test, so every model's counts
//! are pinned. Runs in release (`cargo test --release`): a few minutes on
//! two cores, most of it the default model at the card's bound.

use memtx_check::check::{self, CheckOptions, Outcome};
use memtx_check::config::ModelConfig;
use memtx_check::model::coverage::{Coverage, BRANCHES};
use std::path::{Path, PathBuf};

struct Pin {
    model: &'static str,
    states: u64,
    transitions: u64,
    /// Protocol branches reached (of `coverage.csv`'s rows).
    covered: usize,
    /// Each violated invariant, in report order: its name, the length of
    /// its shortest counterexample and the clause that counterexample
    /// breaks; every other invariant holds.
    violated: &'static [(&'static str, usize, &'static str)],
    unreached: &'static [&'static str],
}

// The two companions of checks 1 and 2 stay unreached wherever no
// template trips those checks with the check in force: every model but
// commit-checks. Scope is violated on every model with the default's
// private note and summary: the laundering rule looks at active, direct
// parents only (README, "What the invariants catch").
#[rustfmt::skip]
const PINS: &[Pin] = &[
    Pin { model: "default", states: 130_288_884, transitions: 212_101_745, covered: 50, violated: &[("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "full-surface", states: 4_116_377, transitions: 5_434_592, covered: 47, violated: &[("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "two-agents", states: 13_488_212, transitions: 19_200_025, covered: 42, violated: &[("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "commit-checks", states: 1_573, transitions: 2_236, covered: 17, violated: &[], unreached: &["irreversible call executes", "irreversible call blocked", "cascade revokes a descendant", "view quarantined", "leak logged", "record superseded", "record goes to user review", "lower authority quarantined", "laundering quarantined", "record promoted to action_safe", "retraction reaches a tool action", "stale write quarantined"] },
    Pin { model: "views-windows", states: 5_679, transitions: 7_004, covered: 28, violated: &[], unreached: &["cascade revokes a descendant", "record superseded", "record goes to user review", "low evidence quarantined", "expired record quarantined", "lower authority quarantined", "laundering quarantined", "record promoted to action_safe", "stale write quarantined"] },
    Pin { model: "revalidate", states: 212_673, transitions: 316_164, covered: 31, violated: &[], unreached: &["cascade revokes a descendant", "record superseded", "record goes to user review", "low evidence quarantined", "expired record quarantined", "lower authority quarantined", "laundering quarantined", "record promoted to action_safe", "stale write quarantined"] },
    Pin { model: "evidence-validity", states: 2_128, transitions: 2_758, covered: 22, violated: &[], unreached: &["cascade revokes a descendant", "view quarantined", "record superseded", "record goes to user review", "lower authority quarantined", "laundering quarantined", "record promoted to action_safe", "stale write quarantined"] },
    // Ablations: what the invariants catch.
    Pin { model: "no-gate", states: 3_899_365, transitions: 5_304_685, covered: 40, violated: &[("I1", 4, "unsupported"), ("scope", 5, "laundered")], unreached: &["irreversible call blocked", "low evidence quarantined", "expired record quarantined"] },
    Pin { model: "no-evidence", states: 8_249_364, transitions: 11_619_037, covered: 42, violated: &[("evidence", 3, "low_evidence"), ("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "no-validity", states: 8_249_992, transitions: 11_622_892, covered: 42, violated: &[("validity", 3, "outside_window"), ("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "no-conflict", states: 3_731_903, transitions: 5_316_452, covered: 33, violated: &[("one-value-per-slot", 4, "two_values"), ("scope", 5, "laundered"), ("stale-write", 8, "stale_win")], unreached: &["record superseded", "record goes to user review", "low evidence quarantined", "expired record quarantined", "lower authority quarantined", "stale write quarantined"] },
    Pin { model: "no-permission-inheritance", states: 3_691_755, transitions: 5_241_429, covered: 41, violated: &[("scope", 4, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined", "laundering quarantined"] },
    Pin { model: "no-dependency-stability", states: 3_679_776, transitions: 5_216_188, covered: 41, violated: &[("G3", 7, "revoked_ancestor"), ("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "no-cascade", states: 3_687_597, transitions: 5_225_936, covered: 36, violated: &[("I2", 5, "view"), ("G3", 5, "revoked_ancestor"), ("scope", 5, "laundered"), ("log-completeness", 5, "tool_action_entry")], unreached: &["cascade revokes a descendant", "view quarantined", "low evidence quarantined", "expired record quarantined"] },
    Pin { model: "no-typed-repair", states: 3_678_984, transitions: 5_216_140, covered: 40, violated: &[("I2", 5, "log"), ("scope", 5, "laundered"), ("log-completeness", 5, "tool_action_entry")], unreached: &["view quarantined", "low evidence quarantined", "expired record quarantined"] },
    // The card's paper-vs-code switches and the tool-basis reading.
    Pin { model: "same-source-review", states: 8_286_472, transitions: 11_694_279, covered: 42, violated: &[("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "stale-check-apply", states: 3_677_567, transitions: 5_215_546, covered: 42, violated: &[("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "laundering-any-parent", states: 3_659_250, transitions: 5_192_177, covered: 42, violated: &[("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
    Pin { model: "tool-basis-snapshot", states: 3_711_189, transitions: 6_905_923, covered: 42, violated: &[("G3", 5, "revoked_ancestor"), ("scope", 5, "laundered")], unreached: &["low evidence quarantined", "expired record quarantined"] },
];

fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("models/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            model_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn every_model_is_pinned() {
    let mut files = Vec::new();
    model_files(Path::new("models"), &mut files);
    files.sort();
    assert_eq!(files.len(), PINS.len(), "one pin per model file: {files:?}");
    let mut failures = Vec::new();
    let mut union = Coverage::new();
    for path in &files {
        let config = ModelConfig::load(path).expect("a shipped model loads");
        let pin = PINS
            .iter()
            .find(|p| p.model == config.name)
            .unwrap_or_else(|| panic!("{} has no pin", path.display()));
        let report = check::run(&config, CheckOptions::quiet(2));
        union.merge(&report.coverage);
        let violated: Vec<(&str, usize, &str)> = report
            .invariants()
            .filter_map(|p| match p.outcome {
                Outcome::Violated { depth } => Some((p.name, depth, p.clause.unwrap_or("?"))),
                _ => None,
            })
            .collect();
        let unreached: Vec<&str> = report
            .companions()
            .filter(|p| !matches!(p.outcome, Outcome::Reached { .. }))
            .map(|p| p.name)
            .collect();
        let got = (
            report.unique_states,
            report.transitions,
            report.coverage.reached(),
            violated,
            unreached.clone(),
        );
        let want = (
            pin.states,
            pin.transitions,
            pin.covered,
            pin.violated.to_vec(),
            pin.unreached.to_vec(),
        );
        if got != want {
            failures.push(format!(
                "{}: got {got:?}, pinned {want:?}\n    Pin {{ model: {:?}, states: {}, transitions: {}, covered: {}, violated: &{:?}, unreached: &{:?} }},",
                pin.model, pin.model, got.0, got.1, got.2, got.3, got.4
            ));
        }
        assert!(
            report.as_expected(),
            "{}: a verdict or a coverage expectation contradicts its expect block",
            pin.model
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
