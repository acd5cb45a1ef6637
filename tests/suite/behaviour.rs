//! End-to-end tests of `memtx-check diff A.json B.json --behaviour`: the
//! real binary on the default model against every ablation and variant
//! that shares its action alphabet, and on the three paper-vs-code
//! variants; the parting trace and `behaviour.json` parsed with this
//! file's own types, and the trace replayed under each model with
//! `replay --json`, which must agree up to the last step and part there.

use crate::support::{bin, fresh, Run};

use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceFile {
    config: serde_json::Value,
    steps: Vec<serde_json::Value>,
    violation: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BehaviourOut {
    a: String,
    b: String,
    depth: String,
    pairs: u64,
    complete: bool,
    #[serde(rename = "elapsed_ms")]
    _elapsed_ms: u64,
    parted: Option<PartedOut>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PartedOut {
    step: usize,
    actions: Vec<String>,
    a: String,
    b: String,
    differs_in: String,
    trace: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ReplayOut {
    steps: Vec<ReplayStep>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct ReplayStep {
    step: usize,
    op: serde_json::Value,
    outcome: Option<serde_json::Value>,
    error: Option<String>,
}

/// The ablations' and variants' common base: their own templates and
/// tool under the authors' code, named `default` (the previous default
/// model, before it gained templates the ablations do not have;
/// docs/diff.md, "Behaviour: where two models part").
/// The base model's path, written once per test process: the tests of
/// this area run in parallel, and rewriting one shared file while
/// another test's process reads it made the reader see it half-written.
fn base() -> String {
    static BASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let dir = fresh("base");
        let mut model: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string("models/ablations/no-gate.json").unwrap(),
        )
        .unwrap();
        model["name"] = "default".into();
        model["variant"] = serde_json::json!({});
        model["expect"] = serde_json::json!({});
        let path = dir.join("default.json");
        std::fs::write(&path, model.to_string()).unwrap();
        path.display().to_string()
    })
    .clone()
}

fn behaviour(a: &str, b: &str, dir: &Path, extra: &[&str]) -> Run {
    let out = bin()
        .args(["diff", a, b, "--behaviour", "--threads", "2"])
        .args(extra)
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("traces"))
        .output()
        .expect("the binary runs");
    out.into()
}

fn replay(trace: &Path, model: Option<&str>) -> ReplayOut {
    let mut cmd = bin();
    cmd.arg("replay").arg(trace).arg("--json");
    if let Some(m) = model {
        cmd.args(["--model", m]);
    }
    let out = cmd.output().expect("the binary runs");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("replay --json is JSON")
}

/// Runs the diff, which must part, and checks the trace and the report
/// against each other and against both replays; returns the report.
fn parts(a: &str, b: &str, name: &str) -> PartedOut {
    let dir = fresh(name);
    let run = behaviour(a, b, &dir, &["--depth", "8"]);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    let text = std::fs::read_to_string(dir.join("out/behaviour.json")).unwrap();
    let report: BehaviourOut = serde_json::from_str(&text).unwrap();
    assert_eq!(report.depth, "8");
    assert!(report.pairs > 0 && !report.complete);
    let parted = report.parted.expect("parted");
    let trace_path = PathBuf::from(parted.trace.clone().expect("a trace"));
    assert_eq!(
        trace_path.file_name().unwrap().to_string_lossy(),
        format!("{}-vs-{}.json", report.a, report.b)
    );
    let trace: TraceFile =
        serde_json::from_str(&std::fs::read_to_string(&trace_path).unwrap()).unwrap();
    assert_eq!(trace.config["name"], report.a.as_str());
    assert!(trace.violation.is_none());
    assert_eq!(trace.steps.len(), parted.step + 1);
    assert_eq!(parted.actions.len(), parted.step + 1);
    let under_a = replay(&trace_path, None);
    let under_b = replay(&trace_path, Some(b));
    let last = parted.step;
    for (x, y) in under_a.steps.iter().zip(&under_b.steps) {
        assert_eq!(x.op, y.op, "one trace, the same operations");
        assert_eq!(
            x == y,
            x.step != last,
            "the replays part at step {last} only"
        );
    }
    assert!(
        run.out.contains(&format!("step {last:<2}"))
            && run.out.contains("← the outcomes part here"),
        "{}",
        run.out
    );
    assert!(run
        .out
        .contains(&format!("differs in: {}", parted.differs_in)));
    parted
}

