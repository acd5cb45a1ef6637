//! The model a baseline was blessed with, and what changed since: a
//! baseline's counts are of one model at its bounds, so a case whose
//! model checks something else (a lower bound, another template, a
//! switch turned) fails before any count is compared, rather than read
//! "same" on the depths both explored. `baseline.json` records the
//! [`definition`] from format 2 on; `--max-depth` caps the run, never
//! the definition, so it stays the one deliberate cap.

use crate::config::ModelConfig;
use crate::input::locate::join;
use serde_json::Value;

/// What the model checks, as JSON: its configuration without the words
/// that check nothing (`name`, which finds the baseline, `description`)
/// and without `expect`, which each property's own case judges.
pub fn definition(config: &ModelConfig) -> Value {
    let mut json = config.to_json();
    if let Some(fields) = json.as_object_mut() {
        for words in ["name", "description", "expect"] {
            fields.remove(words);
        }
    }
    json
}

/// Each change from the `blessed` definition to `now`, one phrase each
/// (`bounds.depth: 10 → 8`, `templates: recheck removed`), by field in
/// the order `now` lists them.
pub fn changes(blessed: &Value, now: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff("", blessed, now, &mut out);
    out
}

fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if a == b {
        return;
    }
    let at = |key: &str| join(path, key);
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, now) in b {
                match a.get(key) {
                    Some(before) => diff(&at(key), before, now, out),
                    None => out.push(format!("{}: added ({now})", at(key))),
                }
            }
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                out.push(format!("{}: removed", at(key)));
            }
        }
        (Value::Array(a), Value::Array(b)) if named(a) && named(b) => {
            let name = |v: &Value| v["name"].as_str().unwrap_or_default().to_owned();
            for now in b {
                match a.iter().find(|v| name(v) == name(now)) {
                    Some(before) => diff(&format!("{path}[{}]", name(now)), before, now, out),
                    None => out.push(format!("{path}: {} added", name(now))),
                }
            }
            for before in a.iter().filter(|v| !b.iter().any(|w| name(w) == name(v))) {
                out.push(format!("{path}: {} removed", name(before)));
            }
            let order = |l: &[Value]| l.iter().map(name).collect::<Vec<_>>();
            let (was, is) = (order(a), order(b));
            let mut kept: Vec<&String> = was.iter().filter(|n| is.contains(n)).collect();
            kept.dedup();
            let now_kept: Vec<&String> = is.iter().filter(|n| was.contains(n)).collect();
            if kept != now_kept {
                out.push(format!(
                    "{path}: reordered ({} → {})",
                    was.join(","),
                    is.join(",")
                ));
            }
        }
        _ => out.push(format!("{path}: {a} → {b}")),
    }
}

/// Whether every element is an object with a `name` (templates, tools).
fn named(list: &[Value]) -> bool {
    list.iter()
        .all(|v| v.get("name").is_some_and(Value::is_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_change_is_named_by_its_field() {
        let blessed = json!({
            "bounds": {"records": 4, "transactions": 3, "depth": 10},
            "agents": 1,
            "templates": [{"name": "lookup", "authority": 0.7}, {"name": "recheck"}],
            "variant": {"ablate": []}
        });
        assert!(changes(&blessed, &blessed).is_empty());
        let now = json!({
            "bounds": {"records": 4, "transactions": 3, "depth": 8},
            "agents": 1,
            "templates": [{"name": "lookup", "authority": 0.9}, {"name": "extra"}],
            "variant": {"ablate": ["gate"]},
            "symmetry": true
        });
        assert_eq!(
            changes(&blessed, &now),
            [
                "bounds.depth: 10 → 8",
                "symmetry: added (true)",
                "templates[lookup].authority: 0.7 → 0.9",
                "templates: extra added",
                "templates: recheck removed",
                "variant.ablate: [] → [\"gate\"]",
            ]
        );
        let swapped = json!({"templates": [{"name": "b"}, {"name": "a"}]});
        let first = json!({"templates": [{"name": "a"}, {"name": "b"}]});
        assert_eq!(
            changes(&first, &swapped),
            ["templates: reordered (a,b → b,a)"]
        );
    }

    #[test]
    fn the_definition_leaves_out_what_checks_nothing() {
        let config =
            ModelConfig::parse(r#"{"name": "m", "description": "words"}"#, "m.json").unwrap();
        let mut reworded = config.clone();
        reworded.description = "other words".to_owned();
        assert_eq!(definition(&config), definition(&reworded));
        let def = definition(&config);
        assert!(def.get("bounds").is_some() && def.get("templates").is_some());
        assert!(def.get("expect").is_none() && def.get("name").is_none());
        let mut lower = config.clone();
        lower.bounds.depth = crate::config::Depth::Bounded(1);
        assert_ne!(definition(&config), definition(&lower));
    }
}
