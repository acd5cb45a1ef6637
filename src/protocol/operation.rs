//! The protocol's operations and the errors a refused operation reports:
//! what goes in. What comes out of an accepted one is in `outcome`.
//!
//! The operations are declared once, here, for every use of them:
//! [`Operation`] is generic over how its arguments are held
//! ([`Operands`]); the protocol's [`Op`], the model's action, a trace's
//! step and the generator's abstract operation are instances. The verb
//! table ([`Verb`]: names, the words of a sentence, the fields a step
//! takes), the conversions between instances ([`Operation::translate`])
//! and the sentence that says an operation ([`Operation::describe`]) are
//! written once, so an operation is added in this file and in the places
//! that give it meaning (`dispatch.rs` and its rule).

use super::enumerated::enumerated;
use super::lifecycle::IllegalMove;
use super::record::Proposal;
use super::record_set::{RecordId, RecordSet, MAX_RECORDS};
use super::transaction::{Tier, TxId};
use serde::Serialize;
use std::convert::Infallible;
use std::fmt;

/// What an operation's arguments are in one use of it. The eight
/// operations are one [`Operation`] enum; each use says how it holds the
/// agent that opens, a transaction, a record, what a stage stages and a
/// tool call's tool and basis: the protocol's [`Op`] ([`OpArgs`]), the
/// model's action, a trace's step, the generator's selectors, ITF values.
/// The implementors are uninhabited markers.
pub trait Operands {
    /// Who opens a transaction.
    type Agent;
    /// The transaction an operation acts in.
    type Tx;
    /// The record a revoke, a revalidation or a rebuild names.
    type Record;
    /// What a stage stages.
    type Stage;
    /// A tool call's tool.
    type Tool;
    /// A tool call's basis.
    type Basis;
}

/// An operation on the store (card §3.6: the memory tools plus tool
/// calls), its arguments as `P` holds them. Serialized, it is a trace
/// step's JSON: `op` the verb's [`Verb::name`], then the fields in
/// declaration order (a stage's `proposal` is written `record`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(
    tag = "op",
    rename_all = "snake_case",
    bound(
        serialize = "P::Agent: Serialize, P::Tx: Serialize, P::Record: Serialize, \
                       P::Stage: Serialize, P::Tool: Serialize, P::Basis: Serialize"
    )
)]
pub enum Operation<P: Operands> {
    Open {
        agent: P::Agent,
        tier: Tier,
    },
    Stage {
        tx: P::Tx,
        #[serde(rename = "record")]
        proposal: P::Stage,
    },
    Commit {
        tx: P::Tx,
    },
    Abort {
        tx: P::Tx,
    },
    Revoke {
        record: P::Record,
    },
    ToolCall {
        tx: P::Tx,
        tool: P::Tool,
        basis: P::Basis,
    },
    /// Takes a quarantined record back to tentative into `tx`'s staging
    /// (card §3.1: quarantined records "may be revalidated").
    Revalidate {
        tx: P::Tx,
        record: P::Record,
    },
    /// Rebuilds a view a cascade held back from its surviving sources into
    /// `tx`'s staging (card §3.4: views are "held back and rebuilt from
    /// surviving sources"; `protocol::rebuild`).
    Rebuild {
        tx: P::Tx,
        record: P::Record,
    },
}

/// The protocol's arguments: `tool` indexes the protocol's tool list, a
/// stage stages a whole [`Proposal`], a tool call's basis is a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpArgs {}

impl Operands for OpArgs {
    type Agent = u8;
    type Tx = TxId;
    type Record = RecordId;
    type Stage = Proposal;
    type Tool = u8;
    type Basis = RecordSet;
}

/// An operation on the store, as the protocol runs it.
pub type Op = Operation<OpArgs>;

enumerated! {
    /// Which operation, whatever its arguments.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Verb {
        Open,
        Stage,
        Commit,
        Abort,
        Revoke,
        ToolCall,
        Revalidate,
        Rebuild,
    }
}

