//! The lockstep walk of this build's model against another build's driver
//! (see the module docs of [`super`]), made of conform's parts: the
//! model's graph breadth-first ([`graph::walk`]), each level's offered
//! actions one trace each (the shortest path to the state, then the
//! action), sent as one batch through conform's [`Pool`] of `--jobs`
//! drivers and compared on every field ([`Fields::All`]); the walk stops
//! after the first level where a trace departs. Results land by trace, so
//! the walk does not depend on how many drivers there are.

use crate::build_info::BuildInfo;
use crate::config::ModelConfig;
use crate::conform::endpoint::Process;
use crate::conform::graph::{self, Edge, Graph, MemoryBound, Target, Visitor};
use crate::conform::lockstep::{prepare, reset_line, Departure};
use crate::conform::pool::{Pool, Progress, TraceBreach};
use crate::driver::client::DriverFault;
use crate::driver::compare::{compare_answers, Comparison, Fields};
use crate::engine::{LevelProgress, LevelStats, RunObserver};
use crate::model::{Action, MemtxModel, ModelSpec};
use crate::trace::Step;
use serde_json::Value;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The build driven on the other side.
#[derive(Clone, Debug)]
pub struct OtherBuild {
    pub program: String,
    pub args: Vec<String>,
    /// How it is named in messages: the path, or `REV (built at PATH)`.
    pub shown: String,
}

/// How to walk.
pub struct BuildsOptions {
    /// The longest action sequence tried.
    pub depth: usize,
    /// Drivers run at once, each on a thread of its own.
    pub jobs: usize,
    /// How long a driver may take to answer one request.
    pub step_timeout: Duration,
    /// The walk stops when this process's resident memory passes this
    /// many bytes (the memory guard's bound), before the allocator fails.
    pub max_memory: Option<u64>,
    pub observer: Box<dyn RunObserver>,
    /// Told of what is allowed but probably not meant (both sides the
    /// same build).
    pub warn: Box<dyn Fn(&str) + Send + Sync>,
}

/// What the walk found.
pub struct BuildsReport {
    pub config: ModelConfig,
    pub depth: usize,
    pub other: OtherBuild,
    /// What the other build says it is (its reset answer's
    /// `implementation`), if it says.
    pub other_build: Option<Value>,
    pub this_build: BuildInfo,
    /// This build's distinct stores per level, and the transitions checked
    /// out of the level before.
    pub levels: Vec<LevelStats>,
    pub transitions_checked: u64,
    /// Requests sent to the drivers: steps, and resets.
    pub steps: u64,
    pub resets: u64,
    /// A level added no store: every reachable store was walked.
    pub complete: bool,
    /// The memory bound stopped the walk while it gathered the level after
    /// the last one compared (that level's traces were not sent).
    pub stopped: Option<MemoryBound>,
    pub parting: Option<Parting>,
    pub elapsed: Duration,
}

impl BuildsReport {
    /// Driver steps per second of the walk.
    pub fn steps_per_second(&self) -> f64 {
        self.steps as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The shortest action sequence after which the builds answer differently.
pub struct Parting {
    pub actions: Vec<Action>,
    /// Each action as the model reads it (`T0 commits`).
    pub labels: Vec<String>,
    /// The actions as trace steps.
    pub steps: Vec<Step>,
    /// The other build's answer to each step, and this build's.
    pub before: Vec<Value>,
    pub now: Vec<Value>,
    /// The last step's answers compared.
    pub comparison: Comparison,
}

/// Why the walk could not finish: a driver broke the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkError {
    /// The path to the state being checked, as action labels.
    pub at: String,
    pub fault: DriverFault,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (checking {})", self.fault, self.at)
    }
}

/// The walk's state between levels: the batch of the level being cut,
/// and what the levels before gave.
struct Levels<'a> {
    model: &'a MemtxModel,
    pool: Pool,
    reset: String,
    options: &'a BuildsOptions,
    started: Instant,
    /// The depth of the states whose actions are being gathered.
    from: usize,
    /// This level's traces, and the states it reached first.
    batch: Vec<Vec<Action>>,
    new_states: u64,
    stats: Vec<LevelStats>,
    /// Transitions checked, the last level's included.
    checked: u64,
    steps: u64,
    resets: u64,
    warned: bool,
    parting: Option<Parting>,
    failure: Option<WalkError>,
}

