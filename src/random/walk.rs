//! One random walk through the model: from the initial state, repeatedly
//! pick an action uniformly among those that are transitions (the model
//! offers candidates; the protocol may refuse some) until the walk has
//! taken its steps or no action is enabled. Every state reached is checked
//! against the invariants and the companions not yet reached, and its
//! fingerprint is recorded. Every transition taken, and every attempt the
//! protocol refused on the way to it, adds its branch labels to the run's
//! coverage, as the exhaustive check counts them, at the walk's position
//! (the step number, 1-based) as its depth.

use super::rng::SplitMix64;
use crate::engine::{fingerprint, LabelledModel};
use crate::invariants::Invariant;
use crate::model::coverage::Coverage;
use crate::model::{Action, MemtxModel, ModelState, Predicate};
use stateright::Model;
use std::collections::HashSet;

/// What one walk did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The walk's own seed (see [`super::rng::walk_seed`]).
    pub seed: u64,
    /// Steps taken.
    pub steps: usize,
    /// The first step (0-based: the violation is seen in the state after
    /// it) at which each violated invariant fails, ordered by step, ties in
    /// the model's property order.
    pub violations: Vec<(Invariant, usize)>,
    /// Which companions a state of the walk satisfied, one bit per
    /// companion in the order of [`MemtxModel::judged_companions`].
    pub companions: u64,
    /// The actions taken, when the walk was asked to keep them.
    pub actions: Vec<Action>,
}

impl Walk {
    pub fn violated(&self, invariant: Invariant) -> Option<usize> {
        self.violations
            .iter()
            .find(|(i, _)| *i == invariant)
            .map(|(_, s)| *s)
    }
}

/// Where a walk records what it saw beyond its own summary: the
/// fingerprint of every state it visits (the initial one included) and the
/// branches its steps took.
pub struct Seen<'a> {
    pub states: &'a mut HashSet<u64>,
    pub coverage: &'a mut Coverage,
}

/// Runs the walk seeded `seed` for at most `max_steps` steps, recording
/// into `seen`, and keeping its actions if `keep_actions`.
pub fn walk(
    model: &MemtxModel,
    seed: u64,
    max_steps: usize,
    seen: Seen<'_>,
    keep_actions: bool,
) -> Walk {
    let mut rng = SplitMix64::new(seed);
    let mut state = model.init_states().into_iter().next().unwrap_or_default();
    seen.states.insert(fingerprint(&state));
    let mut out = Walk {
        seed,
        steps: 0,
        violations: Vec::new(),
        companions: 0,
        actions: Vec::new(),
    };
    let mut candidates = Vec::new();
    for step in 0..max_steps {
        candidates.clear();
        model.actions(&state, &mut candidates);
        let depth = step + 1;
        let Some((action, next)) =
            pick_transition(model, &state, &mut candidates, &mut rng, &mut |labels| {
                seen.coverage.add(labels, depth)
            })
        else {
            break;
        };
        state = next;
        out.steps += 1;
        if keep_actions {
            out.actions.push(action);
        }
        seen.states.insert(fingerprint(&state));
        observe(model, &state, step, &mut out);
    }
    out
}

/// Draws candidates without replacement until one is a transition: the
/// first transition of a uniformly random order is uniform among the
/// transitions, and most draws cost one protocol step. Each draw's labels
/// (the transition's, or a refused attempt's) go to `count`.
fn pick_transition(
    model: &MemtxModel,
    state: &ModelState,
    candidates: &mut Vec<Action>,
    rng: &mut SplitMix64,
    count: &mut dyn FnMut(u128),
) -> Option<(Action, ModelState)> {
    while !candidates.is_empty() {
        let action = candidates.swap_remove(rng.below(candidates.len()));
        match model.attempt_labelled(state, action) {
            Ok((next, labels)) => {
                count(labels);
                return Some((action, next));
            }
            Err(labels) => {
                if labels != 0 {
                    count(labels);
                }
            }
        }
    }
    None
}

/// Checks the invariants not yet violated and the companions not yet
/// reached on the state after `step`.
fn observe(model: &MemtxModel, state: &ModelState, step: usize, w: &mut Walk) {
    for p in model.judged_invariants() {
        let Some(inv) = p.invariant() else { continue };
        if w.violated(inv).is_none() && !(p.holds)(model, state) {
            w.violations.push((inv, step));
        }
    }
    for (bit, p) in model.judged_companions().enumerate().take(64) {
        if w.companions & (1 << bit) == 0 && (p.holds)(model, state) {
            w.companions |= 1 << bit;
        }
    }
}

/// Re-runs `actions` from the initial state: the step after which
/// `holds` first fails, or `None` if it never fails or some action is not
/// an enabled transition where it is taken (offered by the model and
/// accepted by the protocol).
pub fn first_failure(model: &MemtxModel, actions: &[Action], holds: Predicate) -> Option<usize> {
    let mut state = model.init_states().into_iter().next().unwrap_or_default();
    let mut offered = Vec::new();
    for (i, action) in actions.iter().enumerate() {
        offered.clear();
        model.actions(&state, &mut offered);
        if !offered.contains(action) {
            return None;
        }
        state = model.next_state(&state, *action)?;
        if !holds(model, &state) {
            return Some(i);
        }
    }
    None
}

/// The states along `actions` paired with the action taken from each, the
/// last state with none: the path form `check::Counterexample::build`
/// takes. `None` if some action is not a transition.
pub fn path_of(
    model: &MemtxModel,
    actions: &[Action],
) -> Option<Vec<(ModelState, Option<Action>)>> {
    let mut state = model.init_states().into_iter().next().unwrap_or_default();
    let mut path = Vec::with_capacity(actions.len() + 1);
    for action in actions {
        let next = model.next_state(&state, *action)?;
        path.push((state, Some(*action)));
        state = next;
    }
    path.push((state, None));
    Some(path)
}
