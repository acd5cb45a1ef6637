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
        ConfigJson::of(self)
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

impl<'a> ConfigJson<'a> {
    fn of(c: &'a ModelConfig) -> Self {
        ConfigJson {
            name: &c.name,
            description: &c.description,
            bounds: BoundsJson {
                records: c.bounds.records,
                transactions: c.bounds.transactions,
                depth: match c.bounds.depth {
                    Depth::Bounded(d) => Value::from(d),
                    Depth::Full => Value::from("full"),
                },
            },
            agents: c.agents,
            tiers: &c.tiers,
            tools: &c.tools,
            clock: c.clock,
            templates: c
                .templates
                .iter()
                .map(|t| TemplateJson {
                    name: &t.name,
                    record: RecordJson::of(&t.record, false),
                    parent: t.parent,
                })
                .collect(),
            revalidate: c.revalidate,
            rebuild: c.rebuild,
            variant: variant_json(&c.variant),
            expect: VerdictsJson(&c.expect),
            symmetry: c.symmetry,
        }
    }
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
