//! Configuration parsing: defaults, every validation rule, one-line errors
//! that name file, path and value, and the JSON round trip.

use super::*;
use crate::protocol::{Hundredths, LaunderingParents, Mechanism, Scope, ToolBasis};

const FULL: &str = r#"{
  "name": "refunds", "description": "refund desk",
  "bounds": {"records": 5, "transactions": 2, "depth": "full"},
  "agents": 3, "tiers": ["low", "external_action"],
  "tools": [{"name": "issue_refund", "irreversible": true}, {"name": "send_note", "irreversible": false}],
  "clock": 5,
  "templates": [
    {"name": "lookup", "kind": "belief", "entity": "order841", "attribute": "refund_eligible",
     "value": "yes", "source": "lookup", "authority": 0.7, "confidence": 0.8, "scope": "shared",
     "valid_from": 1, "valid_to": 9, "owner": 2, "parent": "optional"},
    {"name": "digest", "kind": "summary", "entity": "order841", "attribute": "digest",
     "value": "eligible", "source": null, "confidence": 0.6, "scope": "private", "parent": "required"}
  ],
  "variant": {"laundering_parents": "any", "tool_basis": "snapshot", "ablate": ["gate", "cascade"]},
  "expect": {"I1": "violated", "G3": "holds"}
}"#;

fn err(text: &str) -> String {
    ModelConfig::parse(text, "models/x.json")
        .unwrap_err()
        .to_string()
}

fn template_with(field: &str) -> String {
    format!(
        r#"{{"templates": [{{"name": "a", "kind": "belief", "entity": "e", "attribute": "a",
            "value": "v", "confidence": 0.8, "scope": "shared", {field}}}]}}"#
    )
}

fn assert_one_line(message: &str, needles: &[&str]) {
    assert!(!message.contains('\n'), "one line: {message}");
    assert!(message.starts_with("models/x.json: "), "{message}");
    for needle in needles {
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    }
}

#[test]
fn empty_object_takes_every_default() {
    let c = ModelConfig::parse("{}", "models/default.json").unwrap();
    assert_eq!(c.name, "default");
    assert_eq!(c.description, "");
    assert_eq!(c.bounds, Bounds::default());
    assert_eq!(c.bounds.depth, Depth::Bounded(10));
    assert_eq!(c.agents, 2);
    assert_eq!(c.tiers, Tier::ALL.to_vec());
    assert!(c.tools.is_empty() && c.templates.is_empty());
    assert_eq!(c.clock, None);
    assert_eq!(c.variant, Variant::default());
    assert_eq!(c.expect, Expectations::default());
}

#[test]
fn full_configuration_reads_every_field() {
    let c = ModelConfig::parse(FULL, "models/x.json").unwrap();
    assert_eq!(c.name, "refunds");
    assert_eq!(c.bounds.records, 5);
    assert_eq!(c.bounds.depth, Depth::Full);
    assert_eq!(c.agents, 3);
    assert_eq!(c.tiers, vec![Tier::Low, Tier::ExternalAction]);
    assert!(c.tools[0].irreversible && !c.tools[1].irreversible);
    assert_eq!(c.clock, Some(5));
    let t = &c.templates[0];
    assert_eq!(t.record.authority, Hundredths(70));
    assert_eq!(t.record.confidence, Hundredths(80));
    assert_eq!(
        (t.record.valid_from, t.record.valid_to, t.record.owner),
        (Some(1), Some(9), Some(2))
    );
    assert_eq!(t.parent, ParentRule::Optional);
    let d = &c.templates[1];
    assert_eq!(
        d.record.authority,
        Hundredths(50),
        "authority defaults to 0.5"
    );
    assert_eq!(d.record.source, None);
    assert_eq!(d.record.scope, Scope::Private);
    assert_eq!(d.parent, ParentRule::Required);
    assert_eq!(c.variant.laundering_parents, LaunderingParents::Any);
    assert_eq!(c.variant.tool_basis, ToolBasis::Snapshot);
    assert_eq!(
        c.variant.ablated(),
        vec![Mechanism::Gate, Mechanism::Cascade]
    );
    assert_eq!(c.expect.get(Invariant::I1), Some(Expect::Violated));
    assert_eq!(c.expect.get(Invariant::I2), None);
    assert_eq!(c.expect.get(Invariant::G3), Some(Expect::Holds));
}

#[test]
fn to_json_round_trips() {
    for text in [FULL, "{}"] {
        let c = ModelConfig::parse(text, "models/x.json").unwrap();
        let back = ModelConfig::parse(&c.to_json().to_string(), "models/other.json").unwrap();
        assert_eq!(back, c);
    }
}

