//! End-to-end tests of `check --dump DIR` and `diff DIR_A DIR_B`: the
//! dump's rows, read with this file's own types, agree with growth.csv
//! and with each other; the state fingerprint is the documented encoding;
//! two dumps compare as graphs (per depth, pairs by parent and action)
//! with traces built from the dumps' own steps, never replayed; dumps
//! without a manifest or with a truncated file are refused, and a dump
//! killed over another leaves that one's files unmixed.

use crate::support::{bin, fresh, memtx};

use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use std::process::Output;

#[derive(Debug, Deserialize)]
struct StateRow {
    state: String,
    depth: usize,
    parent: String,
    action: String,
    records: String,
    transactions: String,
    violations: String,
    step: String,
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
    memtx(&[
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

/// FNV-1a, 128 bits, as docs/dumps.md ("The state fingerprint") documents it.
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
    let dir = fresh("rows");
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
    assert!(out.contains("6,262 states, "), "{out}");
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
    // docs/dumps.md states that fingerprint.
    let page = std::fs::read_to_string(crate::support::root().join("docs/dumps.md")).unwrap();
    assert!(
        page.contains(&format!("`{}`", roots[0].state)),
        "docs/dumps.md does not give the empty store's fingerprint {}",
        roots[0].state
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
    config: serde_json::Value,
    steps: Vec<serde_json::Value>,
}

/// The two dumps of the diff tests, made once per test in `dir`:
/// `before` of models/default.json, `after` of the no-conflict ablation.
fn two_dumps(dir: &Path) {
    // Exit 0 or 1: a violation at depth 4 is no concern of the dump.
    for (model, name) in [
        ("models/default.json", "before"),
        ("models/ablations/no-conflict.json", "after"),
    ] {
        let run = dump(dir, model, "4", name);
        assert!(
            matches!(run.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

fn diff(dir: &Path, a: &str, b: &str) -> Output {
    let d = |p: &str| dir.join(p).display().to_string();
    memtx(&[
        "diff",
        &d(a),
        &d(b),
        "--out",
        &d("out"),
        "--traces",
        &d("t"),
    ])
}

/// The stdout of `diff before after`, which must exit 1 (some state
/// differs).
fn differing(dir: &Path) -> String {
    let run = diff(dir, "before", "after");
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{out}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    out
}

/// The per-depth table of the diff's output: `depth  only in A  only in B`
/// then one line of three numbers per depth.
fn table(out: &str) -> Vec<(usize, u64, u64)> {
    out.lines()
        .skip_while(|l| !l.starts_with("depth  only in A  only in B"))
        .skip(1)
        .map_while(|l| {
            let n: Vec<u64> = l
                .split_whitespace()
                .map(|w| w.parse().ok())
                .collect::<Option<_>>()?;
            (n.len() == 3).then(|| (n[0] as usize, n[1], n[2]))
        })
        .collect()
}

/// `P of N one-sided states pair up by (parent, action): K actions …`.
fn pair_counts(out: &str) -> (u64, u64, u64) {
    let line = out
        .lines()
        .find(|l| l.contains(" one-sided states pair up by (parent, action): "))
        .unwrap_or_else(|| panic!("no pair count: {out}"));
    let num = |w: &str| w.replace(',', "").parse::<u64>().unwrap();
    let w: Vec<&str> = line.split_whitespace().collect();
    (num(w[0]), num(w[2]), num(w[10]))
}

#[derive(Debug, Deserialize)]
struct Manifest {
    format: String,
    build: serde_json::Value,
    states: u64,
    transitions: u64,
    states_bytes: u64,
    transitions_bytes: u64,
    whole: bool,
}

#[test]
fn a_dump_ends_with_its_manifest_and_carries_its_steps() {
    let dir = fresh("manifest");
    two_dumps(&dir);
    let m: Manifest =
        serde_json::from_str(&std::fs::read_to_string(dir.join("before/dump.json")).unwrap())
            .unwrap();
    assert_eq!(m.format, "memtx-check dump 2");
    assert_eq!(m.build["protocol"].as_str().map(str::len), Some(32));
    assert!(m.whole);
    let states: Vec<StateRow> = rows(&dir.join("before/states.csv"));
    let transitions: Vec<TransitionRow> = rows(&dir.join("before/transitions.csv"));
    assert_eq!(
        (m.states, m.transitions),
        (states.len() as u64, transitions.len() as u64)
    );
    let size = |f: &str| std::fs::metadata(dir.join("before").join(f)).unwrap().len();
    assert_eq!(
        (m.states_bytes, m.transitions_bytes),
        (size("states.csv"), size("transitions.csv"))
    );
    for s in &states {
        if s.depth == 0 {
            assert_eq!(s.step, "");
            continue;
        }
        let step: serde_json::Value = serde_json::from_str(&s.step).unwrap();
        assert!(step["op"].is_string(), "{s:?}");
    }
}

#[test]
fn two_dumps_differ_as_graphs_with_pairs_and_traces_of_their_own_steps() {
    let dir = fresh("diff");
    two_dumps(&dir);
    let out = differing(&dir);
    // The table on stdout is the CSV's.
    let per_depth: Vec<DepthDiff> = rows(&dir.join("out/states-diff.csv"));
    let printed = table(&out);
    assert_eq!(
        printed,
        per_depth
            .iter()
            .map(|r| (r.depth, r.only_in_a, r.only_in_b))
            .collect::<Vec<_>>(),
        "{out}"
    );
    let first = &per_depth[0];
    assert!(first.only_in_a > 0 && first.only_in_b > 0, "{out}");
    assert!(per_depth.windows(2).all(|w| w[0].depth < w[1].depth));
    // Pairs: counted against the table, the shallowest shown.
    let (paired, one_sided, actions) = pair_counts(&out);
    let total: u64 = per_depth.iter().map(|r| r.only_in_a + r.only_in_b).sum();
    assert_eq!(one_sided, total, "{out}");
    assert!(paired > 0 && paired <= one_sided && actions > 0, "{out}");
    assert!(
        out.contains(&format!("pair 1 at depth {}: from ", first.depth)),
        "{out}"
    );
    assert!(out.contains("  used to lead to ") && out.contains("  now leads to "));
    // Each side's trace, from its own steps, replays under its build.
    for (side, model) in [("A", "default"), ("B", "no-conflict")] {
        let trace_path = dir.join(format!("t/default-vs-no-conflict-only-in-{side}.json"));
        assert!(out.contains(&format!(
            "wrote its trace from {side}'s own steps (model {model}): {}",
            trace_path.display()
        )));
        let trace: TraceFile =
            serde_json::from_str(&std::fs::read_to_string(&trace_path).unwrap()).unwrap();
        assert_eq!(trace.config["name"], model);
        assert_eq!(
            trace.steps.len(),
            first.depth,
            "the trace reaches the depth"
        );
        let replay = memtx(&["replay", &trace_path.display().to_string()]);
        assert_eq!(
            replay.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&replay.stdout)
        );
    }
    // A dump against itself: no state differs.
    let same = diff(&dir, "before", "before");
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("the same states at every depth"));
}

/// Rewrites `path` (a states.csv) with `edit` applied to each row, and
/// its size in the dump's manifest beside it, as a consistent dump.
fn edit_states(path: &Path, mut edit: impl FnMut(&mut Vec<String>)) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    rows.iter_mut().for_each(&mut edit);
    let mut w = csv::Writer::from_path(path).unwrap();
    w.write_record(&header).unwrap();
    for r in rows {
        w.write_record(&r).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let manifest = path.with_file_name("dump.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["states_bytes"] = std::fs::metadata(path).unwrap().len().into();
    std::fs::write(&manifest, m.to_string()).unwrap();
}

#[test]
fn the_diff_takes_the_dumps_steps_as_written_without_replaying_them() {
    let dir = fresh("no-replay");
    two_dumps(&dir);
    // B's first steps now disagree with its protocol and its labels: a
    // step that opens at another tier than the label says.
    let forged = r#"{"op":"open","agent":0,"tier":"low"}"#;
    let other = r#"{"op":"open","agent":0,"tier":"external_action"}"#;
    edit_states(&dir.join("after/states.csv"), |row| {
        if row[1] == "1" {
            row[7] = if row[7] == forged { other } else { forged }.to_owned();
        }
    });
    let out = differing(&dir);
    let trace: TraceFile = serde_json::from_str(
        &std::fs::read_to_string(dir.join("t/default-vs-no-conflict-only-in-B.json")).unwrap(),
    )
    .unwrap();
    let label = out
        .lines()
        .skip_while(|l| !l.starts_with("the shallowest state only in B"))
        .nth(1)
        .unwrap();
    let expected_by_protocol = if label.contains("(low)") {
        r#""low""#
    } else {
        r#""external_action""#
    };
    assert!(
        !trace.steps[0].to_string().contains(expected_by_protocol),
        "the trace's first step is the dump's forged one, not the protocol's: {} under {label}",
        trace.steps[0]
    );
}

/// Exit 2 with one line on stderr that names `file`.
fn refused(run: &Output, file: &str) {
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        run.status.code(),
        Some(2),
        "{err}{}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(file), "{err}");
}

#[test]
fn a_dump_without_manifest_or_with_a_truncated_file_is_refused() {
    let dir = fresh("refuse");
    two_dumps(&dir);
    std::fs::remove_file(dir.join("after/dump.json")).unwrap();
    let run = diff(&dir, "before", "after");
    refused(&run, "after/dump.json");
    assert!(String::from_utf8_lossy(&run.stderr).contains("re-dump"));
    let states = dir.join("before/states.csv");
    let text = std::fs::read_to_string(&states).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&states, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    refused(&diff(&dir, "before", "before"), "before/states.csv");
    std::fs::write(&states, &text[..text.len() - 30]).unwrap();
    refused(&diff(&dir, "before", "before"), "before/states.csv");
    std::fs::write(
        dir.join("before/dump.json"),
        "{\"format\": \"memtx-check dump 2\"",
    )
    .unwrap();
    refused(&diff(&dir, "before", "before"), "before/dump.json");
}

/// Every name in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_dump_killed_over_another_leaves_that_one_unmixed_and_refused_until_redone() {
    let dir = fresh("killed");
    two_dumps(&dir);
    let before: Vec<(String, Vec<u8>)> = ["model.json", "states.csv", "transitions.csv"]
        .iter()
        .map(|f| {
            (
                f.to_string(),
                std::fs::read(dir.join("before").join(f)).unwrap(),
            )
        })
        .collect();
    // A deep dump of another model into `before`, killed once it writes.
    let d = |p: &str| dir.join(p).display().to_string();
    let mut child = bin()
        .args(["check", "models/two-agents.json", "--depth", "12", "--dump"])
        .arg(d("before"))
        .args(["--out", &d("killed-reports"), "--traces", &d("traces")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let partial = dir.join("before/.states.csv.partial");
    let started = std::time::Instant::now();
    while std::fs::metadata(&partial).map_or(0, |m| m.len()) < 100_000 {
        assert!(
            started.elapsed().as_secs() < 60,
            "the dump never started writing"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The earlier dump's files are as they were, the killed one's model
    // not among them; without a manifest the folder is refused.
    for (name, bytes) in &before {
        assert!(
            &std::fs::read(dir.join("before").join(name)).unwrap() == bytes,
            "{name} is the earlier dump's: {:?}",
            names_in(&dir.join("before"))
        );
    }
    let run = diff(&dir, "before", "after");
    refused(&run, "before/dump.json");
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("did not finish"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The next dump into the folder takes the killed one's place whole.
    let redone = dump(&dir, "models/default.json", "4", "before");
    assert!(matches!(redone.status.code(), Some(0 | 1)));
    assert_eq!(
        names_in(&dir.join("before")),
        ["dump.json", "model.json", "states.csv", "transitions.csv"]
    );
    assert!(!differing(&dir).is_empty());
}

#[test]
fn a_folder_a_dump_never_finished_is_refused_as_unfinished() {
    let dir = fresh("unfinished");
    two_dumps(&dir);
    let first = dir.join("first");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::write(first.join(".model.json.partial"), "{}").unwrap();
    std::fs::write(first.join(".states.csv.partial"), "state\n").unwrap();
    let run = diff(&dir, "first", "after");
    refused(&run, "first/dump.json");
    assert!(String::from_utf8_lossy(&run.stderr).contains("did not finish"));
}

/// Issue 38.10: a row of a dump's CSV without end (gigabytes without a
/// newline; here a sparse file) is refused once it passes the row limit,
/// naming the file and the row, instead of being read whole: the diff
/// runs under a 1 GB address-space limit, so reading it whole would
/// abort.
#[test]
fn an_endless_row_in_a_dump_is_refused_at_the_row_limit() {
    let dir = fresh("endless-row");
    two_dumps(&dir);
    let states = dir.join("before/states.csv");
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&states)
        .unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len + (3 << 30)).unwrap();
    drop(file);
    let d = |p: &str| dir.join(p).display().to_string();
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 1000000 && exec "$@""#)
        .arg("sh")
        .arg(crate::support::BIN)
        .args([
            "diff",
            &d("before"),
            &d("after"),
            "--out",
            &d("out"),
            "--traces",
            &d("t"),
        ])
        .current_dir(crate::support::root())
        .output()
        .unwrap();
    refused(&run, "before/states.csv: row ");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("longer than 16 MiB"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
