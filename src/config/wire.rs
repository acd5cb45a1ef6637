//! The configuration written back out as JSON: serialize-only types whose
//! field order is the documented one, every field explicit, so that a trace
//! can inline its configuration and read it back unchanged.

use super::model_config::{Depth, ModelConfig, ParentRule, ToolConfig};
use super::record::RecordJson;
use super::verdicts::VerdictsJson;
use crate::protocol::{Mechanism, Tier, Variant};
use serde::Serialize;
use serde_json::Value;

impl ModelConfig {
    /// The configuration as JSON, every field written out; it parses back
    /// to an equal configuration (bar `source_path`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.wire()).unwrap_or(serde_json::Value::Null)
    }

    /// The serialize-only form, fields in the documented order.
    pub(crate) fn wire(&self) -> ConfigJson<'_> {
        ConfigJson {
            name: &self.name,
            description: &self.description,
            bounds: BoundsJson {
                records: self.bounds.records,
                transactions: self.bounds.transactions,
                depth: match self.bounds.depth {
                    Depth::Bounded(d) => Value::from(d),
                    Depth::Full => Value::from("full"),
                },
            },
            agents: self.agents,
            tiers: &self.tiers,
            tools: &self.tools,
            clock: self.clock,
            templates: self
                .templates
                .iter()
                .map(|t| TemplateJson {
                    name: &t.name,
                    record: RecordJson::of(&t.record, false),
                    parent: t.parent,
                })
                .collect(),
            revalidate: self.revalidate,
            rebuild: self.rebuild,
            variant: variant_json(&self.variant),
            expect: VerdictsJson(&self.expect),
            symmetry: self.symmetry,
        }
    }
}

#[derive(Serialize)]
pub(crate) struct ConfigJson<'a> {
    name: &'a str,
    description: &'a str,
    bounds: BoundsJson,
    agents: u8,
    tiers: &'a [Tier],
    tools: &'a [ToolConfig],
    clock: Option<i32>,
    templates: Vec<TemplateJson<'a>>,
    revalidate: bool,
    /// Written only when on, as `symmetry` is.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rebuild: bool,
    variant: VariantJson,
    expect: VerdictsJson<'a>,
    /// Written only when on, so that the configurations (and checkpoint
    /// identities) of models without it read as before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    symmetry: bool,
}

#[derive(Serialize)]
struct BoundsJson {
    records: usize,
    transactions: usize,
    depth: Value,
}

#[derive(Serialize)]
struct TemplateJson<'a> {
    name: &'a str,
    #[serde(flatten)]
    record: RecordJson<'a>,
    parent: ParentRule,
}

#[derive(Serialize)]
struct VariantJson {
    same_source_tie: crate::protocol::SameSourceTie,
    stale_check_empty_snapshot: crate::protocol::StaleCheckEmptySnapshot,
    laundering_parents: crate::protocol::LaunderingParents,
    tool_basis: crate::protocol::ToolBasis,
    ablate: Vec<Mechanism>,
}

fn variant_json(v: &Variant) -> VariantJson {
    VariantJson {
        same_source_tie: v.same_source_tie,
        stale_check_empty_snapshot: v.stale_check_empty_snapshot,
        laundering_parents: v.laundering_parents,
        tool_basis: v.tool_basis,
        ablate: v.ablated(),
    }
}
