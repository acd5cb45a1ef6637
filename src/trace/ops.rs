//! Steps to protocol operations and back. Going in, new strings are
//! interned into the compiled configuration's symbol table; coming out,
//! every record field is written in full.

use super::{RecordSpec, Step};
use crate::config::Compiled;
use crate::protocol::{Op, Proposal, RecordSet, Sym, Symbols, Window, MAX_RECORDS};

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
                proposal: proposal(record, &mut compiled.symbols)?,
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
        })
    }

    /// The step for `op`, with every record field written out.
    pub fn from_op(op: &Op, compiled: &Compiled) -> Step {
        match *op {
            Op::Open { agent, tier } => Step::Open { agent, tier },
            Op::Stage { tx, proposal } => Step::Stage {
                tx,
                record: spec(&proposal, &compiled.symbols),
            },
            Op::Commit { tx } => Step::Commit { tx },
            Op::Abort { tx } => Step::Abort { tx },
            Op::Revoke { record } => Step::Revoke { record },
            Op::ToolCall { tx, tool, basis } => Step::ToolCall {
                tx,
                tool: compiled.tool_name(tool),
                basis: basis.iter().collect(),
            },
        }
    }
}

fn proposal(r: &RecordSpec, symbols: &mut Symbols) -> Result<Proposal, String> {
    Ok(Proposal {
        kind: r.kind,
        entity: intern(symbols, &r.entity)?,
        attribute: intern(symbols, &r.attribute)?,
        value: intern(symbols, &r.value)?,
        source: r
            .source
            .as_deref()
            .map(|s| intern(symbols, s))
            .transpose()?,
        authority: r.authority,
        confidence: r.confidence,
        owner: r.owner,
        scope: r.scope,
        derived_from: record_set("derived_from", &r.derived_from)?,
        window: Window {
            from: r.valid_from,
            to: r.valid_to,
        },
    })
}

fn spec(p: &Proposal, symbols: &Symbols) -> RecordSpec {
    RecordSpec {
        kind: p.kind,
        entity: symbols.name(p.entity).to_owned(),
        attribute: symbols.name(p.attribute).to_owned(),
        value: symbols.name(p.value).to_owned(),
        source: p.source.map(|s| symbols.name(s).to_owned()),
        authority: p.authority,
        confidence: p.confidence,
        scope: p.scope,
        derived_from: p.derived_from.iter().collect(),
        valid_from: p.window.from,
        valid_to: p.window.to,
        owner: p.owner,
    }
}

/// Interns `name` unless the table is full (it holds 65,536 strings);
/// interning past that would panic in `Symbols::intern`.
fn intern(symbols: &mut Symbols, name: &str) -> Result<Sym, String> {
    if let Some(sym) = symbols.lookup(name) {
        return Ok(sym);
    }
    if symbols.len() > usize::from(u16::MAX) {
        return Err(format!("too many distinct strings to intern \"{name}\""));
    }
    Ok(symbols.intern(name))
}

fn record_set(field: &str, ids: &[u8]) -> Result<RecordSet, String> {
    match ids.iter().find(|&&id| id as usize >= MAX_RECORDS) {
        Some(id) => Err(format!(
            "{field}: r{id} is beyond the store's {MAX_RECORDS} records"
        )),
        None => Ok(ids.iter().copied().collect()),
    }
}
