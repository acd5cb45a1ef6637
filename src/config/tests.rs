//! Configuration parsing: defaults, every validation rule, one-line errors
//! that name file, path and value, and the JSON round trip.

use super::*;
use crate::invariants::Invariant;
use crate::protocol::{Hundredths, LaunderingParents, Mechanism, Scope, Tier, ToolBasis, Variant};
use std::path::Path;

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
  "expect": {"I1": "violated", "G3": "holds"},
  "symmetry": true
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
    assert!(!c.symmetry);
    assert!(
        c.to_json().get("symmetry").is_none(),
        "off is not written, so configurations without it read as before"
    );
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
    assert_eq!(
        c.expect.get(Invariant::I1),
        Some(Expect::violated(None, None))
    );
    assert_eq!(c.expect.get(Invariant::I2), None);
    assert_eq!(c.expect.get(Invariant::G3), Some(Expect::Holds));
    assert!(c.symmetry);
}

/// TLC's rule: an invariant the block does not name is judged as
/// expected to hold; `"any"` leaves it unpinned (issue 29 item 5).
#[test]
fn an_unnamed_invariant_is_expected_to_hold_and_any_is_a_verdict() {
    let c = ModelConfig::parse(r#"{"expect": {"I1": "any"}}"#, "models/x.json").unwrap();
    assert_eq!(c.expect.get(Invariant::I1), Some(Expect::Any));
    assert_eq!(c.expect.judged(Invariant::I1), Expect::Any);
    assert_eq!(c.expect.get(Invariant::G3), None);
    assert_eq!(c.expect.judged(Invariant::G3), Expect::Holds);
    let none = ModelConfig::parse("{}", "models/x.json").unwrap();
    assert!(Invariant::ALL
        .iter()
        .all(|&i| none.expect.judged(i) == Expect::Holds));
    let back = ModelConfig::parse(&c.to_json().to_string(), "models/y.json").unwrap();
    assert_eq!(
        back.expect, c.expect,
        "\"any\" is written back as it was read"
    );
}

#[test]
fn symmetry_is_a_boolean() {
    for bad in [r#""yes""#, "1", "[]", "{}"] {
        assert_one_line(&err(&format!(r#"{{"symmetry": {bad}}}"#)), &["symmetry"]);
    }
    let off = ModelConfig::parse(r#"{"symmetry": false}"#, "models/x.json").unwrap();
    assert!(!off.symmetry);
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
fn a_templates_unknown_field_lists_the_known_ones_in_documented_order() {
    // The template flattens the shared raw record; the message is the one
    // serde's deny_unknown_fields gave when the fields were written out.
    assert_eq!(
        err(&template_with(r#""derived_from": [0]"#)),
        "models/x.json: templates[0].derived_from: unknown field `derived_from`, expected one \
         of `name`, `kind`, `entity`, `attribute`, `value`, `source`, `authority`, \
         `confidence`, `scope`, `valid_from`, `valid_to`, `owner`, `parent`"
    );
}

/// The keys of the first object after `after` in `text`, in written
/// order (the object holds no nested object).
pub(crate) fn written_keys<'a>(text: &'a str, after: &str) -> Vec<&'a str> {
    let start = text.find(after).unwrap() + after.len();
    let object = &text[start..];
    let object = &object[object.find('{').unwrap()..=object.find('}').unwrap()];
    object
        .split('"')
        .collect::<Vec<_>>()
        .windows(3)
        .filter(|w| w[2].trim_start().starts_with(':'))
        .map(|w| w[1])
        .collect()
}

#[test]
fn a_templates_known_fields_are_the_fields_it_is_written_with() {
    use crate::input::fields::KnownFields;
    let c = ModelConfig::parse(FULL, "models/x.json").unwrap();
    let text = serde_json::to_string(&c.wire()).unwrap();
    assert_eq!(
        super::raw::RawTemplate::known_fields(),
        written_keys(&text, "\"templates\":")
    );
}

#[test]
fn a_template_is_an_object_not_a_list_of_values() {
    // serde would read a struct from an array positionally: `["a"]` was a
    // template named "a" missing its kind. A template is an object.
    assert_one_line(
        &err(r#"{"templates": [["a", "belief"]]}"#),
        &["templates[0]: [\"a\",\"belief\"] is not an object"],
    );
    assert_one_line(
        &err(r#"{"templates": [[]]}"#),
        &["templates[0]: [] is not an object"],
    );
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

#[test]
fn command_line_bounds_obey_the_model_files_limits() {
    let given = BoundOverrides::parse(Some("64"), Some(" 255"), Some("full")).unwrap();
    let mut bounds = Bounds::default();
    given.apply(&mut bounds);
    assert_eq!(
        (bounds.records, bounds.transactions, bounds.depth),
        (64, 255, Depth::Full)
    );
    let mut bounds = Bounds::default();
    BoundOverrides::parse(None, None, Some("0"))
        .unwrap()
        .apply(&mut bounds);
    assert_eq!(
        bounds,
        Bounds {
            depth: Depth::Bounded(0),
            ..Bounds::default()
        }
    );
    let refused = |r, t, d| BoundOverrides::parse(r, t, d).unwrap_err().0;
    assert_eq!(
        refused(Some("65"), None, None),
        "--records: 65 is outside 1..=64"
    );
    assert_eq!(
        refused(None, Some("256"), None),
        "--transactions: 256 is outside 1..=255"
    );
    assert_eq!(
        refused(None, Some("x"), None),
        "--transactions: \"x\" is not a whole number"
    );
    assert_eq!(
        refused(None, None, Some("1001")),
        "--depth: \"1001\" is not a depth: a number of actions 0..=1000 or `full`"
    );
}

#[test]
fn the_thread_count_has_one_limit() {
    assert_eq!(flags::threads("1024"), Ok(1024));
    assert_eq!(
        flags::threads("1025").unwrap_err().0,
        "--threads: 1025 is outside 1..=1024"
    );
    assert_eq!(
        flags::threads("0").unwrap_err().0,
        "--threads: 0 is outside 1..=1024"
    );
}

#[test]
fn a_model_name_is_a_plain_file_name() {
    // The name becomes reports/NAME/ and traces/NAME-*.json (issue 13.2).
    for bad in [
        "../../../escape",
        "/tmp/escape",
        "a/b",
        "..",
        ".hidden",
        "",
        "two words",
        "caf\u{e9}",
    ] {
        let text = format!(r#"{{"name": {}}}"#, serde_json::Value::from(bad));
        assert_one_line(
            &err(&text),
            &["name: ", "is not a model name", "does not start with '.'"],
        );
    }
    assert_eq!(
        err(r#"{"name": "a/../x"}"#),
        "models/x.json: name: \"a/../x\" is not a model name: it holds '/' \
         (a name is 1 to 100 of the characters A-Z a-z 0-9 . _ - and does not start with '.')"
    );
    for good in ["default", "no-gate", "v1.2_x", "A-9"] {
        let text = format!(r#"{{"name": "{good}"}}"#);
        assert_eq!(ModelConfig::parse(&text, "m.json").unwrap().name, good);
    }
    // Without a `name`, the file's stem must obey the same rule.
    let e = ModelConfig::parse("{}", "models/.hidden.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("models/.hidden.json: name: missing, and the file's stem \".hidden\"")
            && e.ends_with("give a `name`"),
        "{e}"
    );
    assert_eq!(
        ModelConfig::parse("{}", "models/my-model.json")
            .unwrap()
            .name,
        "my-model"
    );
}

#[test]
fn a_struct_is_an_object_never_a_sequence() {
    // serde read structs from sequences, positionally (issue 13.5).
    assert_eq!(err("[]"), "models/x.json: [] is not an object");
    assert_eq!(
        err(r#"{"bounds": [2, 2, 3]}"#),
        "models/x.json: bounds: [2,2,3] is not an object"
    );
    assert_eq!(
        err(r#"{"tools": [["issue_refund", true]]}"#),
        "models/x.json: tools[0]: [\"issue_refund\",true] is not an object"
    );
    assert_eq!(
        err(r#"{"variant": ["review"]}"#),
        "models/x.json: variant: [\"review\"] is not an object"
    );
    assert_eq!(
        err(r#"{"expect": ["holds", "holds", "holds"]}"#),
        "models/x.json: expect: [\"holds\",\"holds\",\"holds\"] is not an object"
    );
}

#[test]
fn a_key_given_twice_is_refused_with_its_path() {
    // serde_json kept the last of two equal keys (issue 13.5).
    assert_eq!(
        err(r#"{"name": "a", "name": "b"}"#),
        "models/x.json: name: given twice (\"a\", then \"b\") (line 1, column 26); \
         a key may appear only once"
    );
    assert_one_line(
        &err(r#"{"bounds": {"depth": 10, "depth": 2}}"#),
        &["bounds.depth: given twice (10, then 2)"],
    );
    assert_one_line(
        &err(&template_with(r#""scope": "private""#)),
        &["templates[0].scope: given twice (\"shared\", then \"private\")"],
    );
    // Equal keys in different objects are fine.
    ModelConfig::parse(
        r#"{"tools": [{"name": "a", "irreversible": true}, {"name": "b", "irreversible": true}]}"#,
        "m.json",
    )
    .unwrap();
}

#[test]
fn a_required_parent_that_can_never_exist_is_refused() {
    // Every template requires a parent, so no record is ever staged
    // (issue 13.6); a tool call needs a record as its basis too.
    let only_required = r#"{"tools": [{"name": "t", "irreversible": true}], "templates": [
        {"name": "digest", "kind": "summary", "entity": "e", "attribute": "a", "value": "v",
         "confidence": 0.8, "scope": "shared", "parent": "required"},
        {"name": "copy", "kind": "shared_copy", "entity": "e", "attribute": "b", "value": "v",
         "confidence": 0.8, "scope": "shared", "parent": "required"}]}"#;
    assert_eq!(
        err(only_required),
        "models/x.json: templates[0].parent: \"required\", but no record can ever exist to be \
         the parent of template \"digest\": every template requires a parent (make one \"none\" \
         or \"optional\")"
    );
    for rule in ["none", "optional"] {
        let one_free = only_required.replacen("\"required\"", &format!("\"{rule}\""), 1);
        ModelConfig::parse(&one_free, "m.json").unwrap();
    }
}

#[test]
fn a_model_without_templates_is_warned_about() {
    let c = ModelConfig::parse("{}", "models/empty.json").unwrap();
    assert_eq!(
        c.warnings(),
        [
            "empty: templates: none, so no record is ever staged and no tool call has a basis: \
          every invariant holds vacuously"
        ]
    );
    assert!(ModelConfig::parse(FULL, "m.json")
        .unwrap()
        .warnings()
        .is_empty());
}

/// A model with `templates` templates and `tools` tools, all distinct.
fn wide_model(templates: usize, tools: usize) -> String {
    let templates: Vec<String> = (0..templates)
        .map(|i| {
            format!(
                r#"{{"name": "t{i}", "kind": "belief", "entity": "e{i}", "attribute": "a",
                    "value": "v", "confidence": 0.8, "scope": "shared"}}"#
            )
        })
        .collect();
    let tools: Vec<String> = (0..tools)
        .map(|i| format!(r#"{{"name": "tool{i}", "irreversible": {}}}"#, i % 2 == 0))
        .collect();
    format!(
        r#"{{"bounds": {{"records": 2, "transactions": 1, "depth": 3}},
            "templates": [{}], "tools": [{}]}}"#,
        templates.join(","),
        tools.join(",")
    )
}

#[test]
fn template_and_tool_limits_are_the_store_packers() {
    // 128 templates or 128..=256 tools passed validation and then panicked
    // in the packer (issue 13.1); the limits are now the packer's own.
    assert_eq!((limits::MAX_TEMPLATES, limits::MAX_TOOLS), (128, 128));
    let c = ModelConfig::parse(&wide_model(128, 128), "m.json").unwrap();
    assert_eq!((c.templates.len(), c.tools.len()), (128, 128));
    assert_one_line(
        &err(&wide_model(129, 1)),
        &["templates: 129 templates is more than the 128 allowed"],
    );
    assert_one_line(
        &err(&wide_model(1, 129)),
        &["tools: 129 tools is more than the 128 allowed"],
    );
}
