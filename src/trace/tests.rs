//! Trace parsing, its errors, the JSON round trip, step/operation
//! conversion and the ITF export's shape.

use super::*;
use crate::input::InputError;
use crate::invariants::Invariant;
use crate::protocol::{Hundredths, Op, Store};
use serde_json::Value;

const CONFIG: &str = r#"{"agents": 2, "tools": [{"name": "issue_refund", "irreversible": true}]}"#;

fn trace_text(steps: &str, violation: &str) -> String {
    format!(r#"{{"config": {CONFIG}, "steps": [{steps}], "violation": {violation}}}"#)
}

const BELIEF: &str = r#"{"kind": "belief", "entity": "order841", "attribute": "refund_eligible",
    "value": "yes", "source": "lookup", "authority": 0.7, "confidence": 0.8, "scope": "shared"}"#;

fn refund_steps() -> String {
    format!(
        r#"{{"op": "open", "agent": 0, "tier": "external_action"}},
        {{"op": "stage", "tx": 0, "record": {BELIEF}}},
        {{"op": "commit", "tx": 0}},
        {{"op": "open", "agent": 1, "tier": "external_action"}},
        {{"op": "tool_call", "tx": 1, "tool": "issue_refund", "basis": [0]}},
        {{"op": "revoke", "record": 0}},
        {{"op": "abort", "tx": 1}}"#
    )
}

fn parse(text: &str) -> Result<Trace, InputError> {
    Trace::parse(text, "traces/x.json", None)
}

fn err(text: &str) -> String {
    let m = parse(text).unwrap_err().to_string();
    assert!(!m.contains('\n'), "one line: {m}");
    assert!(m.starts_with("traces/x.json: "), "{m}");
    m
}

#[test]
fn parses_steps_with_defaults() {
    let t = parse(&trace_text(&refund_steps(), "null")).unwrap();
    assert_eq!(
        t.config.name, "x",
        "an inline configuration is named after the trace"
    );
    assert_eq!(t.config_ref, ConfigRef::Inline);
    assert_eq!(t.steps.len(), 7);
    let Step::Stage {
        tx: 0,
        proposal: record,
    } = &t.steps[1]
    else {
        panic!("{:?}", t.steps[1]);
    };
    assert_eq!(record.authority, Hundredths(70));
    assert_eq!(record.owner, None);
    assert!(record.derived_from.is_empty());
    assert_eq!((record.valid_from, record.valid_to), (None, None));
    assert_eq!(
        t.steps[4],
        Step::ToolCall {
            tx: 1,
            tool: "issue_refund".into(),
            basis: vec![0]
        }
    );
    assert_eq!(t.steps[5], Step::Revoke { record: 0 });
    assert_eq!(t.violation, None);
}

