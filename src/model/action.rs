//! The model's actions, named actor plus verb as the protocol reads, and
//! their translation to protocol operations.

use super::spec::ModelSpec;
use crate::protocol::{Op, Proposal, RecordId, RecordSet, Tier, TxId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// `tx` is the id the transaction gets (the number opened so far), so
    /// that the action reads as the protocol does.
    Open {
        agent: u8,
        tier: Tier,
        tx: TxId,
    },
    /// `second` is a second parent, for a template that takes two.
    Stage {
        tx: TxId,
        template: u8,
        parent: Option<RecordId>,
        second: Option<RecordId>,
    },
    Commit {
        tx: TxId,
    },
    Abort {
        tx: TxId,
    },
    Revoke {
        record: RecordId,
    },
    /// A tool call names one basis record, or none: the model offers an
    /// aborted transaction's call, which the protocol refuses, with none.
    ToolCall {
        tx: TxId,
        tool: u8,
        basis: Option<RecordId>,
    },
    /// Takes a quarantined record back to tentative (model switch
    /// `revalidate`).
    Revalidate {
        tx: TxId,
        record: RecordId,
    },
    /// Rebuilds a view a cascade held back from its surviving sources
    /// (model switch `rebuild`).
    Rebuild {
        tx: TxId,
        record: RecordId,
    },
}

impl Action {
    /// The protocol operation this action stands for; it reads only the
    /// specification (a stage's template), never the state.
    #[inline]
    pub fn to_op(&self, spec: &ModelSpec) -> Op {
        match *self {
            Action::Open { agent, tier, .. } => Op::Open { agent, tier },
            Action::Stage {
                tx,
                template,
                parent,
                second,
            } => {
                let base = spec.templates[template as usize].proposal;
                let one = |p: Option<RecordId>| p.map_or(RecordSet::EMPTY, RecordSet::single);
                Op::Stage {
                    tx,
                    proposal: Proposal {
                        derived_from: one(parent).union(one(second)),
                        ..base
                    },
                }
            }
            Action::Commit { tx } => Op::Commit { tx },
            Action::Abort { tx } => Op::Abort { tx },
            Action::Revoke { record } => Op::Revoke { record },
            Action::ToolCall { tx, tool, basis } => Op::ToolCall {
                tx,
                tool,
                basis: basis.map_or(RecordSet::EMPTY, RecordSet::single),
            },
            Action::Revalidate { tx, record } => Op::Revalidate { tx, record },
            Action::Rebuild { tx, record } => Op::Rebuild { tx, record },
        }
    }

    /// A label that reads as the protocol does.
    pub fn describe(&self, spec: &ModelSpec) -> String {
        match *self {
            Action::Open { agent, tier, tx } => {
                format!("agent {agent} opens T{tx} ({})", tier.name())
            }
            Action::Stage {
                tx,
                template,
                parent,
                second,
            } => {
                let name = spec
                    .templates
                    .get(template as usize)
                    .map_or("?", |t| t.name.as_str());
                match (parent, second) {
                    (Some(p), Some(q)) => format!("T{tx} stages {name} derived from r{p} and r{q}"),
                    (Some(p), None) => format!("T{tx} stages {name} derived from r{p}"),
                    _ => format!("T{tx} stages {name}"),
                }
            }
            Action::Commit { tx } => format!("T{tx} commits"),
            Action::Abort { tx } => format!("T{tx} aborts"),
            Action::Revoke { record } => format!("revoke r{record}"),
            Action::ToolCall { tx, tool, basis } => {
                let name = spec
                    .protocol()
                    .tools()
                    .get(tool as usize)
                    .map_or("?", |t| spec.symbols().name(t.name));
                match basis {
                    Some(basis) => format!("T{tx} calls {name} on r{basis}"),
                    None => format!("T{tx} calls {name}"),
                }
            }
            Action::Revalidate { tx, record } => format!("T{tx} revalidates r{record}"),
            Action::Rebuild { tx, record } => format!("T{tx} rebuilds r{record}"),
        }
    }
}
