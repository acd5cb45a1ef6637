//! Model-level tests: the codec round-trips every reachable state, the
//! agent symmetry breaking loses no behaviour, and the action list is what
//! the protocol accepts.

use super::*;
use crate::config::{Depth, ModelConfig};
use crate::engine::{Engine, EngineOptions, StateCodec};
use std::collections::{HashMap, HashSet};

fn load(path: &str, depth: usize) -> ModelConfig {
    let mut c = ModelConfig::load(std::path::Path::new(path)).expect("a shipped model loads");
    c.bounds.depth = Depth::Bounded(depth);
    c
}

/// Every state reachable in ≤ `depth` actions, with one shortest path to it.
fn states_with_paths(model: &MemtxModel, depth: usize) -> HashMap<ModelState, Vec<Action>> {
    let mut seen: HashMap<ModelState, Vec<Action>> = HashMap::new();
    let mut level = model.init_states();
    for s in &level {
        seen.insert(s.clone(), Vec::new());
    }
    let mut actions = Vec::new();
    for _ in 0..depth {
        let mut next = Vec::new();
        for s in &level {
            actions.clear();
            model.actions(s, &mut actions);
            for a in &actions {
                if let Some(t) = model.next_state(s, *a) {
                    if !seen.contains_key(&t) {
                        let mut path = seen[s].clone();
                        path.push(*a);
                        seen.insert(t.clone(), path);
                        next.push(t);
                    }
                }
            }
        }
        level = next;
    }
    seen
}

#[test]
fn the_codec_round_trips_and_the_engine_agrees_with_and_without_it() {
    let model = MemtxModel::new(ModelSpec::from_config(&load("models/full-surface.json", 5)));
    let codec = ModelCodec::new(&model.spec);
    let mut bytes = Vec::new();
    for state in states_with_paths(&model, 5).keys() {
        bytes.clear();
        codec.encode(state, &mut bytes);
        assert_eq!(&codec.decode(&bytes), state);
    }
    let opts = EngineOptions::new(Some(6), 2);
    let plain = Engine::new(&model).options(&opts).run();
    let packed = Engine::new(&model).options(&opts).codec(&codec).run();
    assert_eq!(plain.level_counts(), packed.level_counts());
    assert_eq!(plain.properties, packed.properties);
}

/// Agent identity is never read by the protocol, so erasing the agents of
/// the two-agent model gives exactly the states of the same model with one
/// agent: the one-agent default loses no behaviour.
#[test]
fn erasing_agent_labels_maps_two_agents_onto_one() {
    let depth = 5;
    let two_agents = load("models/two-agents.json", depth);
    let one_agent = ModelConfig {
        agents: 1,
        ..two_agents.clone()
    };
    let one = MemtxModel::new(ModelSpec::from_config(&one_agent));
    let two = MemtxModel::new(ModelSpec::from_config(&two_agents));
    assert_eq!((one.spec.agents, two.spec.agents), (1, 2));
    let one_states: HashSet<ModelState> = states_with_paths(&one, depth).into_keys().collect();
    let two_states = states_with_paths(&two, depth);
    assert!(
        two_states.len() > one_states.len(),
        "the labels do make more states"
    );
    let erased: HashSet<ModelState> = two_states
        .values()
        .map(|path| {
            let mut s = ModelState::default();
            for a in path {
                let a = match *a {
                    Action::Open { agent, tier } => Action::Open {
                        agent: Opening { agent: 0, ..agent },
                        tier,
                    },
                    other => other,
                };
                s = one
                    .next_state(&s, a)
                    .expect("the erased path is a path of one agent");
            }
            s
        })
        .collect();
    assert_eq!(erased, one_states);
}

