//! Worker 0's report of a distributed run, in the engine's own terms
//! ([`EngineReport`]): the levels, and per property its verdict with the
//! trace its chain of action indices gives, replayed forward through the
//! model from the initial state with the chain's first fingerprint —
//! exactly the state and actions the single-process engine replays (and,
//! under a symmetry, realises as a real trace of the model the same way).

use super::chain::Chain;
use super::setup::Setup;
use super::shard::Decisions;
use super::word::Word;
use crate::engine::{
    initial_states, realize_trace, EngineReport, LabelCount, LevelStats, Stopped, Trace,
    Transitions,
};
use stateright::Model;
use std::hash::Hash;

/// Level 0: the in-boundary initial states (their representatives, under
/// a symmetry), one per fingerprint, in fingerprint order: the engine's
/// own.
pub(crate) fn initial_level<M: Model, T: Transitions<M>, W: Word>(model: &M) -> Vec<(W, M::State)>
where
    M::State: Hash,
{
    initial_states(model, T::canonical, |s| W::of(s))
}

/// The real trace a chain names, ending at `target` (at a state of its
/// class, under a symmetry).
///
/// Panics if the replay does not end there: the model is not
/// deterministic, or two states collided.
fn replay<M: Model, T: Transitions<M>, W: Word>(
    setup: &Setup<M>,
    chain: &Chain<W>,
    target: W,
) -> Trace<M::State, M::Action>
where
    M::State: Hash + Clone,
    M::Action: Clone,
{
    let (model, canonical) = (&*setup.model, T::canonical);
    let mut cur = initial_level::<M, T, W>(model)
        .into_iter()
        .find(|(fp, _)| *fp == chain.fp)
        .expect("trace replay: the initial state recorded is gone (non-deterministic model?)")
        .1;
    let mut trace = Vec::with_capacity(chain.actions.len() + 1);
    let mut actions = Vec::new();
    for &index in chain.actions.iter().rev() {
        model.actions(&cur, &mut actions);
        let action = actions.drain(..).nth(index as usize);
        let next = action
            .clone()
            .and_then(|a| model.next_state(&cur, a))
            .map(|next| canonical(model, next));
        let (Some(action), Some(next)) = (action, next) else {
            panic!("trace replay: a recorded action is gone (non-deterministic model?)");
        };
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
    realize_trace(model, &targets, |s| W::of(&canonical(model, s.clone())))
}

/// The run's report on worker 0.
pub(crate) fn build<M: Model, T: Transitions<M>, W: Word>(
    setup: &Setup<M>,
    levels: Vec<LevelStats>,
    decisions: Decisions<W>,
    chains: Vec<Option<Chain<W>>>,
    complete: bool,
    stopped: Option<Stopped>,
    labels: Vec<LabelCount>,
) -> EngineReport<M::State, M::Action>
where
    M::State: Hash + Clone,
    M::Action: Clone,
{
    let model = &*setup.model;
    let properties = decisions.into_results(&model.properties(), |p, d| {
        let chain = chains[p]
            .as_ref()
            .expect("every decided property's chain is walked");
        replay::<M, T, W>(setup, chain, d.fp)
    });
    let last = levels.last().expect("level 0 is always present");
    EngineReport {
        unique_states: last.total_states,
        transitions: last.total_transitions,
        levels,
        complete,
        properties,
        labels,
        fingerprint_bits: 8 * W::BYTES as u32,
        stopped,
        disk_io: None,
    }
}