#[test]
fn malformed_json_names_line_and_column() {
    let m = err("{\n  \"agents\": 2,\n}");
    assert_one_line(&m, &["malformed JSON", "line 3", "column"]);
}

#[test]
fn unknown_fields_are_named_with_their_path() {
    assert_one_line(&err(r#"{"agentz": 2}"#), &["agentz", "unknown field"]);
    assert_one_line(
        &err(r#"{"bounds": {"recs": 2}}"#),
        &["bounds.recs", "unknown field `recs`", "records"],
    );
    assert_one_line(
        &err(&template_with(r#""colour": "red""#)),
        &["templates[0].colour"],
    );
    assert_one_line(
        &err(
            r#"{"tools": [{"name": "t", "irreversible": true}, {"name": "u", "irreversible": true, "x": 1}]}"#,
        ),
        &["tools[1].x"],
    );
    assert_one_line(
        &err(r#"{"variant": {"ablate": [], "extra": 1}}"#),
        &["variant.extra"],
    );
    assert_one_line(&err(r#"{"expect": {"I9": "holds"}}"#), &["expect.I9"]);
}

#[test]
fn wrong_types_and_unknown_names_are_located() {
    assert_one_line(&err(r#"{"agents": "two"}"#), &["agents", "\"two\""]);
    assert_one_line(
        &err(r#"{"tiers": ["low", "urgent"]}"#),
        &["tiers", "urgent"],
    );
    assert_one_line(
        &err(&template_with(r#""owner": 1.5"#)),
        &["templates[0].owner", "1.5"],
    );
    assert_one_line(
        &err(r#"{"variant": {"ablate": ["gate", "magic"]}}"#),
        &["variant.ablate", "magic"],
    );
    assert_one_line(
        &err(r#"{"expect": {"I1": "maybe"}}"#),
        &["expect.I1", "maybe"],
    );
    assert_one_line(&err("[1, 2]"), &["is not an object"]);
}

#[test]
fn bounds_are_checked() {
    assert_one_line(
        &err(r#"{"bounds": {"records": 0}}"#),
        &["bounds.records", "0 is out of range 1..=64"],
    );
    assert_one_line(
        &err(r#"{"bounds": {"records": 65}}"#),
        &["bounds.records", "65"],
    );
    assert_one_line(
        &err(r#"{"bounds": {"transactions": 0}}"#),
        &["bounds.transactions", "0"],
    );
    assert_one_line(
        &err(r#"{"bounds": {"transactions": 256}}"#),
        &["bounds.transactions", "256"],
    );
    assert_one_line(
        &err(r#"{"bounds": {"depth": 1001}}"#),
        &["bounds.depth", "1001"],
    );
    assert_one_line(
        &err(r#"{"bounds": {"depth": -1}}"#),
        &["bounds.depth", "-1"],
    );
    assert_one_line(
        &err(r#"{"bounds": {"depth": "deep"}}"#),
        &["bounds.depth", "\"deep\""],
    );
    assert_one_line(
        &err(r#"{"bounds": {"depth": 2.5}}"#),
        &["bounds.depth", "2.5"],
    );
    let c = ModelConfig::parse(
        r#"{"bounds": {"records": 64, "transactions": 255, "depth": 0}}"#,
        "m.json",
    )
    .unwrap();
    assert_eq!(
        (c.bounds.records, c.bounds.transactions, c.bounds.depth),
        (64, 255, Depth::Bounded(0))
    );
}

#[test]
fn agents_are_checked() {
    assert_one_line(
        &err(r#"{"agents": 0}"#),
        &["agents", "0 is out of range 1..=255"],
    );
    assert_one_line(&err(r#"{"agents": 256}"#), &["agents", "256"]);
}

#[test]
fn tiers_are_non_empty_and_distinct() {
    assert_one_line(&err(r#"{"tiers": []}"#), &["tiers", "empty"]);
    assert_one_line(
        &err(r#"{"tiers": ["low", "high", "low"]}"#),
        &["tiers[2]", "\"low\" is listed twice"],
    );
}

#[test]
fn tools_are_named_uniquely_and_say_whether_irreversible() {
    assert_one_line(
        &err(
            r#"{"tools": [{"name": "t", "irreversible": true}, {"name": "t", "irreversible": false}]}"#,
        ),
        &["tools[1].name", "\"t\" is a duplicate tool name"],
    );
    assert_one_line(
        &err(r#"{"tools": [{"name": "t"}]}"#),
        &["tools[0].irreversible", "missing"],
    );
    assert_one_line(
        &err(r#"{"tools": [{"irreversible": true}]}"#),
        &["tools[0].name", "missing"],
    );
    assert_one_line(
        &err(r#"{"tools": [{"name": "", "irreversible": true}]}"#),
        &["tools[0].name", "empty"],
    );
}

#[test]
fn clock_and_validity_fit_i32_and_windows_are_ordered() {
    assert_one_line(&err(r#"{"clock": 3000000000}"#), &["clock", "3000000000"]);
    assert_one_line(
        &err(&template_with(r#""valid_from": 5, "valid_to": 4"#)),
        &["templates[0].valid_to", "4 is before valid_from 5"],
    );
    assert_one_line(
        &err(&template_with(r#""valid_from": -3000000000"#)),
        &["templates[0].valid_from"],
    );
    let c = ModelConfig::parse(
        &template_with(r#""valid_from": 4, "valid_to": 4"#),
        "m.json",
    )
    .unwrap();
    assert_eq!(
        (
            c.templates[0].record.valid_from,
            c.templates[0].record.valid_to
        ),
        (Some(4), Some(4))
    );
}

#[test]
fn decimals_lie_on_the_hundredths_grid() {
    assert_one_line(
        &err(&template_with(r#""authority": 0.555"#)),
        &["templates[0].authority: 0.555 is not a decimal in [0, 1] on the hundredths grid"],
    );
    assert_one_line(
        &err(&template_with(r#""authority": 1.5"#)),
        &["templates[0].authority", "1.5"],
    );
    assert_one_line(
        &err(&template_with(r#""authority": -0.1"#)),
        &["templates[0].authority", "-0.1"],
    );
    let bad_confidence = template_with(r#""source": "s""#).replace("0.8", "1.01");
    assert_one_line(&err(&bad_confidence), &["templates[0].confidence", "1.01"]);
}

#[test]
fn templates_are_checked() {
    let two = r#"{"templates": [
        {"name": "a", "kind": "belief", "entity": "e", "attribute": "a", "value": "v", "confidence": 0.8, "scope": "shared"},
        {"name": "a", "kind": "belief", "entity": "e", "attribute": "a", "value": "w", "confidence": 0.8, "scope": "shared"}]}"#;
    assert_one_line(
        &err(two),
        &["templates[1].name", "\"a\" is a duplicate template name"],
    );
    assert_one_line(
        &err(&template_with(r#""source": "s""#).replace("\"belief\"", "\"tool_action\"")),
        &["templates[0].kind", "tool_action"],
    );
    assert_one_line(
        &err(&template_with(r#""owner": 2"#)),
        &["templates[0].owner", "2 is not an agent"],
    );
    assert_one_line(
        &err(r#"{"templates": [{"name": "a"}]}"#),
        &["templates[0].kind", "missing"],
    );
    assert_one_line(
        &err(&template_with(r#""source": "s""#).replace(r#", "scope": "shared""#, "")),
        &["templates[0].scope", "missing"],
    );
}

#[test]
fn ablations_are_distinct() {
    assert_one_line(
        &err(r#"{"variant": {"ablate": ["gate", "cascade", "gate"]}}"#),
        &["variant.ablate[2]", "\"gate\" is listed twice"],
    );
}

#[test]
fn load_reports_unreadable_files_and_sets_the_source_path() {
    let missing = Path::new("/nonexistent/memtx/models/none.json");
    let m = ModelConfig::load(missing).unwrap_err().to_string();
    assert!(
        m.starts_with("/nonexistent/memtx/models/none.json: cannot read"),
        "{m}"
    );
    let dir = std::env::temp_dir().join(format!("memtx-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.json");
    std::fs::write(&path, "{}").unwrap();
    let c = ModelConfig::load(&path).unwrap();
    assert_eq!(c.name, "small");
    assert_eq!(c.source_path.as_deref(), Some(path.as_path()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compile_interns_tools_first_and_templates_without_parents() {
    let c = ModelConfig::parse(FULL, "models/x.json").unwrap();
    let compiled = c.compile();
    assert_eq!(compiled.tool_index("issue_refund"), Some(0));
    assert_eq!(compiled.tool_index("send_note"), Some(1));
    assert_eq!(
        compiled.tool_index("order841"),
        None,
        "a symbol that is not a tool"
    );
    assert_eq!(compiled.tool_name(1), "send_note");
    assert_eq!(compiled.protocol.clock(), Some(5));
    assert_eq!(compiled.protocol.variant(), &c.variant);
    assert!(compiled.invariant_context.is_irreversible(0));
    assert!(!compiled.invariant_context.is_irreversible(1));
    let p = compiled.templates[0];
    assert_eq!(compiled.symbols.name(p.entity), "order841");
    assert_eq!(p.source.map(|s| compiled.symbols.name(s)), Some("lookup"));
    assert!(p.derived_from.is_empty());
    assert_eq!(p.owner, Some(2));
    assert_eq!((p.window.from, p.window.to), (Some(1), Some(9)));
    assert_eq!(compiled.templates[1].owner, None);
}
