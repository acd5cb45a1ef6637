//! Shrinking a departing trace: greedily drop a transaction (its open and
//! every step of it) or a single step, keeping the candidate when the
//! model still accepts it (every step is an action the model offers where
//! it is taken; the protocol may refuse it, as it may in any trace) and
//! the implementation still departs at a step of the same operation; the
//! candidate is then cut after that step. Repeats until nothing more can
//! be dropped.
//!
//! Ids are the hard part: dropping an open renumbers every later
//! transaction, dropping a stage every later record. So a trace is held
//! as steps that name, instead of ids, the step that created the
//! transaction or record they act on ([`Symbolic`]); a candidate is made
//! concrete by running it through the model, which hands out the ids
//! afresh, and a step whose creator was dropped goes with it.

use super::lockstep::{Breach, Departure};
use crate::model::{Action, ActionArgs, MemtxModel, ModelState, Opening, Staged, StepRefusal};
use crate::protocol::{Outcome, RecordId, Tier, Translate, TxId, Verb};
use stateright::Model;
use std::collections::HashMap;
use std::convert::Infallible;

/// A step, naming its transaction and record by the steps that made them.
#[derive(Clone, Copy, Debug)]
struct Symbolic {
    /// The step's index in the trace shrinking started from.
    id: usize,
    action: Action,
    tx_from: Option<usize>,
    record_from: Option<usize>,
    /// A stage's second parent, when its template takes two.
    second_from: Option<usize>,
}

/// The transaction and the records `action` acts on (an open names none:
/// its id is the next one): a stage's parents, the record of any other.
fn refs(action: &Action) -> (Option<TxId>, Option<RecordId>, Option<RecordId>) {
    let mut seen = Records(Vec::new());
    action.map(&mut seen);
    let record = |i: usize| seen.0.get(i).copied().flatten();
    (action.tx().copied(), record(0), record(1))
}

/// The records an action names, in order, gathered while it is mapped to
/// itself.
struct Records(Vec<Option<RecordId>>);

impl Translate<ActionArgs, ActionArgs> for Records {
    type Error = Infallible;

    fn open(&mut self, opening: &Opening, tier: Tier) -> Result<(Opening, Tier), Infallible> {
        Ok((*opening, tier))
    }

    fn tx(&mut self, _: Verb, tx: &TxId) -> Result<TxId, Infallible> {
        Ok(*tx)
    }

    fn record(&mut self, _: Verb, record: &RecordId) -> Result<RecordId, Infallible> {
        self.0.push(Some(*record));
        Ok(*record)
    }

    fn stage(&mut self, _: &TxId, staged: &Staged) -> Result<Staged, Infallible> {
        self.0.extend([staged.parent, staged.second]);
        Ok(*staged)
    }

    fn call(
        &mut self,
        _: &TxId,
        tool: &u8,
        basis: &Option<RecordId>,
    ) -> Result<(u8, Option<RecordId>), Infallible> {
        self.0.push(*basis);
        Ok((*tool, *basis))
    }
}

/// `action` acting on transaction `tx` and records `record` (and a stage's
/// `second` parent) instead, or opening transaction `next_tx`.
fn renamed(
    action: Action,
    tx: Option<TxId>,
    (record, second): (Option<RecordId>, Option<RecordId>),
    next_tx: TxId,
) -> Action {
    action.map(&mut Renamed {
        tx: tx.unwrap_or(0),
        record,
        second,
        next_tx,
    })
}

/// The ids [`renamed`] puts in.
struct Renamed {
    tx: TxId,
    record: Option<RecordId>,
    second: Option<RecordId>,
    next_tx: TxId,
}

impl Translate<ActionArgs, ActionArgs> for Renamed {
    type Error = Infallible;

    fn open(&mut self, opening: &Opening, tier: Tier) -> Result<(Opening, Tier), Infallible> {
        Ok((
            Opening {
                tx: self.next_tx,
                ..*opening
            },
            tier,
        ))
    }

    fn tx(&mut self, _: Verb, _: &TxId) -> Result<TxId, Infallible> {
        Ok(self.tx)
    }

    fn record(&mut self, _: Verb, _: &RecordId) -> Result<RecordId, Infallible> {
        Ok(self.record.unwrap_or(0))
    }

    fn stage(&mut self, _: &TxId, staged: &Staged) -> Result<Staged, Infallible> {
        Ok(Staged {
            parent: self.record,
            second: self.second,
            ..*staged
        })
    }

    fn call(
        &mut self,
        _: &TxId,
        tool: &u8,
        _: &Option<RecordId>,
    ) -> Result<(u8, Option<RecordId>), Infallible> {
        Ok((*tool, self.record))
    }
}

/// What the model made of one step: the ids it created.
fn created(outcome: &Outcome) -> (Option<TxId>, Option<RecordId>) {
    match outcome {
        Outcome::Opened { tx, .. } => (Some(*tx), None),
        Outcome::Staged { record } => (None, Some(*record)),
        Outcome::ToolCall(g) => (None, g.record),
        _ => (None, None),
    }
}

