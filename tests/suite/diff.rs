//! End-to-end tests of `memtx-check diff`: a saved report against its
//! model checked now, two models that differ by one ablation, and bad
//! input.

use crate::support::{absent, bin, run, Run};

/// Each run its own output folder: the tests run in parallel.
static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn diff(args: &[&str]) -> (Option<i32>, String, String) {
    let dir = absent(&format!(
        "run-{}",
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let Run { code, out, err } = run(bin().arg("diff").args(args).arg("--out").arg(&dir));
    (code, out, err)
}

/// The shipped report of a model is what checking it now gives: the
/// reports in the repository are current.
#[test]
fn a_shipped_report_matches_its_model_checked_now() {
    let (code, out, err) = diff(&[
        "reports/no-typed-repair",
        "models/ablations/no-typed-repair.json",
        "--threads",
        "2",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("identical"), "{out}");
}

#[test]
fn one_ablation_shows_as_a_new_violation_and_a_lost_companion() {
    let (code, out, err) = diff(&[
        "models/default.json",
        "models/ablations/no-typed-repair.json",
        "--depth",
        "6",
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("model: default → no-typed-repair"), "{out}");
    assert!(
        out.contains("\"typed_repair\""),
        "the variant change is shown: {out}"
    );
    assert!(
        out.contains("I2: holds → violated [log] at depth 5   ← NEW VIOLATION"),
        "{out}"
    );
    assert!(
        out.contains("view quarantined: reached at depth 5 → not_reached"),
        "{out}"
    );
    let (code, out, _) = diff(&[
        "models/ablations/no-typed-repair.json",
        "models/default.json",
        "--depth",
        "6",
    ]);
    assert_eq!(code, Some(1));
    assert!(out.contains("violation lost"), "{out}");
}

/// A report saved at depth 5 (written here, so the test does not depend
/// on the shipped reports being regenerated after a model change) against
/// the same model checked now at depth 4.
#[test]
fn a_changed_state_space_is_reported_level_by_level() {
    let (code, out, _) = diff(&["models/default.json", "models/default.json", "--depth", "4"]);
    assert_eq!(code, Some(0), "{out}");
    let saved = absent("saved");
    let status = bin()
        .args([
            "check",
            "models/default.json",
            "--depth",
            "5",
            "--threads",
            "2",
        ])
        .arg("--out")
        .arg(&saved)
        .arg("--traces")
        .arg(std::path::Path::new(&saved).join("traces"))
        .output()
        .expect("the binary runs")
        .status;
    // Exit 1: the default model breaks our scope property (docs/findings.md).
    assert_eq!(status.code(), Some(1));
    let saved = saved.display().to_string();
    let (code, out, _) = diff(&[&saved, "models/default.json", "--depth", "4"]);
    assert_eq!(code, Some(1), "depth 5 against depth 4: {out}");
    assert!(
        out.contains(
            "bounds: records 4, transactions 3, depth 5 → records 4, transactions 3, depth 4"
        ),
        "{out}"
    );
    assert!(out.contains("states: 9,733 → 873"), "{out}");
    assert!(out.contains("levels: 6 → 5"), "{out}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for (args, named) in [
        (vec!["reports/default", "nope.json"], "nope.json"),
        (vec!["README.md", "reports/default"], "README.md"),
        (
            vec![
                "models/default.json",
                "models/default.json",
                "--threads",
                "0",
            ],
            "--threads",
        ),
        // The flags check shares, with its words and one line (clap's own
        // error for these ran to three to seven lines).
        (
            vec!["reports/default", "reports/default", "--depth", "deep"],
            "--depth: \"deep\" is not a depth",
        ),
        (
            vec!["reports/default", "reports/default", "--threads", "-1"],
            "--threads: \"-1\" is not a whole number",
        ),
        (
            vec!["reports/default", "reports/default", "--threads", "1025"],
            "--threads: 1025 is outside 1..=1024",
        ),
    ] {
        let (code, out, err) = diff(&args);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(
            err.contains(named) && err.trim().lines().count() == 1,
            "{err}"
        );
        assert!(!err.contains("panicked"));
    }
}
