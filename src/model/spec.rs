//! [`ModelSpec`]: everything the model needs, compiled from a model
//! configuration: the protocol, the record templates with their parent
//! rules, the agents and tiers that may open transactions, the bounds, and
//! the invariant context.

use crate::invariants::Context;
use crate::protocol::{Proposal, Protocol, Symbols, Tier};

/// A record template: a proposal with no parent, and whether staging it
/// may or must name one parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateSpec {
    pub name: String,
    pub proposal: Proposal,
    /// It may be staged without a parent.
    pub parent_optional: bool,
    /// It may be staged with one parent (any existing record).
    pub parent_allowed: bool,
}

#[derive(Clone, Debug)]
pub struct ModelSpec {
    pub name: String,
    pub protocol: Protocol,
    pub symbols: Symbols,
    pub context: Context,
    pub templates: Vec<TemplateSpec>,
    pub agents: u8,
    pub tiers: Vec<Tier>,
    /// Records, tool actions included.
    pub max_records: usize,
    /// Transactions opened.
    pub max_transactions: usize,
}

impl ModelSpec {
    /// Agents are interchangeable unless a template fixes an owner.
    pub fn agents_symmetric(&self) -> bool {
        self.templates.iter().all(|t| t.proposal.owner.is_none())
    }
}
