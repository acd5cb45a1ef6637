//! The MemTX protocol as a `stateright::Model`. Its actions are exactly the
//! protocol's operations open, stage, commit, abort, revoke, tool_call and
//! (behind the model switches `revalidate` and `rebuild`) revalidate and
//! rebuild, generated from a model specification and its bounds;
//! `next_state` calls the protocol and nothing protocol-specific is
//! re-implemented here.
//!
//! Beside the store, the state carries the invariants' [`Monitor`]: a bit
//! per transition property (I1 and ours), set by the transition that
//! breaks it, and the retractions the actions performed (what they
//! reached, held back and left unrepaired), which I2, log completeness
//! and `refusals` read instead of the protocol's own log and quarantine
//! reasons. `step` updates it from the
//! operation; the state properties read the store and the monitor.
//! [`properties`] declares them all, once, in one table, so Stateright's
//! checkers, its explorer and our own engine all see the same verdicts.
//!
//! Each transition is labelled with the protocol branches it took
//! ([`coverage`], counted by the engine through `labels`).
//!
//! The model knows nothing of how it is shown: the explorer wraps it in a
//! model of its own that adds `format_step` and `as_svg`.

mod action;
mod codec;
pub mod coverage;
mod labels;
pub mod properties;
mod spec;
mod symmetry;

pub use action::{Action, ActionArgs, Opening, Staged};
pub use codec::ModelCodec;
pub use properties::{property, ModelProperty, Predicate, PropertyKind, PROPERTIES};
pub use spec::{ModelSpec, TemplateSpec};
pub use state::{MemtxModel, ModelState};

use crate::protocol::{Lifecycle, Op, Outcome, ProtocolError, RecordId, Store, TxStatus};
use stateright::{Model, Property};

impl MemtxModel {
    pub fn new(spec: ModelSpec) -> Self {
        MemtxModel { spec }
    }

    /// How many agents may open the next transaction. Agent identity
    /// never changes what the protocol does (it only fills `owner`), so
    /// unless a template names an owner the model breaks the symmetry:
    /// the next transaction is opened by an agent that already opened one
    /// or by the lowest-numbered agent that has not. Every behaviour is
    /// still reached, once instead of once per renaming of the agents.
    pub fn openers(&self, store: &Store) -> u8 {
        if !self.spec.agents_symmetric() {
            return self.spec.agents;
        }
        let next_new = store
            .transactions()
            .iter()
            .map(|t| t.agent() + 1)
            .max()
            .unwrap_or(0);
        (next_new + 1).min(self.spec.agents)
    }