impl Visitor for Levels<'_> {
    fn edge(&mut self, graph: &Graph, edge: &Edge) -> bool {
        if edge.target == Target::NotOffered {
            return true;
        }
        if edge.from.depth != self.from {
            if !self.flush() {
                return false;
            }
            self.from = edge.from.depth;
        }
        if let Target::New(_) = edge.target {
            self.new_states += 1;
        }
        self.batch.push(graph.trace_of(edge));
        true
    }

    fn largest_bytes(&self) -> usize {
        self.batch.capacity() * size_of::<Vec<Action>>()
    }
}

impl Levels<'_> {
    /// Sends the level's batch; `false` when the walk stops here (a
    /// parting, or a driver that broke the protocol).
    fn flush(&mut self) -> bool {
        let traces = std::mem::take(&mut self.batch);
        let last = self.stats.last().cloned().expect("level 0 is walked first");
        let beat = Beat {
            observer: self.options.observer.as_ref(),
            depth: self.from,
            level_size: last.new_states,
            discovered: last.total_states,
            started: self.started,
            last: Mutex::new(Instant::now()),
        };
        let result = self
            .pool
            .run(self.model, &self.reset, &traces, Fields::All, &beat);
        self.warn_same_build();
        let result = match result {
            Ok(r) => r,
            Err(b) => {
                self.failure = Some(self.fail(&traces, b));
                return false;
            }
        };
        self.steps += result.steps;
        self.resets += traces.len() as u64;
        self.checked += traces.len() as u64;
        let departed = result
            .departures
            .into_iter()
            .enumerate()
            .find_map(|(t, d)| Some((t, d?)));
        if let Some((t, d)) = departed {
            if d.step + 1 < traces[t].len() {
                self.failure = Some(WalkError {
                    at: self.shown_path(&traces[t][..traces[t].len() - 1]),
                    fault: DriverFault::Shape(format!(
                        "to step {} of a replayed path differs from its answer when that step was checked: it does not answer the same steps the same way (now: {})",
                        d.step,
                        crate::input::one_line(&d.implementation.to_string())
                    )),
                });
            } else {
                self.parting = Some(parting(self.model, &traces[t], d));
            }
            return false;
        }
        let level = LevelStats {
            depth: self.from + 1,
            new_states: self.new_states,
            total_states: last.total_states + self.new_states,
            transitions: traces.len() as u64,
            total_transitions: last.total_transitions + traces.len() as u64,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        };
        self.new_states = 0;
        self.options.observer.level_done(&level);
        self.stats.push(level);
        true
    }

    /// Warns, once, when the other build reports this build's protocol.
    fn warn_same_build(&mut self) {
        if self.warned || self.pool.implementation.is_none() {
            return;
        }
        self.warned = true;
        let this = BuildInfo::this();
        if same_protocol(self.pool.implementation.as_ref(), &this) {
            (self.options.warn)(&format!(
                "both sides are the same build (protocol sources {}): they cannot part",
                this.protocol_short()
            ));
        }
    }

    /// A breach on one of `traces`, placed at the state it checked.
    fn fail(&self, traces: &[Vec<Action>], b: TraceBreach) -> WalkError {
        // A driver that fails its first reset fails at starting, as far
        // as the user can tell.
        let first = self.checked == 0 && b.breach.step.is_none();
        let at = match b.trace {
            Some(t) if !first => self.shown_path(&traces[t][..traces[t].len() - 1]),
            _ => "the reset".to_owned(),
        };
        WalkError {
            at,
            fault: b.breach.fault,
        }
    }

    fn shown_path(&self, path: &[Action]) -> String {
        if path.is_empty() {
            return "the initial state".to_owned();
        }
        let labels: Vec<String> = path.iter().map(|a| a.describe(&self.model.spec)).collect();
        format!("the state after {}", labels.join(", "))
    }
}

