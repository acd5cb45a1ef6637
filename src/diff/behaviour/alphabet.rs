//! Whether two models share one action alphabet, so that one action
//! sequence means the same protocol operations on both. The model's
//! actions are generated from every field of its configuration except
//! those that only change what the protocol decides or how far a run
//! goes: the name and description, the depth bound, the clock, the
//! variant and the expected verdicts. Everything else (agents, tiers,
//! tools, templates with every field, the record and transaction bounds,
//! and any field added later) is the alphabet, compared as the
//! configuration's JSON form, so a new field counts as part of the
//! alphabet until said otherwise: a refusal is safe, a lockstep over two
//! different alphabets is not.

use crate::config::ModelConfig;
use crate::input::locate::{index, join};
use serde_json::Value;

/// The configuration fields that are not part of the alphabet.
const NOT_ALPHABET: [&str; 5] = ["name", "description", "clock", "variant", "expect"];

/// The alphabet of `config` as JSON.
fn alphabet(config: &ModelConfig) -> Value {
    let mut json = config.to_json();
    if let Some(fields) = json.as_object_mut() {
        for key in NOT_ALPHABET {
            fields.remove(key);
        }
        if let Some(bounds) = fields.get_mut("bounds").and_then(Value::as_object_mut) {
            bounds.remove("depth");
        }
    }
    json
}

/// `None` when `a` and `b` share an alphabet; else the first difference,
/// as `field: A's value ≠ B's value` (a template or tool named where it
/// is one side's only).
pub fn difference(a: &ModelConfig, b: &ModelConfig) -> Option<String> {
    first_difference("", &alphabet(a), &alphabet(b))
}

fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    if a == b {
        return None;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let null = Value::Null;
                first_difference(
                    &join(path, k),
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(&index(path, i), u, v) {
                    return Some(d);
                }
            }
            let (longer, side) = if x.len() > y.len() {
                (x, "A")
            } else {
                (y, "B")
            };
            let extra = &longer[x.len().min(y.len())];
            let what = extra
                .get("name")
                .map_or_else(|| extra.to_string(), |n| n.to_string());
            Some(format!(
                "{path}: {} entries ≠ {}; {what} only in {side}",
                x.len(),
                y.len()
            ))
        }
        _ => Some(format!("{path}: {a} ≠ {b}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(json: &str) -> ModelConfig {
        ModelConfig::parse(json, "m.json").expect("a valid model")
    }

    #[test]
    fn the_variant_clock_depth_and_expectations_are_not_the_alphabet() {
        let a = model(r#"{"bounds": {"depth": 3}}"#);
        let b = model(
            r#"{"name": "x", "bounds": {"depth": 5}, "clock": 4,
                "variant": {"ablate": ["gate"]}, "expect": {"I1": "violated"}}"#,
        );
        assert_eq!(difference(&a, &b), None);
    }

    #[test]
    fn a_template_bound_or_tool_of_one_side_only_is_named() {
        let a = model(r#"{}"#);
        let b = model(r#"{"bounds": {"records": 5}}"#);
        assert_eq!(difference(&a, &b).as_deref(), Some("bounds.records: 4 ≠ 5"));
        let c = model(r#"{"tools": [{"name": "t", "irreversible": true}]}"#);
        let d = model(
            r#"{"tools": [{"name": "t", "irreversible": true}, {"name": "u", "irreversible": false}]}"#,
        );
        assert_eq!(
            difference(&c, &d).as_deref(),
            Some("tools: 1 entries ≠ 2; \"u\" only in B")
        );
        let e = model(r#"{"tools": [{"name": "t", "irreversible": false}]}"#);
        assert_eq!(
            difference(&c, &e).as_deref(),
            Some("tools[0].irreversible: true ≠ false")
        );
    }
}