    /// The invariants this model judges (its context's selection), in
    /// report order.
    pub fn judged_invariants(&self) -> impl Iterator<Item = &'static ModelProperty> {
        properties::selected(self.spec.context().selection()).filter(|p| p.invariant().is_some())
    }

    /// The companions of the invariants it judges, in report order.
    pub fn judged_companions(&self) -> impl Iterator<Item = &'static ModelProperty> {
        properties::selected(self.spec.context().selection()).filter(|p| p.invariant().is_none())
    }

    /// The protocol operation an action stands for.
    pub fn op(&self, action: &Action) -> Op {
        action.to_op(&self.spec)
    }

    /// Runs one action through the protocol: the next state and the
    /// protocol's outcome, or why it is not a transition. A refusal is
    /// reported as the protocol gave it, judged or not: the engines'
    /// [`Model::next_state`] also makes a misjudged refusal a transition
    /// ([`MemtxModel::misjudged_into`]).
    pub fn step(
        &self,
        state: &ModelState,
        action: &Action,
    ) -> Result<(ModelState, Outcome), StepRefusal> {
        let mut next = ModelState::default();
        let outcome = self.step_into(state, action, &mut next)?;
        Ok((next, outcome))
    }

    /// [`MemtxModel::step`] written into `next`, whose buffers are reused:
    /// the engine steps every transition of a run into one state, so a
    /// transition allocates nothing. On a refusal `next` holds no state of
    /// interest.
    pub fn step_into(
        &self,
        state: &ModelState,
        action: &Action,
        next: &mut ModelState,
    ) -> Result<Outcome, StepRefusal> {
        self.admit(state, action)?;
        let op = self.op(action);
        let outcome = self
            .spec
            .protocol()
            .step_into(&state.store, &op, &mut next.store)
            .map_err(StepRefusal::Protocol)?;
        self.conclude(state, &op, &outcome, next)?;
        Ok(outcome)
    }

    /// [`MemtxModel::step_into`] for a caller that wants the successor
    /// alone (the engine's unlabelled runs): whether the action is a
    /// transition. The protocol's outcome is dropped where the protocol
    /// leaves it; re-wrapping it as `step_into`'s result, a byte copy of a
    /// large enum into another layout, was a tenth of a run's time.
    pub fn successor_into(
        &self,
        state: &ModelState,
        action: &Action,
        next: &mut ModelState,
    ) -> bool {
        if self.admit(state, action).is_err() {
            return false;
        }
        // Built where it is used: returned inside a `Result`, the
        // operation was copied with wide loads over the narrow stores that
        // had just written it, and the processor waited on each.
        let op = self.op(action);
        match self
            .spec
            .protocol()
            .step_into(&state.store, &op, &mut next.store)
        {
            Ok(outcome) => self.conclude(state, &op, &outcome, next).is_ok(),
            Err(error) => self.misjudged_into(state, &op, &error, next),
        }
    }

    /// An attempt the protocol refused with `error`: no transition when
    /// the refusal is the one the rules give; otherwise a transition to
    /// the same store, its monitor marking `refusals` broken
    /// ([`crate::invariants::Monitor::after_refusal`]), so that every
    /// engine reports it with the attempt as the last step. A correct
    /// protocol never takes it, and its state space is unchanged.
    pub(crate) fn misjudged_into(
        &self,
        state: &ModelState,
        op: &Op,
        error: &ProtocolError,
        next: &mut ModelState,
    ) -> bool {
        let ctx = self.spec.context();
        match state
            .monitor
            .after_refusal(ctx, state.store.view(), op, error)
        {
            Some(monitor) => {
                next.store.clone_from(&state.store);
                next.monitor = monitor;
                true
            }
            None => false,
        }
    }

    /// Whether the model itself lets `action` reach the protocol.
    #[inline]
    pub fn admit(&self, state: &ModelState, action: &Action) -> Result<(), StepRefusal> {
        match *action {
            Action::Open { agent, .. } if agent.tx as usize != state.store.transactions().len() => {
                Err(StepRefusal::NotThisTransaction)
            }
            _ => Ok(()),
        }
    }

    /// After the protocol stepped `state` by `op` into `next.store`: the
    /// record bound, then the monitor of `next`.
    fn conclude(
        &self,
        state: &ModelState,
        op: &Op,
        outcome: &Outcome,
        next: &mut ModelState,
    ) -> Result<(), StepRefusal> {
        if next.store.records().len() > self.spec.max_records {
            return Err(StepRefusal::RecordBound);
        }
        next.monitor = state.monitor.after(
            self.spec.context(),
            state.store.view(),
            op,
            outcome,
            next.store.view(),
        );
        Ok(())
    }
}

/// Why an action offered by `actions` is not a transition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepRefusal {
    /// The protocol refused the operation.
    Protocol(ProtocolError),
    /// An executed tool call would exceed the record bound.
    RecordBound,
    /// An open action names another id than the one the transaction gets.
    NotThisTransaction,
}

impl std::fmt::Display for StepRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepRefusal::Protocol(e) => e.fmt(f),
            StepRefusal::RecordBound => f.write_str("it would exceed the record bound"),
            StepRefusal::NotThisTransaction => {
                f.write_str("the transaction it opens would get another id")
            }
        }
    }
}

