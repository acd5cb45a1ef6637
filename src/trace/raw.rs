//! A trace file as written: serde structs close to the JSON, every field
//! optional, unknown fields refused. A step is one flat struct whose `op`
//! says which of its fields must be present; [`super::parse`] checks that.

use crate::config::locate::{locate, locate_in_list, Schema};
use crate::config::raw::RawConfig;
use crate::protocol::{Kind, Scope, Tier};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawTrace {
    /// Validated as a configuration by `config::validate_config`.
    pub config: Option<Value>,
    pub model: Option<String>,
    pub steps: Option<Vec<RawStep>>,
    pub violation: Option<RawViolation>,
}

impl Schema for RawTrace {
    fn locate_child(key: &str, value: &Value, path: &str) -> Option<String> {
        match key {
            "config" => locate::<RawConfig>(value, path),
            "steps" => locate_in_list::<RawStep>(value, path),
            "violation" => locate::<RawViolation>(value, path),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawStep {
    pub op: Option<String>,
    pub agent: Option<i64>,
    pub tier: Option<Tier>,
    pub tx: Option<i64>,
    /// A record specification for `stage`, a record id for `revoke`.
    pub record: Option<Value>,
    pub tool: Option<String>,
    pub basis: Option<Vec<i64>>,
}

impl Schema for RawStep {
    fn locate_child(key: &str, value: &Value, path: &str) -> Option<String> {
        match (key, value) {
            ("record", Value::Object(_)) => locate::<RawRecord>(value, path),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawRecord {
    pub kind: Option<Kind>,
    pub entity: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub source: Option<String>,
    pub authority: Option<f64>,
    pub confidence: Option<f64>,
    pub scope: Option<Scope>,
    pub derived_from: Option<Vec<i64>>,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub owner: Option<i64>,
}

impl Schema for RawRecord {}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawViolation {
    pub property: Option<String>,
    pub step: Option<i64>,
    pub detail: Option<String>,
}

impl Schema for RawViolation {}
