//! Worker 0's report of a distributed run, in the engine's own terms
//! ([`EngineReport`]): the levels, and per property its verdict with the
//! trace its chain of action indices gives, replayed forward through the
//! model from the initial state with the chain's first fingerprint by the
//! single-process engine's own replay (`engine::replay`: the same state
//! and actions, and under a symmetry the same real trace).

use super::chain::Chain;
use super::setup::Setup;
use super::shard::Decisions;
use super::word::Word;
use crate::engine::{self, EngineReport, LabelCount, LevelStats, Stopped, Trace, Transitions};
use stateright::Model;
use std::hash::Hash;

/// The real trace a chain names, ending at `target` (at a state of its
/// class, under a symmetry): the engine's replay, from the chain's
/// initial state through its actions.
fn replay<M: Model, T: Transitions<M>, W: Word>(
    model: &M,
    chain: &Chain<W>,
    target: W,
) -> Trace<M::State, M::Action>
where
    M::State: Hash + Clone,
    M::Action: Clone,
{
    let start = engine::initial_level::<M, T, W>(model)
        .iter()
        .position(|&(fp, _)| fp == chain.fp)
        .expect("trace replay: the initial state recorded is gone (non-deterministic model?)");
    let indices: Vec<u32> = chain.actions.iter().rev().copied().collect();
    engine::replay::<M, T, W>(model, start, &indices, target)
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
        replay::<M, T, W>(model, chain, d.fp)
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
