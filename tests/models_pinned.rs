//! Pins what the exhaustive check finds on every model in `models/`: the
//! state and transition counts, which invariants break and at what depth
//! (the shortest counterexample's length), and which companions stay
//! unreached, and that every verdict and coverage expectation holds. A
//! new model without a row here fails the test, so every model's counts
//! are pinned. Runs in release (`cargo test --release`): a few minutes on
//! two cores, most of it the default model at the card's bound.

use memtx_check::check::{self, CheckOptions, Outcome};
use memtx_check::config::ModelConfig;
use memtx_check::invariants::Invariant;
use memtx_check::model::coverage::{Coverage, BRANCHES};
use std::path::{Path, PathBuf};

struct Pin {
    model: &'static str,
    states: u64,
    transitions: u64,
    /// Protocol branches reached (of `coverage.csv`'s rows).
    covered: usize,
    /// Shortest counterexample length for I1, I2, G3; `None`: holds.
    violated_at: [Option<usize>; 3],
    unreached: &'static [&'static str],
}

#[rustfmt::skip]
const PINS: &[Pin] = &[
    Pin { model: "default", states: 130_288_884, transitions: 212_101_745, covered: 50, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "full-surface", states: 4_116_377, transitions: 5_434_592, covered: 47, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "two-agents", states: 13_488_212, transitions: 19_200_025, covered: 42, violated_at: [None, None, None], unreached: &[] },
    // Small models for the branches the default does not reach.
    Pin { model: "evidence-validity", states: 2_128, transitions: 2_758, covered: 22, violated_at: [None, None, None], unreached: &["cascade revokes a descendant", "view quarantined", "record superseded", "record goes to user review"] },
    Pin { model: "revalidate", states: 212_673, transitions: 316_164, covered: 31, violated_at: [None, None, None], unreached: &["cascade revokes a descendant", "record superseded", "record goes to user review"] },
    Pin { model: "views-windows", states: 5_679, transitions: 7_004, covered: 28, violated_at: [None, None, None], unreached: &["cascade revokes a descendant", "record superseded", "record goes to user review"] },
    // Ablations: what the invariants catch, and what nothing catches.
    Pin { model: "no-gate", states: 3_899_365, transitions: 5_304_685, covered: 40, violated_at: [Some(4), None, None], unreached: &["irreversible call blocked"] },
    Pin { model: "no-evidence", states: 8_249_364, transitions: 11_619_037, covered: 42, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "no-validity", states: 8_249_992, transitions: 11_622_892, covered: 42, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "no-conflict", states: 3_731_867, transitions: 5_316_452, covered: 33, violated_at: [None, None, None], unreached: &["record superseded", "record goes to user review"] },
    Pin { model: "no-permission-inheritance", states: 3_691_755, transitions: 5_241_429, covered: 41, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "no-dependency-stability", states: 3_679_776, transitions: 5_216_188, covered: 41, violated_at: [None, None, Some(7)], unreached: &[] },
    Pin { model: "no-cascade", states: 3_687_597, transitions: 5_225_936, covered: 36, violated_at: [None, Some(5), Some(5)], unreached: &["cascade revokes a descendant", "view quarantined"] },
    Pin { model: "no-typed-repair", states: 3_678_984, transitions: 5_216_140, covered: 40, violated_at: [None, Some(5), None], unreached: &["view quarantined"] },
    // The card's paper-vs-code switches and the tool-basis reading.
    Pin { model: "same-source-review", states: 8_286_472, transitions: 11_694_279, covered: 42, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "stale-check-apply", states: 3_677_567, transitions: 5_215_546, covered: 42, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "laundering-any-parent", states: 3_659_250, transitions: 5_192_177, covered: 42, violated_at: [None, None, None], unreached: &[] },
    Pin { model: "tool-basis-snapshot", states: 3_711_189, transitions: 6_905_923, covered: 42, violated_at: [None, None, Some(5)], unreached: &[] },
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
        let violated_at = Invariant::ALL.map(|inv| match report.outcome(inv) {
            Some(Outcome::Violated { depth }) => Some(depth),
            _ => None,
        });
        let unreached: Vec<&str> = report
            .companions()
            .filter(|p| !matches!(p.outcome, Outcome::Reached { .. }))
            .map(|p| p.name)
            .collect();
        let got = (
            report.unique_states,
            report.transitions,
            report.coverage.reached(),
            violated_at,
            unreached.clone(),
        );
        let want = (
            pin.states,
            pin.transitions,
            pin.covered,
            pin.violated_at,
            pin.unreached.to_vec(),
        );
        if got != want {
            failures.push(format!("{}: got {got:?}, pinned {want:?}", pin.model));
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
