//! End-to-end: the example MemTX implementation in Python
//! (`examples/drivers/python/`, written from the card and DESIGN.md, not
//! from `src/protocol/`) against this build's `memtx-check driver`,
//! through `examples/drivers/python/compare.py --quick`: the shipped
//! traces, the built-in edge traces, the bad-request probes, and a small
//! fixed-seed batch of random walks over every model and over random
//! models. It must agree on every step; and a copy of it with one rule
//! broken must be caught, with the step and field that depart, so this
//! test can fail. `memtx-check conform` runs it too, with the branch and
//! a short random suite on the models that reach every branch between
//! them. Skipped, with a message, when `python3` is absent.

use crate::support::{bin, fresh, root, stderr, stdout, BIN};

use std::path::PathBuf;
use std::process::{Command, Output};

fn example_dir() -> PathBuf {
    root().join("examples/drivers/python")
}

/// Whether `python3` runs here; the tests skip with a message when not.
fn have_python() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: python3 is not on PATH, so the example Python driver cannot run");
    }
    found
}

/// `compare.py --quick` against this build's binary, `extra` appended.
fn compare(extra: &[&str]) -> Output {
    Command::new("python3")
        .arg(example_dir().join("compare.py"))
        .arg("--quick")
        .arg("--exe")
        .arg(BIN)
        .args(extra)
        .output()
        .expect("run python3 compare.py")
}

/// The numbers of the summary line `A of B traces agree; C of D steps
/// compared agree …`.
fn summary(stdout: &str) -> (u64, u64, u64, u64) {
    let line = stdout
        .lines()
        .find(|l| l.contains("traces agree;"))
        .unwrap_or_else(|| panic!("no summary line in:\n{stdout}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.parse().expect("a count"))
        .collect();
    (numbers[0], numbers[1], numbers[2], numbers[3])
}

/// Issue 38.14: compare.py compared repairs and log entries in order,
/// where the card leaves their order open; an implementation that
/// repairs in another order (the model's own driver behind a proxy that
/// reverses them) agrees.
#[test]
fn compare_takes_repairs_and_log_entries_in_any_order() {
    if !have_python() {
        return;
    }
    let (driver, marks) = crate::conform::reordering_driver(&fresh("reorder-compare"));
    let out = compare(&["--driver", &driver, "--name", "reordered", "--no-probes"]);
    let reordered = std::fs::read_to_string(&marks).unwrap_or_default();
    assert!(
        reordered.lines().count() > 0,
        "the proxy reordered nothing: the test cannot fail"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn the_python_driver_agrees_with_the_model_on_every_step() {
    if !have_python() {
        return;
    }
    let out = compare(&[]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert_eq!(
        out.status.code(),
        Some(0),
        "the Python driver departs from the model:\n{stdout}\n{stderr}"
    );
    let (agreed, traces, agreed_steps, steps) = summary(&stdout);
    assert_eq!(agreed, traces, "{stdout}");
    assert_eq!(agreed_steps, steps, "{stdout}");
    // Every shipped trace is in the run, and the random part is not empty.
    let shipped = std::fs::read_dir(root().join("traces"))
        .expect("read traces/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".itf.json"))
        .count() as u64;
    assert!(shipped >= 10, "only {shipped} shipped traces");
    assert!(traces > shipped + 100, "{traces} traces: {stdout}");
    assert!(steps > 3000, "{steps} steps: {stdout}");
}

/// One rule of memtx.py broken in a scratch copy: `old` (which must be in
/// memtx.py exactly once, so the test fails loudly when the file changes)
/// replaced by `new`. The comparison must fail (exit 1) and name `field`.
fn broken_copy_is_caught(name: &str, old: &str, new: &str, field: &str) {
    let dir = fresh(name);
    for file in ["driver.py", "memtx.py"] {
        std::fs::copy(example_dir().join(file), dir.join(file)).expect("copy the example");
    }
    let source = std::fs::read_to_string(dir.join("memtx.py")).expect("read memtx.py");
    assert_eq!(
        source.matches(old).count(),
        1,
        "memtx.py no longer holds {old:?} once: update this test's mutation"
    );
    std::fs::write(dir.join("memtx.py"), source.replace(old, new)).expect("write the break");
    let driver = format!("python3 {}", dir.join("driver.py").display());
    let out = compare(&["--driver", &driver, "--max-departures", "1", "--no-probes"]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{name}: a broken rule went unnoticed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains(" departs: ") && stdout.contains(field),
        "{name}: expected a departure on {field:?}:\n{stdout}"
    );
}

#[test]
fn a_gate_that_ignores_the_snapshot_is_caught() {
    if !have_python() {
        return;
    }
    // Tentative records inside the caller's snapshot block too: only a
    // revalidated record can be one (traces/revalidate-view.json).
    broken_copy_is_caught(
        "gate",
        "if any(rid not in t.snapshot for rid in tentative):",
        "if tentative:",
        "traces/revalidate-view.json: step 8 (tool_call) departs: outcome.allowed: model true, python false",
    );
}

#[test]
fn views_revoked_instead_of_quarantined_are_caught() {
    if !have_python() {
        return;
    }
    broken_copy_is_caught(
        "typed-repair",
        "if \"quarantined\" in MOVES[node.state]:",
        "if False:",
        "outcome.repairs[1].repair: model quarantined, python revoked",
    );
}

/// `memtx-check conform` on the Python driver (issue 27 item 7): the
/// branch suite on every shipped model that reaches branches the default
/// does not, and a short random suite; every one must agree. Its own
/// reader of conform.json (not the writer's types) reads the verdict.
#[test]
fn conform_finds_the_python_driver_in_agreement() {
    if !have_python() {
        return;
    }
    #[derive(serde::Deserialize)]
    struct Report {
        format: u64,
        traces: u64,
        steps: u64,
        agrees: bool,
        divergences: Vec<serde_json::Value>,
    }
    let driver = format!("python3 {}", example_dir().join("driver.py").display());
    let models = [
        "models/default.json",
        "models/full-surface.json",
        "models/coverage/evidence-validity.json",
        "models/coverage/views-windows.json",
        "models/coverage/revalidate.json",
        "models/coverage/rebuild.json",
        "models/coverage/boundaries.json",
    ];
    let suites: [&[&str]; 2] = [
        &["--suite", "branches"],
        &[
            "--suite", "random", "--walks", "40", "--steps", "12", "--seed", "3",
        ],
    ];
    for (m, model) in models.iter().enumerate() {
        for (s, suite) in suites.iter().enumerate() {
            let dir = fresh(&format!("conform-{m}-{s}"));
            let out = bin()
                .args(["conform", model, "--driver", &driver, "--jobs", "2"])
                .args(*suite)
                .arg("--out")
                .arg(dir.join("out"))
                .arg("--traces")
                .arg(dir.join("traces"))
                .output()
                .expect("run memtx-check conform");
            let (stdout, stderr) = (stdout(&out), stderr(&out));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{model} {suite:?}: the Python driver departs:\n{stdout}\n{stderr}"
            );
            let report: Report = serde_json::from_str(
                &std::fs::read_to_string(dir.join("out/conform.json")).expect("conform.json"),
            )
            .expect("conform.json parses");
            assert_eq!(report.format, 1);
            assert!(
                report.agrees && report.traces > 0 && report.steps > 0,
                "{model} {suite:?}"
            );
            assert!(report.divergences.is_empty(), "{model} {suite:?}");
        }
    }
}
