//! An independent naive BFS oracle: full states in a `HashSet`, one level
//! at a time, no fingerprints, shards, batches or threads.

use crate::engine::LabelledModel;
use stateright::{Expectation, Model};
use std::collections::HashSet;
use std::hash::Hash;

/// What the oracle found.
pub(super) struct Oracle {
    /// Per level: `(depth, new, total, transitions, total_transitions)`.
    pub(super) levels: Vec<(usize, u64, u64, u64, u64)>,
    /// Per property: the shallowest deciding depth.
    pub(super) first: Vec<Option<usize>>,
    /// Per label bit (all 128): transitions carrying it and the first
    /// depth (of the target level) at which one was taken.
    pub(super) labels: Vec<(u64, Option<usize>)>,
}

/// The oracle on a plain model.
pub(super) fn naive_bfs<M>(model: &M, max_depth: Option<usize>) -> Oracle
where
    M: Model,
    M::State: Hash + Eq + Clone,
{
    naive_bfs_with(model, max_depth, |s, a| {
        model.next_state(s, a).map(|n| (n, 0))
    })
}

/// The oracle on a labelled model, its labels counted.
pub(super) fn naive_labelled_bfs<M>(model: &M, max_depth: Option<usize>) -> Oracle
where
    M: LabelledModel,
    M::State: Hash + Eq + Clone,
{
    naive_bfs_with(model, max_depth, |s, a| model.next_state_labelled(s, a))
}

fn naive_bfs_with<M>(
    model: &M,
    max_depth: Option<usize>,
    next: impl Fn(&M::State, M::Action) -> Option<(M::State, u128)>,
) -> Oracle
where
    M: Model,
    M::State: Hash + Eq + Clone,
{
    let props = model.properties();
    let mut first: Vec<Option<usize>> = vec![None; props.len()];
    let mut labels = vec![(0, None); 128];
    let mut seen = HashSet::new();
    let mut level: Vec<M::State> = model
        .init_states()
        .into_iter()
        .filter(|s| model.within_boundary(s) && seen.insert(s.clone()))
        .collect();
    let mut out = Vec::new();
    let (mut total, mut total_tr, mut tr) = (0u64, 0u64, 0u64);
    for depth in 0.. {
        total += level.len() as u64;
        total_tr += tr;
        out.push((depth, level.len() as u64, total, tr, total_tr));
        for s in &level {
            for (p, prop) in props.iter().enumerate() {
                let holds = (prop.condition)(model, s);
                let hit = match prop.expectation {
                    Expectation::Always => !holds,
                    Expectation::Sometimes => holds,
                    Expectation::Eventually => false,
                };
                if hit && first[p].is_none() {
                    first[p] = Some(depth);
                }
            }
        }
        if level.is_empty() || max_depth == Some(depth) {
            break;
        }
        tr = 0;
        let mut new = Vec::new();
        for s in &level {
            let mut actions = Vec::new();
            model.actions(s, &mut actions);
            for a in actions {
                let Some((n, label)) = next(s, a) else {
                    continue;
                };
                if !model.within_boundary(&n) {
                    continue;
                }
                tr += 1;
                for (bit, (count, first)) in labels.iter_mut().enumerate() {
                    if label >> bit & 1 == 1 {
                        *count += 1;
                        first.get_or_insert(depth + 1);
                    }
                }
                if seen.insert(n.clone()) {
                    new.push(n);
                }
            }
        }
        level = new;
    }
    Oracle {
        levels: out,
        first,
        labels,
    }
}

/// Checks the parent rule on `trace`, a trace the engine reported for a
/// property decided at `trace.len() − 1`: every step's parent is the
/// smallest (parent fingerprint, action index) among the discoverers of
/// its state at its depth, and the final state is the deciding state with
/// the smallest fingerprint at that depth (`decides` says which states
/// decide the property). Depths come from a naive BFS.
pub(super) fn assert_parent_rule<M>(
    model: &M,
    trace: &crate::engine::Trace<M::State, M::Action>,
    decides: impl Fn(&M::State) -> bool,
) where
    M: Model,
    M::State: Hash + Eq + Clone + std::fmt::Debug,
    M::Action: PartialEq + Clone + std::fmt::Debug,
{
    use crate::engine::fingerprint;
    let mut depth_of = std::collections::HashMap::new();
    let mut level: Vec<M::State> = Vec::new();
    for s in model.init_states() {
        if model.within_boundary(&s) && !depth_of.contains_key(&s) {
            depth_of.insert(s.clone(), 0usize);
            level.push(s);
        }
    }
    let mut levels = vec![level.clone()];
    for depth in 1..trace.len() {
        let mut next = Vec::new();
        for s in &level {
            let mut actions = Vec::new();
            model.actions(s, &mut actions);
            for a in actions {
                if let Some(n) = model.next_state(s, a) {
                    if model.within_boundary(&n) && !depth_of.contains_key(&n) {
                        depth_of.insert(n.clone(), depth);
                        next.push(n);
                    }
                }
            }
        }
        levels.push(next.clone());
        level = next;
    }
    for (d, step) in trace.windows(2).enumerate() {
        let target = &step[1].0;
        let best = levels[d]
            .iter()
            .flat_map(|p| {
                let mut actions = Vec::new();
                model.actions(p, &mut actions);
                actions
                    .into_iter()
                    .enumerate()
                    .filter(|(_, a)| model.next_state(p, a.clone()).as_ref() == Some(target))
                    .map(|(i, a)| (fingerprint(p), i, p.clone(), a))
                    .collect::<Vec<_>>()
            })
            .min_by_key(|&(fp, i, _, _)| (fp, i))
            .expect("a discoverer");
        assert_eq!(
            (&best.2, &best.3),
            (&step[0].0, step[0].1.as_ref().unwrap()),
            "step {d}"
        );
    }
    let last = trace.last().unwrap().0.clone();
    let smallest = levels[trace.len() - 1]
        .iter()
        .filter(|s| decides(s))
        .min_by_key(|s| fingerprint(*s))
        .expect("a deciding state");
    assert_eq!(
        &last, smallest,
        "the deciding state with the smallest fingerprint"
    );
}
