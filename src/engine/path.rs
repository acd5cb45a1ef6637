//! Trace reconstruction: from a deciding state, follow the parent links
//! back to level 0 (positions and action indices), then replay the
//! actions forward through the model so the trace holds real states and
//! actions. Under a symmetry the replay runs through representatives
//! first, giving the fingerprint of each step's representative, and then
//! again from a real initial state, choosing at each step the first action
//! whose successor's representative has the next fingerprint: a real trace
//! of the unreduced model.

use super::decisions::{Decision, Witness};
use super::fp::Fp;
use super::labels::Transitions;
use super::links::LinkStore;
use super::Trace;
use stateright::Model;
use std::hash::Hash;

/// Level 0: the in-boundary initial states (their representatives, under
/// a symmetry), one per fingerprint, in fingerprint order.
pub(crate) fn initial_level<M, T, W>(model: &M) -> Vec<(W, M::State)>
where
    M: Model,
    M::State: Hash,
    T: Transitions<M>,
    W: Fp,
{
    let mut level: Vec<(W, M::State)> = model
        .init_states()
        .into_iter()
        .map(|s| T::canonical(model, s))
        .filter(|s| model.within_boundary(s))
        .map(|s| (W::of(&s), s))
        .collect();
    level.sort_by_key(|&(fp, _)| fp);
    level.dedup_by_key(|&mut (fp, _)| fp);
    level
}

/// The position in level 0 and the action indices leading to `d`'s
/// state, which [`replay`] turns into a shortest trace to it.
pub(crate) fn walk_back<W>(d: &Decision<W>, links: &LinkStore) -> (usize, Vec<u32>) {
    let mut actions = Vec::with_capacity(d.depth);
    let (mut depth, mut pos) = match d.witness {
        Witness::At(pos) => (d.depth, pos),
        Witness::Via(link) => {
            actions.push(link.action);
            (d.depth - 1, link.parent as u64)
        }
    };
    while depth > 0 {
        let link = links.get(depth, pos);
        actions.push(link.action);
        pos = link.parent as u64;
        depth -= 1;
    }
    actions.reverse();
    (pos as usize, actions)
}

/// The trace of real states of the model from level 0's state `start`
/// (its place in level 0) through the actions `indices` (each one's place
/// in its state's `actions` list, first step first), which the run
/// followed (through representatives, under a symmetry), to the state
/// `target` (to a state of its class, under a symmetry, realised as a
/// real trace as `realize_trace` says).
///
/// Panics if it does not end at `target`: the model is not
/// deterministic, or two states collided.
pub(crate) fn replay<M, T, W>(
    model: &M,
    start: usize,
    indices: &[u32],
    target: W,
) -> Trace<M::State, M::Action>
where
    M: Model,
    M::State: Hash + Clone,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    let mut cur = initial_level::<M, T, W>(model)
        .into_iter()
        .nth(start)
        .expect("trace replay: the initial state recorded is gone (non-deterministic model?)")
        .1;
    let mut trace = Vec::with_capacity(indices.len() + 1);
    let mut actions = Vec::new();
    for (step, &index) in indices.iter().enumerate() {
        model.actions(&cur, &mut actions);
        let action = actions.drain(..).nth(index as usize);
        let next = action.clone().and_then(|a| T::next(model, &cur, a).ok());
        let (Some(action), Some((next, _))) = (action, next) else {
            panic!(
                "trace replay: the action recorded for step {} is gone (non-deterministic model?)",
                step + 1
            );
        };
        actions.clear();
        trace.push((cur, Some(action)));
        cur = next;
    }
    assert!(
        W::of(&cur) == target,
        "trace replay: the replayed state has another fingerprint (non-deterministic model or fingerprint collision)"
    );
    trace.push((cur, None));
    if !T::REDUCED {
        return trace;
    }
    let targets: Vec<W> = trace.iter().map(|(s, _)| W::of(s)).collect();
    realize_trace(model, &targets, |s| W::of(&T::canonical(model, s.clone())))
}

/// A real trace of `model` whose states' representatives have, step by
/// step, the fingerprints `targets` (`rep_fp` gives a state's): from the
/// first initial state with the first target, each step takes the first
/// action whose successor has the next: how every run realises its
/// traces under a symmetry.
///
/// Panics if no action reaches a target: the symmetry is unsound, or the
/// model not deterministic.
pub(super) fn realize_trace<M, W>(
    model: &M,
    targets: &[W],
    rep_fp: impl Fn(&M::State) -> W,
) -> Trace<M::State, M::Action>
where
    M: Model,
    M::State: Clone,
    M::Action: Clone,
    W: PartialEq + Copy,
{
    let mut cur = model
        .init_states()
        .into_iter()
        .find(|s| rep_fp(s) == targets[0])
        .expect("trace replay: no initial state has the recorded representative");
    let mut trace = Vec::with_capacity(targets.len());
    let mut actions = Vec::new();
    for (step, &target) in targets[1..].iter().enumerate() {
        model.actions(&cur, &mut actions);
        let found = actions.drain(..).find_map(|a| {
            model
                .next_state(&cur, a.clone())
                .filter(|next| rep_fp(next) == target)
                .map(|next| (a, next))
        });
        let (action, next) = found.unwrap_or_else(|| {
            panic!("trace replay: no real action of step {} reaches the recorded class (is the symmetry sound?)", step + 1)
        });
        actions.clear();
        trace.push((cur, Some(action)));
        cur = next;
    }
    trace.push((cur, None));
    trace
}
