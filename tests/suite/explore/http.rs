//! The explorer over HTTP: its JSON endpoints answer for a counterexample's
//! path and show the violation, and the deep link `check` prints reaches
//! the violating state. Servers run in a background thread or a child
//! process on an ephemeral loopback port; sockets have timeouts.

use super::*;
use memtx_check::check::{self, CheckOptions};
use memtx_check::config::{Depth, ModelConfig};
use memtx_check::explore;
use memtx_check::invariants::Invariant;
use memtx_check::model::{MemtxModel, ModelSpec};
use std::io::{BufRead, BufReader};
use std::process::Command;
use std::time::Duration;

fn assert_shows_i1_violation(view: &StateView) {
    assert_eq!(view.action.as_deref(), Some("T0 calls issue_refund on r0"));
    let svg = view.svg.as_deref().expect("the state has an SVG");
    assert!(svg.contains("I1 VIOLATED"), "{svg}");
    let node = tag_with(svg, "data-record=\"r1\"");
    assert!(node.contains("data-violation=\"I1\""), "{node}");
    assert!(node.contains("data-kind=\"tool_action\""), "{node}");
    let r0 = tag_with(svg, "data-record=\"r0\"");
    assert!(!r0.contains("data-violation"), "{r0}");
    let i1 = tag_with(svg, "data-invariant=\"I1\" data-verdict=");
    assert!(i1.contains("violated"), "{i1}");
    let outcome = view.outcome.as_deref().expect("format_step output");
    assert!(outcome.contains("gate decision: allowed"), "{outcome}");
    assert!(
        outcome.contains("I1 (action-safety gating) VIOLATED"),
        "{outcome}"
    );
}

#[test]
fn endpoints_answer_for_a_counterexample_path() {
    let mut config =
        ModelConfig::load(&root().join("models/ablations/no-gate.json")).expect("no-gate loads");
    config.bounds.depth = Depth::Bounded(4);
    let report = check::run(&config, CheckOptions::quiet(2));
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.invariant == Invariant::I1)
        .expect("an I1 counterexample");
    let model = MemtxModel::new(ModelSpec::from_config(&config));
    assert_eq!(
        explore::trace_actions(&model, &c.trace).as_deref(),
        Ok(&c.actions[..]),
        "the saved trace maps back to the same actions"
    );
    let path = explore::states_path(&model, &c.actions).expect("a model path");
    assert_eq!(path.split('/').count(), 1 + c.actions.len());
    let port = free_port();
    let served = model.clone();
    let addr = format!("127.0.0.1:{port}");
    std::thread::spawn(move || explore::serve(served, &addr));
    wait_for_port(port, Duration::from_secs(20));

    let (code, body) = http_get(port, "/.status");
    assert_eq!(code, 200);
    let status: StatusView = serde_json::from_str(&body).expect("status JSON");
    assert!(status.model.contains("MemtxModel"), "{}", status.model);
    assert!(status.properties.iter().any(|p| p.1 == "I1"));
    let _ = status.done;

    let init = states(port, "");
    assert_eq!(init.len(), 1);
    assert_eq!(init[0].action_index, Some(0));
    assert!(init[0].svg.as_deref().unwrap().contains("Initial store"));

    let last = last_state(port, &path);
    assert_shows_i1_violation(&last);
    assert!(last.state.is_some() && last.fingerprint.is_some());

    // One step earlier nothing is violated yet.
    let (prefix, _) = path.rsplit_once('/').unwrap();
    let before = last_state(port, prefix);
    assert_eq!(before.action.as_deref(), Some("T0 commits"));
    let svg = before.svg.unwrap();
    assert!(svg.contains("every invariant holds on this path"), "{svg}");
    assert!(!svg.contains("data-violation"));

    let (code, _) = http_get(port, "/.states/0/999");
    assert_eq!(code, 404, "an action index the model does not offer");
}