#[test]
fn every_ablation_and_variant_sharing_the_alphabet_parts_from_the_default() {
    // (model, actions in the shortest parting, what differs there)
    let expected = [
        ("ablations/no-gate", 4, "gate decision"),
        ("ablations/no-cascade", 5, "repairs"),
        ("ablations/no-typed-repair", 5, "repairs"),
        (
            "ablations/no-dependency-stability",
            7,
            "commit verdict of r2",
        ),
        // Without check 3 a commit makes no verifier call: its answer
        // differs already at the first commit.
        ("ablations/no-conflict", 3, "verifier calls"),
        (
            "ablations/no-permission-inheritance",
            4,
            "commit verdict of r1",
        ),
        (
            "variants/tool-basis-snapshot",
            3,
            "error (refused under A only)",
        ),
        ("variants/laundering-any-parent", 5, "commit verdict of r1"),
        ("variants/stale-check-apply", 4, "commit verdict of r1"),
    ];
    for (model, length, what) in expected {
        let b = format!("models/{model}.json");
        let p = parts(&base(), &b, &model.replace('/', "-"));
        assert_eq!(
            (p.step + 1, p.differs_in.as_str()),
            (length, what),
            "{model}: {p:?}"
        );
    }
}

#[test]
fn the_paper_readings_part_where_the_card_says_they_differ() {
    // Laundering on any parent: a summary, in an external-action
    // transaction, of another transaction's private note is refused as
    // laundering, where the code lets it through as action-safe.
    let p = parts(
        &base(),
        "models/variants/laundering-any-parent.json",
        "laundering",
    );
    assert_eq!(p.a, "committed — r1 action_safe [1 verifier call]");
    assert!(
        p.b.ends_with("r1 quarantined (permission_laundering) [1 verifier call]"),
        "{p:?}"
    );
    // The stale check on an empty snapshot: a rival committed earlier in
    // the same transaction makes the second write stale, where the code
    // lets the correction supersede it.
    let p = parts(&base(), "models/variants/stale-check-apply.json", "stale");
    assert!(p.a.contains("r1 committed, superseding {r0}"), "{p:?}");
    assert!(p.b.contains("r1 quarantined (stale_write)"), "{p:?}");
    // Same-source review needs its own template, so it is compared with
    // its own model under the code's reading (the variant reset).
    let dir = fresh("twin");
    let mut twin: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("models/variants/same-source-review.json").unwrap(),
    )
    .unwrap();
    twin["name"] = "same-source-code".into();
    twin["variant"] = serde_json::json!({});
    let twin_path = dir.join("same-source-code.json");
    std::fs::write(&twin_path, twin.to_string()).unwrap();
    let p = parts(
        twin_path.to_str().unwrap(),
        "models/variants/same-source-review.json",
        "same-source",
    );
    assert_eq!(p.step + 1, 4);
    assert!(p.a.contains("r1 committed, superseding {r0}"), "{p:?}");
    assert!(p.b.contains("r1 quarantined (needs_review)"), "{p:?}");
}

#[test]
fn different_alphabets_are_refused_with_one_line() {
    let dir = fresh("alphabets");
    for (model, what) in [
        ("ablations/no-evidence", "\"rumour\" only in B"),
        ("ablations/no-validity", "\"expired_lookup\" only in B"),
        (
            "variants/same-source-review",
            "\"lookup_recheck\" only in B",
        ),
        ("two-agents", "agents: 1 ≠ 2"),
    ] {
        let b = format!("models/{model}.json");
        let run = behaviour(&base(), &b, &dir, &[]);
        assert_eq!(run.code, Some(2), "{model}: {}{}", run.out, run.err);
        assert_eq!(run.err.lines().count(), 1, "{}", run.err);
        assert!(run.err.contains("action alphabets differ"), "{}", run.err);
        assert!(run.err.contains(what), "{model}: {}", run.err);
        assert!(!dir.join("out/behaviour.json").exists());
    }
}

#[test]
fn no_difference_exits_0_and_retires_an_old_parting_trace() {
    let dir = fresh("same");
    let run = behaviour(
        &base(),
        "models/ablations/no-gate.json",
        &dir,
        &["--depth", "4"],
    );
    assert_eq!(run.code, Some(1), "{}", run.err);
    let trace = dir.join("traces/default-vs-no-gate.json");
    assert!(trace.exists());
    let run = behaviour(
        &base(),
        "models/ablations/no-gate.json",
        &dir,
        &["--depth", "3"],
    );
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    assert!(
        run.out.contains("no behavioural difference up to depth 3"),
        "{}",
        run.out
    );
    assert!(!trace.exists(), "the earlier run's parting trace is gone");
    let report: BehaviourOut =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/behaviour.json")).unwrap())
            .unwrap();
    assert!(report.parted.is_none());
}

/// `behaviour.json` of a diff across builds (docs/regression.md), the
/// fields these tests read.
#[derive(Debug, Deserialize)]
struct BuildsOut {
    kind: String,
    states: u64,
    transitions_checked: u64,
    complete: bool,
    memory_bound: Option<BuildsMemoryBound>,
    parted: Option<BuildsParted>,
}

