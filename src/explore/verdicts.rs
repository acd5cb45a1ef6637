//! Each invariant and companion along one explorer path: the transition
//! properties (I1 and ours) on every transition of the path, the state
//! properties on the last state, and each "sometimes" companion of the
//! model where the path first reaches it. The checkers are the independent ones of
//! [`crate::invariants`]; the companions are the model's own properties,
//! so the explorer agrees with `check`.

use super::store;
use crate::invariants::{self, Invariant, Violation};
use crate::model::{properties, Action, MemtxModel, ModelState};
use crate::protocol::RecordId;
use stateright::Model;

/// What one invariant says about the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantRow {
    pub invariant: Invariant,
    /// The violation, if any: for a transition property the first
    /// transition of the path that breaks it, for a state property the last
    /// state.
    pub violation: Option<Violation>,
    /// For a transition property, the 1-based number of the breaking
    /// action and its label.
    pub action: Option<(usize, String)>,
}

/// Where the path reaches a companion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reached {
    /// It holds at the last state.
    Here,
    /// It first held after this many actions (0: the initial state), but
    /// no longer holds at the last state.
    After(usize),
    No,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompanionRow {
    pub name: &'static str,
    pub reached: Reached,
}

/// The verdicts of one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathVerdicts {
    pub invariants: Vec<InvariantRow>,
    pub companions: Vec<CompanionRow>,
}

impl PathVerdicts {
    /// Judges a path of `(state, action taken from it)` pairs, the last
    /// state with no action. Actions the model refuses leave the state as
    /// it was and are skipped, as the explorer does.
    pub fn of(model: &MemtxModel, path: &[(ModelState, Option<Action>)]) -> PathVerdicts {
        let ctx = model.spec.context();
        let selection = ctx.selection();
        let mut rows: Vec<InvariantRow> = selection
            .iter()
            .map(|invariant| InvariantRow {
                invariant,
                violation: None,
                action: None,
            })
            .collect();
        // Transition properties: the first transition of the path that
        // breaks each.
        for (n, (state, action)) in path.iter().enumerate() {
            let Some(action) = action else { continue };
            let Ok((next, outcome)) = model.step(state, action) else {
                continue;
            };
            let op = model.op(action);
            let (before, after) = (store(state).view(), store(&next).view());
            let step = state.monitor.transition(before, &op, &outcome, after);
            for v in invariants::check_transition(ctx, step) {
                if let Some(row) = rows
                    .iter_mut()
                    .find(|r| r.invariant == v.invariant && r.violation.is_none())
                {
                    row.violation = Some(v);
                    row.action = Some((n + 1, model.format_action(action)));
                }
            }
        }
        // State properties: the last state.
        if let Some((last, _)) = path.last() {
            for v in invariants::check_state(ctx, store(last).view(), &last.monitor) {
                if let Some(row) = rows
                    .iter_mut()
                    .find(|r| r.invariant == v.invariant && r.violation.is_none())
                {
                    row.violation = Some(v);
                }
            }
        }
        let last = path.last().map(|(s, _)| s);
        let companions = properties::selected(selection)
            .filter(|p| p.invariant().is_none())
            .map(|p| {
                let holds = |s: &ModelState| (p.holds)(model, s);
                let reached = if last.is_some_and(holds) {
                    Reached::Here
                } else {
                    path.iter()
                        .position(|(s, _)| holds(s))
                        .map_or(Reached::No, Reached::After)
                };
                CompanionRow {
                    name: p.name(),
                    reached,
                }
            })
            .collect();
        PathVerdicts {
            invariants: rows,
            companions,
        }
    }

    /// The invariants whose violation names record `id`.
    pub fn naming(&self, id: RecordId) -> Vec<Invariant> {
        self.invariants
            .iter()
            .filter(|r| r.violation.as_ref().is_some_and(|v| v.records.contains(id)))
            .map(|r| r.invariant)
            .collect()
    }

    /// Some invariant is violated on this path.
    pub fn violated(&self) -> bool {
        self.invariants.iter().any(|r| r.violation.is_some())
    }
}