/// Reads the child's stdout until the `explorer: LINK` line.
fn printed_link(child: &mut std::process::Child) -> String {
    let out = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(out).lines();
    loop {
        let line = lines
            .next()
            .expect("explore prints its link")
            .expect("readable stdout");
        if let Some(link) = line.strip_prefix("explorer: ") {
            return link.to_owned();
        }
    }
}

#[test]
fn the_link_check_prints_reaches_the_violating_state() {
    let dir = scratch("check-link");
    let (stdout, trace) = check_no_gate(&dir);
    assert!(
        stdout.contains("then open http://127.0.0.1:3000/#/steps/0/"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("explore --trace {}", trace.display())));
    let path = link_path(&stdout);

    let port = free_port();
    let mut child = spawn_explore(&trace, port);
    let link = printed_link(&mut child.0);
    assert_eq!(link, format!("http://127.0.0.1:{port}/#/steps/{path}"));
    wait_for_port(port, Duration::from_secs(20));
    assert_shows_i1_violation(&last_state(port, &path));
}

#[test]
fn a_step_that_is_no_model_action_is_bad_input() {
    let dir = scratch("bad-step");
    let (_, trace) = check_no_gate(&dir);
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    json["steps"][1]["record"]["value"] = serde_json::Value::from("maybe");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    let out = Command::new(BIN)
        .current_dir(root())
        .arg("explore")
        .arg("--trace")
        .arg(&bad)
        .args(["--addr", &format!("127.0.0.1:{}", free_port())])
        .output()
        .expect("run memtx-check explore");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("steps[1]") && err.contains("not an action of the model"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "no link for a bad trace");
}

#[test]
fn a_busy_address_is_bad_input() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let out = Command::new(BIN)
        .current_dir(root())
        .args(["explore", "models/ablations/no-gate.json", "--addr", &addr])
        .output()
        .expect("run memtx-check explore");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot listen"), "{err}");
}

/// `memtx-check explore models/default.json --addr 127.0.0.1:0`, its
/// stdout piped.
fn spawn_on_any_port() -> ChildGuard {
    ChildGuard(
        Command::new(BIN)
            .current_dir(root())
            .args(["explore", "models/default.json", "--addr", "127.0.0.1:0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start memtx-check explore"),
    )
}

/// The port of a printed `http://127.0.0.1:PORT/…` link.
fn port_of(link: &str) -> u16 {
    let rest = link
        .strip_prefix("http://127.0.0.1:")
        .expect("a loopback link");
    rest.split('/').next().unwrap().parse().expect("a port")
}

#[test]
fn port_zero_prints_the_port_actually_bound() {
    // The link said port 0 (issue 13.8).
    let mut child = spawn_on_any_port();
    let link = printed_link(&mut child.0);
    let port = port_of(&link);
    assert_ne!(port, 0, "{link}");
    wait_for_port(port, Duration::from_secs(20));
    assert_eq!(http_get(port, "/.status").0, 200);
}

#[test]
fn run_to_completion_explores_nothing() {
    // It started stateright's checker with no bound: about 10 MB/s until
    // killed, for anyone who could reach the port (issue 13.8).
    let mut child = spawn_on_any_port();
    let port = port_of(&printed_link(&mut child.0));
    wait_for_port(port, Duration::from_secs(20));
    assert_eq!(http(port, "POST", "/.runtocompletion").0, 200);
    std::thread::sleep(Duration::from_millis(1500));
    let (code, body) = http_get(port, "/.status");
    assert_eq!(code, 200);
    let status: StatusView = serde_json::from_str(&body).expect("status JSON");
    assert!(status.done, "{body}");
    assert_eq!(
        (status.state_count, status.unique_state_count),
        (0, 0),
        "{body}"
    );
    // Browsing is unaffected, and the picture says where the check is.
    let views = states(port, "0");
    assert!(!views.is_empty());
    let svg = views[0].svg.as_deref().expect("an SVG");
    assert!(svg.contains("the exhaustive check is memtx-check check MODEL"));
}