/// How a verb is written: its name (traces, ITF, the driver protocol, the
/// model file), how it reads after its subject, its past participle, and
/// the fields a step of it takes, as a trace writes them.
type Words = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

/// The one verb table, in [`Verb::ALL`] order.
const WORDS: [Words; Verb::ALL.len()] = [
    ("open", "opens", "opened", &["agent", "tier"]),
    ("stage", "stages", "staged", &["tx", "record"]),
    ("commit", "commits", "committed", &["tx"]),
    ("abort", "aborts", "aborted", &["tx"]),
    ("revoke", "revokes", "revoked", &["record"]),
    ("tool_call", "calls", "called", &["tx", "tool", "basis"]),
    (
        "revalidate",
        "revalidates",
        "revalidated",
        &["tx", "record"],
    ),
    ("rebuild", "rebuilds", "rebuilt", &["tx", "record"]),
];

impl Verb {
    fn words(self) -> &'static Words {
        &WORDS[self as usize]
    }

    /// The name traces, ITF and the driver protocol write: `tool_call`.
    pub fn name(self) -> &'static str {
        self.words().0
    }

    /// The verb after its subject: `T1 revalidates r0`.
    pub fn says(self) -> &'static str {
        self.words().1
    }

    /// The past participle: `only a quarantined record can be rebuilt`.
    pub fn done(self) -> &'static str {
        self.words().2
    }

    /// The fields a step of this verb takes, in the order a trace writes
    /// them.
    pub fn fields(self) -> &'static [&'static str] {
        self.words().3
    }

    /// The verb [`Verb::name`] names.
    pub fn named(name: &str) -> Option<Verb> {
        Verb::ALL.into_iter().find(|v| v.name() == name)
    }

    /// This verb with every argument `()`: what [`Operation::translate`]
    /// fills in when a step is read field by field.
    pub fn blank(self) -> Operation<Blank> {
        match self {
            Verb::Open => Operation::Open {
                agent: (),
                tier: Tier::Low,
            },
            Verb::Stage => Operation::Stage {
                tx: (),
                proposal: (),
            },
            Verb::Commit => Operation::Commit { tx: () },
            Verb::Abort => Operation::Abort { tx: () },
            Verb::Revoke => Operation::Revoke { record: () },
            Verb::ToolCall => Operation::ToolCall {
                tx: (),
                tool: (),
                basis: (),
            },
            Verb::Revalidate => Operation::Revalidate { tx: (), record: () },
            Verb::Rebuild => Operation::Rebuild { tx: (), record: () },
        }
    }
}

/// No arguments: an operation that is only its verb ([`Verb::blank`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blank {}

impl Operands for Blank {
    type Agent = ();
    type Tx = ();
    type Record = ();
    type Stage = ();
    type Tool = ();
    type Basis = ();
}

/// How one use's arguments become another's ([`Operation::translate`]):
/// one method per kind of argument, each told enough to choose (the verb,
/// or the transaction already translated), so that no translation matches
/// on the operations.
pub trait Translate<P: Operands, Q: Operands> {
    type Error;
    /// An open's agent and tier.
    fn open(&mut self, agent: &P::Agent, tier: Tier) -> Result<(Q::Agent, Tier), Self::Error>;
    fn tx(&mut self, verb: Verb, tx: &P::Tx) -> Result<Q::Tx, Self::Error>;
    fn record(&mut self, verb: Verb, record: &P::Record) -> Result<Q::Record, Self::Error>;
    /// What `tx` (translated) stages.
    fn stage(&mut self, tx: &Q::Tx, proposal: &P::Stage) -> Result<Q::Stage, Self::Error>;
    /// The tool `tx` (translated) calls, and its basis.
    fn call(
        &mut self,
        tx: &Q::Tx,
        tool: &P::Tool,
        basis: &P::Basis,
    ) -> Result<(Q::Tool, Q::Basis), Self::Error>;
}

