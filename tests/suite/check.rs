//! End-to-end tests of `memtx-check check`: the real binary on shipped
//! models at small bounds, its files parsed with this file's own mirror
//! types, its counterexamples replayed by `memtx-check replay`, and bad
//! input.

use crate::support::{bin, fresh};

use serde::Deserialize;
use std::path::Path;
use std::process::Output;

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
    selected: String,
    properties: Vec<PropertyOut>,
    companions_reached: usize,
    companions_total: usize,
    coverage: CoverageOut,
    as_expected: bool,
    counterexamples: Vec<CounterexampleOut>,
    threads: usize,
    elapsed_ms: u64,
    collision_probability: Collision,
    build: BuildOut,
}

/// The build that wrote a summary: what `diff` reads to say whether the
/// protocol changed between two runs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BuildOut {
    version: String,
    commit: String,
    dirty: Option<bool>,
    features: String,
    protocol: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CoverageOut {
    reached: usize,
    branches: usize,
    unreached: Vec<String>,
    expected: Option<serde_json::Value>,
    missing: Option<Vec<String>>,
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
    clause: Option<String>,
    expected: Option<String>,
    expected_clause: Option<String>,
    /// Present when the model pins the counterexample's length.
    #[serde(default)]
    expected_depth: Option<usize>,
    as_expected: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CounterexampleOut {
    property: String,
    clause: String,
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

/// The paper's three only: the default model breaks our scope property.
#[test]
fn a_holding_model_exits_0_and_writes_growth_and_summary() {
    let dir = fresh("holds");
    let out = check(
        &[
            "models/default.json",
            "--depth",
            "5",
            "--threads",
            "2",
            "--properties",
            "I1,I2,G3",
        ],
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
    assert!(summary.counterexamples.is_empty());
    // The verdicts hold as expected, but at depth 5 some branches the
    // model's expect.coverage names are not reached yet.
    assert!(summary.properties.iter().all(|p| p.as_expected));
    let coverage = &summary.coverage;
    let missing = coverage
        .missing
        .as_ref()
        .expect("the model expects coverage");
    assert!(!missing.is_empty() && !summary.as_expected, "{coverage:?}");
    assert!(coverage.expected.as_ref().is_some_and(|e| e.is_array()));
    assert!(missing.iter().all(|m| coverage.unreached.contains(m)));
    assert_eq!(
        coverage.reached + coverage.unreached.len(),
        coverage.branches
    );
    // coverage.csv: one row per branch, reached ones with a first depth.
    let csv = std::fs::read_to_string(dir.join("out/coverage.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("branch,transitions,first_depth"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), coverage.branches);
    for row in &rows {
        let transitions: u64 = row[1].parse().unwrap();
        let unreached = coverage.unreached.iter().any(|u| u == row[0]);
        assert_eq!(transitions == 0, unreached, "{row:?}");
        assert_eq!(row[2].is_empty(), unreached, "{row:?}");
        if !unreached {
            assert!(
                (1..=5).contains(&row[2].parse::<usize>().unwrap()),
                "{row:?}"
            );
        }
    }
    assert_eq!(
        (rows[0][0], rows[0][2]),
        ("open.low", "1"),
        "T0 opens at low first"
    );
    // coverage-depths.csv: the same counts split by depth; each branch's
    // rows sum to its total and start at its first depth.
    let by_depth = std::fs::read_to_string(dir.join("out/coverage-depths.csv")).unwrap();
    let mut lines = by_depth.lines();
    assert_eq!(lines.next(), Some("depth,branch,transitions"));
    let mut sums: std::collections::BTreeMap<&str, (u64, usize)> = Default::default();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let (depth, n): (usize, u64) = (cells[0].parse().unwrap(), cells[2].parse().unwrap());
        assert!(depth <= 5 && n > 0, "{line}");
        let entry = sums.entry(cells[1]).or_insert((0, depth));
        entry.0 += n;
        entry.1 = entry.1.min(depth);
    }
    for row in rows.iter().filter(|r| r[1] != "0") {
        assert_eq!(
            sums.get(row[0])
                .map(|&(n, d)| (n.to_string(), d.to_string())),
            Some((row[1].to_owned(), row[2].to_owned())),
            "{row:?}"
        );
    }
    assert_eq!(sums.len(), coverage.reached);
    let build = &summary.build;
    assert_eq!(build.version, env!("CARGO_PKG_VERSION"));
    // A git checkout names its commit and whether the sources differed.
    let hex = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit());
    assert!(
        (hex(&build.commit, 40) && build.dirty.is_some())
            || (build.commit == "unknown" && build.dirty.is_none()),
        "{build:?}"
    );
    assert!(
        build
            .features
            .split(',')
            .all(|f| f.is_empty() || f.starts_with("tutorial-")),
        "{build:?}"
    );
    assert!(
        summary.build.protocol.len() == 32
            && summary
                .build
                .protocol
                .chars()
                .all(|c| c.is_ascii_hexdigit()),
        "{:?}",
        summary.build
    );
    assert_eq!(summary.selected, "I1,I2,G3");
    assert_eq!(
        summary.properties.len(),
        8,
        "three invariants, their five companions"
    );
    assert_eq!(summary.companions_total, 5);
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
    assert!(i1.clause.is_none() && i1.expected_clause.is_none());
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
    let line = format!(
        "coverage: {} of {} branches",
        coverage.reached, coverage.branches
    );
    assert!(stdout.contains(&line), "{stdout}");
    assert!(stdout.contains("  unreached: "), "{stdout}");
}

#[test]
fn a_directory_is_a_suite_with_one_line_a_model_and_the_union_coverage() {
    let dir = fresh("suite");
    let out = check(&["models/coverage", "--expect", "--threads", "2"], &dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    // One line per model, in path order, then the union.
    let models = [
        "boundaries",
        "evidence-validity",
        "laundering",
        "rebuild",
        "revalidate",
        "rival-order",
        "views-windows",
    ];
    for (line, name) in lines.iter().zip(models) {
        assert!(
            line.starts_with(&format!("models/coverage/{name}.json: ")),
            "{line}"
        );
        assert!(line.ends_with("; as expected"), "{line}");
    }
    assert!(lines[models.len()].starts_with("coverage: "), "{stdout}");
    assert!(
        lines[models.len()].ends_with(" branches (union)"),
        "{stdout}"
    );
    // Each model wrote its own reports, coverage.csv included, with the
    // same rows in the same order.
    let rows = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join("out").join(name).join("coverage.csv"))
            .unwrap()
            .lines()
            .map(|l| l.split(',').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(rows(models[0]), rows(models[1]));
    assert_eq!(rows(models[1]), rows(models[2]));
    // The union is at least each model's own coverage.
    let reached = |name: &str| -> usize {
        let s: Summary = serde_json::from_str(
            &std::fs::read_to_string(dir.join("out").join(name).join("summary.json")).unwrap(),
        )
        .unwrap();
        s.coverage.reached
    };
    let union: usize = lines[models.len()]
        .trim_start_matches("coverage: ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(models.iter().all(|m| reached(m) <= union));
    assert!(models.iter().map(|m| reached(m)).sum::<usize>() >= union);
}

#[test]
fn an_unreached_expected_branch_fails_expect() {
    let dir = fresh("coverage-expect");
    let model = dir.join("m.json");
    std::fs::write(
        &model,
        r#"{"bounds": {"records": 2, "transactions": 1, "depth": 3},
            "templates": [{"name": "b", "kind": "belief", "entity": "e", "attribute": "a", "value": "v", "confidence": 0.9, "scope": "shared"}],
            "expect": {"I1": "holds", "coverage": ["commit.committed", "open.high", "record.quarantined.low_evidence"]}}"#,
    )
    .unwrap();
    let path = model.display().to_string();
    let out = check(&[&path, "--expect"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("UNEXPECTED: expect.coverage names branches not reached: record.quarantined.low_evidence"),
        "{stdout}"
    );
    // Without --expect the verdicts decide.
    assert_eq!(check(&[&path], &dir).status.code(), Some(0));
}

#[test]
fn a_broken_variant_exits_1_with_a_replayable_shortest_counterexample() {
    let dir = fresh("violated");
    let out = check(
        &[
            "models/ablations/no-typed-repair.json",
            "--depth",
            "6",
            "--properties",
            "I2",
        ],
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
    assert!(
        ["view", "log"].contains(&cx.clause.as_str()),
        "{}",
        cx.clause
    );
    assert_eq!(
        summary.properties[0].clause.as_deref(),
        Some(cx.clause.as_str())
    );
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
fn expect_names_the_clause_a_violation_must_break() {
    let dir = fresh("clause");
    let text = std::fs::read_to_string("models/ablations/no-gate.json").unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(model["expect"]["I1"]["violated"], "unsupported");
    let mut run = |expect: serde_json::Value| {
        model["expect"]["I1"] = expect;
        let path = dir.join("no-gate.json");
        std::fs::write(&path, model.to_string()).unwrap();
        let args = [
            path.to_str().unwrap(),
            "--depth",
            "5",
            "--expect",
            "--properties",
            "I1",
        ];
        check(&args, &dir)
    };
    let out = run(serde_json::json!({"violated": "unsupported"}));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    let i1 = &summary.properties[0];
    assert_eq!(
        (
            i1.clause.as_deref(),
            i1.expected.as_deref(),
            i1.expected_clause.as_deref()
        ),
        (Some("unsupported"), Some("violated"), Some("unsupported"))
    );
    // The same violation, another clause expected: --expect fails.
    let out = run(serde_json::json!({"violated": "in_flight"}));
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("VIOLATED [unsupported]")
            && stdout.contains("UNEXPECTED: expected violated [in_flight]"),
        "{stdout}"
    );
    // The right clause at its depth passes and says so; another depth
    // fails, and so does a depth out of range or a field of no meaning.
    let out = run(serde_json::json!({"violated": "unsupported", "depth": 4}));
    assert_eq!(out.status.code(), Some(0));
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary.properties[0].expected_depth, Some(4));
    let out = run(serde_json::json!({"violated": "unsupported", "depth": 3}));
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("UNEXPECTED: expected violated [unsupported] at depth 3"),
        "{stdout}"
    );
    let out = run(serde_json::json!({"violated": true, "depth": 4}));
    assert_eq!(out.status.code(), Some(0));
    for (bad, named) in [
        (
            serde_json::json!({"violated": "unsupported", "depth": 0}),
            "expect.I1.depth",
        ),
        (
            serde_json::json!({"violated": "unsupported", "at": 4}),
            "expect.I1.at",
        ),
    ] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(named) && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
    // A clause I1 does not have is bad input.
    let out = run(serde_json::json!({"violated": "view"}));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expect.I1.violated") && stderr.contains("\"view\" is not a clause of I1"),
        "{stderr}"
    );
}

#[test]
fn properties_narrow_a_run_and_an_unknown_name_is_exit_2() {
    let dir = fresh("properties");
    let out = check(
        &[
            "models/default.json",
            "--depth",
            "6",
            "--properties",
            "scope,G3",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1), "the default breaks scope");
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary.selected, "G3,scope");
    let names: Vec<&str> = summary.properties.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["G3", "scope", "laundering quarantined"]);
    assert_eq!(summary.properties[1].clause.as_deref(), Some("laundered"));
    let out = check(&["models/default.json", "--properties", "I1,I9"], &dir);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--properties") && stderr.contains("\"I9\" is not a property"),
        "{stderr}"
    );
}