/// A model that delegates to this one (the explorer's) reads it here; the
/// property table's predicates take any such model.
impl AsRef<MemtxModel> for MemtxModel {
    fn as_ref(&self) -> &MemtxModel {
        self
    }
}

impl Model for MemtxModel {
    type State = ModelState;
    type Action = Action;

    fn init_states(&self) -> Vec<ModelState> {
        vec![ModelState::default()]
    }

    /// Candidate actions in a stable order (the explorer addresses actions
    /// by position): opens; then per transaction stage, commit, abort,
    /// per quarantined record a revalidation and a rebuild (when the model
    /// allows them; a rebuild is offered for every quarantined record, so
    /// coverage counts each refusal) and tool calls; then revokes. The
    /// protocol has the last word: an action it refuses is not a
    /// transition. An aborted transaction is offered one call of each
    /// tool, which the protocol refuses: coverage counts that attempt
    /// (`gate.refused.aborted_transaction`), never as a transition.
    fn actions(&self, state: &ModelState, actions: &mut Vec<Action>) {
        let spec = &self.spec;
        let store = &state.store;
        let n_records = store.records().len();
        if store.transactions().len() < spec.max_transactions {
            for agent in 0..self.openers(store) {
                for &tier in &spec.tiers {
                    actions.push(Action::Open {
                        agent: Opening {
                            agent,
                            tx: store.transactions().len() as u8,
                        },
                        tier,
                    });
                }
            }
        }
        for (tx, t) in store.transactions().iter().enumerate() {
            let tx = tx as u8;
            if t.status() == TxStatus::Open {
                if n_records < spec.max_records {
                    for (template, tpl) in spec.templates.iter().enumerate() {
                        let stage = |parent, second| Action::Stage {
                            tx,
                            proposal: Staged {
                                template: template as u8,
                                parent,
                                second,
                            },
                        };
                        if tpl.parent_optional {
                            actions.push(stage(None, None));
                        }
                        let records = 0..n_records as RecordId;
                        if tpl.parent_allowed {
                            actions.extend(records.clone().map(|p| stage(Some(p), None)));
                        }
                        if tpl.two_parents {
                            for second in records.skip(1) {
                                actions.extend((0..second).map(|p| stage(Some(p), Some(second))));
                            }
                        }
                    }
                }
                actions.push(Action::Commit { tx });
                actions.push(Action::Abort { tx });
                for (record, r) in store.records().iter().enumerate() {
                    if r.state() != Lifecycle::Quarantined {
                        continue;
                    }
                    let record = record as RecordId;
                    if spec.revalidate {
                        actions.push(Action::Revalidate { tx, record });
                    }
                    if spec.rebuild {
                        actions.push(Action::Rebuild { tx, record });
                    }
                }
            }
            for tool in 0..spec.protocol().tools().len() as u8 {
                if t.status() == TxStatus::Aborted {
                    // The attempt coverage counts; never a transition.
                    actions.push(Action::ToolCall {
                        tx,
                        tool,
                        basis: None,
                    });
                    continue;
                }
                for basis in t.visible().iter() {
                    actions.push(Action::ToolCall {
                        tx,
                        tool,
                        basis: Some(basis),
                    });
                }
            }
        }
        for (id, r) in store.records().iter().enumerate() {
            if matches!(r.state(), Lifecycle::Committed | Lifecycle::ActionSafe) {
                actions.push(Action::Revoke {
                    record: id as RecordId,
                });
            }
        }
    }

    fn next_state(&self, state: &ModelState, action: Action) -> Option<ModelState> {
        let mut next = ModelState::default();
        self.successor_into(state, &action, &mut next)
            .then_some(next)
    }

    fn format_action(&self, action: &Action) -> String {
        action.describe(&self.spec)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        properties::selected(self.spec.context().selection())
            .map(ModelProperty::stateright)
            .collect()
    }
}

mod state;
#[cfg(test)]
mod tests;
