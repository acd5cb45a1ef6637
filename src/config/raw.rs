//! The model configuration as written in `models/*.json`: serde structs
//! close to the JSON, every field optional, unknown fields refused. The
//! validated [`super::ModelConfig`] is built from these by
//! [`super::validate`].

use super::model_config::ParentRule;
use super::record::RawRecord;
use crate::input::fields::{KnownFields, OnlyKnownFields};
use crate::input::locate::{locate, locate_in_list, Schema};
use crate::invariants::Invariant;
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
    pub revalidate: Option<bool>,
    pub rebuild: Option<bool>,
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

/// One field per invariant, named as it is; each verdict is read by
/// [`super::verdicts`], which knows the clause form.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct RawExpect {
    #[serde(rename = "I1")]
    pub i1: Option<Value>,
    #[serde(rename = "I2")]
    pub i2: Option<Value>,
    #[serde(rename = "G3")]
    pub g3: Option<Value>,
    pub evidence: Option<Value>,
    pub validity: Option<Value>,
    #[serde(rename = "one-value-per-slot")]
    pub one_value_per_slot: Option<Value>,
    pub scope: Option<Value>,
    pub lifecycle: Option<Value>,
    #[serde(rename = "log-completeness")]
    pub log_completeness: Option<Value>,
    #[serde(rename = "stale-write")]
    pub stale_write: Option<Value>,
    #[serde(rename = "tx-hygiene")]
    pub tx_hygiene: Option<Value>,
    pub snapshot: Option<Value>,
    pub admission: Option<Value>,
    #[serde(rename = "honest-outcome")]
    pub honest_outcome: Option<Value>,
    pub refusals: Option<Value>,
    /// `"all"` or a list of branch names; validation reads it.
    pub coverage: Option<Value>,
}

impl RawExpect {
    /// The verdict written for `inv`, if any.
    pub fn verdict(&self, inv: Invariant) -> Option<&Value> {
        match inv {
            Invariant::I1 => self.i1.as_ref(),
            Invariant::I2 => self.i2.as_ref(),
            Invariant::G3 => self.g3.as_ref(),
            Invariant::Evidence => self.evidence.as_ref(),
            Invariant::Validity => self.validity.as_ref(),
            Invariant::OneValuePerSlot => self.one_value_per_slot.as_ref(),
            Invariant::Scope => self.scope.as_ref(),
            Invariant::Lifecycle => self.lifecycle.as_ref(),
            Invariant::LogCompleteness => self.log_completeness.as_ref(),
            Invariant::StaleWrite => self.stale_write.as_ref(),
            Invariant::TxHygiene => self.tx_hygiene.as_ref(),
            Invariant::Snapshot => self.snapshot.as_ref(),
            Invariant::Admission => self.admission.as_ref(),
            Invariant::HonestOutcome => self.honest_outcome.as_ref(),
            Invariant::Refusals => self.refusals.as_ref(),
        }
    }
}

impl Schema for RawExpect {}