/// Runs `steps` through the model: the concrete actions and the steps
/// kept (those whose creators are all kept), or `None` when the model does
/// not accept them.
fn concrete(model: &MemtxModel, steps: &[Symbolic]) -> Option<(Vec<Action>, Vec<Symbolic>)> {
    let mut state = ModelState::default();
    let (mut txs, mut records) = (HashMap::new(), HashMap::new());
    let (mut actions, mut kept) = (Vec::new(), Vec::new());
    let mut offered = Vec::new();
    for s in steps {
        let tx = match s.tx_from {
            Some(from) => match txs.get(&from) {
                Some(&tx) => Some(tx),
                None => continue,
            },
            None => None,
        };
        let made = |from: Option<usize>| match from {
            Some(from) => records.get(&from).map(|&r| Some(r)),
            None => Some(None),
        };
        let (Some(record), Some(second)) = (made(s.record_from), made(s.second_from)) else {
            continue;
        };
        let action = renamed(
            s.action,
            tx,
            (record, second),
            state.store.transactions().len() as TxId,
        );
        offered.clear();
        model.actions(&state, &mut offered);
        if !offered.contains(&action) {
            return None;
        }
        match model.step(&state, &action) {
            Ok((next, outcome)) => {
                let (tx, record) = created(&outcome);
                if let Some(tx) = tx {
                    txs.insert(s.id, tx);
                }
                if let Some(r) = record {
                    records.insert(s.id, r);
                }
                state = next;
            }
            Err(StepRefusal::Protocol(_)) => {}
            Err(_) => return None,
        }
        actions.push(action);
        kept.push(*s);
    }
    Some((actions, kept))
}

/// `actions` as symbolic steps; `None` if the model does not accept them.
fn symbolic(model: &MemtxModel, actions: &[Action]) -> Option<Vec<Symbolic>> {
    let mut state = ModelState::default();
    let (mut tx_maker, mut record_maker): (HashMap<TxId, usize>, HashMap<RecordId, usize>) =
        (HashMap::new(), HashMap::new());
    let mut out = Vec::with_capacity(actions.len());
    for (id, action) in actions.iter().enumerate() {
        let (tx, record, second) = refs(action);
        let maker = |r: Option<RecordId>| match r {
            Some(r) => record_maker.get(&r).map(|&m| Some(m)),
            None => Some(None),
        };
        out.push(Symbolic {
            id,
            action: *action,
            tx_from: match tx {
                Some(tx) => Some(*tx_maker.get(&tx)?),
                None => None,
            },
            record_from: maker(record)?,
            second_from: maker(second)?,
        });
        match model.step(&state, action) {
            Ok((next, outcome)) => {
                let (tx, record) = created(&outcome);
                if let Some(tx) = tx {
                    tx_maker.insert(tx, id);
                }
                if let Some(r) = record {
                    record_maker.insert(r, id);
                }
                state = next;
            }
            Err(StepRefusal::Protocol(_)) => {}
            Err(_) => return None,
        }
    }
    Some(out)
}

/// A shrunk departure: the actions and where they depart.
pub struct Shrunk {
    pub actions: Vec<Action>,
    pub departure: Departure,
    /// Candidates run against the implementation.
    pub tries: usize,
}

/// Runs a candidate against the implementation: where it departs, if it
/// does.
pub type Depart<'a> = dyn FnMut(&[Action]) -> Result<Option<Departure>, Breach> + 'a;

/// Shrinks `actions`, which depart as `departure` says; `depart` runs a
/// candidate against the implementation.
pub fn shrink(
    model: &MemtxModel,
    actions: &[Action],
    departure: Departure,
    depart: &mut Depart<'_>,
) -> Result<Shrunk, Breach> {
    let cut = &actions[..=departure.step];
    let op = cut[departure.step].verb().name();
    let mut best = Shrunk {
        actions: cut.to_vec(),
        departure,
        tries: 0,
    };
    let Some(mut steps) = symbolic(model, cut) else {
        return Ok(best);
    };
    'improve: loop {
        // Whole transactions first (an open takes its steps along), then
        // single steps.
        let opens = steps
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.action, Action::Open { .. }))
            .map(|(i, _)| i);
        let candidates: Vec<usize> = opens.chain(0..steps.len()).collect();
        for drop in candidates {
            let mut candidate = steps.clone();
            candidate.remove(drop);
            let Some((actions, kept)) = concrete(model, &candidate) else {
                continue;
            };
            if actions.is_empty() {
                continue;
            }
            best.tries += 1;
            let Some(d) = depart(&actions)? else { continue };
            if actions[d.step].verb().name() != op {
                continue;
            }
            steps = kept[..=d.step].to_vec();
            best.actions = actions[..=d.step].to_vec();
            best.departure = d;
            continue 'improve;
        }
        return Ok(best);
    }
}