#[test]
fn authority_defaults_to_one_half() {
    let record = r#"{"kind": "belief", "entity": "e", "attribute": "a", "value": "v", "confidence": 0.8, "scope": "shared"}"#;
    let t = parse(&trace_text(
        &format!(r#"{{"op": "open", "agent": 0, "tier": "low"}}, {{"op": "stage", "tx": 0, "record": {record}}}"#),
        "null",
    ))
    .unwrap();
    let Step::Stage {
        proposal: record, ..
    } = &t.steps[1]
    else {
        panic!()
    };
    assert_eq!(record.authority, Hundredths(50));
    assert_eq!(record.source, None);
}

#[test]
fn round_trips_through_json() {
    let violation = r#"{"property": "I2", "step": 5, "detail": "r1 still committed"}"#;
    let t = parse(&trace_text(&refund_steps(), violation)).unwrap();
    assert_eq!(
        t.violation.as_ref().map(|v| (v.property, v.step)),
        Some((Invariant::I2, 5))
    );
    let text = t.to_json_string();
    let back = parse(&text).unwrap();
    assert_eq!(back, t);
    assert_eq!(back.to_json_string(), text, "writing is stable");
    assert!(
        text.contains("\n    {\"op\": \"open\", \"agent\": 0, \"tier\": \"external_action\"},\n"),
        "{text}"
    );
    let empty = parse(&trace_text("", "null")).unwrap();
    assert_eq!(parse(&empty.to_json_string()).unwrap(), empty);
}

#[test]
fn new_traces_save_and_load_back() {
    let t = parse(&trace_text(&refund_steps(), "null")).unwrap();
    let fresh = Trace::new(t.config.clone(), t.steps.clone(), None);
    assert_eq!(fresh.config_ref, ConfigRef::Inline);
    let dir = std::env::temp_dir().join(format!("memtx-save-{}", std::process::id()));
    let path = dir.join("sub/x.json");
    fresh.save(&path).unwrap();
    let loaded = Trace::load(&path).unwrap();
    assert_eq!(loaded.steps, fresh.steps);
    assert_eq!(loaded.config, fresh.config);
    assert_eq!(loaded.origin, path.display().to_string());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn model_paths_resolve_beside_the_trace() {
    let dir = std::env::temp_dir().join(format!("memtx-trace-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    std::fs::write(dir.join("models/m.json"), CONFIG).unwrap();
    let text =
        r#"{"model": "models/m.json", "steps": [{"op": "open", "agent": 1, "tier": "low"}]}"#;
    let t = Trace::parse(text, "t.json", Some(&dir)).unwrap();
    assert_eq!(t.config.name, "m");
    assert_eq!(t.config_ref, ConfigRef::Path("models/m.json".into()));
    let written = t.to_json_string();
    assert!(
        written.contains("\"model\": \"models/m.json\""),
        "{written}"
    );
    assert_eq!(Trace::parse(&written, "t.json", Some(&dir)).unwrap(), t);
    let m = Trace::parse(text, "t.json", None).unwrap_err().to_string();
    assert!(
        m.starts_with("t.json: model: \"models/m.json\" is not a file"),
        "{m}"
    );
    std::fs::write(dir.join("models/m.json"), r#"{"agents": 0}"#).unwrap();
    let m = Trace::parse(text, "t.json", Some(&dir))
        .unwrap_err()
        .to_string();
    assert!(
        m.contains("models/m.json: agents: 0 is out of range"),
        "{m}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_staged_records_unknown_field_lists_the_known_ones_in_documented_order() {
    // The record flattens the raw record a template shares; the message is
    // the one serde's deny_unknown_fields gave when the fields were written
    // out, `derived_from` in its place after `scope`.
    let m = err(&trace_text(
        &refund_steps().replace("\"scope\"", "\"parent\""),
        "null",
    ));
    assert_eq!(
        m,
        "traces/x.json: steps[1].record.parent: unknown field `parent`, expected one of \
         `kind`, `entity`, `attribute`, `value`, `source`, `authority`, `confidence`, \
         `scope`, `derived_from`, `valid_from`, `valid_to`, `owner`"
    );
}

#[test]
fn a_staged_records_known_fields_are_the_fields_it_is_written_with() {
    use crate::input::fields::KnownFields;
    let trace = parse(&trace_text(&refund_steps(), "null")).unwrap();
    assert_eq!(
        super::raw::RawStagedRecord::known_fields(),
        crate::config::tests::written_keys(&trace.to_json_string(), "\"record\":")
    );
}

#[test]
fn a_staged_record_is_an_object_not_a_list_of_values() {
    let m = err(&trace_text(
        r#"{"op": "open", "agent": 0, "tier": "low"}, {"op": "stage", "tx": 0, "record": []}"#,
        "null",
    ));
    assert_eq!(m, "traces/x.json: steps[1].record: [] is not an object");
}

#[test]
fn errors_name_step_field_and_value() {
    let m = err(&trace_text(&refund_steps().replace("0.8", "1.5"), "null"));
    assert!(
        m.contains("steps[1].record.confidence: 1.5 is not a decimal"),
        "{m}"
    );
    let m = err(&trace_text(
        &refund_steps().replace("\"scope\"", "\"scop\""),
        "null",
    ));
    assert!(
        m.contains("steps[1].record.scop: unknown field `scop`"),
        "{m}"
    );
    let m = err(&trace_text(
        r#"{"op": "open", "agent": 0, "tier": "low", "colour": 1}"#,
        "null",
    ));
    assert!(m.contains("steps[0].colour: unknown field"), "{m}");
    let m = err(&trace_text(
        r#"{"op": "commit", "tx": 0, "tool": "x"}"#,
        "null",
    ));
    assert!(
        m.contains("steps[0].tool: not a field of a \"commit\" step"),
        "{m}"
    );
    let m = err(&trace_text(r#"{"op": "jump"}"#, "null"));
    assert!(m.contains("steps[0].op: \"jump\" is not one of"), "{m}");
    let m = err(&trace_text(r#"{"tx": 0}"#, "null"));
    assert!(m.contains("steps[0].op: missing"), "{m}");
    let m = err(&trace_text(r#"{"op": "commit"}"#, "null"));
    assert!(m.contains("steps[0].tx: missing"), "{m}");
    let m = err(&trace_text(r#"{"op": "commit", "tx": 256}"#, "null"));
    assert!(m.contains("steps[0].tx: 256 is out of range"), "{m}");
    let m = err(&trace_text(
        r#"{"op": "open", "agent": 2, "tier": "low"}"#,
        "null",
    ));
    assert!(m.contains("steps[0].agent: 2 is not an agent"), "{m}");
    let m = err(&trace_text(
        r#"{"op": "tool_call", "tx": 0, "tool": "wire_money", "basis": []}"#,
        "null",
    ));
    assert!(m.contains("steps[0].tool: \"wire_money\" is not a tool of the configuration (tools: issue_refund)"), "{m}");
    let m = err(&trace_text(
        r#"{"op": "tool_call", "tx": 0, "tool": "issue_refund", "basis": [1, 1]}"#,
        "null",
    ));
    assert!(m.contains("steps[0].basis[1]: 1 is listed twice"), "{m}");
    let m = err(&trace_text(r#"{"op": "revoke", "record": 64}"#, "null"));
    assert!(
        m.contains("steps[0].record: 64 is out of range 0..=63"),
        "{m}"
    );
    let m = err(&trace_text(r#"{"op": "revoke", "record": "r0"}"#, "null"));
    assert!(
        m.contains("steps[0].record: \"r0\" is not a record id"),
        "{m}"
    );
    let m = err(&trace_text(r#"{"op": "revalidate", "tx": 0}"#, "null"));
    assert!(m.contains("steps[0].record: missing"), "{m}");
    let m = err(&trace_text(
        r#"{"op": "revalidate", "tx": 0, "record": 1, "basis": []}"#,
        "null",
    ));
    assert!(
        m.contains("steps[0].basis: not a field of a \"revalidate\" step (it takes tx, record)"),
        "{m}"
    );
    let m = err(&trace_text(
        &refund_steps(),
        r#"{"property": "I7", "step": 0}"#,
    ));
    assert!(m.contains("violation.property: \"I7\""), "{m}");
    let m = err(&trace_text(
        &refund_steps(),
        r#"{"property": "I1", "step": 7}"#,
    ));
    assert!(m.contains("violation.step: 7 is out of range 0..=6"), "{m}");
    let m = err(r#"{"steps": []}"#);
    assert!(m.contains("missing `config`"), "{m}");
    let m = err(r#"{"config": {"bounds": {"records": 65}}, "steps": []}"#);
    assert!(
        m.contains("config.bounds.records: 65 is out of range"),
        "{m}"
    );
    let m = err(r#"{"config": {"bogus": 1}, "steps": []}"#);
    assert!(m.contains("config.bogus: unknown field"), "{m}");
    let m = err(r#"{"config": {}, "steps": [], "extra": 1}"#);
    assert!(m.contains("extra: unknown field"), "{m}");
    let m = err("{\"config\": {}, \"steps\": [}");
    assert!(m.contains("malformed JSON") && m.contains("line 1"), "{m}");
}

#[test]
fn tiers_must_be_allowed_by_the_configuration() {
    let text =
        r#"{"config": {"tiers": ["low"]}, "steps": [{"op": "open", "agent": 0, "tier": "high"}]}"#;
    let m = err(text);
    assert!(
        m.contains("steps[0].tier: \"high\" is not a tier the configuration allows (low)"),
        "{m}"
    );
}

#[test]
fn steps_convert_to_operations_and_back() {
    let t = parse(&trace_text(&refund_steps(), "null")).unwrap();
    let mut compiled = t.config.compile();
    for step in &t.steps {
        let op = step.to_op(&mut compiled).unwrap();
        assert_eq!(&Step::from_op(&op, &compiled), step);
    }
    let unknown = Step::ToolCall {
        tx: 0,
        tool: "nope".into(),
        basis: vec![],
    };
    assert!(unknown
        .to_op(&mut compiled)
        .unwrap_err()
        .contains("\"nope\""));
    let far = Step::ToolCall {
        tx: 0,
        tool: "issue_refund".into(),
        basis: vec![64],
    };
    assert!(
        far.to_op(&mut compiled).is_err(),
        "ids past the store are refused, not a panic"
    );
}

#[test]
fn itf_export_has_the_itf_shape() {
    let t = parse(&trace_text(&refund_steps(), "null")).unwrap();
    let mut compiled = t.config.compile();
    let mut store = Store::new();
    let mut states = vec![store.clone()];
    for step in &t.steps {
        let op: Op = step.to_op(&mut compiled).unwrap();
        let _ = compiled.protocol.apply(&mut store, &op);
        states.push(store.clone());
    }
    let itf = to_itf(&states, &t.steps, &compiled);
    assert_eq!(itf["#meta"]["format"], "ITF");
    assert_eq!(
        itf["vars"],
        serde_json::json!([
            "records",
            "transactions",
            "rollback_log",
            "action",
            "mbt::actionTaken",
            "mbt::nondetPicks"
        ])
    );
    let states_json = itf["states"].as_array().unwrap();
    assert_eq!(states_json.len(), t.steps.len() + 1);
    for (i, state) in states_json.iter().enumerate() {
        assert_eq!(state["#meta"]["index"], i);
        for var in ["records", "transactions", "rollback_log", "action"] {
            assert!(!state[var].is_null(), "state {i} lacks {var}");
        }
    }
    assert_eq!(states_json[0]["action"]["op"], "init");
    // Quint's MBT variables: the operation's name, and every argument
    // name, picked or not.
    assert_eq!(states_json[0]["mbt::actionTaken"], "init");
    for (i, state) in states_json.iter().enumerate() {
        let picks = state["mbt::nondetPicks"].as_object().unwrap();
        let names: Vec<&str> = picks.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["agent", "basis", "proposal", "record", "tier", "tool", "tx"],
            "state {i}"
        );
        if i > 0 {
            assert_eq!(
                state["mbt::actionTaken"], state["action"]["op"],
                "state {i}"
            );
        }
    }
    assert_eq!(
        states_json[5]["mbt::nondetPicks"]["tool"],
        serde_json::json!({"tag": "Some", "value": "issue_refund"})
    );
    assert_eq!(
        states_json[5]["mbt::nondetPicks"]["basis"],
        serde_json::json!({"tag": "Some", "value": {"#set": [{"#bigint": "0"}]}})
    );
    assert_eq!(states_json[5]["mbt::nondetPicks"]["agent"]["tag"], "None");
    let after_call = &states_json[5];
    assert_eq!(after_call["action"]["op"], "tool_call");
    assert_eq!(
        after_call["action"]["basis"],
        serde_json::json!({"#set": [{"#bigint": "0"}]})
    );
    let refund = &after_call["records"][1];
    assert_eq!(refund["id"], serde_json::json!({"#bigint": "1"}));
    assert_eq!(refund["kind"], "tool_action");
    assert_eq!(
        refund["tool"],
        serde_json::json!({"tag": "Some", "value": "issue_refund"})
    );
    assert_eq!(refund["reason"]["tag"], "None");
    assert_eq!(
        after_call["records"][0]["authority"],
        serde_json::json!({"#bigint": "70"})
    );
    let log = states_json[6]["rollback_log"].as_array().unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[1]["repair"], "leaked");
    // ITF has no floats and no nulls anywhere.
    fn plain(v: &Value) -> bool {
        match v {
            Value::Null => false,
            Value::Number(n) => n.is_u64(),
            Value::Array(a) => a.iter().all(plain),
            Value::Object(o) => o.values().all(plain),
            _ => true,
        }
    }
    for state in states_json {
        for var in ["records", "transactions", "rollback_log", "action"] {
            assert!(plain(&state[var]), "{}", state[var]);
        }
    }
}

mod round_trip {
    //! Any trace written by `to_json_string` parses back equal (the
    //! replay encoding round-trips, as shuttle's does).

    use super::super::*;
    use crate::config::ModelConfig;
    use crate::invariants::Invariant;
    use crate::protocol::{Hundredths, Kind, Scope, Tier};
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "order841",
            "refund \"eligible\"",
            "é ü",
            "",
            "a\\b\nc",
        ])
        .prop_map(str::to_owned)
    }

    fn ids() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::btree_set(0u8..64, 0..4).prop_map(|s| s.into_iter().collect())
    }

    fn window() -> impl Strategy<Value = (Option<i32>, Option<i32>)> {
        (prop::option::of(-5i32..5), prop::option::of(0i32..3)).prop_map(|(from, len)| {
            match (from, len) {
                (Some(f), Some(l)) => (Some(f), Some(f + l)),
                (f, _) => (f, None),
            }
        })
    }

    fn record() -> impl Strategy<Value = RecordSpec> {
        (
            prop::sample::select(Kind::ALL.to_vec()),
            (text(), text(), text(), prop::option::of(text())),
            (0u8..=100, 0u8..=100),
            prop::sample::select(vec![Scope::Private, Scope::Shared, Scope::Public]),
            ids(),
            window(),
            prop::option::of(0u8..2),
        )
            .prop_map(
                |(
                    kind,
                    (entity, attribute, value, source),
                    (a, c),
                    scope,
                    derived_from,
                    (valid_from, valid_to),
                    owner,
                )| RecordSpec {
                    kind,
                    entity,
                    attribute,
                    value,
                    source,
                    authority: Hundredths(a),
                    confidence: Hundredths(c),
                    scope,
                    derived_from,
                    valid_from,
                    valid_to,
                    owner,
                },
            )
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..2, prop::sample::select(Tier::ALL.to_vec()))
                .prop_map(|(agent, tier)| Step::Open { agent, tier }),
            (any::<u8>(), record()).prop_map(|(tx, proposal)| Step::Stage { tx, proposal }),
            any::<u8>().prop_map(|tx| Step::Commit { tx }),
            any::<u8>().prop_map(|tx| Step::Abort { tx }),
            (0u8..64).prop_map(|record| Step::Revoke { record }),
            (
                any::<u8>(),
                prop::sample::select(vec!["issue_refund", "send_note"]),
                ids()
            )
                .prop_map(|(tx, tool, basis)| Step::ToolCall {
                    tx,
                    tool: tool.to_owned(),
                    basis
                }),
            (any::<u8>(), 0u8..64).prop_map(|(tx, record)| Step::Revalidate { tx, record }),
            (any::<u8>(), 0u8..64).prop_map(|(tx, record)| Step::Rebuild { tx, record }),
        ]
    }

    proptest! {
        #[test]
        fn written_traces_parse_back_equal(
            steps in prop::collection::vec(step(), 1..12),
            declare in prop::option::of((0usize..3, any::<prop::sample::Index>(), text())),
        ) {
            let config = ModelConfig::parse(
                r#"{"tools": [{"name": "issue_refund", "irreversible": true}, {"name": "send_note", "irreversible": false}]}"#,
                "traces/p.json",
            ).unwrap();
            let violation = declare.map(|(p, at, detail)| TraceViolation {
                property: Invariant::ALL[p],
                step: at.index(steps.len()),
                detail,
            });
            let trace = Trace { config, config_ref: ConfigRef::Inline, steps, violation, origin: "traces/p.json".into() };
            let text = trace.to_json_string();
            let back = Trace::parse(&text, "traces/p.json", None);
            prop_assert_eq!(back, Ok(trace), "{}", text);
        }
    }
}

#[test]
fn sequences_and_repeated_keys_are_refused_in_a_trace() {
    // serde read a struct from a sequence: `"config": []` was a
    // configuration of defaults (issue 13.5).
    assert_eq!(
        err(r#"{"config": [], "steps": []}"#),
        "traces/x.json: config: [] is not an object"
    );
    assert_eq!(
        err(r#"{"config": {"bounds": [2, 2, 3]}, "steps": []}"#),
        "traces/x.json: config.bounds: [2,2,3] is not an object"
    );
    let step = r#"{"op": "open", "agent": 0, "tier": "low"}, {"op": "commit", "tx": 0, "tx": 1}"#;
    assert_eq!(
        err(&trace_text(step, "null")),
        "traces/x.json: steps[1].tx: given twice (0, then 1) (line 1, column 172); \
         a key may appear only once"
    );
    assert_eq!(
        err(&trace_text(r#"["open", 0, "low"]"#, "null")),
        "traces/x.json: steps[0]: [\"open\",0,\"low\"] is not an object"
    );
    assert_eq!(
        err(&trace_text("", r#"["I1", 0, ""]"#)),
        "traces/x.json: violation: [\"I1\",0,\"\"] is not an object"
    );
}
