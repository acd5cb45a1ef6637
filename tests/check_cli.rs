//! End-to-end tests of `memtx-check check`: the real binary on shipped
//! models at small bounds, its files parsed with this file's own mirror
//! types, its counterexamples replayed by `memtx-check replay`, and bad
//! input.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Summary {
    model: String,
    description: String,
    bounds: Bounds,
    variant: serde_json::Value,
    states: u64,
    transitions: u64,
    complete: bool,
    deepest_level: usize,
    properties: Vec<PropertyOut>,
    companions_reached: usize,
    companions_total: usize,
    as_expected: bool,
    counterexamples: Vec<CounterexampleOut>,
    threads: usize,
    elapsed_ms: u64,
    collision_probability: Collision,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Bounds {
    records: usize,
    transactions: usize,
    depth: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PropertyOut {
    name: String,
    kind: String,
    verdict: String,
    depth: Option<usize>,
    expected: Option<String>,
    as_expected: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CounterexampleOut {
    property: String,
    depth: usize,
    trace: String,
    itf: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Collision {
    tlc_optimistic: f64,
    birthday: f64,
    fingerprint_bits: u32,
}

#[derive(Debug, Deserialize)]
struct ReplayOut {
    steps: Vec<serde_json::Value>,
    violations: Vec<ReplayViolation>,
}

#[derive(Debug, Deserialize)]
struct ReplayViolation {
    property: String,
    step: usize,
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_memtx-check"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memtx-check-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn check(args: &[&str], dir: &Path) -> Output {
    bin()
        .arg("check")
        .args(args)
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("traces"))
        .output()
        .expect("the binary runs")
}

#[test]
fn a_holding_model_exits_0_and_writes_growth_and_summary() {
    let dir = scratch("holds");
    let out = check(
        &["models/default.json", "--depth", "5", "--threads", "2"],
        &dir,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("out/growth.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("depth,new_states,total_states,transitions,total_transitions,elapsed_ms")
    );
    let rows: Vec<Vec<u64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 6, "one row per depth 0..=5");
    let mut total = 0;
    let mut total_tr = 0;
    for (d, row) in rows.iter().enumerate() {
        assert_eq!(row[0], d as u64);
        total += row[1];
        total_tr += row[3];
        assert_eq!(
            (row[2], row[4]),
            (total, total_tr),
            "running totals at depth {d}"
        );
    }
    assert_eq!(
        rows[0][1..5],
        [1, 1, 0, 0],
        "the empty store, no transition into it"
    );
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary.model, "default");
    assert_eq!(
        (
            summary.bounds.records,
            summary.bounds.transactions,
            summary.bounds.depth.as_str()
        ),
        (4, 3, "5")
    );
    assert_eq!((summary.states, summary.transitions), (total, total_tr));
    assert!(!summary.complete && summary.deepest_level == 5 && summary.threads == 2);
    assert!(summary.as_expected && summary.counterexamples.is_empty());
    assert_eq!(summary.properties.len(), 10);
    assert_eq!(summary.companions_total, 7);
    assert!(
        summary.companions_reached >= 5,
        "most companions are reached by depth 5"
    );
    let i1 = &summary.properties[0];
    assert_eq!(
        (
            i1.name.as_str(),
            i1.kind.as_str(),
            i1.verdict.as_str(),
            i1.expected.as_deref()
        ),
        ("I1", "invariant", "holds", Some("holds"))
    );
    assert!(i1.as_expected && i1.depth.is_none());
    assert!(
        summary.collision_probability.birthday > 0.0
            && summary.collision_probability.birthday < 1e-6
    );
    assert!(summary.collision_probability.tlc_optimistic >= 0.0);
    assert_eq!(summary.collision_probability.fingerprint_bits, 64);
    assert!(summary.variant.is_object() && !summary.description.is_empty());
    let _ = summary.elapsed_ms;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("I1") && stdout.contains("holds"),
        "{stdout}"
    );
}

