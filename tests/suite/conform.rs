//! End-to-end tests of `memtx-check conform`, its outputs read with this
//! file's own types (`conform.json` as docs/conformance.md documents it,
//! the JUnit XML, the ITF with Quint's MBT variables): this build's own
//! driver agrees on every suite; a proxy driver that changes one field of
//! the answers departs, exit 1, with the differing field named and a
//! shrunk trace `replay` runs; a hostile driver (not JSON, the wrong
//! shape, dying, hanging) is exit 2 with one line naming the trace and
//! the step, and nothing it started is left running.

use crate::support::{fresh, BIN};

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // every documented field is read, some only to be refused if missing
struct ConformJson {
    format: u32,
    kind: String,
    model: String,
    suite: SuiteJson,
    driver: String,
    implementation: Option<serde_json::Value>,
    traces: usize,
    steps: u64,
    elapsed_ms: u64,
    cutting_ms: u64,
    driving_ms: u64,
    steps_per_second: f64,
    agrees: bool,
    fields: FieldsJson,
    branches: Vec<BranchJson>,
    unreached: Vec<String>,
    departing: Vec<DepartingJson>,
    divergences: Vec<DivergenceJson>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SuiteJson {
    name: String,
    depth: Option<usize>,
    walks: Option<u64>,
    steps: Option<usize>,
    seed: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldsJson {
    compared: Vec<String>,
    not_compared: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct BranchJson {
    branch: String,
    trace: usize,
    step: usize,
    agrees: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DepartingJson {
    trace: usize,
    step: usize,
    divergence: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DivergenceJson {
    divergence: usize,
    op: String,
    fields: Vec<String>,
    traces: Vec<usize>,
    original_steps: usize,
    steps: usize,
    actions: Vec<String>,
    model: serde_json::Value,
    implementation: serde_json::Value,
    decision: Option<String>,
    differences: Vec<DifferenceJson>,
    trace: Option<String>,
    itf: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DifferenceJson {
    path: String,
    model: Option<serde_json::Value>,
    implementation: Option<serde_json::Value>,
}

/// One ITF state, as far as Quint's MBT reads it.
#[derive(Debug, Deserialize)]
struct ItfState {
    #[serde(rename = "mbt::actionTaken")]
    action_taken: String,
    #[serde(rename = "mbt::nondetPicks")]
    nondet_picks: std::collections::BTreeMap<String, QuintOption>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QuintOption {
    tag: String,
    #[allow(dead_code)]
    value: serde_json::Value,
}

#[derive(Debug, Deserialize)]
struct Itf {
    vars: Vec<String>,
    states: Vec<ItfState>,
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    dir: PathBuf,
}

impl Run {
    fn report(&self) -> ConformJson {
        let text =
            std::fs::read_to_string(self.dir.join("out/conform.json")).expect("conform.json");
        serde_json::from_str(&text).expect("conform.json reads as documented")
    }
}

/// `conform MODEL --driver DRIVER EXTRA…` into a scratch folder `name`.
fn conform(name: &str, model: &str, driver: &str, extra: &[&str]) -> Run {
    let dir = fresh(name);
    conform_in(dir, model, driver, extra)
}

/// The same into `dir` as it is.
fn conform_in(dir: PathBuf, model: &str, driver: &str, extra: &[&str]) -> Run {
    let out: Output = Command::new(BIN)
        .args(["conform", model, "--driver", driver, "--out"])
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("traces"))
        .arg("--junit")
        .arg(dir.join("junit.xml"))
        .args(extra)
        .output()
        .expect("memtx-check runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        dir,
    }
}

fn own_driver() -> String {
    format!("'{}' driver", BIN)
}

#[test]
fn this_builds_driver_agrees_on_every_suite() {
    let r = conform(
        "self-branches",
        "models/default.json",
        &own_driver(),
        &["--depth", "6", "--jobs", "2"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("agrees on all 47 branches"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("it agrees by construction"),
        "{}",
        r.stdout
    );
    let report = r.report();
    assert_eq!((report.format, report.kind.as_str()), (1, "conform"));
    assert!(report.agrees && report.departing.is_empty() && report.divergences.is_empty());
    assert_eq!(report.suite.name, "branches");
    assert_eq!(report.branches.len(), 47);
    assert!(report
        .branches
        .iter()
        .all(|b| b.agrees && b.trace < report.traces));
    assert!(report.fields.not_compared.is_empty());
    for f in [
        "refused",
        "records[].state",
        "records[].kind",
        "records[].scope",
        "records[].derived_from",
        "records[].reason",
        "rollback_log[].repair",
        "outcome.records[].result",
        "outcome.allowed",
    ] {
        assert!(
            report.fields.compared.iter().any(|c| c == f),
            "{f} not compared"
        );
    }
    let xml = std::fs::read_to_string(r.dir.join("junit.xml")).expect("junit.xml");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 47);
    assert!(doc.descendants().all(|n| !n.has_tag_name("failure")));
    for (suite, extra) in [
        (
            "transitions",
            &["--suite", "transitions", "--depth", "3"][..],
        ),
        (
            "random",
            &[
                "--suite", "random", "--walks", "30", "--steps", "15", "--seed", "3",
            ][..],
        ),
    ] {
        let r = conform(
            &format!("self-{suite}"),
            "models/default.json",
            &own_driver(),
            extra,
        );
        assert_eq!(r.code, 0, "{suite}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.report().suite.name, suite);
        // A test case per depth of the transitions, per random walk.
        let xml = std::fs::read_to_string(r.dir.join("junit.xml")).expect("junit.xml");
        let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
        let names: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .filter_map(|n| n.attribute("name"))
            .collect();
        let expected = if suite == "random" { 30 } else { 3 };
        assert_eq!(names.len(), expected, "{suite}: {names:?}");
        assert!(
            names[0] == "walk 0" || names[0] == "transitions of depth 1",
            "{names:?}"
        );
    }
}

/// What the proxy in front of this build's driver changes: every
/// quarantined record reads committed.
const PROXY: &str = "    for record in answer.get(\"records\", []):
        if record.get(\"state\") == \"quarantined\":
            record[\"state\"] = \"committed\"
";

#[test]
fn a_driver_that_changes_one_field_departs_with_a_short_replayable_trace() {
    let dir = fresh("proxy-script");
    let script = crate::support::proxy_driver(&dir, PROXY);
    let driver = format!("python3 '{}' '{}'", script.display(), BIN);
    let r = conform(
        "proxy",
        "models/default.json",
        &driver,
        &["--depth", "6", "--jobs", "2"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains(": model quarantined, implementation committed"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("← departs here"), "{}", r.stdout);
    assert!(
        r.stdout.contains("something alters its answers"),
        "{}",
        r.stdout
    );
    let report = r.report();
    assert!(!report.agrees);
    let d = &report.divergences[0];
    assert!(
        d.fields.iter().all(|f| f == "records[].state"),
        "{:?}",
        d.fields
    );
    assert!(d.steps <= d.original_steps && d.steps <= 4, "{d:?}");
    assert!(report.branches.iter().any(|b| !b.agrees));
    let trace = PathBuf::from(d.trace.as_deref().expect("a trace written"));
    assert!(
        trace.ends_with("conform-default-1.json"),
        "{}",
        trace.display()
    );
    // The shrunk trace replays, and through the proxy it departs again.
    let replay = Command::new(BIN)
        .arg("replay")
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let itf: Itf =
        serde_json::from_str(&std::fs::read_to_string(d.itf.as_deref().unwrap()).unwrap())
            .expect("ITF with Quint's MBT variables");
    assert!(itf.vars.iter().any(|v| v == "mbt::actionTaken"));
    assert_eq!(itf.states.len(), d.steps + 1);
    assert_eq!(itf.states[0].action_taken, "init");
    assert_eq!(itf.states[d.steps].action_taken, d.op);
    assert!(itf.states[0].nondet_picks.values().all(|p| p.tag == "None"));
    assert!(itf.states[1].nondet_picks.values().any(|p| p.tag == "Some"));
    // A later run into the same folders that agrees retires the traces.
    let again = conform_in(
        r.dir.clone(),
        "models/default.json",
        &own_driver(),
        &["--depth", "6"],
    );
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert!(!trace.exists(), "{} is left", trace.display());
    assert!(again.report().agrees);
}

/// A driver that breaks the protocol one way, by `$1`; it writes its pid
/// (and its child's) to `$2`.
const HOSTILE: &str = r#"#!/bin/sh
echo $$ > "$2"
read line
case "$1" in
  badjson) echo 'this is not json' ;;
  version2) echo '{"ok": true, "driver_protocol": 2}' ;;
  shape) echo '{"ok": true}'; read line; echo '{"outcome": {"tx": 0, "snapshot": []}}' ;;
  dies) echo '{"ok": true}'; read line; echo 'out of cheese' >&2; exit 3 ;;
  hangs) echo '{"ok": true}'; sleep 1000 & echo $! >> "$2"; wait ;;
esac
cat > /dev/null
"#;

fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // A zombie is dead, only not yet reaped by its parent.
        Ok(stat) => !stat.split(") ").nth(1).is_some_and(|s| s.starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn a_driver_breaking_the_protocol_is_exit_2_in_one_line_and_killed() {
    let dir = fresh("hostile-script");
    let script = dir.join("hostile.sh");
    std::fs::write(&script, HOSTILE).unwrap();
    for (mode, why) in [
        ("badjson", "not a JSON object"),
        // Issue 38.4: a driver of another protocol version "agreed on
        // all branches", exit 0.
        ("version2", "speaks driver protocol 2"),
        ("shape", "has no `records`"),
        ("dies", "exited (exit status: 3)"),
        ("hangs", "answered nothing within 1 s"),
    ] {
        let pids = dir.join(format!("{mode}.pids"));
        let driver = format!("sh '{}' {mode} '{}'", script.display(), pids.display());
        let started = Instant::now();
        let r = conform(
            &format!("hostile-{mode}"),
            "models/default.json",
            &driver,
            &["--depth", "4", "--jobs", "1", "--step-timeout", "1"],
        );
        assert_eq!(r.code, 2, "{mode}: {}{}", r.stdout, r.stderr);
        assert!(started.elapsed() < Duration::from_secs(20), "{mode}");
        let lines: Vec<&str> = r.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{mode}: {}", r.stderr);
        let line = lines[0];
        assert!(line.contains("trace 0 of"), "{mode}: {line}");
        let step = if mode == "badjson" || mode == "version2" {
            "its reset"
        } else {
            "step 0 ("
        };
        assert!(line.contains(step), "{mode}: {line}");
        assert!(line.contains(why), "{mode}: {line}");
        assert!(line.contains("killed"), "{mode}: {line}");
        if mode == "dies" {
            assert!(line.contains("out of cheese"), "{line}");
        }
        assert!(
            !Path::new(&r.dir.join("out/conform.json")).exists(),
            "{mode}"
        );
        let pids = std::fs::read_to_string(&pids).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        for pid in pids.split_whitespace() {
            while alive(pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(!alive(pid), "{mode}: process {pid} is still running");
        }
    }
}

#[test]
fn bad_flags_are_one_line_and_exit_2() {
    for (extra, why) in [
        (
            &["--suite", "fuzzy"][..],
            "--suite: \"fuzzy\" is not one of",
        ),
        (
            &["--walks", "3"][..],
            "--walks: only the random suite takes it",
        ),
        (
            &["--suite", "transitions", "--depth", "full"][..],
            "--depth full",
        ),
        (&["--jobs", "0"][..], "--jobs"),
        (&["--step-timeout", "x"][..], "--step-timeout"),
    ] {
        let r = conform("flags", "models/default.json", &own_driver(), extra);
        assert_eq!(r.code, 2, "{extra:?}: {}", r.stderr);
        assert_eq!(r.stderr.trim().lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains(why), "{extra:?}: {}", r.stderr);
    }
    let r = conform(
        "no-such-driver",
        "models/default.json",
        "/no/such/driver",
        &[],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("did not start"), "{}", r.stderr);
}

/// What the proxy changes: an abort's or revoke's repairs, and the
/// rollback-log entries of the step, come in reverse order (an order the
/// card leaves open); each step it reordered adds a line to `$2`.
const REORDER: &str = "    before = getattr(sys, \"log_length\", 0)
    if json.loads(line).get(\"reset\") is not None:
        before = 0
    log = answer.get(\"rollback_log\", [])
    sys.log_length = len(log)
    repairs = (answer.get(\"outcome\") or {}).get(\"repairs\")
    changed = len(log) - before > 1 or (repairs is not None and len(repairs) > 1)
    if repairs is not None:
        repairs.reverse()
    log[before:] = reversed(log[before:])
    if changed:
        with open(sys.argv[2], \"a\") as f:
            f.write(\"reordered\\n\")
";

/// A driver command serving this build's driver through the [`REORDER`]
/// proxy, written into `dir`, and the file it marks each reordering in.
pub(crate) fn reordering_driver(dir: &Path) -> (String, PathBuf) {
    let script = crate::support::proxy_driver(dir, REORDER);
    let marks = dir.join("reordered");
    let driver = format!(
        "python3 '{}' '{}' '{}'",
        script.display(),
        BIN,
        marks.display()
    );
    (driver, marks)
}

#[test]
fn repairs_and_log_entries_in_another_order_agree() {
    // Issue 38.14: an implementation following the card's per-root
    // pseudocode departed on two-agents for order alone.
    let dir = fresh("reorder-script");
    let (driver, marks) = reordering_driver(&dir);
    let r = conform(
        "reorder",
        "models/two-agents.json",
        &driver,
        &[
            "--suite", "random", "--walks", "200", "--steps", "20", "--jobs", "2",
        ],
    );
    let reordered = std::fs::read_to_string(&marks).unwrap_or_default();
    assert!(
        reordered.lines().count() > 0,
        "the proxy reordered nothing: the test cannot fail"
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.report().agrees);
}

/// Under an address-space limit of `kib` KiB, `conform` of the default
/// model with `suite` is refused before any driver starts: one line with
/// the figures (`says` what it would need), exit 2, no `--out` left
/// behind (or the test is skipped where the shell cannot set a limit).
fn refused_past_the_memory_limit(name: &str, kib: u64, suite: &str, says: &str) {
    let dir = fresh(name);
    let line = format!(
        "conform models/default.json --driver \"'{BIN}' driver\" {suite} --out '{}' --traces '{}'",
        dir.join("out").display(),
        dir.join("traces").display()
    );
    let Some(out) = crate::support::under_address_limit(kib, &line) else {
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(says) && err.contains("more than the bound of"),
        "{err}"
    );
    assert!(!dir.join("out/conform.json").exists());
    // Nor an empty --out left behind: the folder the run made is removed.
    assert!(!dir.join("out").exists(), "an empty --out was left behind");
}

#[test]
fn a_suite_past_the_memory_limit_is_refused_with_the_figures() {
    // Issue 38.9: under a 1.5 GB address-space limit this aborted (exit
    // 134) while cutting the suite.
    refused_past_the_memory_limit(
        "memory",
        1_500_000,
        "--suite transitions --depth 9",
        "cutting the suite from the model's graph would need",
    );
}

#[test]
fn a_random_suite_past_the_memory_limit_is_refused_with_the_figures() {
    // Issue 51.7: the random suite's walks were all cut and held before
    // any was driven, with no bound: under an address-space limit a large
    // --walks aborted (exit 134).
    refused_past_the_memory_limit(
        "memory-random",
        400_000,
        "--suite random --walks 100000000",
        "cutting the suite's random walks would need",
    );
}
