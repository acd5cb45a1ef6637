//! The behavioural diff of two models (`diff A.json B.json --behaviour`):
//! what a change to the spec did, as the shortest action sequence after
//! which the two protocols answer differently. Counts per level say
//! *that* two state spaces differ; this says *where* the behaviour parts.
//!
//! Both models must share one action alphabet ([`alphabet`]). They are
//! explored in lockstep ([`lockstep`]): the same action applied to both,
//! by the exact engine over pairs of states, level by level, shortest
//! first, with the engine's deterministic tie-break, stopping after the
//! first level at which the outcomes differ: a commit verdict or reason,
//! a gate decision, a repair, a refusal on one side only. The parting
//! sequence becomes one trace (A's configuration inline, the steps in
//! full) replayed under each model, which must agree up to its last step
//! and part there; the replays give the step-by-step account.

pub mod alphabet;
pub mod lockstep;
mod parting;
mod render;
mod wire;

pub use parting::{answer, differs_in, Parting};
pub use render::render;
pub use wire::behaviour_json;

use crate::config::ModelConfig;
use crate::engine::{self, EngineOptions, LevelStats, RunObserver};
use crate::model::{MemtxModel, ModelCodec, ModelSpec};
use lockstep::{Lockstep, PairCodec, SAME_OUTCOMES};
use std::time::{Duration, Instant};

/// How to run a behavioural diff.
pub struct BehaviourOptions {
    /// Deepest action sequence to try; `None`: until the pair space is
    /// exhausted.
    pub depth: Option<usize>,
    pub threads: usize,
    pub observer: Box<dyn RunObserver>,
}

/// What the lockstep exploration found.
pub struct BehaviourReport {
    pub a: ModelConfig,
    pub b: ModelConfig,
    pub depth: Option<usize>,
    /// Pairs of states per level.
    pub levels: Vec<LevelStats>,
    /// Distinct pairs of states explored.
    pub pairs: u64,
    /// Every reachable pair was explored (no parting, and a level added
    /// nothing).
    pub complete: bool,
    /// The shortest parting, if the sides part within the depth.
    pub parting: Option<Parting>,
    pub elapsed: Duration,
}

/// Explores `a` and `b` in lockstep; `Err` names the first difference of
/// their action alphabets.
pub fn run(
    a: &ModelConfig,
    b: &ModelConfig,
    options: BehaviourOptions,
) -> Result<BehaviourReport, String> {
    if let Some(d) = alphabet::difference(a, b) {
        return Err(format!("the two models' action alphabets differ: {d}"));
    }
    let started = Instant::now();
    let product = Lockstep {
        a: MemtxModel::new(ModelSpec::from_config(a)),
        b: MemtxModel::new(ModelSpec::from_config(b)),
    };
    let codec = PairCodec {
        a: ModelCodec::new(&product.a.spec),
        b: ModelCodec::new(&product.b.spec),
    };
    let engine_options = EngineOptions {
        max_depth: options.depth,
        threads: options.threads.max(1),
        // The first level with a parting is checked whole, so the parting
        // found is a shortest one and the same for every thread count.
        stop_on_violation: true,
        observer: options.observer,
        ..EngineOptions::default()
    };
    let report = engine::Engine::new(&product)
        .options(&engine_options)
        .codec(&codec)
        .run();
    let parting = match report.property(SAME_OUTCOMES) {
        Some(engine::Verdict::Violated { trace, .. }) => {
            let actions: Vec<_> = trace.iter().filter_map(|(_, a)| *a).collect();
            Some(Parting::build(&product, a, b, &actions))
        }
        _ => None,
    };
    Ok(BehaviourReport {
        a: a.clone(),
        b: b.clone(),
        depth: options.depth,
        levels: report.levels.clone(),
        pairs: report.unique_states,
        complete: report.complete,
        parting,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests;
