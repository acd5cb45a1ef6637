//! [`Protocol`]: the configuration a run fixes (tools, logical clock,
//! variant) and the dispatch of one operation to its named step. Opening,
//! staging and tool calls live here; commit, the gate, repair,
//! revalidation and rebuild have files of their own.

use super::lifecycle::Lifecycle;
use super::operation::{Op, ProtocolError};
use super::outcome::{GateOutcome, Outcome};
use super::record::{Hundredths, Kind, Proposal, Record, Scope};
use super::record_set::{RecordId, RecordSet, MAX_RECORDS};
use super::store::Store;
use super::symbols::Sym;
use super::transaction::{Tier, Transaction, TxId, TxStatus};
use super::variant::{Mechanism, ToolBasis, Variant};

/// A domain tool: reversible tools pass the gate, irreversible ones wait
/// (card §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tool {
    pub name: Sym,
    pub irreversible: bool,
}

/// The protocol under one configuration. Deterministic: the same store and
/// operation always give the same store and outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protocol {
    pub(in crate::protocol) tools: Vec<Tool>,
    pub(in crate::protocol) clock: Option<i32>,
    pub(in crate::protocol) variant: Variant,
}

impl Protocol {
    pub fn new(tools: Vec<Tool>, clock: Option<i32>, variant: Variant) -> Self {
        Protocol {
            tools,
            clock,
            variant,
        }
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub fn clock(&self) -> Option<i32> {
        self.clock
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Applies `op` to `store`. On error the store is unchanged.
    pub fn apply(&self, store: &mut Store, op: &Op) -> Result<Outcome, ProtocolError> {
        let (next, outcome) = self.step(store, op)?;
        *store = next;
        Ok(outcome)
    }

    /// The store after `op`, and its outcome; `store` itself is untouched.
    pub fn step(&self, store: &Store, op: &Op) -> Result<(Store, Outcome), ProtocolError> {
        let mut next = Store::new();
        let outcome = self.step_into(store, op, &mut next)?;
        Ok((next, outcome))
    }

    /// [`Protocol::step`] written into `next`, whose buffers are reused
    /// (a model checker steps every transition into one state). On error
    /// `next` holds no store of interest.
    pub fn step_into(
        &self,
        store: &Store,
        op: &Op,
        next: &mut Store,
    ) -> Result<Outcome, ProtocolError> {
        self.precheck(store, op)?;
        next.clone_from(store);
        Ok(match *op {
            Op::Open { agent, tier } => self.open(next, agent, tier),
            Op::Stage { tx, proposal } => self.stage(next, tx, proposal)?,
            Op::Commit { tx } => Outcome::Committed(self.commit(next, tx)?),
            Op::Abort { tx } => self.rules().abort(self, next, tx)?,
            Op::Revoke { record } => self.rules().revoke(self, next, record)?,
            Op::ToolCall { tx, tool, basis } => {
                Outcome::ToolCall(self.tool_call(next, tx, tool, basis)?)
            }
            Op::Revalidate { tx, record } => self.rules().revalidate(next, tx, record)?,
            Op::Rebuild { tx, record } => self.rebuild(next, tx, record)?,
        })
    }

    /// Every refusal that can be seen without changing anything, checked
    /// before the store is copied.
    fn precheck(&self, store: &Store, op: &Op) -> Result<(), ProtocolError> {
        match *op {
            Op::Open { .. } if store.txs.len() > TxId::MAX as usize => {
                Err(ProtocolError::TooManyTransactions)
            }
            Op::Open { .. } => Ok(()),
            Op::Stage { tx, proposal } => {
                open_tx(store, tx, "stage into")?;
                if proposal.kind == Kind::ToolAction {
                    return Err(ProtocolError::StagedToolAction);
                }
                if let Some(parent) = proposal.derived_from.difference(store.ids()).iter().next() {
                    return Err(ProtocolError::UnknownParent(parent));
                }
                room_for_a_record(store)
            }
            Op::Commit { tx } => open_tx(store, tx, "commit").map(drop),
            Op::Abort { tx } => open_tx(store, tx, "abort").map(drop),
            Op::Revoke { record } => {
                let r = store
                    .record(record)
                    .ok_or(ProtocolError::UnknownRecord(record))?;
                if r.state().is_committed_or_safe() {
                    Ok(())
                } else {
                    Err(ProtocolError::NotRevocable {
                        record,
                        state: r.state().name(),
                    })
                }
            }
            Op::ToolCall { tx, tool, basis } => {
                let t = store
                    .transaction(tx)
                    .ok_or(ProtocolError::UnknownTransaction(tx))?;
                if t.status == TxStatus::Aborted {
                    return Err(ProtocolError::TransactionAborted(tx));
                }
                if tool as usize >= self.tools.len() {
                    return Err(ProtocolError::UnknownTool(tool));
                }
                self.check_basis(store, t, basis)
            }
            Op::Revalidate { tx, record } => {
                open_tx(store, tx, "revalidate into")?;
                self.rules().revalidation_refusal(store, tx, record)
            }
            Op::Rebuild { tx, record } => {
                open_tx(store, tx, "rebuild into")?;
                self.rules().rebuild_refusal(store, tx, record)
            }
        }
    }

    /// Opens a transaction; its snapshot is the visible set now (card §3.2).
    fn open(&self, store: &mut Store, agent: u8, tier: Tier) -> Outcome {
        let snapshot = self.rules().snapshot_at(tier, &store.records);
        store.txs.push(Transaction {
            agent,
            tier,
            status: TxStatus::Open,
            snapshot,
            staged: RecordSet::EMPTY,
        });
        let tx = store.txs.len() - 1;
        self.rules().opened(tx as TxId, &store.txs[tx])
    }

    /// Stages a proposal as a tentative record (card §3.2). Parents need
    /// only exist: commit, not staging, judges them (DESIGN.md).
    fn stage(
        &self,
        store: &mut Store,
        tx: TxId,
        proposal: Proposal,
    ) -> Result<Outcome, ProtocolError> {
        let agent = store.txs[tx as usize].agent;
        let id = store.records.len() as RecordId;
        store.records.push(Record::new(
            proposal,
            proposal.owner.unwrap_or(agent),
            Lifecycle::Raw,
            None,
            None,
        ));
        store.move_to(id, Lifecycle::Tentative)?;
        self.rules().join_staging(&mut store.txs[tx as usize], id);
        Ok(Outcome::Staged { record: id })
    }

    /// The tool-call basis rule of the variant (DESIGN.md `tool_basis`).
    fn check_basis(
        &self,
        store: &Store,
        t: &Transaction,
        basis: RecordSet,
    ) -> Result<(), ProtocolError> {
        for id in basis.iter() {
            let record = store.record(id).ok_or(ProtocolError::UnknownRecord(id))?;
            if !t.visible().contains(id) {
                return Err(ProtocolError::BasisNotAllowed {
                    record: id,
                    why: "not visible to the transaction",
                });
            }
            if self.variant.tool_basis == ToolBasis::Active && !record.state().is_active() {
                return Err(ProtocolError::BasisNotAllowed {
                    record: id,
                    why: "not active",
                });
            }
        }
        Ok(())
    }

    /// A tool call: the gate decides; an executed call creates a committed
    /// tool_action record derived from its basis (DESIGN.md).
    fn tool_call(
        &self,
        store: &mut Store,
        tx: TxId,
        tool: u8,
        basis: RecordSet,
    ) -> Result<GateOutcome, ProtocolError> {
        let spec = self.tools[tool as usize];
        let in_snapshot = match self.gate(store, tx, spec) {
            Ok(in_snapshot) => in_snapshot,
            Err(reason) => {
                return Ok(GateOutcome {
                    allowed: false,
                    reason: Some(reason),
                    record: None,
                    in_snapshot: RecordSet::EMPTY,
                })
            }
        };
        room_for_a_record(store)?;
        let t = store.txs[tx as usize];
        let id = store.records.len() as RecordId;
        let rules = self.rules();
        store
            .records
            .push(rules.tool_action(spec, t.agent, basis, tool));
        Ok(rules.executed(id, in_snapshot))
    }

    pub(in crate::protocol) fn has(&self, mechanism: Mechanism) -> bool {
        self.variant.has(mechanism)
    }
}

/// What an open reports: transaction `tx`, `t`, and its snapshot.
pub(in crate::protocol) fn opened(tx: TxId, t: &Transaction) -> Outcome {
    Outcome::Opened {
        tx,
        snapshot: t.snapshot,
    }
}

/// Card §3.2: a staged record joins its transaction's staging; it is not
/// in the snapshot, which was fixed at open.
pub(in crate::protocol) fn join_staging(t: &mut Transaction, id: RecordId) {
    t.staged.insert(id);
}

/// The tool_action record an executed call of `tool` (`spec`) by `agent`
/// creates: committed, derived from its basis (DESIGN.md).
pub(in crate::protocol) fn tool_action(
    spec: Tool,
    agent: u8,
    basis: RecordSet,
    tool: u8,
) -> Record {
    let fields = tool_action_fields(spec, agent, basis);
    Record::new(fields, agent, Lifecycle::Committed, None, Some(tool))
}

/// What an executed call reports: the tool_action `record` it created,
/// and the tentative records the gate let pass as read.
pub(in crate::protocol) fn executed(record: RecordId, in_snapshot: RecordSet) -> GateOutcome {
    GateOutcome {
        allowed: true,
        reason: None,
        record: Some(record),
        in_snapshot,
    }
}

/// The fields of the tool_action record an executed call of `tool` by
/// `agent` creates.
pub(in crate::protocol) fn tool_action_fields(tool: Tool, agent: u8, basis: RecordSet) -> Proposal {
    Proposal {
        kind: Kind::ToolAction,
        entity: tool.name,
        attribute: tool.name,
        value: tool.name,
        source: Some(tool.name),
        authority: Hundredths(100),
        confidence: Hundredths(100),
        owner: Some(agent),
        scope: Scope::Shared,
        derived_from: basis,
        window: Default::default(),
    }
}

/// The transaction, if it exists and is open.
pub(in crate::protocol) fn open_tx<'a>(
    store: &'a Store,
    tx: TxId,
    op: &'static str,
) -> Result<&'a Transaction, ProtocolError> {
    let t = store
        .transaction(tx)
        .ok_or(ProtocolError::UnknownTransaction(tx))?;
    if t.status == TxStatus::Open {
        Ok(t)
    } else {
        Err(ProtocolError::TransactionNotOpen { tx, op })
    }
}

fn room_for_a_record(store: &Store) -> Result<(), ProtocolError> {
    if store.records.len() < MAX_RECORDS {
        Ok(())
    } else {
        Err(ProtocolError::StoreFull)
    }
}