#[test]
fn a_broken_variant_exits_1_with_a_replayable_shortest_counterexample() {
    let dir = scratch("violated");
    let out = check(
        &["models/ablations/no-typed-repair.json", "--depth", "6"],
        &dir,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary.counterexamples.len(), 1);
    let cx = &summary.counterexamples[0];
    assert_eq!((cx.property.as_str(), cx.depth), ("I2", 5));
    assert!(summary.as_expected, "no-typed-repair expects I2 violated");
    let trace = Path::new(&cx.trace);
    assert_eq!(trace.file_name().unwrap(), "no-typed-repair-I2.json");
    let itf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cx.itf).unwrap()).unwrap();
    assert_eq!(
        itf["states"].as_array().unwrap().len(),
        6,
        "ITF: the initial state and one per step"
    );
    // The printed counterexample walks the steps.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("I2 counterexample (5 steps)"), "{stdout}");
    // Replay re-finds the same violation after the same (last) step.
    let replay = bin()
        .args(["replay", "--json"])
        .arg(trace)
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(1));
    let r: ReplayOut = serde_json::from_slice(&replay.stdout).unwrap();
    assert_eq!(r.steps.len(), 5);
    let i2 = r
        .violations
        .iter()
        .find(|v| v.property == "I2")
        .expect("I2 re-found");
    assert_eq!(i2.step, 4);
    // --expect turns "caught as expected" into success.
    let out = check(
        &[
            "models/ablations/no-typed-repair.json",
            "--depth",
            "6",
            "--expect",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn expect_fails_when_a_verdict_contradicts_the_model() {
    let dir = scratch("expect");
    // At depth 4 the typed-repair ablation is not yet caught (it needs 5
    // steps), which contradicts its expect block.
    let out = check(
        &[
            "models/ablations/no-typed-repair.json",
            "--depth",
            "4",
            "--expect",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("UNEXPECTED"));
}

#[test]
fn full_depth_reaches_the_fixpoint_on_a_small_bound() {
    let dir = scratch("full");
    let out = check(
        &[
            "models/default.json",
            "--records",
            "2",
            "--transactions",
            "2",
            "--depth",
            "full",
        ],
        &dir,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert!(summary.complete, "a finite model explored to its fixpoint");
    assert_eq!(summary.bounds.depth, "full");
    let csv = std::fs::read_to_string(dir.join("out/growth.csv")).unwrap();
    let last = csv.lines().last().unwrap();
    assert_eq!(
        last.split(',').nth(1),
        Some("0"),
        "the last level adds no state"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = scratch("bad");
    let bad_model = dir.join("bad.json");
    std::fs::write(
        &bad_model,
        r#"{"bounds": {"records": 4, "depth": 10, "width": 3}}"#,
    )
    .unwrap();
    let missing = dir.join("missing.json");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![bad_model.display().to_string()], "width"),
        (vec![missing.display().to_string()], "missing.json"),
        (
            vec![
                "models/default.json".into(),
                "--records".into(),
                "65".into(),
            ],
            "--records",
        ),
        (
            vec!["models/default.json".into(), "--records".into(), "0".into()],
            "--records",
        ),
        (
            vec![
                "models/default.json".into(),
                "--transactions".into(),
                "0".into(),
            ],
            "--transactions",
        ),
        (
            vec![
                "models/default.json".into(),
                "--depth".into(),
                "deep".into(),
            ],
            "deep",
        ),
        (
            vec!["models/default.json".into(), "--threads".into(), "0".into()],
            "--threads",
        ),
        // One thread limit for every command, as `random` had.
        (
            vec![
                "models/default.json".into(),
                "--threads".into(),
                "1025".into(),
            ],
            "--threads: 1025 is outside 1..=1024",
        ),
        // Flags are read as text, so a bad value gets the one-line error
        // (clap's own ran to three to seven lines).
        (
            vec!["models/default.json".into(), "--records".into(), "x".into()],
            "--records: \"x\" is not a whole number",
        ),
        (
            vec![
                "models/default.json".into(),
                "--transactions".into(),
                "-1".into(),
            ],
            "--transactions: \"-1\" is not a whole number",
        ),
    ];
    for (args, named) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = check(&args, &dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?} names {named}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !dir.join("out/summary.json").exists(),
            "nothing written on bad input"
        );
    }
}
