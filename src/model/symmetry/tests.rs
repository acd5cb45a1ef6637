//! The two facts the reduction rests on, checked exhaustively on every
//! state reachable within small bounds and every renaming of its
//! transactions: the representative is a canonical form (one per class,
//! itself in the class), and a renaming changes no property and maps the
//! successors onto renamed successors.

use super::canonical;
use crate::config::{Depth, ModelConfig};
use crate::model::{Action, MemtxModel, ModelSpec, ModelState, PROPERTIES};
use stateright::Model;
use std::collections::HashSet;

fn model(path: &str, records: usize, transactions: usize) -> MemtxModel {
    let mut c = ModelConfig::load(std::path::Path::new(path)).expect("a shipped model loads");
    c.bounds.records = records;
    c.bounds.transactions = transactions;
    c.bounds.depth = Depth::Bounded(0);
    MemtxModel::new(ModelSpec::from_config(&c))
}

/// The states reachable in at most `depth` actions, level by level: entry
/// `d` holds those whose shortest distance is `d`.
fn levels(model: &MemtxModel, depth: usize) -> Vec<Vec<ModelState>> {
    let mut seen: HashSet<ModelState> = model.init_states().into_iter().collect();
    let mut levels = vec![model.init_states()];
    let mut actions = Vec::new();
    for d in 0..depth {
        let mut next = Vec::new();
        for s in &levels[d] {
            model.actions(s, &mut actions);
            for a in actions.drain(..) {
                if let Some(t) = model.next_state(s, a) {
                    if seen.insert(t.clone()) {
                        next.push(t);
                    }
                }
            }
        }
        levels.push(next);
    }
    levels
}

/// Every state reachable in at most `depth` actions.
fn reachable(model: &MemtxModel, depth: usize) -> Vec<ModelState> {
    levels(model, depth).concat()
}

/// Every ordering of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

/// `s` with transaction `order[k]` renamed `k`.
fn renamed(s: &ModelState, order: &[usize]) -> ModelState {
    ModelState {
        store: s.store.renamed_for_tests(order),
        monitor: s.monitor,
    }
}

/// The renamings of `s`, the identity first.
fn renamings(s: &ModelState) -> impl Iterator<Item = ModelState> + '_ {
    permutations(s.store.transactions().len())
        .into_iter()
        .map(|p| renamed(s, &p))
}

/// The small bounds the tests sweep: the default model with four
/// transactions (24 renamings), and the model whose templates and tiers
/// reach the most of the protocol.
fn cases() -> Vec<(MemtxModel, usize)> {
    vec![
        (model("models/default.json", 3, 4), 6),
        (model("models/full-surface.json", 3, 3), 5),
        (model("models/two-agents.json", 3, 3), 5),
    ]
}

#[test]
fn the_representative_is_one_state_per_class_and_in_its_class() {
    for (model, depth) in cases() {
        let states = reachable(&model, depth);
        let mut moved = 0;
        for s in &states {
            let rep = canonical(s.clone());
            assert!(
                renamings(s).any(|r| r == rep),
                "the representative is a renaming of the state: {s:?}"
            );
            assert_eq!(canonical(rep.clone()), rep, "idempotent");
            for r in renamings(s) {
                moved += usize::from(r != *s);
                assert_eq!(canonical(r), rep, "one representative per class: {s:?}");
            }
        }
        assert!(
            moved > 0,
            "{}: some renaming changes a state",
            model.spec.name
        );
    }
}

/// The multiset of the representatives of `s`'s successors, and how many
/// actions `s` offers.
fn successors(model: &MemtxModel, s: &ModelState) -> (usize, Vec<ModelState>) {
    let mut actions: Vec<Action> = Vec::new();
    model.actions(s, &mut actions);
    let mut next: Vec<ModelState> = actions
        .iter()
        .filter_map(|&a| model.next_state(s, a))
        .map(canonical)
        .collect();
    next.sort_by_cached_key(|t| format!("{t:?}"));
    (actions.len(), next)
}

#[test]
fn a_renaming_keeps_every_property_and_renames_the_successors() {
    for (model, depth) in cases() {
        // One level short of the first test's bound, to keep the sweep
        // (every renaming times every action) short.
        for s in reachable(&model, depth - 1) {
            let here: Vec<bool> = PROPERTIES.iter().map(|p| (p.holds)(&model, &s)).collect();
            let next = successors(&model, &s);
            for r in renamings(&s) {
                let there: Vec<bool> = PROPERTIES.iter().map(|p| (p.holds)(&model, &r)).collect();
                assert_eq!(there, here, "properties under a renaming of {s:?}");
                assert_eq!(successors(&model, &r), next, "successors of {s:?}");
            }
        }
    }
}

#[test]
fn the_engine_counts_each_class_once_at_its_shallowest_depth() {
    use crate::engine::{Engine, EngineOptions};
    use crate::model::ModelCodec;
    use std::collections::HashMap;
    let depth = 6;
    let model = model("models/default.json", 4, 3);
    // The classes of the unreduced space, each at the shallowest depth of
    // its members.
    let levels = levels(&model, depth);
    let mut class_depth: HashMap<ModelState, usize> = HashMap::new();
    for (d, level) in levels.iter().enumerate() {
        for s in level {
            class_depth.entry(canonical(s.clone())).or_insert(d);
        }
    }
    let unreduced: usize = levels.iter().map(Vec::len).sum();
    let mut per_depth = vec![0u64; depth + 1];
    for &d in class_depth.values() {
        per_depth[d] += 1;
    }
    let codec = ModelCodec::new(&model.spec);
    let report = Engine::new(&model)
        .options(&EngineOptions::new(Some(depth), 2))
        .codec(&codec)
        .symmetric()
        .run();
    let engine: Vec<u64> = report.levels.iter().map(|l| l.new_states).collect();
    assert_eq!(engine, per_depth);
    assert!(report.unique_states < unreduced as u64);
}
