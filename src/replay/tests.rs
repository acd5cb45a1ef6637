//! Replay: outcomes per step, refusals as step errors, invariants found
//! once at their first step, and the declared violation re-found.

use super::*;
use crate::protocol::{CommitResult, CommitStatus, Repair};

const BELIEF: &str = r#"{"kind": "belief", "entity": "order841", "attribute": "refund_eligible",
    "value": "yes", "source": "lookup", "authority": 0.7, "confidence": 0.8, "scope": "shared"}"#;

fn trace(config: &str, steps: &str, violation: &str) -> Trace {
    let text = format!(r#"{{"config": {config}, "steps": [{steps}], "violation": {violation}}}"#);
    Trace::parse(&text, "traces/t.json", None).unwrap()
}

const TOOLS: &str = r#"{"tools": [{"name": "issue_refund", "irreversible": true}]}"#;

fn refund_steps() -> String {
    format!(
        r#"{{"op": "open", "agent": 0, "tier": "external_action"}},
        {{"op": "stage", "tx": 0, "record": {BELIEF}}},
        {{"op": "commit", "tx": 0}},
        {{"op": "open", "agent": 1, "tier": "external_action"}},
        {{"op": "tool_call", "tx": 1, "tool": "issue_refund", "basis": [0]}},
        {{"op": "revoke", "record": 0}}"#
    )
}

#[test]
fn refund_example_commits_acts_and_logs_the_leak() {
    let report = replay(&trace(TOOLS, &refund_steps(), "null")).unwrap();
    assert_eq!(report.stores.len(), 7);
    assert_eq!(&report.final_store, report.stores.last().unwrap());
    let Ok(Outcome::Committed(c)) = &report.steps[2].result else {
        panic!("{:?}", report.steps[2].result)
    };
    assert_eq!(c.status, CommitStatus::Committed);
    assert_eq!(c.records[0].result, CommitResult::ActionSafe);
    let Ok(Outcome::ToolCall(g)) = &report.steps[4].result else {
        panic!()
    };
    assert!(g.allowed);
    assert_eq!(g.record, Some(1));
    let Ok(Outcome::Retracted { repairs, .. }) = &report.steps[5].result else {
        panic!()
    };
    assert_eq!(repairs[..], [(0, Repair::Revoked), (1, Repair::Leaked)]);
    assert!(!report.violated(), "{:?}", report.violations);
    assert_eq!(report.declared_status(), None);
    let text = render_text(&report);
    assert!(
        text.contains("T1 calls irreversible issue_refund on {r0}: allowed → r1"),
        "{text}"
    );
    assert!(text.contains("revoke r0: r0 revoked, r1 leaked"), "{text}");
    assert!(
        text.contains("no invariant violated (checked: I1, I2, G3, evidence, "),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&render_json(&report)).unwrap();
    assert_eq!(json["steps"][4]["outcome"]["record"], 1);
    assert_eq!(json["records"][1]["tool"], "issue_refund");
    assert_eq!(json["records"][0]["authority"], 0.7);
}

#[test]
fn refusals_are_step_errors_and_leave_the_store_alone() {
    let steps = r#"{"op": "commit", "tx": 3}, {"op": "open", "agent": 0, "tier": "low"}, {"op": "revoke", "record": 0}"#;
    let report = replay(&trace(TOOLS, steps, "null")).unwrap();
    assert_eq!(
        report.steps[0].result.as_ref().unwrap_err().to_string(),
        "unknown transaction T3"
    );
    assert_eq!(report.stores[0], report.stores[1]);
    assert!(report.steps[1].result.is_ok());
    assert!(report.steps[2].result.is_err());
    let json: serde_json::Value = serde_json::from_str(&render_json(&report)).unwrap();
    assert_eq!(json["steps"][0]["error"], "unknown transaction T3");
    assert!(json["steps"][0].get("outcome").is_none());
    assert!(render_text(&report).contains("step 0  T3 commits: refused: unknown transaction T3"));
}

#[test]
fn ablated_cascade_violates_i2_and_g3_once_each() {
    let config = r#"{"variant": {"ablate": ["cascade"]}}"#;
    let child = BELIEF
        .replace("refund_eligible", "refund_amount")
        .replace("\"shared\"", "\"shared\", \"derived_from\": [0]");
    let steps = format!(
        r#"{{"op": "open", "agent": 0, "tier": "low"}},
        {{"op": "stage", "tx": 0, "record": {BELIEF}}},
        {{"op": "commit", "tx": 0}},
        {{"op": "open", "agent": 1, "tier": "low"}},
        {{"op": "stage", "tx": 1, "record": {child}}},
        {{"op": "commit", "tx": 1}},
        {{"op": "revoke", "record": 0}},
        {{"op": "open", "agent": 0, "tier": "low"}}"#
    );
    let report = replay(&trace(config, &steps, r#"{"property": "I2", "step": 6}"#)).unwrap();
    assert!(report.violated());
    assert_eq!(report.first(Invariant::I2).map(|v| v.step), Some(6));
    assert_eq!(report.first(Invariant::G3).map(|v| v.step), Some(6));
    assert_eq!(report.violations.len(), 2, "each invariant once");
    assert_eq!(report.declared_status(), Some(Declared::Refound));
    let text = render_text(&report);
    assert!(
        text.contains("declared violation: I2 after step 6: re-found at the same step"),
        "{text}"
    );
    let late = replay(&trace(config, &steps, r#"{"property": "I2", "step": 7}"#)).unwrap();
    assert_eq!(late.declared_status(), Some(Declared::ElsewhereAt(6)));
}
