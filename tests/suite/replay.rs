//! End-to-end tests of `memtx-check replay`: the real binary on the traces
//! in `traces/` and on bad input. Output is parsed with this file's own
//! mirror types, not the program's, so a format change cannot pass
//! silently.

use crate::support::wire::{LogEntry, Record};
use crate::support::{absent, fresh, memtx, root};

use serde::Deserialize;
use std::path::PathBuf;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    steps: Vec<StepOut>,
    records: Vec<Record>,
    rollback_log: Vec<LogEntry>,
    violations: Vec<ViolationOut>,
    declared_violation: Option<DeclaredOut>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepOut {
    step: usize,
    op: String,
    outcome: Option<serde_json::Value>,
    error: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ViolationOut {
    property: String,
    step: usize,
    records: Vec<u8>,
    detail: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeclaredOut {
    property: String,
    step: usize,
    #[allow(dead_code)]
    detail: String,
    refound: bool,
    found_at: Option<usize>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Opened {
    tx: u8,
    snapshot: Vec<u8>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Committed {
    status: String,
    records: Vec<Verdict>,
    verifier_calls: u32,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Verdict {
    id: u8,
    result: String,
    reason: Option<String>,
    superseded: Vec<u8>,
    admission: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct ToolCall {
    allowed: bool,
    reason: Option<String>,
    record: Option<u8>,
    in_snapshot: Vec<u8>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Retracted {
    roots: Vec<u8>,
    repairs: Vec<RepairOut>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Revalidated {
    revalidated: u8,
    tx: u8,
    was: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Rebuilt {
    rebuilt: u8,
    tx: u8,
    dropped: Vec<u8>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct RepairOut {
    id: u8,
    repair: String,
}

fn replay_json(trace: &str) -> (i32, Report) {
    let out = memtx(&["replay", trace, "--json"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{trace}: not one JSON object ({e}):\n{stdout}"));
    (out.status.code().unwrap(), report)
}

fn outcome<T: for<'de> Deserialize<'de>>(report: &Report, step: usize) -> T {
    let s = &report.steps[step];
    assert_eq!(s.step, step);
    assert_eq!(s.error, None, "step {step} was refused");
    serde_json::from_value(s.outcome.clone().expect("an outcome")).expect("outcome shape")
}

fn repairs(roots: &[u8], list: &[(u8, &str)]) -> Retracted {
    Retracted {
        roots: roots.to_vec(),
        repairs: list
            .iter()
            .map(|&(id, repair)| RepairOut {
                id,
                repair: repair.into(),
            })
            .collect(),
    }
}

#[test]
fn refund_example_issues_the_refund_and_logs_the_leak() {
    let (code, report) = replay_json("traces/order841-refund.json");
    assert_eq!(code, 0);
    let ops: Vec<_> = report.steps.iter().map(|s| s.op.as_str()).collect();
    assert_eq!(
        ops,
        ["open", "stage", "commit", "open", "tool_call", "revoke"]
    );
    assert_eq!(
        outcome::<Opened>(&report, 0),
        Opened {
            tx: 0,
            snapshot: vec![]
        }
    );
    let commit: Committed = outcome(&report, 2);
    assert_eq!(commit.status, "committed");
    assert_eq!(commit.records[0].result, "action_safe");
    assert_eq!(commit.verifier_calls, 1);
    assert_eq!(
        outcome::<Opened>(&report, 3),
        Opened {
            tx: 1,
            snapshot: vec![0]
        }
    );
    assert_eq!(
        outcome::<ToolCall>(&report, 4),
        ToolCall {
            allowed: true,
            reason: None,
            record: Some(1),
            in_snapshot: vec![],
        }
    );
    assert_eq!(
        outcome::<Retracted>(&report, 5),
        repairs(&[0], &[(0, "revoked"), (1, "leaked")])
    );
    let belief = &report.records[0];
    assert_eq!(
        (belief.id, belief.kind.as_str(), belief.state.as_str()),
        (0, "belief", "revoked")
    );
    assert_eq!(
        (
            belief.entity.as_str(),
            belief.attribute.as_str(),
            belief.value.as_str()
        ),
        ("order841", "refund_eligible", "yes")
    );
    assert_eq!(belief.source.as_deref(), Some("lookup"));
    assert_eq!((belief.authority, belief.confidence), (0.7, 0.8));
    assert_eq!((belief.owner, belief.scope.as_str()), (0, "shared"));
    assert_eq!(
        (belief.valid_from, belief.valid_to, belief.reason.as_deref()),
        (None, None, None)
    );
    let refund = &report.records[1];
    assert_eq!(refund.tool.as_deref(), Some("issue_refund"));
    assert_eq!(refund.derived_from, vec![0]);
    assert_eq!(refund.state, "revoked");
    assert_eq!(
        report.rollback_log,
        vec![
            LogEntry {
                record: 0,
                repair: "revoked".into(),
                root: true
            },
            LogEntry {
                record: 1,
                repair: "leaked".into(),
                root: false
            },
        ]
    );
    assert!(report.violations.is_empty());
    assert!(report.declared_violation.is_none());
}

#[test]
fn gate_blocks_without_support_and_while_own_staging_is_tentative() {
    let (code, report) = replay_json("traces/blocked-irreversible.json");
    assert_eq!(code, 0);
    let blocked = |reason: &str| ToolCall {
        allowed: false,
        reason: Some(reason.into()),
        record: None,
        in_snapshot: vec![],
    };
    assert_eq!(
        outcome::<ToolCall>(&report, 1),
        blocked("no_action_safe_support")
    );
    assert_eq!(
        outcome::<ToolCall>(&report, 6),
        blocked("tentative_in_flight")
    );
    assert_eq!(
        outcome::<ToolCall>(&report, 7),
        ToolCall {
            allowed: true,
            reason: None,
            record: Some(2),
            in_snapshot: vec![],
        }
    );
    assert_eq!(
        outcome::<ToolCall>(&report, 9),
        ToolCall {
            allowed: true,
            reason: None,
            record: Some(3),
            in_snapshot: vec![],
        }
    );
}

#[test]
fn stale_late_write_loses_despite_higher_authority() {
    let (code, report) = replay_json("traces/stale-late-write.json");
    assert_eq!(code, 0);
    let commit: Committed = outcome(&report, 8);
    assert_eq!(commit.status, "aborted");
    assert_eq!(
        commit.records,
        vec![Verdict {
            id: 2,
            result: "quarantined".into(),
            reason: Some("stale_write".into()),
            superseded: vec![],
            admission: None,
        }]
    );
    assert_eq!(report.records[2].authority, 0.95);
    assert_eq!(report.records[1].state, "committed");
}

#[test]
fn laundering_a_private_parent_is_quarantined() {
    let (code, report) = replay_json("traces/permission-laundering.json");
    assert_eq!(code, 0);
    let commit: Committed = outcome(&report, 6);
    assert_eq!(commit.status, "partial");
    assert_eq!(
        commit.records[0].reason.as_deref(),
        Some("permission_laundering")
    );
    assert_eq!(commit.records[1].result, "committed");
}

#[test]
fn cascade_quarantines_the_view_and_revokes_the_belief() {
    let (code, report) = replay_json("traces/cascade-view-quarantine.json");
    assert_eq!(code, 0);
    assert_eq!(
        outcome::<Retracted>(&report, 8),
        repairs(&[0], &[(0, "revoked"), (1, "quarantined"), (2, "revoked")])
    );
    let late: Committed = outcome(&report, 10);
    assert_eq!(late.records[0].reason.as_deref(), Some("revoked_parent"));
    assert!(report.violations.is_empty());
}

#[test]
fn a_rebuilt_view_drops_its_revoked_source_and_commits_again() {
    let (code, report) = replay_json("traces/rebuild-view.json");
    assert_eq!(code, 0);
    assert_eq!(report.steps[7].op, "rebuild");
    assert_eq!(
        outcome::<Rebuilt>(&report, 7),
        Rebuilt {
            rebuilt: 2,
            tx: 1,
            dropped: vec![0],
        }
    );
    let again: Committed = outcome(&report, 8);
    assert_eq!(
        (again.status.as_str(), again.records[0].reason.as_deref()),
        ("committed", None)
    );
    let view = &report.records[2];
    assert_eq!(
        (view.state.as_str(), view.derived_from.as_slice()),
        ("committed", &[1u8][..])
    );
    assert!(report.violations.is_empty());
}

#[test]
fn a_view_of_a_rebuilt_view_never_commits_again() {
    // r2 is rebuilt and committed (step 9) but stays in the revocation
    // registry, which only grows: its view r3, rebuilt (every source
    // survives) or revalidated, is refused by check 3 each time.
    let (code, report) = replay_json("traces/rebuilt-parent-registry.json");
    assert_eq!(code, 0);
    let rebuilt: Committed = outcome(&report, 9);
    assert_eq!(rebuilt.status, "committed");
    assert_eq!(
        outcome::<Rebuilt>(&report, 11),
        Rebuilt {
            rebuilt: 3,
            tx: 2,
            dropped: vec![],
        }
    );
    assert_eq!(report.steps[14].op, "revalidate");
    for step in [12, 15] {
        let c: Committed = outcome(&report, step);
        assert_eq!(
            (
                c.status.as_str(),
                c.records[0].id,
                c.records[0].reason.as_deref()
            ),
            ("aborted", 3, Some("revoked_parent")),
            "step {step}"
        );
    }
    assert_eq!(
        (
            report.records[2].state.as_str(),
            report.records[3].state.as_str()
        ),
        ("committed", "quarantined")
    );
    assert!(report.violations.is_empty());
}

#[test]
fn a_revalidated_view_lets_its_readers_call_and_is_quarantined_again() {
    let (code, report) = replay_json("traces/revalidate-view.json");
    assert_eq!(code, 0);
    assert_eq!(report.steps[7].op, "revalidate");
    assert_eq!(
        outcome::<Revalidated>(&report, 7),
        Revalidated {
            revalidated: 1,
            tx: 1,
            was: None
        }
    );
    // r1 is tentative, but in T1's snapshot: the gate's first clause spares it.
    assert_eq!(
        outcome::<ToolCall>(&report, 8),
        ToolCall {
            allowed: true,
            reason: None,
            record: Some(3),
            in_snapshot: vec![1],
        }
    );
    let again: Committed = outcome(&report, 9);
    assert_eq!(again.status, "aborted");
    assert_eq!(again.records[0].reason.as_deref(), Some("revoked_parent"));
    assert_eq!(
        outcome::<Revalidated>(&report, 11).was.as_deref(),
        Some("revoked_parent")
    );
    assert_eq!(
        outcome::<Retracted>(&report, 12),
        repairs(&[1], &[(1, "revoked")])
    );
    assert!(report.violations.is_empty());
}

#[test]
fn ablated_cascade_violates_i2_at_the_declared_step() {
    let (code, report) = replay_json("traces/ablate-cascade.json");
    assert_eq!(code, 1);
    let i2 = report
        .violations
        .iter()
        .find(|v| v.property == "I2")
        .expect("I2 found");
    assert_eq!(i2.step, 6);
    assert!(i2.records.contains(&1), "{i2:?}");
    assert!(!i2.detail.is_empty());
    let declared = report.declared_violation.expect("declared");
    assert_eq!((declared.property.as_str(), declared.step), ("I2", 6));
    assert!(declared.refound);
    assert_eq!(declared.found_at, Some(6));
    let text = memtx(&["replay", "traces/ablate-cascade.json"]);
    assert_eq!(text.status.code(), Some(1));
    let stdout = String::from_utf8(text.stdout).unwrap();
    assert!(stdout.contains("re-found at the same step"), "{stdout}");
}

#[test]
fn every_shipped_trace_replays_with_its_declared_verdict() {
    for entry in std::fs::read_dir(root().join("traces")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json")
            || path.to_string_lossy().ends_with(".itf.json")
        {
            continue;
        }
        let name = format!("traces/{}", path.file_name().unwrap().to_string_lossy());
        let (code, report) = replay_json(&name);
        match report.declared_violation {
            Some(d) => {
                assert_eq!(code, 1, "{name}");
                assert!(d.refound, "{name}: declared violation not re-found");
            }
            None => assert_eq!(
                (code, report.violations.len()),
                (0, 0),
                "{name}: {:?}",
                report.violations
            ),
        }
    }
}

#[test]
fn itf_export_is_written() {
    let dir = absent("itf");
    let out = dir.join("refund.itf.json");
    let result = memtx(&[
        "replay",
        "traces/order841-refund.json",
        "--itf",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0));
    let itf: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(itf["#meta"]["format"], "ITF");
    assert_eq!(itf["states"].as_array().unwrap().len(), 7);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs a bad input; asserts exit 2, one stderr line naming `file`, no
/// panic, nothing on stdout; returns the line.
fn bad_input(args: &[&str], file: &str) -> String {
    let out = memtx(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(file), "{stderr:?} does not name {file}");
    assert!(out.stdout.is_empty());
    stderr
}

fn scratch_trace(name: &str, text: &str) -> PathBuf {
    let path = fresh(&format!("trace-{name}")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn bad_trace(name: &str, text: &str) -> String {
    let path = scratch_trace(name, text);
    let shown = path.to_str().unwrap();
    let line = bad_input(&["replay", shown, "--json"], shown);
    std::fs::remove_file(&path).unwrap();
    line
}

/// A bad trace file, its text, and what its one line must say: malformed
/// JSON with line and column, an unknown field named, impossible bounds,
/// an unknown tool named.
#[test]
fn a_bad_trace_is_exit_2_in_one_line_saying_why() {
    let tool = r#"{"config": {"tools": [{"name": "issue_refund", "irreversible": true}]},
            "steps": [{"op": "open", "agent": 0, "tier": "low"},
                      {"op": "tool_call", "tx": 0, "tool": "wire_money", "basis": []}]}"#;
    let cases: [(&str, String, &[&str]); 5] = [
        (
            "malformed.json",
            "{\"config\": {},\n \"steps\": [\n}".into(),
            &["line 3"],
        ),
        (
            "unknown.json",
            r#"{"config": {}, "steps": [{"op": "open", "agent": 0, "tier": "low", "priority": 3}]}"#
                .into(),
            &["steps[0].priority", "unknown field"],
        ),
        (
            "bound0.json",
            r#"{"config": {"bounds": {"records": 0}}, "steps": []}"#.into(),
            &["config.bounds.records: 0 is out of range"],
        ),
        (
            "bound65.json",
            r#"{"config": {"bounds": {"records": 65}}, "steps": []}"#.into(),
            &["config.bounds.records: 65 is out of range"],
        ),
        ("tool.json", tool.into(), &["steps[1].tool: \"wire_money\""]),
    ];
    for (name, text, needles) in cases {
        let line = bad_trace(name, &text);
        for needle in needles {
            assert!(line.contains(needle), "{name}: {line:?} lacks {needle:?}");
        }
    }
}

#[test]
fn unreadable_file_is_exit_2() {
    let line = bad_input(
        &["replay", "traces/no-such-trace.json"],
        "traces/no-such-trace.json",
    );
    assert!(line.contains("cannot read"), "{line}");
    let dir = root().join("traces");
    bad_input(&["replay", dir.to_str().unwrap()], dir.to_str().unwrap());
}

#[test]
fn usage_errors_are_exit_2() {
    for args in [
        &["replay"][..],
        &["frobnicate"],
        &["replay", "x.json", "--bogus"],
        &[],
    ] {
        let out = memtx(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    assert_eq!(memtx(&["--help"]).status.code(), Some(0));
}

#[test]
fn protocol_refusals_are_step_errors_not_bad_input() {
    let path = scratch_trace(
        "refusal.json",
        r#"{"config": {}, "steps": [{"op": "commit", "tx": 4}, {"op": "open", "agent": 0, "tier": "low"}]}"#,
    );
    let (code, report) = replay_json(path.to_str().unwrap());
    assert_eq!(code, 0);
    assert_eq!(
        report.steps[0].error.as_deref(),
        Some("unknown transaction T4")
    );
    assert!(report.steps[0].outcome.is_none());
    assert!(report.steps[1].outcome.is_some());
    std::fs::remove_file(&path).unwrap();
}