/// How an operation's arguments read in a sentence ([`Operation::describe`]);
/// transactions and records are always `T1` and `r0`.
pub trait Wording<P: Operands> {
    /// The subject of an open: `agent 0`.
    fn agent(&self, agent: &P::Agent) -> String;
    /// What an open says after its verb: `T0 (low)`, `at low`.
    fn opened(&self, agent: &P::Agent, tier: Tier) -> String;
    /// What a stage stages.
    fn stage(&self, proposal: &P::Stage) -> String;
    /// What a tool call calls, on what.
    fn call(&self, tool: &P::Tool, basis: &P::Basis) -> String;
}

impl<P: Operands> Operation<P> {
    pub fn verb(&self) -> Verb {
        match self {
            Operation::Open { .. } => Verb::Open,
            Operation::Stage { .. } => Verb::Stage,
            Operation::Commit { .. } => Verb::Commit,
            Operation::Abort { .. } => Verb::Abort,
            Operation::Revoke { .. } => Verb::Revoke,
            Operation::ToolCall { .. } => Verb::ToolCall,
            Operation::Revalidate { .. } => Verb::Revalidate,
            Operation::Rebuild { .. } => Verb::Rebuild,
        }
    }

    /// The transaction the operation acts in (an open's is the next one,
    /// a revoke acts in none).
    pub fn tx(&self) -> Option<&P::Tx> {
        match self {
            Operation::Open { .. } | Operation::Revoke { .. } => None,
            Operation::Stage { tx, .. }
            | Operation::Commit { tx }
            | Operation::Abort { tx }
            | Operation::ToolCall { tx, .. }
            | Operation::Revalidate { tx, .. }
            | Operation::Rebuild { tx, .. } => Some(tx),
        }
    }

    /// The same operation with its arguments translated by `t`; the first
    /// error stops it.
    #[inline]
    pub fn translate<Q: Operands, T: Translate<P, Q>>(
        &self,
        t: &mut T,
    ) -> Result<Operation<Q>, T::Error> {
        let verb = self.verb();
        Ok(match self {
            Operation::Open { agent, tier } => {
                let (agent, tier) = t.open(agent, *tier)?;
                Operation::Open { agent, tier }
            }
            Operation::Stage { tx, proposal } => {
                let tx = t.tx(verb, tx)?;
                let proposal = t.stage(&tx, proposal)?;
                Operation::Stage { tx, proposal }
            }
            Operation::Commit { tx } => Operation::Commit {
                tx: t.tx(verb, tx)?,
            },
            Operation::Abort { tx } => Operation::Abort {
                tx: t.tx(verb, tx)?,
            },
            Operation::Revoke { record } => Operation::Revoke {
                record: t.record(verb, record)?,
            },
            Operation::ToolCall { tx, tool, basis } => {
                let tx = t.tx(verb, tx)?;
                let (tool, basis) = t.call(&tx, tool, basis)?;
                Operation::ToolCall { tx, tool, basis }
            }
            Operation::Revalidate { tx, record } => Operation::Revalidate {
                tx: t.tx(verb, tx)?,
                record: t.record(verb, record)?,
            },
            Operation::Rebuild { tx, record } => Operation::Rebuild {
                tx: t.tx(verb, tx)?,
                record: t.record(verb, record)?,
            },
        })
    }

    /// [`Operation::translate`] by a translation that cannot fail.
    #[inline]
    pub fn map<Q: Operands, T: Translate<P, Q, Error = Infallible>>(
        &self,
        t: &mut T,
    ) -> Operation<Q> {
        match self.translate(t) {
            Ok(op) => op,
            Err(never) => match never {},
        }
    }

