//! [`ModelSpec`]: everything the model needs, compiled from a model
//! configuration: the protocol, the record templates with their parent
//! rules, the agents and tiers that may open transactions, the bounds, and
//! the invariant context.

use crate::config::{Compiled, ModelConfig, ParentRule};
use crate::invariants::{Context, Selection};
use crate::protocol::{Proposal, Protocol, Symbols, Tier};

/// A record template: a proposal with no parent, and whether staging it
/// may or must name one parent, or must name two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateSpec {
    pub name: String,
    pub proposal: Proposal,
    /// It may be staged without a parent.
    pub parent_optional: bool,
    /// It may be staged with one parent (any existing record).
    pub parent_allowed: bool,
    /// It is staged with two distinct parents (any two existing records).
    pub two_parents: bool,
}

#[derive(Clone, Debug)]
pub struct ModelSpec {
    pub name: String,
    /// The configuration in the protocol's form (symbols, protocol,
    /// invariant context).
    pub compiled: Compiled,
    pub templates: Vec<TemplateSpec>,
    pub agents: u8,
    pub tiers: Vec<Tier>,
    /// Records, tool actions included.
    pub max_records: usize,
    /// Transactions opened.
    pub max_transactions: usize,
    /// Whether open transactions may revalidate quarantined records.
    pub revalidate: bool,
    /// Whether open transactions may rebuild views a cascade held back.
    pub rebuild: bool,
}

impl ModelSpec {
    pub fn from_config(config: &ModelConfig) -> ModelSpec {
        let compiled = config.compile();
        let templates = config
            .templates
            .iter()
            .zip(&compiled.templates)
            .map(|(t, &proposal)| TemplateSpec {
                name: t.name.clone(),
                proposal,
                parent_optional: t.parent == ParentRule::None || t.parent == ParentRule::Optional,
                parent_allowed: t.parent == ParentRule::Optional
                    || t.parent == ParentRule::Required,
                two_parents: t.parent == ParentRule::Two,
            })
            .collect();
        ModelSpec {
            name: config.name.clone(),
            compiled,
            templates,
            agents: config.agents,
            tiers: config.tiers.clone(),
            max_records: config.bounds.records,
            max_transactions: config.bounds.transactions,
            revalidate: config.revalidate,
            rebuild: config.rebuild,
        }
    }

    pub fn protocol(&self) -> &Protocol {
        &self.compiled.protocol
    }

    pub fn symbols(&self) -> &Symbols {
        &self.compiled.symbols
    }

    pub fn context(&self) -> &Context {
        &self.compiled.invariant_context
    }

    /// Judges only the invariants of `selection` (and the companions that
    /// guard them): the model's properties and the monitor's transition
    /// checks both follow it.
    pub fn select(&mut self, selection: Selection) {
        self.compiled.invariant_context.select(selection);
    }

    /// Switches off `clause` of `inv` (test builds only: see
    /// [`Context::mute`]).
    #[cfg(test)]
    pub(crate) fn mute(&mut self, inv: crate::invariants::Invariant, clause: &'static str) {
        self.compiled.invariant_context.mute(inv, clause);
    }

    /// Agents are interchangeable unless a template fixes an owner.
    pub fn agents_symmetric(&self) -> bool {
        self.templates.iter().all(|t| t.proposal.owner.is_none())
    }
}
