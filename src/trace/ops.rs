//! Steps to protocol operations and back. Going in, new strings are
//! interned into the compiled configuration's symbol table; coming out,
//! every record field is written in full.

use super::document::{Step, StepArgs};
use crate::config::{record_set, Compiled, RecordSpec};
use crate::protocol::{Op, OpArgs, Proposal, RecordSet, Tier, Translate, Verb};
use std::convert::Infallible;

impl Step {
    /// The protocol operation; interns new strings into `compiled.symbols`.
    /// A tool the configuration does not have is an error naming it.
    pub fn to_op(&self, compiled: &mut Compiled) -> Result<Op, String> {
        self.translate(&mut In(compiled))
    }

    /// The step for `op`, with every record field written out.
    pub fn from_op(op: &Op, compiled: &Compiled) -> Step {
        op.map(&mut Out(compiled))
    }
}

/// Steps in: strings interned, tools looked up by name.
struct In<'a>(&'a mut Compiled);

impl Translate<StepArgs, OpArgs> for In<'_> {
    type Error = String;

    fn open(&mut self, agent: &u8, tier: Tier) -> Result<(u8, Tier), String> {
        Ok((*agent, tier))
    }

    fn tx(&mut self, _: Verb, tx: &u8) -> Result<u8, String> {
        Ok(*tx)
    }

    fn record(&mut self, _: Verb, record: &u8) -> Result<u8, String> {
        Ok(*record)
    }

    fn stage(&mut self, _: &u8, record: &RecordSpec) -> Result<Proposal, String> {
        record.to_proposal(&mut self.0.symbols)
    }

    fn call(&mut self, _: &u8, tool: &String, basis: &Vec<u8>) -> Result<(u8, RecordSet), String> {
        let tool = self
            .0
            .tool_index(tool)
            .ok_or_else(|| format!("\"{tool}\" is not a tool of the configuration"))?;
        Ok((tool, record_set("basis", basis)?))
    }
}

/// Operations out: every record field and tool name written.
struct Out<'a>(&'a Compiled);

impl Translate<OpArgs, StepArgs> for Out<'_> {
    type Error = Infallible;

    fn open(&mut self, agent: &u8, tier: Tier) -> Result<(u8, Tier), Infallible> {
        Ok((*agent, tier))
    }

    fn tx(&mut self, _: Verb, tx: &u8) -> Result<u8, Infallible> {
        Ok(*tx)
    }

    fn record(&mut self, _: Verb, record: &u8) -> Result<u8, Infallible> {
        Ok(*record)
    }

    fn stage(&mut self, _: &u8, proposal: &Proposal) -> Result<RecordSpec, Infallible> {
        Ok(RecordSpec::of_proposal(proposal, &self.0.symbols))
    }

    fn call(
        &mut self,
        _: &u8,
        tool: &u8,
        basis: &RecordSet,
    ) -> Result<(String, Vec<u8>), Infallible> {
        Ok((self.0.tool_name(*tool), basis.iter().collect()))
    }
}
