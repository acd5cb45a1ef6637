//! The spec-change walkthrough of docs/tutorial-spec-change.md as an
//! end-to-end test: the crate is built once more with each test-only spec
//! change (cargo features `tutorial-transitive-laundering`, change A, and
//! `tutorial-committed-parents`, change B; profile `tutorial`, into
//! `target/walkthrough`, cached between runs), and the tool alone, run as
//! a designer would run it, must say what each change did:
//!
//! - A: scope holds on the default model where it was violated, the
//!   quarantines for permission laundering more than double at depth 8,
//!   and the behaviour diff against the plain build parts at the commit of
//!   a public summary of a tentative private note;
//! - B: the behaviour diff parts at a record that supersedes its own
//!   parent and is now quarantined, and the G3 violation of the
//!   no-dependency-stability ablation disappears.
//!
//! Outputs are read with this file's own parsing, not the crate's.
//!
//! A binary of its own, not an area of `tests/suite/`: its two builds of
//! the crate take both cores, and beside them the suite's timed cases
//! (signals, peer timeouts, progress rates) would run starved. Cargo runs
//! the test binaries one after another, so here it runs alone; it shares
//! the suite's `support` module. Its tests are `#[ignore]`d: on a fresh
//! clone the two builds (dependencies included, at the `tutorial`
//! profile) take 1.5 to 2 minutes, which would put a newcomer's `cargo
//! test --release` past its five; `.ci/run` runs them on every push
//! (`cargo test --release --test spec_change_walkthrough -- --ignored`).

#[path = "suite/support/mod.rs"]
mod support;

use support::{fresh, root, run, Run, BIN as PLAIN};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Both builds share one target folder (the dependencies are built once);
/// each binary is copied out before the other build replaces it.
static BUILDS: Mutex<()> = Mutex::new(());

/// The memtx-check binary built with `feature`.
fn built(feature: &str) -> PathBuf {
    let _one_at_a_time = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp is under target")
        .join("walkthrough");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "--profile",
            "tutorial",
            "--bin",
            "memtx-check",
        ])
        .args(["--features", feature])
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building with {feature}: {status}");
    let bin = target.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join(format!("memtx-check-{feature}"));
    let tmp = bin.join(format!(".memtx-check-{feature}.tmp"));
    std::fs::copy(target.join("tutorial/memtx-check"), &tmp).unwrap();
    std::fs::rename(&tmp, &exe).unwrap();
    exe
}

/// Runs `exe ARGS` in `dir` (so its default `runs/` goes there).
fn run_in(exe: &Path, dir: &Path, args: &[&str]) -> Run {
    run(Command::new(exe).args(args).current_dir(dir))
}

fn model(path: &str) -> String {
    root().join("models").join(path).display().to_string()
}

/// `check MODEL --out NAME --traces NAME/traces` in `dir`.
fn check(exe: &Path, dir: &Path, model_path: &str, out: &str, extra: &[&str]) -> Run {
    let traces = format!("{out}/traces");
    let mut args = vec!["check", model_path, "--out", out, "--traces", &traces];
    args.extend_from_slice(extra);
    run_in(exe, dir, &args)
}

/// A branch's transitions in a report folder's coverage.csv
/// (`branch,transitions,first_depth`).
fn transitions(report: &Path, branch: &str) -> u64 {
    let text = std::fs::read_to_string(report.join("coverage.csv")).unwrap();
    text.lines()
        .skip(1)
        .find_map(|l| {
            let mut cells = l.split(',');
            (cells.next() == Some(branch)).then(|| cells.next().unwrap().parse().unwrap())
        })
        .unwrap_or_else(|| panic!("{branch} in {}", report.display()))
}

/// `X → Y` in `line` after `branch`, with the thousands separators gone.
fn moved(text: &str, branch: &str) -> (u64, u64) {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{branch} ")))
        .unwrap_or_else(|| panic!("{branch} among the branches that moved most: {text}"));
    let numbers = line.trim_start()[branch.len()..]
        .split(" (")
        .next()
        .unwrap();
    let (before, after) = numbers.split_once('→').unwrap();
    let number = |s: &str| s.trim().replace(',', "").parse().unwrap();
    (number(before), number(after))
}

