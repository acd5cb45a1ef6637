//! An exhaustive bounded check of one model configuration: build the
//! model, enumerate it with the exact engine, turn the engine's verdicts
//! into property outcomes (I1, I2, G3 and the companions) compared with the
//! configuration's `expect`, and each violation into a replayable
//! counterexample trace.

pub mod counterexample;
#[cfg(test)]
mod faults;
pub mod summary;

pub use counterexample::Counterexample;

use crate::config::{Depth, Expect, ModelConfig};
use crate::engine::{self, EngineOptions, EngineReport, LevelStats, RunObserver};
use crate::invariants::{Invariant, Selection};
use crate::model::{property, Action, MemtxModel, ModelCodec, ModelSpec, ModelState, PropertyKind};
use std::time::{Duration, Instant};

/// How to run a check.
pub struct CheckOptions {
    pub threads: usize,
    /// The invariants judged (and the companions that guard them).
    pub properties: Selection,
    /// Told of each explored level and, within long levels, of progress.
    pub observer: Box<dyn RunObserver>,
}

impl CheckOptions {
    /// `threads` threads and no progress output.
    pub fn quiet(threads: usize) -> Self {
        CheckOptions {
            threads,
            properties: Selection::ALL,
            observer: Box::new(engine::Silent),
        }
    }
}

/// One property's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Holds,
    /// A shortest counterexample has `depth` actions.
    Violated {
        depth: usize,
    },
    /// A shortest example has `depth` actions.
    Reached {
        depth: usize,
    },
    NotReached,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::Violated { .. } => "violated",
            Outcome::Reached { .. } => "reached",
            Outcome::NotReached => "not_reached",
        }
    }

    pub fn depth(self) -> Option<usize> {
        match self {
            Outcome::Violated { depth } | Outcome::Reached { depth } => Some(depth),
            _ => None,
        }
    }
}

/// A property of the model and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyOutcome {
    pub name: &'static str,
    pub kind: PropertyKind,
    pub outcome: Outcome,
    /// For a violated invariant, the clause its shortest counterexample
    /// breaks (as the replay of the counterexample finds it).
    pub clause: Option<&'static str>,
    /// The configuration's expectation, for invariants that have one.
    pub expected: Option<Expect>,
}

impl PropertyOutcome {
    /// False only when an expectation exists and the outcome contradicts
    /// it: a verdict of the other kind, or a violation of another clause
    /// than the one expected.
    pub fn as_expected(&self) -> bool {
        match (self.expected, self.outcome) {
            (Some(Expect::Holds), Outcome::Violated { .. }) => false,
            (Some(Expect::Violated(_)), Outcome::Holds) => false,
            (Some(Expect::Violated(Some(clause))), Outcome::Violated { .. }) => {
                self.clause == Some(clause)
            }
            _ => true,
        }
    }
}

/// Everything a check found.
pub struct CheckReport {
    /// The configuration as run (bounds overridden by the command line).
    pub config: ModelConfig,
    pub model: MemtxModel,
    pub threads: usize,
    pub levels: Vec<LevelStats>,
    pub complete: bool,
    pub unique_states: u64,
    pub transitions: u64,
    pub properties: Vec<PropertyOutcome>,
    pub counterexamples: Vec<Counterexample>,
    pub elapsed: Duration,
    pub collision_probability: f64,
    pub collision_probability_birthday: f64,
}

impl CheckReport {
    pub fn invariants(&self) -> impl Iterator<Item = &PropertyOutcome> {
        self.properties
            .iter()
            .filter(|p| matches!(p.kind, PropertyKind::Invariant(_)))
    }

    pub fn companions(&self) -> impl Iterator<Item = &PropertyOutcome> {
        self.properties
            .iter()
            .filter(|p| matches!(p.kind, PropertyKind::Companion(_)))
    }

    /// Some invariant is violated.
    pub fn violated(&self) -> bool {
        self.invariants()
            .any(|p| matches!(p.outcome, Outcome::Violated { .. }))
    }

    /// Every invariant matches the configuration's `expect`.
    pub fn as_expected(&self) -> bool {
        self.invariants().all(PropertyOutcome::as_expected)
    }

    pub fn outcome(&self, invariant: Invariant) -> Option<Outcome> {
        self.properties
            .iter()
            .find(|p| p.kind == PropertyKind::Invariant(invariant))
            .map(|p| p.outcome)
    }
}

/// Runs the exhaustive check of `config` at its bounds.
pub fn run(config: &ModelConfig, options: CheckOptions) -> CheckReport {
    let started = Instant::now();
    let mut spec = ModelSpec::from_config(config);
    spec.select(options.properties);
    let model = MemtxModel::new(spec);
    let max_depth = match config.bounds.depth {
        Depth::Bounded(d) => Some(d),
        Depth::Full => None,
    };
    let engine_options = EngineOptions {
        max_depth,
        threads: options.threads.max(1),
        stop_on_violation: false,
        observer: options.observer,
    };
    let codec = ModelCodec::new(&model.spec);
    let report: EngineReport<ModelState, Action> =
        engine::enumerate_with_codec(&model, &codec, &engine_options);
    let mut properties = Vec::new();
    let mut counterexamples = Vec::new();
    for result in &report.properties {
        let kind = property(result.name)
            .expect("the engine reports the model's own properties")
            .kind;
        let mut clause = None;
        let outcome = match &result.verdict {
            engine::Verdict::Holds => Outcome::Holds,
            engine::Verdict::Violated { depth, trace } => {
                if let PropertyKind::Invariant(inv) = kind {
                    let c = Counterexample::build(&model, config, inv, trace);
                    clause = Some(c.clause);
                    counterexamples.push(c);
                }
                Outcome::Violated { depth: *depth }
            }
            engine::Verdict::Reached { depth, .. } => Outcome::Reached { depth: *depth },
            engine::Verdict::NotReached | engine::Verdict::Unsupported => Outcome::NotReached,
        };
        let expected = match kind {
            PropertyKind::Invariant(inv) => config.expect.get(inv),
            PropertyKind::Companion(_) => None,
        };
        properties.push(PropertyOutcome {
            name: result.name,
            kind,
            outcome,
            clause,
            expected,
        });
    }
    CheckReport {
        config: config.clone(),
        threads: engine_options.threads,
        levels: report.levels.clone(),
        complete: report.complete,
        unique_states: report.unique_states,
        transitions: report.transitions,
        collision_probability: report.collision_probability(),
        collision_probability_birthday: engine::collision_probability_birthday(
            report.unique_states,
        ),
        properties,
        counterexamples,
        model,
        elapsed: started.elapsed(),
    }
}