    /// The operation in words, its arguments as `w` says them: `agent 0
    /// opens …`, `T1 stages …`, `T1 commits`, `revoke r0`, `T1 calls …`,
    /// `T1 revalidates r0`.
    pub fn describe(&self, w: &impl Wording<P>) -> String
    where
        P::Tx: fmt::Display,
        P::Record: fmt::Display,
    {
        let says = self.verb().says();
        match self {
            Operation::Open { agent, tier } => {
                format!("{} {says} {}", w.agent(agent), w.opened(agent, *tier))
            }
            Operation::Stage { tx, proposal } => format!("T{tx} {says} {}", w.stage(proposal)),
            Operation::Commit { tx } | Operation::Abort { tx } => format!("T{tx} {says}"),
            Operation::Revoke { record } => format!("{} r{record}", self.verb().name()),
            Operation::ToolCall { tx, tool, basis } => {
                format!("T{tx} {says} {}", w.call(tool, basis))
            }
            Operation::Revalidate { tx, record } | Operation::Rebuild { tx, record } => {
                format!("T{tx} {says} r{record}")
            }
        }
    }
}

/// An operation the protocol refuses; the store is left unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    UnknownTransaction(TxId),
    TransactionNotOpen {
        tx: TxId,
        op: &'static str,
    },
    TransactionAborted(TxId),
    UnknownRecord(RecordId),
    UnknownParent(RecordId),
    UnknownTool(u8),
    /// Only committed or action_safe records can be revoked.
    NotRevocable {
        record: RecordId,
        state: &'static str,
    },
    /// A tool-call basis record the transaction may not use.
    BasisNotAllowed {
        record: RecordId,
        why: &'static str,
    },
    /// tool_action records come only from executed tool calls.
    StagedToolAction,
    /// Only a quarantined record can be revalidated or rebuilt; `op` is
    /// the operation's verb.
    NotQuarantined {
        op: &'static str,
        record: RecordId,
        state: &'static str,
    },
    /// The record is staged by another transaction that is still open:
    /// that transaction's commit or abort decides it.
    StagedElsewhere {
        op: &'static str,
        record: RecordId,
        tx: TxId,
    },
    /// Only a view (summary, profile, index entry, shared copy) is rebuilt.
    NotAView {
        record: RecordId,
        kind: &'static str,
    },
    /// A commit check quarantined this view: revalidation, not a rebuild,
    /// takes it back.
    QuarantinedByCheck {
        record: RecordId,
        reason: &'static str,
    },
    /// Every source of the view is revoked: nothing to rebuild it from.
    NoSurvivingSource {
        record: RecordId,
    },
    StoreFull,
    /// Transaction ids are bytes: at most 256 transactions per store.
    TooManyTransactions,
    IllegalMove {
        record: RecordId,
        illegal: IllegalMove,
    },
}

