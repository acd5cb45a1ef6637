//! A trace file as written: serde structs close to the JSON, every field
//! optional, unknown fields refused. A step is one flat struct whose `op`
//! says which of its fields must be present; [`super::parse`] checks that.

use crate::config::{RawConfig, RawRecord};
use crate::input::fields::{KnownFields, OnlyKnownFields};
use crate::input::locate::{locate, locate_in_list, Schema};
use crate::protocol::Tier;
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
    /// A record specification for `stage`, a record id for `revoke`,
    /// `revalidate` and `rebuild`.
    pub record: Option<Value>,
    pub tool: Option<String>,
    pub basis: Option<Vec<i64>>,
}

impl Schema for RawStep {
    fn locate_child(key: &str, value: &Value, path: &str) -> Option<String> {
        match (key, value) {
            ("record", Value::Object(_)) => locate::<RawStagedRecord>(value, path),
            _ => None,
        }
    }
}

/// A stage step's record: the shared record fields and the parents.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawStagedRecord {
    #[serde(flatten)]
    pub record: RawRecord,
    pub derived_from: Option<Vec<i64>>,
    #[serde(flatten)]
    _only_known: OnlyKnownFields<RawStagedRecord>,
}

impl KnownFields for RawStagedRecord {
    /// The documented order puts the parents after `scope`.
    fn known_fields() -> Vec<&'static str> {
        let mut fields = RawRecord::FIELDS.to_vec();
        let after_scope = fields
            .iter()
            .position(|&f| f == "scope")
            .map_or(0, |i| i + 1);
        fields.insert(after_scope, "derived_from");
        fields
    }
}

impl Schema for RawStagedRecord {}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawViolation {
    pub property: Option<String>,
    pub step: Option<i64>,
    pub detail: Option<String>,
}

impl Schema for RawViolation {}
