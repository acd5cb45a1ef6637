//! The model configuration as written in `models/*.json`: serde structs
//! close to the JSON, every field optional, unknown fields refused. The
//! validated [`super::ModelConfig`] is built from these by
//! [`super::validate`].

use super::model_config::{Expect, ParentRule};
use super::record::RawRecord;
use crate::input::fields::{KnownFields, OnlyKnownFields};
use crate::input::locate::{locate, locate_in_list, Schema};
use crate::protocol::{
    LaunderingParents, Mechanism, SameSourceTie, StaleCheckEmptySnapshot, Tier, ToolBasis,
};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawConfig {
    pub name: Option<String>,
    pub description: Option<String>,
    pub bounds: Option<RawBounds>,
    pub agents: Option<i64>,
    pub tiers: Option<Vec<Tier>>,
    pub tools: Option<Vec<RawTool>>,
    pub clock: Option<i64>,
    pub templates: Option<Vec<RawTemplate>>,
    pub variant: Option<RawVariant>,
    pub expect: Option<RawExpect>,
    pub symmetry: Option<bool>,
}

impl Schema for RawConfig {
    fn locate_child(key: &str, value: &Value, path: &str) -> Option<String> {
        match key {
            "bounds" => locate::<RawBounds>(value, path),
            "tools" => locate_in_list::<RawTool>(value, path),
            "templates" => locate_in_list::<RawTemplate>(value, path),
            "variant" => locate::<RawVariant>(value, path),
            "expect" => locate::<RawExpect>(value, path),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawBounds {
    pub records: Option<i64>,
    pub transactions: Option<i64>,
    /// An integer or `"full"`; validation reads it.
    pub depth: Option<Value>,
}

impl Schema for RawBounds {}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawTool {
    pub name: Option<String>,
    pub irreversible: Option<bool>,
}

impl Schema for RawTool {}

/// A template: a name, the shared record fields, and the parent rule in
/// place of the parents a trace record names.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawTemplate {
    pub name: Option<String>,
    #[serde(flatten)]
    pub record: RawRecord,
    pub parent: Option<ParentRule>,
    #[serde(flatten)]
    _only_known: OnlyKnownFields<RawTemplate>,
}

impl KnownFields for RawTemplate {
    fn known_fields() -> Vec<&'static str> {
        [&["name"], RawRecord::FIELDS, &["parent"]].concat()
    }
}

impl Schema for RawTemplate {}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawVariant {
    pub same_source_tie: Option<SameSourceTie>,
    pub stale_check_empty_snapshot: Option<StaleCheckEmptySnapshot>,
    pub laundering_parents: Option<LaunderingParents>,
    pub tool_basis: Option<ToolBasis>,
    pub ablate: Option<Vec<Mechanism>>,
}

impl Schema for RawVariant {}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawExpect {
    #[serde(rename = "I1")]
    pub i1: Option<Expect>,
    #[serde(rename = "I2")]
    pub i2: Option<Expect>,
    #[serde(rename = "G3")]
    pub g3: Option<Expect>,
}

impl Schema for RawExpect {}
