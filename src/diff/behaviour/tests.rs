use super::*;
use crate::config::Depth;
use crate::engine::Silent;
use crate::model::Action;

fn load(path: &str) -> ModelConfig {
    ModelConfig::load(std::path::Path::new(path)).expect("a shipped model loads")
}

/// The ablation model `path` with its mechanism restored: the default
/// model's first four templates and its irreversible tool under the
/// authors' code, the ablations' own baseline (the default model has more
/// templates, so another alphabet).
fn restored(path: &str) -> ModelConfig {
    let mut c = load(path);
    c.variant = crate::protocol::Variant::default();
    c
}

fn lockstep(a: &ModelConfig, b: &ModelConfig, depth: usize, threads: usize) -> BehaviourReport {
    run(
        a,
        b,
        BehaviourOptions {
            depth: Some(depth),
            threads,
            observer: Box::new(Silent),
        },
    )
    .expect("one alphabet")
}

#[test]
fn a_model_never_parts_from_itself_and_explores_its_own_space() {
    let mut a = load("models/default.json");
    a.bounds.depth = Depth::Bounded(5);
    let r = lockstep(&a, &a, 5, 2);
    assert!(r.parting.is_none());
    // One pair per state of the model: the lockstep of a model with
    // itself is the model.
    let alone = crate::check::run(&a, crate::check::CheckOptions::quiet(2));
    assert_eq!(r.pairs, alone.unique_states);
}

#[test]
fn the_gate_ablation_parts_at_the_first_ungated_call() {
    let (a, b) = (
        restored("models/ablations/no-gate.json"),
        load("models/ablations/no-gate.json"),
    );
    let r = lockstep(&a, &b, 8, 2);
    let p = r.parting.expect("the sides part");
    assert_eq!(p.actions.len(), 4, "{:?}", p.labels);
    assert!(matches!(p.actions[3], Action::ToolCall { .. }));
    let (on_a, on_b) = p.answers();
    assert_eq!(differs_in(on_a, on_b), "gate decision");
    // Shorter sequences do not part.
    assert!(lockstep(&a, &b, 3, 2).parting.is_none());
}

#[test]
fn the_parting_is_the_same_for_every_thread_count() {
    let (a, b) = (
        restored("models/ablations/no-dependency-stability.json"),
        load("models/ablations/no-dependency-stability.json"),
    );
    let one = lockstep(&a, &b, 7, 1).parting.expect("parts at 7");
    let two = lockstep(&a, &b, 7, 2).parting.expect("parts at 7");
    assert_eq!(one.actions, two.actions);
    assert_eq!(one.actions.len(), 7);
}

#[test]
fn different_alphabets_are_refused_with_the_difference() {
    let e = run(
        &restored("models/ablations/no-gate.json"),
        &load("models/ablations/no-evidence.json"),
        BehaviourOptions {
            depth: Some(2),
            threads: 1,
            observer: Box::new(Silent),
        },
    )
    .err()
    .expect("refused");
    assert!(e.contains("\"rumour\" only in B"), "{e}");
}