/// Whether `implementation` names `this` build's protocol hash.
fn same_protocol(implementation: Option<&Value>, this: &BuildInfo) -> bool {
    implementation
        .and_then(|b| b.get("protocol"))
        .and_then(Value::as_str)
        == Some(this.protocol.as_str())
}

/// The pool's progress as the run's heartbeat, at most once a second:
/// the share of the level's traces sent, as a share of its states.
struct Beat<'a> {
    observer: &'a dyn RunObserver,
    depth: usize,
    level_size: u64,
    discovered: u64,
    started: Instant,
    last: Mutex<Instant>,
}

impl Progress for Beat<'_> {
    fn update(&self, done: u64, total: u64, _steps: u64, _departures: u64) {
        let Ok(mut last) = self.last.try_lock() else {
            return;
        };
        if last.elapsed() < Duration::from_secs(1) {
            return;
        }
        *last = Instant::now();
        self.observer.heartbeat(&LevelProgress {
            depth: self.depth,
            expanded: self.level_size * done / total.max(1),
            level_size: self.level_size,
            discovered: self.discovered,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        });
    }
}

/// Walks `config`'s model under this build and `other`'s driver in
/// lockstep up to `options.depth` actions.
pub fn run(
    config: &ModelConfig,
    other: &OtherBuild,
    options: BuildsOptions,
) -> Result<BuildsReport, WalkError> {
    let started = Instant::now();
    let model = MemtxModel::new(ModelSpec::from_config(config));
    let imp = Process {
        program: other.program.clone(),
        args: other.args.clone(),
        step_timeout: options.step_timeout,
    };
    let pool = Pool::start(&imp, options.jobs).map_err(|b| WalkError {
        at: "the reset".to_owned(),
        fault: b.breach.fault,
    })?;
    let initial = LevelStats {
        depth: 0,
        new_states: 1,
        total_states: 1,
        transitions: 0,
        total_transitions: 0,
        elapsed_ms: 0,
    };
    options.observer.level_done(&initial);
    let mut levels = Levels {
        model: &model,
        pool,
        reset: reset_line(config),
        options: &options,
        started,
        from: 0,
        batch: Vec::new(),
        new_states: 0,
        stats: vec![initial],
        checked: 0,
        steps: 0,
        resets: 0,
        warned: false,
        parting: None,
        failure: None,
    };
    let walked = graph::walk(&model, Some(options.depth), options.max_memory, &mut levels);
    // A level cut short by the memory bound is not sent: what was compared
    // is whole levels.
    let whole = walked.stopped.is_none();
    if whole && levels.parting.is_none() && levels.failure.is_none() && !levels.batch.is_empty() {
        levels.flush();
    }
    if let Some(e) = levels.failure {
        return Err(e);
    }
    Ok(BuildsReport {
        config: config.clone(),
        depth: options.depth,
        other: other.clone(),
        other_build: levels.pool.implementation.take(),
        this_build: BuildInfo::this(),
        transitions_checked: levels.checked,
        levels: levels.stats,
        steps: levels.steps,
        resets: levels.resets,
        complete: walked.complete && levels.parting.is_none(),
        stopped: walked.stopped.filter(|_| levels.parting.is_none()),
        parting: levels.parting,
        elapsed: started.elapsed(),
    })
}

/// The parting as a whole sequence: the departing trace, both builds'
/// answers to each step (equal up to the last: each earlier step was
/// checked as a transition of its own level).
fn parting(model: &MemtxModel, actions: &[Action], d: Departure) -> Parting {
    let prepared = prepare(model, actions);
    let now = prepared.answers;
    let mut before = now[..now.len() - 1].to_vec();
    before.push(d.implementation.clone());
    Parting {
        labels: actions.iter().map(|a| a.describe(&model.spec)).collect(),
        steps: prepared.steps,
        actions: actions.to_vec(),
        comparison: compare_answers(&d.implementation, &d.model, Fields::All),
        before,
        now,
    }
}