/// The trace a behaviour diff wrote: its path from the `wrote PATH;` line,
/// read as JSON, its steps' `op` names.
fn parting_trace(dir: &Path, out: &str) -> (PathBuf, Vec<String>) {
    let path = out
        .lines()
        .find_map(|l| l.strip_prefix("wrote ")?.split(';').next())
        .unwrap_or_else(|| panic!("a trace written: {out}"));
    let path = dir.join(path);
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(trace["config"].is_object(), "{trace}");
    let ops = trace["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["op"].as_str().unwrap().to_owned())
        .collect();
    (path, ops)
}

/// `EXE diff --behaviour MODEL --before-exe PLAIN` in `dir`: the two
/// builds must part (exit 1).
fn behaviour_diff(exe: &Path, dir: &Path, model_path: &str) -> Run {
    let parted = run_in(
        exe,
        dir,
        &["diff", "--behaviour", model_path, "--before-exe", PLAIN],
    );
    assert_eq!(parted.code, Some(1), "{}{}", parted.out, parted.err);
    parted
}

#[test]
#[ignore = "builds the crate twice more; .ci/run runs it (docs/testing.md)"]
fn change_a_fixes_the_scope_finding_and_more_than_doubles_laundering_quarantines() {
    let a = built("tutorial-transitive-laundering");
    let dir = fresh("a");
    let default = model("default.json");
    // Depth 8: the default model's first nine levels, seconds each.
    let plain = check(Path::new(PLAIN), &dir, &default, "plain", &["--depth", "8"]);
    assert_eq!(
        plain.code,
        Some(1),
        "scope is violated: {}{}",
        plain.out,
        plain.err
    );
    let changed = check(&a, &dir, &default, "a", &["--depth", "8"]);
    assert_eq!(changed.code, Some(0), "{}{}", changed.out, changed.err);

    let diff = run_in(Path::new(PLAIN), &dir, &["diff", "plain", "a"]);
    assert_eq!(diff.code, Some(1), "{}{}", diff.out, diff.err);
    assert!(
        diff.out.contains("protocol changed between these runs"),
        "{}",
        diff.out
    );
    assert!(
        diff.out.contains("features tutorial-transitive-laundering"),
        "{}",
        diff.out
    );
    assert!(
        diff.out
            .contains("scope: violated [laundered] at depth 5 → holds"),
        "{}",
        diff.out
    );
    let branch = "record.quarantined.permission_laundering";
    let (before, after) = moved(&diff.out, branch);
    assert_eq!(
        (before, after),
        (
            transitions(&dir.join("plain"), branch),
            transitions(&dir.join("a"), branch)
        ),
        "the diff tells the reports' own counts"
    );
    assert!(after > 2 * before, "{before} → {after}");
    assert!(
        dir.join("runs").read_dir().unwrap().flatten().any(|e| e
            .file_name()
            .to_string_lossy()
            .ends_with(".tutorial-transitive-laundering")),
        "the diff's folder names both builds"
    );

    // Where the two builds part, breadth first: a public summary of a
    // tentative private note, committed before, quarantined now.
    let parted = behaviour_diff(&a, &dir, &default);
    assert!(
        parted.out.contains("the builds part after 5 steps"),
        "{}",
        parted.out
    );
    assert!(
        parted.out.contains(
            "step 4 commit: r1 before committed; now quarantined (permission_laundering)"
        ),
        "{}",
        parted.out
    );
    let (trace, ops) = parting_trace(&dir, &parted.out);
    assert_eq!(ops, ["open", "open", "stage", "stage", "commit"]);
    let trace = trace.display().to_string();
    let old = run_in(Path::new(PLAIN), &dir, &["replay", &trace]);
    assert!(old.out.contains("r1  summary     committed"), "{}", old.out);
    let new = run_in(&a, &dir, &["replay", &trace]);
    assert!(new.out.contains("[permission_laundering]"), "{}", new.out);
}

#[test]
#[ignore = "builds the crate twice more; .ci/run runs it (docs/testing.md)"]
fn change_b_quarantines_a_record_superseding_its_own_parent_and_ends_a_g3_violation() {
    let b = built("tutorial-committed-parents");
    let dir = fresh("b");
    let default = model("default.json");
    let parted = behaviour_diff(&b, &dir, &default);
    assert!(
        parted.out.contains("the builds part after 4 steps"),
        "{}",
        parted.out
    );
    assert!(
        parted.out.contains(
            "step 3 commit: r1 before committed, superseding {r0}; \
             now quarantined (uncommitted_parent), superseding {r0}"
        ),
        "{}",
        parted.out
    );
    let (trace, ops) = parting_trace(&dir, &parted.out);
    assert_eq!(ops, ["open", "stage", "stage", "commit"]);
    // The slot is left empty: r0 superseded, r1 quarantined.
    let new = run_in(&b, &dir, &["replay", &trace.display().to_string()]);
    assert!(
        new.out.contains("r0  belief      superseded"),
        "{}",
        new.out
    );
    assert!(new.out.contains("[uncommitted_parent]"), "{}", new.out);

    // The ablation of check 4: its G3 violation is gone, as check 5 now
    // stops what check 4 would have.
    let ablation = model("ablations/no-dependency-stability.json");
    let plain = check(Path::new(PLAIN), &dir, &ablation, "plain", &[]);
    assert_eq!(plain.code, Some(1), "{}{}", plain.out, plain.err);
    let changed = check(&b, &dir, &ablation, "b", &[]);
    let diff = run_in(Path::new(PLAIN), &dir, &["diff", "plain", "b"]);
    assert_eq!(diff.code, Some(1), "{}{}", diff.out, diff.err);
    assert!(
        diff.out
            .contains("G3: violated [revoked_ancestor] at depth 7 → holds"),
        "{}\n{}",
        diff.out,
        changed.out
    );
}