#[derive(Debug, Deserialize)]
struct BuildsMemoryBound {
    depth: usize,
    needed_bytes: u64,
    limit_bytes: u64,
}

#[derive(Debug, Deserialize)]
struct BuildsParted {
    step: usize,
    actions: Vec<String>,
    before: Vec<serde_json::Value>,
    now: Vec<serde_json::Value>,
    differences: Vec<serde_json::Value>,
}

/// An executable `dir/NAME` that serves `memtx-check driver` of this
/// build with one change: the last record's confidence, after a commit
/// that leaves two records or more, reads 0.123.
fn altered_build(dir: &Path) -> PathBuf {
    let proxy = crate::support::proxy_driver(
        dir,
        "    step = json.loads(line).get(\"step\") or {}
    if step.get(\"op\") == \"commit\" and len(answer.get(\"records\", [])) >= 2:
        answer[\"records\"][-1][\"confidence\"] = 0.123
",
    );
    let exe = dir.join("altered");
    std::fs::write(
        &exe,
        format!(
            "#!/bin/sh\nexec python3 '{}' '{}'\n",
            proxy.display(),
            crate::support::BIN
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    exe
}

/// `diff --behaviour MODEL --before-exe EXE` into `dir`.
fn across_builds(exe: &Path, dir: &Path, extra: &[&str]) -> (Run, BuildsOut) {
    let run: Run = bin()
        .args(["diff", "--behaviour", "models/default.json", "--before-exe"])
        .arg(exe)
        .args(extra)
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("traces"))
        .output()
        .expect("the binary runs")
        .into();
    let report: BuildsOut = serde_json::from_str(
        &std::fs::read_to_string(dir.join("out/behaviour.json"))
            .unwrap_or_else(|e| panic!("behaviour.json: {e}: {}{}", run.out, run.err)),
    )
    .unwrap();
    assert_eq!(report.kind, "builds");
    (run, report)
}

#[test]
fn the_same_build_across_builds_agrees_and_is_warned_about() {
    let dir = fresh("builds-same");
    let (run, report) = across_builds(Path::new(crate::support::BIN), &dir, &["--depth", "4"]);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    assert!(
        run.out.contains(
            "no behavioural difference up to depth 4 (873 states; 1326 transitions checked"
        ),
        "{}",
        run.out
    );
    assert!(
        run.err.contains("both sides are the same build"),
        "{}",
        run.err
    );
    assert_eq!((report.states, report.transitions_checked), (873, 1326));
    assert!(!report.complete && report.parted.is_none() && report.memory_bound.is_none());
}

/// Issue 38: the walk across builds held no memory bound and aborted
/// (exit 134) under an address-space limit; it now stops at the guard's
/// bound, says how far the builds agree, and is inconclusive (exit 3).
#[test]
fn a_walk_across_builds_past_the_memory_bound_is_inconclusive() {
    let dir = fresh("builds-memory");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 600000 && exec '{bin}' diff --behaviour models/default.json --before-exe '{bin}' --depth 9 --out '{out}' --traces '{traces}'",
            bin = crate::support::BIN,
            out = dir.join("out").display(),
            traces = dir.join("traces").display()
        ))
        .output()
        .expect("run sh");
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{text}{err}");
    assert!(
        text.contains("inconclusive: the walk would need")
            && text.contains("more than the bound of")
            && text.contains("no behavioural difference up to depth"),
        "{text}"
    );
    let report: BuildsOut =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/behaviour.json")).unwrap())
            .unwrap();
    let bound = report.memory_bound.expect("the guard's stop is reported");
    assert!(bound.needed_bytes > bound.limit_bytes, "{bound:?}");
    assert!(bound.depth < 9 && !report.complete && report.parted.is_none());
}

#[test]
fn another_build_parts_at_its_first_differing_transition_for_any_jobs() {
    let dir = fresh("builds-altered");
    let exe = altered_build(&dir);
    let mut shown = Vec::new();
    for jobs in ["1", "2"] {
        let (run, report) = across_builds(&exe, &dir, &["--depth", "5", "--jobs", jobs]);
        assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
        assert!(
            run.out.contains("the builds part after 4 steps"),
            "{}",
            run.out
        );
        assert!(
            run.out
                .contains("step 3  T0 commits              ← the builds part here"),
            "{}",
            run.out
        );
        assert!(
            run.out
                .contains("records[1].confidence: before 0.123, now 0.8"),
            "{}",
            run.out
        );
        let parted = report.parted.expect("parted");
        assert_eq!(parted.step, 3);
        assert_eq!(parted.before[..3], parted.now[..3]);
        assert_ne!(parted.before[3], parted.now[3]);
        assert_eq!(parted.differences.len(), 1, "{:?}", parted.differences);
        shown.push(parted.actions);
    }
    assert_eq!(shown[0], shown[1], "the parting does not depend on --jobs");
}
