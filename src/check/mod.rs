//! An exhaustive bounded check of one model configuration: build the
//! model, enumerate it with the exact engine (labelled: each transition
//! carries the protocol branches it took), turn the engine's verdicts into
//! property outcomes (I1, I2, G3 and the companions) and its label counts
//! into branch coverage, both compared with the configuration's `expect`,
//! and each violation into a replayable counterexample trace.

pub mod counterexample;
pub mod dump;
#[cfg(test)]
mod faults;
#[cfg(test)]
mod forged;
pub mod summary;

pub use counterexample::Counterexample;

use crate::config::{Expect, ModelConfig};
use crate::engine::{
    self, Engine, EngineOptions, EngineReport, Labelled, LevelStats, StateCheck, Stopped,
};
use crate::invariants::{Invariant, Selection};
use crate::model::coverage::Coverage;
use crate::model::{property, Action, MemtxModel, ModelCodec, ModelSpec, ModelState, PropertyKind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How to run a check.
pub struct CheckOptions {
    /// How the engine runs (threads, observer, fingerprints, memory
    /// guard, where links spill and levels are kept, checkpoint, resume,
    /// a level limit); the depth bound and what a checkpoint is named by
    /// are the model's, and the check sets them.
    pub engine: EngineOptions,
    /// The invariants judged (and the companions that guard them).
    pub properties: Selection,
    /// Stream every state and transition into this folder (see [`dump`]).
    pub dump: Option<PathBuf>,
}

impl CheckOptions {
    /// `threads` threads and the engine's defaults (no progress output,
    /// 64-bit fingerprints, links and levels in memory, no memory guard,
    /// no checkpoint); every property judged, no dump.
    pub fn quiet(threads: usize) -> Self {
        CheckOptions {
            engine: EngineOptions::new(None, threads),
            properties: Selection::ALL,
            dump: None,
        }
    }
}

/// What a checkpoint of `config` is named by: the model's name and a hash
/// of its canonical configuration (bounds included), so that a checkpoint
/// of another model, or of other bounds, is refused.
pub fn identity(config: &ModelConfig, properties: Selection) -> String {
    // The properties judged are part of what a level's verdicts mean.
    let canonical = format!("{} {properties:?}", config.to_json());
    format!(
        "{} {:032x}",
        config.name,
        engine::fingerprint128(&canonical)
    )
}

/// The identity of a check of `config` with `--symmetry` turned, and
/// the line a resume of its checkpoint is refused with (the identity
/// hashes the whole model, so without it the engine could only say
/// "another model or bounds").
pub fn near_identities(config: &ModelConfig, properties: Selection) -> Vec<(String, String)> {
    let mut turned = config.clone();
    turned.symmetry = !config.symmetry;
    let why = if turned.symmetry {
        "the checkpoint was made with --symmetry, and this run is without it: resume with --symmetry"
    } else {
        "the checkpoint was made without --symmetry, and this run is with it: resume without --symmetry"
    };
    vec![(identity(&turned, properties), why.to_owned())]
}

/// Whether the checkpoint in `dir` may be resumed by a check of `config`
/// with `options`: `Err` with one line saying why not; `Ok` with a line per
/// deeper level the resume skips (see [`engine::Resumable`]).
pub fn resumable(
    config: &ModelConfig,
    options: &CheckOptions,
    dir: &std::path::Path,
) -> Result<Vec<String>, String> {
    let codec = ModelCodec::new(&ModelSpec::from_config(config));
    let states = StateCheck::new(&codec, options.engine.fingerprint);
    engine::check_resumable(dir, &probe_options(config, options), Some(&states)).map(|r| r.skipped)
}

/// Makes `dir` ready for a fresh checkpoint of a check of `config` with
/// `options`, or refuses it in one line (see [`engine::prepare_checkpoint`]).
pub fn prepare_checkpoint(
    config: &ModelConfig,
    options: &CheckOptions,
    dir: &std::path::Path,
) -> Result<(), String> {
    engine::prepare_checkpoint(dir, &probe_options(config, options))
}

/// The engine options a check of `config` with `options` names and
/// judges its checkpoints by.
fn probe_options(config: &ModelConfig, options: &CheckOptions) -> EngineOptions {
    engine_options(config, options.engine.probe(), options.properties)
}

/// The engine options `engine` ask for on `config`, judging `properties`.
fn engine_options(
    config: &ModelConfig,
    engine: EngineOptions,
    properties: Selection,
) -> EngineOptions {
    EngineOptions {
        max_depth: config.bounds.depth.bound(),
        threads: engine.threads.max(1),
        stop_on_violation: false,
        identity: identity(config, properties),
        near_identities: near_identities(config, properties),
        ..engine
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
    /// The verdict the configuration expects, for an invariant
    /// ([`crate::config::Expectations::judged`]: holds unless named).
    pub expected: Option<Expect>,
}

impl PropertyOutcome {
    /// False only when an expectation exists and the outcome contradicts
    /// it: a verdict of the other kind, or a violation of another clause
    /// than the one expected, or at another depth than the one expected.
    pub fn as_expected(&self) -> bool {
        match (self.expected, self.outcome) {
            (Some(Expect::Holds), Outcome::Violated { .. }) => false,
            (Some(Expect::Violated { .. }), Outcome::Holds) => false,
            (Some(Expect::Violated { clause, depth }), Outcome::Violated { depth: found }) => {
                clause.is_none_or(|c| self.clause == Some(c)) && depth.is_none_or(|d| d == found)
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
    /// Per protocol branch, the transitions that took it and the first
    /// depth (`coverage.csv`).
    pub coverage: Coverage,
    pub counterexamples: Vec<Counterexample>,
    pub elapsed: Duration,
    pub collision_probability: f64,
    pub collision_probability_birthday: f64,
    /// Bits of the fingerprints the run stored.
    pub fingerprint_bits: u32,
    /// Why the run stopped before its bound, if it did.
    pub stopped: Option<Stopped>,
    /// A `--disk` run's bytes written to and read from its folder.
    pub disk_io: Option<engine::DiskIo>,
    /// What `--dump` wrote, or why it could not.
    pub dump: Option<Result<dump::DumpTotals, String>>,
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

    /// How many companions were reached.
    pub fn companions_reached(&self) -> usize {
        self.companions()
            .filter(|p| matches!(p.outcome, Outcome::Reached { .. }))
            .count()
    }

    /// Some invariant is violated.
    pub fn violated(&self) -> bool {
        self.invariants()
            .any(|p| matches!(p.outcome, Outcome::Violated { .. }))
    }

    /// Every invariant matches the configuration's `expect`, and every
    /// branch `expect.coverage` names was reached.
    pub fn as_expected(&self) -> bool {
        self.invariants().all(PropertyOutcome::as_expected) && self.coverage_missing().is_empty()
    }

    /// The branches `expect.coverage` names that no transition took.
    pub fn coverage_missing(&self) -> Vec<String> {
        self.config
            .expect
            .coverage
            .as_ref()
            .map_or_else(Vec::new, |expect| self.coverage.missing(expect))
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
    run_spec(config, ModelSpec::from_config(config), options)
}

/// [`run`] on `spec`, the model of `config` (a test may weaken its
/// checkers first: [`ModelSpec::mute`]).
fn run_spec(config: &ModelConfig, mut spec: ModelSpec, options: CheckOptions) -> CheckReport {
    let started = Instant::now();
    spec.select(options.properties);
    let model = MemtxModel::new(spec);
    let dump_dir = options.dump;
    let engine_options = engine_options(config, options.engine, options.properties);
    let codec = ModelCodec::new(&model.spec);
    // Labelled: each transition's branches are counted (`model::labels`).
    let engine = Engine::new(&model)
        .options(&engine_options)
        .codec(&codec)
        .labelled();
    let plain = |engine: Engine<'_, MemtxModel, Labelled>| {
        // Under symmetry the engine stores representatives
        // (`model::symmetry`): the counts are of classes (transitions and
        // branch labels too), the traces real ones.
        if config.symmetry {
            engine.symmetric().run()
        } else {
            engine.run()
        }
    };
    let (report, dump): (EngineReport<ModelState, Action>, _) = match dump_dir {
        None => (plain(engine), None),
        Some(dir) => match dump::DumpSink::create(&model, &dir, &config.to_json().to_string()) {
            Ok(sink) => {
                let report = engine.stream(&sink).run();
                let whole = report.stopped.is_none();
                (report, Some(sink.finish(whole)))
            }
            Err(e) => (plain(engine), Some(Err(e))),
        },
    };
    assemble(
        config,
        model,
        &report,
        dump,
        engine_options.threads,
        started,
    )
}

/// The check's report from the engine's `report` on `model` (built from
/// `config`), run with `threads` workers since `started`, with the totals
/// of its `dump` if any: the property outcomes, the branch coverage and a
/// replayable counterexample per violated invariant. Any engine giving the
/// same report (the distributed one) gives the same check.
pub fn assemble(
    config: &ModelConfig,
    model: MemtxModel,
    report: &EngineReport<ModelState, Action>,
    dump: Option<Result<dump::DumpTotals, String>>,
    threads: usize,
    started: Instant,
) -> CheckReport {
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
            // Not named is expected to hold (TLC's rule).
            PropertyKind::Invariant(inv) => Some(config.expect.judged(inv)),
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
        threads,
        levels: report.levels.clone(),
        complete: report.complete,
        unique_states: report.unique_states,
        transitions: report.transitions,
        collision_probability: report.collision_probability(),
        collision_probability_birthday: engine::collision_probability_birthday_bits(
            report.fingerprint_bits,
            report.unique_states,
        ),
        fingerprint_bits: report.fingerprint_bits,
        stopped: report.stopped.clone(),
        disk_io: report.disk_io,
        dump,
        properties,
        coverage: Coverage::from_labels(&report.labels),
        counterexamples,
        model,
        elapsed: started.elapsed(),
    }
}
