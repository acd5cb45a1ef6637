//! End-to-end tests of `check --dump DIR` and `diff DIR_A DIR_B`: the
//! dump's rows, read with this file's own types, agree with growth.csv
//! and with each other; the state fingerprint is the documented encoding;
//! two dumps compare state by state with a replayable trace.

mod scratch_dir;

use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    scratch_dir::fresh(&format!("memtx-check-dump-{name}"))
}

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memtx-check"))
        .args(args)
        .output()
        .unwrap()
}

#[derive(Debug, Deserialize)]
struct StateRow {
    state: String,
    depth: usize,
    parent: String,
    action: String,
    records: String,
    transactions: String,
    violations: String,
}

#[derive(Debug, Deserialize)]
struct TransitionRow {
    from: String,
    action: String,
    to: String,
    outcome: String,
}

#[derive(Debug, Deserialize)]
struct GrowthRow {
    depth: usize,
    total_states: u64,
    total_transitions: u64,
}

fn rows<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    csv::Reader::from_path(path)
        .unwrap()
        .deserialize()
        .map(|r| r.unwrap())
        .collect()
}

/// Checks `model` to `depth` with a dump into `dir/NAME`.
fn dump(dir: &Path, model: &str, depth: &str, name: &str) -> Output {
    let d = |p: &str| dir.join(p).display().to_string();
    bin(&[
        "check",
        model,
        "--depth",
        depth,
        "--dump",
        &d(name),
        "--out",
        &d(&format!("{name}-reports")),
        "--traces",
        &d("traces"),
    ])
}

/// FNV-1a, 128 bits, as the README documents it.
fn fnv1a128(bytes: &[u8]) -> u128 {
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for &b in bytes {
        h ^= u128::from(b);
        h = h.wrapping_mul((1u128 << 88) + 0x13b);
    }
    h
}

#[test]
fn a_dump_has_a_row_per_state_and_transition_of_growth_csv() {
    let dir = scratch("rows");
    let run = dump(&dir, "models/ablations/no-gate.json", "5", "a");
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        out.contains("dumped "),
        "the run prints the files' sizes: {out}"
    );
    assert!(out.contains("6262 states, "), "{out}");
    let growth: Vec<GrowthRow> = rows(&dir.join("a-reports/growth.csv"));
    let last = growth.last().unwrap();
    let states: Vec<StateRow> = rows(&dir.join("a/states.csv"));
    let transitions: Vec<TransitionRow> = rows(&dir.join("a/transitions.csv"));
    assert_eq!(states.len() as u64, last.total_states);
    assert_eq!(transitions.len() as u64, last.total_transitions);
    // Per depth, as growth.csv counts them.
    for g in &growth {
        let upto = states.iter().filter(|s| s.depth <= g.depth).count() as u64;
        assert_eq!(upto, g.total_states, "depth {}", g.depth);
    }
    let by_fp: HashMap<&str, &StateRow> = states.iter().map(|s| (s.state.as_str(), s)).collect();
    assert_eq!(by_fp.len(), states.len(), "each state once");
    let roots: Vec<_> = states.iter().filter(|s| s.depth == 0).collect();
    assert_eq!(roots.len(), 1);
    // The empty store: its canonical text is the monitor bit alone.
    assert_eq!(
        roots[0].state,
        format!(
            "{:032x}",
            fnv1a128(b"monitor breached={} retracted={} covered={} unquarantinable={}\n")
        )
    );
    assert_eq!(
        (roots[0].records.as_str(), roots[0].parent.as_str()),
        ("", "")
    );
    for s in states.iter().filter(|s| s.depth > 0) {
        let parent = by_fp[s.parent.as_str()];
        assert_eq!(parent.depth + 1, s.depth, "{s:?}");
        assert!(
            transitions
                .iter()
                .any(|t| t.from == s.parent && t.to == s.state && t.action == s.action),
            "the parent link is a transition: {s:?}"
        );
    }
    for t in &transitions {
        assert!(by_fp.contains_key(t.from.as_str()) && by_fp.contains_key(t.to.as_str()));
        assert!(!t.outcome.is_empty(), "{t:?}");
    }
    // I1 is violated at depth 4, shallowest, as the check says.
    let violating: Vec<_> = states
        .iter()
        .filter(|s| s.violations.contains("I1"))
        .collect();
    assert_eq!(violating.iter().map(|s| s.depth).min(), Some(4));
    assert!(states
        .iter()
        .any(|s| s.transactions == "T0 external_action committed"));
    assert!(states
        .iter()
        .any(|s| s.records.starts_with("r0 belief committed; r1 ")));
    // Another run writes the very same files.
    assert_eq!(
        dump(&dir, "models/ablations/no-gate.json", "5", "b")
            .status
            .code(),
        Some(1)
    );
    for f in ["states.csv", "transitions.csv"] {
        assert_eq!(
            std::fs::read(dir.join("a").join(f)).unwrap(),
            std::fs::read(dir.join("b").join(f)).unwrap(),
            "{f}"
        );
    }
}

#[derive(Debug, Deserialize)]
struct DepthDiff {
    depth: usize,
    only_in_a: u64,
    only_in_b: u64,
}

#[derive(Debug, Deserialize)]
struct TraceFile {
    steps: Vec<serde_json::Value>,
}

#[test]
fn two_dumps_differ_state_by_state_with_the_shallowest_trace() {
    let dir = scratch("diff");
    // Exit 1 on both: at 5 steps each breaks our scope property (README),
    // which is no concern of the dump.
    assert_eq!(
        dump(&dir, "models/default.json", "5", "before")
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        dump(&dir, "models/ablations/no-conflict.json", "5", "after")
            .status
            .code(),
        Some(1)
    );
    let d = |p: &str| dir.join(p).display().to_string();
    let run = bin(&[
        "diff",
        &d("before"),
        &d("after"),
        "--out",
        &d("out"),
        "--traces",
        &d("t"),
    ]);
    let out = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let per_depth: Vec<DepthDiff> = rows(&dir.join("out/states-diff.csv"));
    let first = &per_depth[0];
    assert!(first.only_in_a + first.only_in_b > 0);
    assert!(per_depth.windows(2).all(|w| w[0].depth < w[1].depth));
    let trace_path = dir.join("t/default-vs-no-conflict-state.json");
    let trace: TraceFile =
        serde_json::from_str(&std::fs::read_to_string(&trace_path).unwrap()).unwrap();
    assert_eq!(
        trace.steps.len(),
        first.depth,
        "the trace reaches the state's depth"
    );
    assert!(out.contains(&format!("at depth {}", first.depth)), "{out}");
    let replay = bin(&["replay", &trace_path.display().to_string()]);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );
    // A dump against itself: no state differs.
    let same = bin(&[
        "diff",
        &d("before"),
        &d("before"),
        "--out",
        &d("out"),
        "--traces",
        &d("t"),
    ]);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("the same states at every depth"));
}
