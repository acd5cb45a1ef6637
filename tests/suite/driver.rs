//! End-to-end tests of `memtx-check driver` against the contract of
//! `docs/driver-protocol.md`, read with this file's own types (every field
//! the page names, unknown fields refused), never the program's: the
//! documented session, every shipped trace's steps, pipelined requests,
//! a bad request in one line, and end of input ending the driver.

use crate::support::bin;
use crate::support::wire::{LogEntry, Record};

use serde::Deserialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ready {
    ok: bool,
    driver_protocol: Option<u32>,
    implementation: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepAnswer {
    outcome: Option<Value>,
    error: Option<String>,
    records: Vec<Record>,
    rollback_log: Vec<LogEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Bad {
    bad_request: String,
}

const KINDS: [&str; 6] = [
    "belief",
    "summary",
    "profile",
    "index_entry",
    "shared_copy",
    "tool_action",
];
const STATES: [&str; 8] = [
    "raw",
    "tentative",
    "validated",
    "committed",
    "action_safe",
    "quarantined",
    "superseded",
    "revoked",
];
const REPAIRS: [&str; 4] = ["revoked", "quarantined", "compensated", "leaked"];

/// A running driver.
struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Driver {
    fn start() -> Driver {
        let mut child = bin()
            .arg("driver")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the driver starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Driver {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, request: &Value) {
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{request}").expect("the driver reads");
        stdin.flush().expect("flushed");
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("an answer");
        assert!(line.ends_with('\n'), "one line per answer: {line:?}");
        serde_json::from_str(&line).expect("the answer is JSON")
    }

    fn ask(&mut self, request: &Value) -> Value {
        self.send(request);
        self.read()
    }

    /// Closes stdin and waits: the driver must exit 0.
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("the driver exits");
        assert!(status.success(), "{status}");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn step_answer(v: &Value) -> StepAnswer {
    let a: StepAnswer = serde_json::from_value(v.clone()).expect("a step answer");
    assert!(
        a.outcome.is_some() != a.error.is_some(),
        "one of outcome and error: {v}"
    );
    for r in &a.records {
        assert!(KINDS.contains(&r.kind.as_str()), "{r:?}");
        assert!(STATES.contains(&r.state.as_str()), "{r:?}");
        assert!(["private", "shared", "public"].contains(&r.scope.as_str()));
        assert!(r.derived_from.iter().all(|&p| p < r.id));
    }
    for e in &a.rollback_log {
        assert!(REPAIRS.contains(&e.repair.as_str()), "{e:?}");
        assert!((e.record as usize) < a.records.len());
    }
    a
}

#[test]
fn the_documented_session() {
    let mut d = Driver::start();
    let ready: Ready = serde_json::from_value(d.ask(&json!({"reset": {"tools": [
        {"name": "issue_refund", "irreversible": true}]}})))
    .expect("the reset answer");
    assert!(ready.ok);
    assert_eq!(ready.driver_protocol, Some(1));
    let implementation = ready.implementation.expect("memtx-check names itself");
    assert_eq!(implementation["name"], json!("memtx-check"));
    let open = step_answer(
        &d.ask(&json!({"step": {"op": "open", "agent": 0, "tier": "external_action"}})),
    );
    assert_eq!(open.outcome, Some(json!({"tx": 0, "snapshot": []})));
    let call = step_answer(
        &d.ask(&json!({"step": {"op": "tool_call", "tx": 0, "tool": "issue_refund", "basis": []}})),
    );
    assert_eq!(
        call.outcome,
        Some(
            json!({"allowed": false, "reason": "no_action_safe_support", "record": null, "in_snapshot": []})
        )
    );
    let revoke = step_answer(&d.ask(&json!({"step": {"op": "revoke", "record": 0}})));
    assert!(revoke.error.is_some() && revoke.records.is_empty());
    d.finish();
}

/// Every shipped trace, its steps sent all at once before any answer is
/// read (pipelined), answers as `replay --json` reports the same steps.
#[test]
fn every_shipped_trace_pipelined() {
    let mut traces = 0;
    for entry in std::fs::read_dir("traces").expect("traces/") {
        let path = entry.expect("an entry").path();
        let name = path.to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.ends_with(".itf.json") {
            continue;
        }
        let trace: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).unwrap();
        let Some(config) = trace.get("config") else {
            continue; // a trace naming a model file: the replay area covers it
        };
        let out = bin()
            .args(["replay", &name, "--json"])
            .output()
            .expect("replay runs");
        let replayed: Value = serde_json::from_slice(&out.stdout).expect("replay's JSON");
        let steps = trace["steps"].as_array().expect("steps");
        let mut d = Driver::start();
        d.send(&json!({"reset": config}));
        for step in steps {
            d.send(&json!({"step": step}));
        }
        assert!(d.read()["ok"].as_bool().unwrap_or(false), "{name}");
        let mut last = None;
        for (i, _) in steps.iter().enumerate() {
            let a = step_answer(&d.read());
            let expected = &replayed["steps"][i];
            assert_eq!(
                a.outcome.as_ref(),
                expected.get("outcome"),
                "{name} step {i}"
            );
            assert_eq!(
                a.error.is_some(),
                expected.get("error").is_some(),
                "{name} {i}"
            );
            last = Some(a);
        }
        if let Some(a) = last {
            assert_eq!(
                a.records.len(),
                replayed["records"].as_array().unwrap().len()
            );
            let states: Vec<&str> = a.records.iter().map(|r| r.state.as_str()).collect();
            let want: Vec<&str> = replayed["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["state"].as_str().unwrap())
                .collect();
            assert_eq!(states, want, "{name}");
        }
        d.finish();
        traces += 1;
    }
    assert!(traces >= 5, "{traces} traces");
}

#[test]
fn a_bad_request_is_one_line_and_the_driver_goes_on() {
    let mut d = Driver::start();
    let bad: Bad = serde_json::from_value(d.ask(&json!({"step": {"op": "commit", "tx": 0}})))
        .expect("a bad request");
    assert!(
        bad.bad_request.contains("before any reset"),
        "{}",
        bad.bad_request
    );
    let ready: Ready = serde_json::from_value(d.ask(&json!({"reset": {}}))).expect("ready");
    assert!(ready.ok);
    d.send(&json!("not an object"));
    let bad: Bad = serde_json::from_value(d.read()).expect("a bad request");
    assert!(!bad.bad_request.contains('\n'));
    d.finish();
}