#[test]
fn expect_fails_when_a_verdict_contradicts_the_model() {
    let dir = fresh("expect");
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

/// TLC's rule (issue 29 item 5): an invariant the `expect` block does not
/// name is expected to hold, so a violation of it fails `--expect`;
/// `"any"` says its verdict is not pinned. no-gate breaks I1 in 4 steps.
#[test]
fn an_invariant_expect_does_not_name_must_hold_unless_it_says_any() {
    let dir = fresh("unnamed");
    let text = std::fs::read_to_string("models/ablations/no-gate.json").unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut run = |expect: serde_json::Value| {
        model["expect"] = expect;
        let path = dir.join("no-gate.json");
        std::fs::write(&path, model.to_string()).unwrap();
        let args = [
            path.to_str().unwrap(),
            "--depth",
            "5",
            "--expect",
            "--properties",
            "I1,G3",
        ];
        check(&args, &dir)
    };
    let out = run(serde_json::json!({"G3": "holds"}));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("UNEXPECTED: expected holds, as every property expect does not name"),
        "{stdout}"
    );
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary.properties[0].expected.as_deref(), Some("holds"));
    let out = run(serde_json::json!({}));
    assert_eq!(
        out.status.code(),
        Some(1),
        "an empty block expects all to hold"
    );
    let out = run(serde_json::json!({"I1": "any"}));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("(expected: any)"), "{stdout}");
    let out = run(serde_json::json!({"I1": "sometimes"}));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expect.I1") && stderr.contains("\"any\"") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn full_depth_reaches_the_fixpoint_on_a_small_bound() {
    let dir = fresh("full");
    let out = check(
        &[
            "models/default.json",
            "--records",
            "2",
            "--transactions",
            "2",
            "--depth",
            "full",
            "--properties",
            "I1,I2,G3",
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
    let dir = fresh("bad");
    let bad_model = dir.join("bad.json");
    std::fs::write(
        &bad_model,
        r#"{"bounds": {"records": 4, "depth": 10, "width": 3}}"#,
    )
    .unwrap();
    let missing = dir.join("missing.json");
    let bad_branch = dir.join("bad-branch.json");
    std::fs::write(
        &bad_branch,
        r#"{"expect": {"coverage": ["commit.committed", "gate.maybe"]}}"#,
    )
    .unwrap();
    let bad_expect = dir.join("bad-expect.json");
    std::fs::write(&bad_expect, r#"{"expect": {"coverage": "most"}}"#).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![bad_model.display().to_string()], "width"),
        (
            vec![bad_branch.display().to_string()],
            "expect.coverage[1]: \"gate.maybe\" is not a branch",
        ),
        (
            vec![bad_expect.display().to_string()],
            "expect.coverage: \"most\" is neither \"all\"",
        ),
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
