//! Steps to protocol operations and back. Going in, new strings are
//! interned into the compiled configuration's symbol table; coming out,
//! every record field is written in full.

use super::document::Step;
use crate::config::{record_set, Compiled, RecordSpec};
use crate::protocol::Op;

impl Step {
    /// The protocol operation; interns new strings into `compiled.symbols`.
    /// A tool the configuration does not have is an error naming it.
    pub fn to_op(&self, compiled: &mut Compiled) -> Result<crate::protocol::Op, String> {
        Ok(match self {
            Step::Open { agent, tier } => Op::Open {
                agent: *agent,
                tier: *tier,
            },
            Step::Stage { tx, record } => Op::Stage {
                tx: *tx,
                proposal: record.to_proposal(&mut compiled.symbols)?,
            },
            Step::Commit { tx } => Op::Commit { tx: *tx },
            Step::Abort { tx } => Op::Abort { tx: *tx },
            Step::Revoke { record } => Op::Revoke { record: *record },
            Step::ToolCall { tx, tool, basis } => Op::ToolCall {
                tx: *tx,
                tool: compiled
                    .tool_index(tool)
                    .ok_or_else(|| format!("\"{tool}\" is not a tool of the configuration"))?,
                basis: record_set("basis", basis)?,
            },
            Step::Revalidate { tx, record } => Op::Revalidate {
                tx: *tx,
                record: *record,
            },
            Step::Rebuild { tx, record } => Op::Rebuild {
                tx: *tx,
                record: *record,
            },
        })
    }

    /// The step for `op`, with every record field written out.
    pub fn from_op(op: &Op, compiled: &Compiled) -> Step {
        match *op {
            Op::Open { agent, tier } => Step::Open { agent, tier },
            Op::Stage { tx, proposal } => Step::Stage {
                tx,
                record: RecordSpec::of_proposal(&proposal, &compiled.symbols),
            },
            Op::Commit { tx } => Step::Commit { tx },
            Op::Abort { tx } => Step::Abort { tx },
            Op::Revoke { record } => Step::Revoke { record },
            Op::ToolCall { tx, tool, basis } => Step::ToolCall {
                tx,
                tool: compiled.tool_name(tool),
                basis: basis.iter().collect(),
            },
            Op::Revalidate { tx, record } => Step::Revalidate { tx, record },
            Op::Rebuild { tx, record } => Step::Rebuild { tx, record },
        }
    }
}
