//! `memtx-check conform`: an implementation of MemTX driven with the
//! model's traces over the driver protocol (`docs/driver-protocol.md`),
//! its answer to every step compared with the model's, and every place it
//! departs from the spec shrunk to a short trace.
//!
//! - [`suite`]: the traces: per branch the shortest trace that takes it,
//!   every transition up to a depth, or random walks (cut from the
//!   breadth-first [`graph`] of the model, or from `random`'s walks);
//! - [`endpoint`]: what is driven, a driver process or (in the unit
//!   tests) this build's protocol in-process with a deliberate bug;
//! - [`lockstep`]: one trace sent, each answer checked for its shape
//!   ([`shape`]) and compared with the model's on the fields both report;
//! - [`pool`]: the suite over `--jobs` connections, results by trace;
//! - [`shrink`]: a departing trace made short;
//! - [`wire`] and [`render`]: `conform.json` and the text report.
//!
//! Departures are grouped by kind: the operation of the departing step
//! and the fields that differ there. The first trace (in suite order) of
//! each kind is shrunk, up to [`MAX_SHRUNK`] kinds; the report lists
//! every departing trace with its kind.

pub mod endpoint;
pub mod graph;
pub mod lockstep;
pub mod pool;
pub mod render;
pub mod shape;
pub mod shrink;
pub mod suite;
pub mod wire;

#[cfg(test)]
mod tests;

pub use suite::Suite;

use crate::config::ModelConfig;
use crate::driver::compare::{pattern, Fields};
use crate::model::{Action, MemtxModel, ModelSpec};
use crate::trace::Step;
use endpoint::Implementation;
use lockstep::{prepare, reset_line, run_traces, Departure, FieldsSeen};
use pool::{Pool, Progress, TraceBreach};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use suite::{BranchCover, Traces};

/// Kinds of departure shrunk at most (each costs a few hundred runs of a
/// short trace); the others are counted and listed unshrunk.
pub const MAX_SHRUNK: usize = 10;

/// How to run.
pub struct ConformOptions {
    pub suite: Suite,
    /// Connections at once; results do not depend on it.
    pub jobs: usize,
    /// The memory guard's bound on cutting the suite.
    pub max_memory: Option<u64>,
}

/// Why a run could not finish.
#[derive(Debug)]
pub enum Failed {
    /// The driver broke the protocol.
    Breach(TraceBreach),
    /// Cutting the suite passed the memory bound; nothing was driven.
    Memory(graph::MemoryBound),
}

impl From<TraceBreach> for Failed {
    fn from(b: TraceBreach) -> Failed {
        Failed::Breach(b)
    }
}

/// One kind of departure: the operation and the differing fields.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Kind {
    pub op: &'static str,
    /// Field paths with indices written `[]`.
    pub fields: BTreeSet<String>,
}

/// A kind of departure, its first trace shrunk.
pub struct Divergence {
    pub kind: Kind,
    /// The suite's traces departing this way, in order.
    pub traces: Vec<usize>,
    /// Steps of the first of them up to its departure.
    pub original_steps: usize,
    /// The shrunk trace: its actions, their labels and steps, and where
    /// and how it departs.
    pub actions: Vec<Action>,
    pub labels: Vec<String>,
    pub steps: Vec<Step>,
    /// The model's answer to each of them.
    pub answers: Vec<Value>,
    pub departure: Departure,
}

/// Everything a conformance run found.
pub struct ConformReport {
    pub config: ModelConfig,
    pub suite: Suite,
    pub driver: String,
    /// What the implementation says it is.
    pub implementation: Option<Value>,
    pub traces: Traces,
    /// Per trace, where it departs and the index of its kind in
    /// `divergences` (`None`: a kind beyond [`MAX_SHRUNK`]).
    pub departures: Vec<Option<(usize, Option<usize>)>>,
    /// Steps sent for the suite (resets and shrinking not counted).
    pub steps: u64,
    pub fields: FieldsSeen,
    pub divergences: Vec<Divergence>,
    /// Departing traces of kinds beyond [`MAX_SHRUNK`].
    pub unshrunk: usize,
    /// The whole run; cutting the suite's traces from the model; sending
    /// them (shrinking not included).
    pub elapsed: Duration,
    pub cutting: Duration,
    pub driving: Duration,
}

impl ConformReport {
    pub fn agrees(&self) -> bool {
        self.departures.iter().all(Option::is_none)
    }

    pub fn departed(&self) -> usize {
        self.departures.iter().filter(|d| d.is_some()).count()
    }

    /// Steps per second while the suite was sent.
    pub fn steps_per_second(&self) -> f64 {
        self.steps as f64 / self.driving.as_secs_f64().max(1e-9)
    }

    /// Whether the branch `cover` agrees: its trace departs after its step,
    /// or not at all.
    pub fn covered(&self, cover: &BranchCover) -> bool {
        match self.departures[cover.trace] {
            Some((step, _)) => step > cover.step,
            None => true,
        }
    }
}

