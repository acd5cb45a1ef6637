//! Whether an answer has the shape the driver protocol requires
//! (`docs/driver-protocol.md`, "Answers in detail"): the fields it names
//! as required, each of its JSON type. A field it calls optional may be
//! left out (the comparison then skips it); a required one missing, or of
//! another type, is a broken driver, not a difference.

use crate::protocol::Verb;
use serde_json::Value;

/// The required fields of each operation's OUTCOME, with their types.
fn outcome_fields(verb: Verb) -> &'static [(&'static str, Type)] {
    match verb {
        Verb::Open => &[("tx", Type::Number), ("snapshot", Type::Array)],
        Verb::Stage => &[("record", Type::Number)],
        Verb::Commit => &[("status", Type::String), ("records", Type::Array)],
        Verb::ToolCall => &[
            ("allowed", Type::Bool),
            ("reason", Type::StringOrNull),
            ("record", Type::NumberOrNull),
        ],
        Verb::Abort | Verb::Revoke => &[("roots", Type::Array), ("repairs", Type::Array)],
        Verb::Revalidate => &[("revalidated", Type::Number), ("tx", Type::Number)],
        Verb::Rebuild => &[
            ("rebuilt", Type::Number),
            ("tx", Type::Number),
            ("dropped", Type::Array),
        ],
    }
}

const RECORD: &[(&str, Type)] = &[
    ("id", Type::Number),
    ("kind", Type::String),
    ("state", Type::String),
    ("scope", Type::String),
    ("derived_from", Type::Array),
    ("reason", Type::StringOrNull),
];
const ENTRY: &[(&str, Type)] = &[("record", Type::Number), ("repair", Type::String)];
const VERDICT: &[(&str, Type)] = &[
    ("id", Type::Number),
    ("result", Type::String),
    ("reason", Type::StringOrNull),
];

#[derive(Clone, Copy)]
enum Type {
    Number,
    NumberOrNull,
    String,
    StringOrNull,
    Bool,
    Array,
}

impl Type {
    fn admits(self, v: &Value) -> bool {
        match self {
            Type::Number => v.is_u64(),
            Type::NumberOrNull => v.is_u64() || v.is_null(),
            Type::String => v.is_string(),
            Type::StringOrNull => v.is_string() || v.is_null(),
            Type::Bool => v.is_boolean(),
            Type::Array => v.is_array(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Type::Number => "a whole number",
            Type::NumberOrNull => "a whole number or null",
            Type::String => "a string",
            Type::StringOrNull => "a string or null",
            Type::Bool => "true or false",
            Type::Array => "a list",
        }
    }
}

/// `Err` says what is wrong with the answer to a step of operation `verb`,
/// as it follows "the driver's answer" (`to a commit has no
/// outcome.status`).
pub fn check_step_answer(verb: Verb, answer: &Value) -> Result<(), String> {
    let to = format!("to a step `{}`", verb.name());
    match (answer.get("outcome"), answer.get("error")) {
        (Some(_), Some(_)) => return Err(format!("{to} has both `outcome` and `error`")),
        (None, None) => return Err(format!("{to} has neither `outcome` nor `error`")),
        (None, Some(e)) if !e.is_string() => return Err(format!("{to}: `error` is not a string")),
        (Some(o), None) => {
            if !o.is_object() {
                return Err(format!("{to}: `outcome` is not an object"));
            }
            fields(&to, "outcome", o, outcome_fields(verb))?;
            if verb == Verb::Commit {
                list(&to, "outcome.records", &o["records"], VERDICT)?;
            }
        }
        (None, Some(_)) => {}
    }
    for (key, each) in [("records", RECORD), ("rollback_log", ENTRY)] {
        match answer.get(key) {
            None => return Err(format!("{to} has no `{key}`")),
            Some(v) => list(&to, key, v, each)?,
        }
    }
    Ok(())
}

fn list(to: &str, path: &str, v: &Value, each: &[(&str, Type)]) -> Result<(), String> {
    let Some(items) = v.as_array() else {
        return Err(format!("{to}: `{path}` is not a list"));
    };
    for (i, item) in items.iter().enumerate() {
        if !item.is_object() {
            return Err(format!("{to}: `{path}[{i}]` is not an object"));
        }
        fields(to, &format!("{path}[{i}]"), item, each)?;
    }
    Ok(())
}

fn fields(to: &str, path: &str, object: &Value, required: &[(&str, Type)]) -> Result<(), String> {
    for (name, ty) in required {
        match object.get(name) {
            None => return Err(format!("{to} has no `{path}.{name}`")),
            Some(v) if !ty.admits(v) => {
                return Err(format!("{to}: `{path}.{name}` is {v}, not {}", ty.name()))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_required_fields_are_required_and_the_optional_ones_not() {
        let record = json!({"id": 0, "kind": "belief", "state": "tentative", "scope": "shared",
                            "derived_from": [], "reason": null});
        let staged = json!({"outcome": {"record": 0}, "records": [record], "rollback_log": []});
        assert_eq!(check_step_answer(Verb::Stage, &staged), Ok(()));
        let lean_commit = json!({"outcome": {"status": "committed", "records": [
            {"id": 0, "result": "committed", "reason": null}]}, "records": [], "rollback_log": []});
        assert_eq!(check_step_answer(Verb::Commit, &lean_commit), Ok(()));
        let refused = json!({"error": "no", "records": [], "rollback_log": []});
        assert_eq!(check_step_answer(Verb::Revoke, &refused), Ok(()));
        let cases = [
            (
                json!({"outcome": {}, "records": [], "rollback_log": []}),
                "no `outcome.record`",
            ),
            (
                json!({"outcome": {"record": 0}, "rollback_log": []}),
                "no `records`",
            ),
            (
                json!({"outcome": {"record": "0"}, "records": [], "rollback_log": []}),
                "`outcome.record` is \"0\", not a whole number",
            ),
            (
                json!({"outcome": {"record": 0}, "records": [{"id": 0}], "rollback_log": []}),
                "no `records[0].kind`",
            ),
            (json!({"records": [], "rollback_log": []}), "neither"),
            (
                json!({"outcome": {"record": 0}, "error": "x", "records": [], "rollback_log": []}),
                "both",
            ),
        ];
        for (answer, why) in cases {
            let e = check_step_answer(Verb::Stage, &answer).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }
}