#[test]
fn symmetry_breaking_offers_only_the_next_new_agent() {
    let mut config = load("models/two-agents.json", 3);
    config.agents = 3;
    let model = MemtxModel::new(ModelSpec::from_config(&config));
    let mut s = ModelState::default();
    assert_eq!(model.openers(&s.store), 1);
    s = model
        .next_state(
            &s,
            Action::Open {
                agent: Opening { agent: 0, tx: 0 },
                tier: config.tiers[0],
            },
        )
        .unwrap();
    assert_eq!(model.openers(&s.store), 2);
    s = model
        .next_state(
            &s,
            Action::Open {
                agent: Opening { agent: 1, tx: 1 },
                tier: config.tiers[0],
            },
        )
        .unwrap();
    assert_eq!(model.openers(&s.store), 3);
    // A template that fixes an owner breaks the symmetry: every agent opens.
    config.templates[0].record.owner = Some(1);
    let model = MemtxModel::new(ModelSpec::from_config(&config));
    assert_eq!(model.openers(&ModelState::default().store), 3);
}

#[test]
fn a_blocked_call_is_a_self_loop_and_an_over_bound_call_is_no_transition() {
    let mut config = load("models/default.json", 10);
    config.bounds.records = 2;
    let model = MemtxModel::new(ModelSpec::from_config(&config));
    let tier = crate::protocol::Tier::Low;
    let mut s = ModelState::default();
    for a in [
        Action::Open {
            agent: Opening { agent: 0, tx: 0 },
            tier,
        },
        Action::Stage {
            tx: 0,
            proposal: Staged {
                template: 0,
                parent: None,
                second: None,
            },
        },
        Action::Commit { tx: 0 },
        Action::Open {
            agent: Opening { agent: 0, tx: 1 },
            tier,
        },
        Action::Stage {
            tx: 1,
            proposal: Staged {
                template: 2,
                parent: None,
                second: None,
            },
        },
    ] {
        s = model.next_state(&s, a).unwrap();
    }
    // r1 is tentative and outside T0's snapshot: the gate blocks T0.
    let call = Action::ToolCall {
        tx: 0,
        tool: 0,
        basis: Some(0),
    };
    assert_eq!(model.next_state(&s, call), Some(s.clone()));
    // Once it commits, the call would execute but the store is full.
    s = model.next_state(&s, Action::Commit { tx: 1 }).unwrap();
    assert_eq!(
        model.step(&s, &call).map(|_| ()),
        Err(StepRefusal::RecordBound)
    );
    assert_eq!(model.next_state(&s, call), None);
}

/// The gate's first clause spares tentative records in the caller's
/// snapshot, which only revalidation produces (a committed view in a
/// snapshot, quarantined by a cascade, then taken back to tentative). A
/// test-only gate that ignores the snapshot is therefore caught by I1 on
/// `models/coverage/revalidate.json` (shortest counterexample: the call
/// the clause allows, at depth 9), and goes unnoticed with revalidation
/// off.
#[test]
fn a_gate_that_ignores_the_snapshot_is_caught_by_i1_only_with_revalidation() {
    let config = load("models/coverage/revalidate.json", 9);
    let i1 = |revalidate: bool, broken: bool| {
        let mut config = config.clone();
        config.revalidate = revalidate;
        if broken {
            config.variant = config
                .variant
                .with_fault(crate::protocol::Fault::GateIgnoresSnapshot);
        }
        let model = MemtxModel::new(ModelSpec::from_config(&config));
        let report = Engine::new(&model)
            .options(&EngineOptions::new(Some(9), 2))
            .run();
        match report.property("I1") {
            Some(crate::engine::Verdict::Violated { depth, trace }) => {
                let last = trace[trace.len() - 2].1.expect("the violating action");
                Some((*depth, model.format_action(&last)))
            }
            Some(crate::engine::Verdict::Holds) => None,
            other => panic!("I1 is an always property: {other:?}"),
        }
    };
    assert_eq!(i1(true, false), None, "the real gate holds");
    assert_eq!(
        i1(false, true),
        None,
        "without revalidation nothing tells them apart"
    );
    let (depth, action) = i1(true, true).expect("the broken gate is caught");
    assert_eq!(depth, 9);
    assert!(action.contains("calls issue_refund"), "{action}");
}
