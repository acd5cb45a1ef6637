//! The expected verdicts of a model's `expect` block, read and written:
//! per invariant, by its name, `"holds"`, `"violated"`, `"any"` (either
//! verdict passes; an invariant not named is expected to hold), or
//! `{"violated": CLAUSE, "depth": D}` naming the clause the shortest
//! counterexample must break (issue 9 item 3) and, optionally, its exact
//! length (issue 25: a bug that makes a known violation shorter fails
//! `--expect`); `{"violated": true, "depth": D}` pins the depth alone. A
//! clause must be one of the invariant's own; anything else is a one-line
//! error naming the field. Written back with the block's `coverage` (issue
//! 9 item 1).

use super::model_config::{Expect, ExpectCoverage, Expectations};
use super::raw::RawExpect;
use crate::input::locate::show;
use crate::input::{InputError, Validator};
use crate::invariants::Invariant;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;

/// The verdicts `raw` expects; `v` is the validator of the `expect` block.
pub(crate) fn expected_verdicts(
    v: &Validator,
    raw: &RawExpect,
) -> Result<[Option<Expect>; Invariant::ALL.len()], InputError> {
    let mut verdicts = [None; Invariant::ALL.len()];
    for inv in Invariant::ALL {
        if let Some(value) = raw.verdict(inv) {
            verdicts[inv as usize] = Some(verdict(v, inv, value)?);
        }
    }
    Ok(verdicts)
}

/// The longest counterexample an `expect` block may pin (the depth bound's
/// own limit).
const MAX_EXPECTED_DEPTH: u64 = 1000;

fn verdict(v: &Validator, inv: Invariant, value: &Value) -> Result<Expect, InputError> {
    let path = inv.name();
    let clause_of = |name: &Value| -> Result<&'static str, InputError> {
        let at = format!("{path}.violated");
        let text = name
            .as_str()
            .ok_or_else(|| v.err(&at, format!("{} is not a clause name", show(name))))?;
        inv.clause(text).ok_or_else(|| {
            v.err(
                &at,
                format!(
                    "\"{text}\" is not a clause of {inv} (one of {})",
                    inv.clauses().join(", ")
                ),
            )
        })
    };
    match value {
        Value::String(s) if s == "holds" => Ok(Expect::Holds),
        Value::String(s) if s == "any" => Ok(Expect::Any),
        Value::String(s) if s == "violated" => Ok(Expect::violated(None, None)),
        Value::Object(map) if map.contains_key("violated") => {
            if let Some(key) = map.keys().find(|k| *k != "violated" && *k != "depth") {
                return Err(v.err(
                    &format!("{path}.{key}"),
                    "is not a field of an expected violation (violated, depth)".to_owned(),
                ));
            }
            let depth = match map.get("depth") {
                None => None,
                Some(d) => Some(
                    d.as_u64()
                        .filter(|&d| (1..=MAX_EXPECTED_DEPTH).contains(&d))
                        .ok_or_else(|| {
                            v.err(
                                &format!("{path}.depth"),
                                format!(
                                    "{} is not a depth of 1..={MAX_EXPECTED_DEPTH} actions",
                                    show(d)
                                ),
                            )
                        })? as usize,
                ),
            };
            let clause = match &map["violated"] {
                Value::Bool(true) => None,
                name => Some(clause_of(name)?),
            };
            Ok(Expect::violated(clause, depth))
        }
        other => Err(v.err(
            path,
            format!(
                "{} is not \"holds\", \"violated\", \"any\" or {{\"violated\": CLAUSE, \"depth\": D}}",
                show(other)
            ),
        )),
    }
}

/// An expected violation with a clause or a depth, as written.
#[derive(Serialize)]
struct ViolationJson {
    /// The clause, or `true` for any.
    violated: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    depth: Option<usize>,
}

/// The verdicts as the `expect` block writes them, in report order.
pub(crate) struct VerdictsJson<'a>(pub &'a Expectations);

impl Serialize for VerdictsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for inv in Invariant::ALL {
            match self.0.get(inv) {
                None => {}
                Some(Expect::Violated {
                    clause: None,
                    depth: None,
                }) => map.serialize_entry(inv.name(), "violated")?,
                Some(Expect::Violated { clause, depth }) => map.serialize_entry(
                    inv.name(),
                    &ViolationJson {
                        violated: clause.map_or(Value::Bool(true), Value::from),
                        depth,
                    },
                )?,
                Some(e) => map.serialize_entry(inv.name(), e.name())?,
            }
        }
        match &self.0.coverage {
            None => {}
            Some(ExpectCoverage::All) => map.serialize_entry("coverage", "all")?,
            Some(ExpectCoverage::Branches(names)) => map.serialize_entry("coverage", names)?,
        }
        map.end()
    }
}