/// The kind of `departure` at a step of operation `op`.
fn kind_of(op: &'static str, departure: &Departure) -> Kind {
    Kind {
        op,
        fields: departure
            .comparison
            .differences
            .iter()
            .map(|d| pattern(&d.path))
            .collect(),
    }
}

/// `breach` with its place said in words: the trace (and, for the branch
/// suite, the first branch it covers) and the step with its action.
fn placed(
    mut breach: TraceBreach,
    model: &MemtxModel,
    traces: &Traces,
    when: Option<&str>,
) -> TraceBreach {
    if !breach.at.is_empty() {
        return breach;
    }
    let Some(t) = breach.trace else {
        return breach;
    };
    let mut at = format!("trace {} of {}", t, traces.traces.len());
    if let Some(c) = traces.covers.iter().find(|c| c.trace == t) {
        at.push_str(&format!(" (branch {})", c.branch));
    }
    if let Some(w) = when {
        at.push_str(&format!(", {w}"));
    }
    match breach.breach.step {
        Some(s) if when.is_some() => at.push_str(&format!(", step {s} of a shorter candidate")),
        Some(s) => {
            let label = traces.traces[t]
                .get(s)
                .map_or_else(|| "?".to_owned(), |a| a.describe(&model.spec));
            at.push_str(&format!(", step {s} ({label})"));
        }
        None => at.push_str(", its reset"),
    }
    breach.at = at;
    breach
}

/// Runs `options.suite` of `config`'s model against `imp`.
pub fn run(
    config: &ModelConfig,
    imp: &dyn Implementation,
    options: &ConformOptions,
    progress: &dyn Progress,
) -> Result<ConformReport, Failed> {
    let started = Instant::now();
    let model = MemtxModel::new(ModelSpec::from_config(config));
    let traces = suite::traces(&model, options.suite, options.max_memory);
    if let Some(m) = traces.walked.and_then(|w| w.stopped) {
        return Err(Failed::Memory(m));
    }
    let cutting = started.elapsed();
    let reset = reset_line(config);
    let mut connections = Pool::start(imp, options.jobs)?;
    let pool = connections
        .run(&model, &reset, &traces.traces, Fields::Shared, progress)
        .map_err(|b| placed(b, &model, &traces, None))?;
    let driving = started.elapsed() - cutting;
    let mut kinds: Vec<(Kind, Vec<usize>)> = Vec::new();
    let mut departures = vec![None; traces.traces.len()];
    for (t, d) in pool.departures.iter().enumerate() {
        let Some(d) = d else { continue };
        let kind = kind_of(traces.traces[t][d.step].verb().name(), d);
        let k = match kinds.iter().position(|(k, _)| *k == kind) {
            Some(k) => k,
            None => {
                kinds.push((kind, Vec::new()));
                kinds.len() - 1
            }
        };
        kinds[k].1.push(t);
        departures[t] = Some((d.step, (k < MAX_SHRUNK).then_some(k)));
    }
    let conn = connections
        .connections
        .first_mut()
        .expect("a run starts at least one connection");
    let mut divergences = Vec::new();
    let mut unshrunk = 0;
    for (k, (kind, of_kind)) in kinds.into_iter().enumerate() {
        if k >= MAX_SHRUNK {
            unshrunk += of_kind.len();
            continue;
        }
        let first = of_kind[0];
        let departure = pool.departures[first].clone().expect("a departing trace");
        let original_steps = departure.step + 1;
        let mut depart = |actions: &[Action]| {
            let p = prepare(&model, actions);
            let mut scratch = FieldsSeen::default();
            let shared = Fields::Shared;
            run_traces(
                conn.as_mut(),
                &reset,
                &[&p],
                shared,
                &mut scratch,
                &mut |_| {},
            )
            .map(|mut d| d.pop().flatten())
            .map_err(|(_, b)| b)
        };
        let shrunk = shrink::shrink(&model, &traces.traces[first], departure, &mut depart)
            .map_err(|breach| {
                let b = TraceBreach {
                    trace: Some(first),
                    breach,
                    at: String::new(),
                };
                placed(b, &model, &traces, Some("while shrinking it"))
            })?;
        let prepared = prepare(&model, &shrunk.actions);
        divergences.push(Divergence {
            kind,
            traces: of_kind,
            original_steps,
            labels: shrunk
                .actions
                .iter()
                .map(|a| a.describe(&model.spec))
                .collect(),
            steps: prepared.steps,
            answers: prepared.answers,
            actions: shrunk.actions,
            departure: shrunk.departure,
        });
    }
    let implementation = connections.implementation.take();
    drop(connections);
    Ok(ConformReport {
        config: config.clone(),
        suite: options.suite,
        driver: imp.shown(),
        implementation,
        traces,
        departures,
        steps: pool.steps,
        fields: pool.fields,
        divergences,
        unshrunk,
        elapsed: started.elapsed(),
        cutting,
        driving,
    })
}
