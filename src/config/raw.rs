//! The model configuration as written in `models/*.json`: serde structs
//! close to the JSON, every field optional, unknown fields refused. The
//! validated [`super::ModelConfig`] is built from these by
//! [`super::validate`].

use super::locate::{locate, locate_in_list, Schema};
use super::{Expect, ParentRule};
use crate::protocol::{
    Kind, LaunderingParents, Mechanism, SameSourceTie, Scope, StaleCheckEmptySnapshot, Tier,
    ToolBasis,
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

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawTemplate {
    pub name: Option<String>,
    pub kind: Option<Kind>,
    pub entity: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub source: Option<String>,
    pub authority: Option<f64>,
    pub confidence: Option<f64>,
    pub scope: Option<Scope>,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub owner: Option<i64>,
    pub parent: Option<ParentRule>,
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
