//! Trace reconstruction: from a state's fingerprint, walk the parent links
//! back to an initial state, then replay forward through the model so the
//! trace holds real states and actions.

use super::fingerprint::{fingerprint, NO_PARENT};
use super::Trace;
use stateright::Model;
use std::hash::Hash;

/// The fingerprints from an initial state to `fp`, following `parent_of`
/// (which returns [`NO_PARENT`] for an initial state).
fn fingerprint_chain(fp: u64, parent_of: impl Fn(u64) -> u64) -> Vec<u64> {
    let mut chain = vec![fp];
    let mut cur = fp;
    loop {
        let parent = parent_of(cur);
        if parent == NO_PARENT {
            break;
        }
        chain.push(parent);
        cur = parent;
    }
    chain.reverse();
    chain
}

/// Replays a fingerprint chain: the first in-boundary initial state with
/// the first fingerprint, then at each step the first action (in
/// `model.actions` order) whose successor has the next fingerprint.
///
/// Panics if no such state or action exists (a non-deterministic model or
/// a fingerprint collision).
fn replay<M>(model: &M, chain: &[u64]) -> Trace<M::State, M::Action>
where
    M: Model,
    M::State: Hash,
    M::Action: Clone,
{
    let mut cur = model
        .init_states()
        .into_iter()
        .find(|s| model.within_boundary(s) && fingerprint(s) == chain[0])
        .expect("trace replay: no initial state has the recorded fingerprint (non-deterministic model?)");
    let mut trace = Vec::with_capacity(chain.len());
    let mut actions = Vec::new();
    for (step, &target) in chain[1..].iter().enumerate() {
        model.actions(&cur, &mut actions);
        let found = actions.drain(..).find_map(|a| {
            model
                .next_state(&cur, a.clone())
                .filter(|next| fingerprint(next) == target)
                .map(|next| (a, next))
        });
        let (action, next) = found.unwrap_or_else(|| {
            panic!(
                "trace replay: no action of step {} reaches the recorded fingerprint \
                 (non-deterministic model or fingerprint collision)",
                step + 1
            )
        });
        actions.clear();
        trace.push((cur, Some(action)));
        cur = next;
    }
    trace.push((cur, None));
    trace
}

/// The shortest-path trace (as recorded by the parent links) ending in the
/// state with fingerprint `fp`.
pub(crate) fn reconstruct<M>(
    model: &M,
    fp: u64,
    parent_of: impl Fn(u64) -> u64,
) -> Trace<M::State, M::Action>
where
    M: Model,
    M::State: Hash,
    M::Action: Clone,
{
    replay(model, &fingerprint_chain(fp, parent_of))
}