impl ProtocolError {
    /// The refusal's name, one per rule that refuses (`not_a_view`,
    /// `staged_elsewhere`, …): what the `refusals` property compares, with
    /// [`ProtocolError::record`], against the rule it finds applies.
    /// `illegal_move` is no refusal rule: a step that breaks the lifecycle
    /// is the protocol's own error.
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolError::UnknownTransaction(_) => "unknown_transaction",
            ProtocolError::TransactionNotOpen { .. } => "transaction_not_open",
            ProtocolError::TransactionAborted(_) => "transaction_aborted",
            ProtocolError::UnknownRecord(_) => "unknown_record",
            ProtocolError::UnknownParent(_) => "unknown_parent",
            ProtocolError::UnknownTool(_) => "unknown_tool",
            ProtocolError::NotRevocable { .. } => "not_revocable",
            ProtocolError::BasisNotAllowed { .. } => "basis_not_allowed",
            ProtocolError::StagedToolAction => "staged_tool_action",
            ProtocolError::NotQuarantined { .. } => "not_quarantined",
            ProtocolError::StagedElsewhere { .. } => "staged_elsewhere",
            ProtocolError::NotAView { .. } => "not_a_view",
            ProtocolError::QuarantinedByCheck { .. } => "quarantined_by_check",
            ProtocolError::NoSurvivingSource { .. } => "no_surviving_source",
            ProtocolError::StoreFull => "store_full",
            ProtocolError::TooManyTransactions => "too_many_transactions",
            ProtocolError::IllegalMove { .. } => "illegal_move",
        }
    }

    /// The record the refusal names, if it names one.
    pub fn record(&self) -> Option<RecordId> {
        match *self {
            ProtocolError::UnknownRecord(record)
            | ProtocolError::UnknownParent(record)
            | ProtocolError::NotRevocable { record, .. }
            | ProtocolError::BasisNotAllowed { record, .. }
            | ProtocolError::NotQuarantined { record, .. }
            | ProtocolError::StagedElsewhere { record, .. }
            | ProtocolError::NotAView { record, .. }
            | ProtocolError::QuarantinedByCheck { record, .. }
            | ProtocolError::NoSurvivingSource { record }
            | ProtocolError::IllegalMove { record, .. } => Some(record),
            ProtocolError::UnknownTransaction(_)
            | ProtocolError::TransactionNotOpen { .. }
            | ProtocolError::TransactionAborted(_)
            | ProtocolError::UnknownTool(_)
            | ProtocolError::StagedToolAction
            | ProtocolError::StoreFull
            | ProtocolError::TooManyTransactions => None,
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::UnknownTransaction(tx) => write!(f, "unknown transaction T{tx}"),
            ProtocolError::TransactionNotOpen { tx, op } => {
                write!(f, "cannot {op}: transaction T{tx} is no longer open")
            }
            ProtocolError::TransactionAborted(tx) => {
                write!(f, "transaction T{tx} was aborted and may do nothing")
            }
            ProtocolError::UnknownRecord(r) => write!(f, "unknown record r{r}"),
            ProtocolError::UnknownParent(r) => write!(f, "parent r{r} does not exist"),
            ProtocolError::UnknownTool(t) => write!(f, "unknown tool #{t}"),
            ProtocolError::NotRevocable { record, state } => write!(
                f,
                "cannot revoke r{record}: it is {state}, only committed or action_safe records can be revoked"
            ),
            ProtocolError::BasisNotAllowed { record, why } => {
                write!(f, "tool-call basis r{record} not allowed: {why}")
            }
            ProtocolError::StagedToolAction => write!(
                f,
                "cannot stage a tool_action record: only an executed tool call creates one"
            ),
            ProtocolError::NotQuarantined { op, record, state } => write!(
                f,
                "cannot {op} r{record}: it is {state}, only a quarantined record can be {}",
                Verb::named(op).map_or(*op, |v| v.done())
            ),
            ProtocolError::StagedElsewhere { op, record, tx } => write!(
                f,
                "cannot {op} r{record}: it is staged by T{tx}, which is still open and decides it"
            ),
            ProtocolError::NotAView { record, kind } => write!(
                f,
                "cannot rebuild r{record}: it is a {kind}, only a view (summary, profile, index entry, shared copy) is rebuilt"
            ),
            ProtocolError::QuarantinedByCheck { record, reason } => write!(
                f,
                "cannot rebuild r{record}: a commit check quarantined it ({reason}), not a cascade; revalidate it instead"
            ),
            ProtocolError::NoSurvivingSource { record } => write!(
                f,
                "cannot rebuild r{record}: every record it derives from is revoked, no source survives"
            ),
            ProtocolError::StoreFull => write!(f, "the store is full ({MAX_RECORDS} records)"),
            ProtocolError::TooManyTransactions => {
                write!(f, "the store already holds 256 transactions")
            }
            ProtocolError::IllegalMove { record, illegal } => write!(f, "r{record}: {illegal}"),
        }
    }
}

impl std::error::Error for ProtocolError {}
