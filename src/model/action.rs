//! The model's actions, named actor plus verb as the protocol reads, and
//! their translation to protocol operations. An action is the protocol's
//! [`Operation`] with the model's arguments ([`ActionArgs`]).

use super::spec::ModelSpec;
use crate::protocol::{
    OpArgs, Operands, Operation, Proposal, RecordId, RecordSet, Tier, Translate, TxId, Verb,
    Wording,
};
use std::convert::Infallible;

/// A model action: an operation whose stage names a template and its
/// parents, and whose tool call names one basis record, or none.
pub type Action = Operation<ActionArgs>;

/// The model's arguments: an open carries the id its transaction gets, a
/// stage a template and at most two parents, a tool call one basis record
/// or none (the model offers an aborted transaction's call, which the
/// protocol refuses, with none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionArgs {}

impl Operands for ActionArgs {
    type Agent = Opening;
    type Tx = TxId;
    type Record = RecordId;
    type Stage = Staged;
    type Tool = u8;
    type Basis = Option<RecordId>;
}

/// Who opens, and `tx`, the id the transaction gets (the number opened so
/// far), so that the action reads as the protocol does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    pub agent: u8,
    pub tx: TxId,
}

/// A stage of template `template`; `second` is a second parent, for a
/// template that takes two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Staged {
    pub template: u8,
    pub parent: Option<RecordId>,
    pub second: Option<RecordId>,
}

impl Staged {
    /// The parents, as a set.
    fn parents(&self) -> RecordSet {
        let one = |p: Option<RecordId>| p.map_or(RecordSet::EMPTY, RecordSet::single);
        one(self.parent).union(one(self.second))
    }
}

/// Actions to operations: reads only the specification (a stage's
/// template), never the state.
struct ToOp<'a>(&'a ModelSpec);

impl Translate<ActionArgs, OpArgs> for ToOp<'_> {
    type Error = Infallible;

    #[inline]
    fn open(&mut self, opening: &Opening, tier: Tier) -> Result<(u8, Tier), Infallible> {
        Ok((opening.agent, tier))
    }

    #[inline]
    fn tx(&mut self, _: Verb, tx: &TxId) -> Result<TxId, Infallible> {
        Ok(*tx)
    }

    #[inline]
    fn record(&mut self, _: Verb, record: &RecordId) -> Result<RecordId, Infallible> {
        Ok(*record)
    }

    #[inline]
    fn stage(&mut self, _: &TxId, staged: &Staged) -> Result<Proposal, Infallible> {
        let base = self.0.templates[staged.template as usize].proposal;
        Ok(Proposal {
            derived_from: staged.parents(),
            ..base
        })
    }

    #[inline]
    fn call(
        &mut self,
        _: &TxId,
        tool: &u8,
        basis: &Option<RecordId>,
    ) -> Result<(u8, RecordSet), Infallible> {
        Ok((*tool, basis.map_or(RecordSet::EMPTY, RecordSet::single)))
    }
}

/// Actions in words ([`Operation::describe`]): templates and tools by
/// name, from the specification.
impl Wording<ActionArgs> for ModelSpec {
    fn agent(&self, opening: &Opening) -> String {
        format!("agent {}", opening.agent)
    }

    fn opened(&self, opening: &Opening, tier: Tier) -> String {
        format!("T{} ({})", opening.tx, tier.name())
    }

    fn stage(&self, staged: &Staged) -> String {
        let name = self
            .templates
            .get(staged.template as usize)
            .map_or("?", |t| t.name.as_str());
        match (staged.parent, staged.second) {
            (Some(p), Some(q)) => format!("{name} derived from r{p} and r{q}"),
            (Some(p), None) => format!("{name} derived from r{p}"),
            _ => name.to_owned(),
        }
    }

    fn call(&self, tool: &u8, basis: &Option<RecordId>) -> String {
        let spec = self;
        let name = spec
            .protocol()
            .tools()
            .get(*tool as usize)
            .map_or("?", |t| spec.symbols().name(t.name));
        match basis {
            Some(basis) => format!("{name} on r{basis}"),
            None => name.to_owned(),
        }
    }
}

impl Action {
    /// The protocol operation this action stands for; it reads only the
    /// specification (a stage's template), never the state.
    #[inline]
    pub fn to_op(self, spec: &ModelSpec) -> crate::protocol::Op {
        self.map(&mut ToOp(spec))
    }
}

#[cfg(test)]
mod tests {
    use super::Action;

    /// The engine moves actions by the million: the one generic operation
    /// keeps the model's action as small as its own enum was (6 bytes).
    #[test]
    fn an_action_is_six_bytes() {
        assert_eq!(std::mem::size_of::<Action>(), 6);
    }
}
