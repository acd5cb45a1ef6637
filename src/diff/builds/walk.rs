//! The lockstep walk of this build's model against another build's driver
//! (see the module docs of [`super`]): levels of this build's states, each
//! state's transitions checked by resetting a driver, replaying the
//! state's path and sending the action; `--jobs` drivers, each on its own
//! thread, take chunks of a level in turn, and the results are merged in
//! chunk order, so the walk does not depend on how many there are.

use crate::build_info::BuildInfo;
use crate::config::ModelConfig;
use crate::driver::check_ready;
use crate::driver::client::{Driver, DriverFault};
use crate::driver::compare::{compare_answers, same_answer, Comparison, Fields};
use crate::engine::{LevelProgress, LevelStats, RunObserver};
use crate::model::{Action, MemtxModel, ModelSpec, ModelState, StepRefusal};
use crate::protocol::{Outcome, ProtocolError, Store};
use crate::replay::wire::StepAnswer;
use crate::trace::Step;
use serde_json::Value;
use stateright::Model;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
    pub parting: Option<Parting>,
    pub elapsed: Duration,
}

impl BuildsReport {
    /// Whether the other build reports this build's protocol hash.
    pub fn same_build(&self) -> bool {
        self.other_build
            .as_ref()
            .and_then(|b| b.get("protocol"))
            .and_then(Value::as_str)
            == Some(self.this_build.protocol.as_str())
    }

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

/// One state of a level: this build's state, and how it was reached.
struct Node {
    state: ModelState,
    /// Its index in the previous level (`u32::MAX` for the initial state).
    parent: u32,
    action: Option<Action>,
}

/// States per chunk a driver takes at once.
const CHUNK: usize = 32;

/// Walks `config`'s model under this build and `other`'s driver in
/// lockstep up to `options.depth` actions.
pub fn run(
    config: &ModelConfig,
    other: &OtherBuild,
    options: BuildsOptions,
) -> Result<BuildsReport, WalkError> {
    let started = Instant::now();
    let model = MemtxModel::new(ModelSpec::from_config(config));
    let reset = serde_json::json!({ "reset": config.to_json() }).to_string();
    let start_fault = |fault| WalkError {
        at: "the reset".to_owned(),
        fault,
    };
    let mut drivers = Vec::new();
    let mut other_build = None;
    for _ in 0..options.jobs.max(1) {
        let mut d = Driver::start(&other.program, &other.args, options.step_timeout)
            .map_err(start_fault)?;
        d.send([reset.clone()]).map_err(start_fault)?;
        let ready = d.recv().map_err(start_fault)?;
        check_ready(&ready).map_err(|why| start_fault(DriverFault::Shape(why)))?;
        other_build = ready.get("implementation").cloned();
        drivers.push(d);
    }
    let this_build = BuildInfo::this();
    let theirs = other_build
        .as_ref()
        .and_then(|b| b.get("protocol"))
        .and_then(Value::as_str);
    if theirs == Some(this_build.protocol.as_str()) {
        (options.warn)(&format!(
            "both sides are the same build (protocol sources {}): they cannot part",
            this_build.protocol_short()
        ));
    }
    let mut visited: HashSet<Store> = HashSet::new();
    visited.insert(Store::new());
    let mut levels: Vec<Vec<Node>> = vec![vec![Node {
        state: ModelState::default(),
        parent: u32::MAX,
        action: None,
    }]];
    let mut stats = vec![LevelStats {
        depth: 0,
        new_states: 1,
        total_states: 1,
        transitions: 0,
        total_transitions: 0,
        elapsed_ms: 0,
    }];
    options.observer.level_done(&stats[0]);
    let (mut checked, mut resets) = (0u64, options.jobs.max(1) as u64);
    let mut parting = None;
    let mut complete = false;
    for depth in 1..=options.depth {
        let walk = LevelWalk {
            model: &model,
            levels: &levels,
            reset: &reset,
            observer: options.observer.as_ref(),
            started,
            depth,
            next_chunk: AtomicUsize::new(0),
            parted_chunk: AtomicUsize::new(usize::MAX),
            expanded: AtomicU64::new(0),
            last_beat: Mutex::new(Instant::now()),
            discovered: visited.len() as u64,
        };
        let results = walk.run(&mut drivers)?;
        let mut next = Vec::new();
        let mut transitions = 0;
        for chunk in results.into_iter().flatten() {
            transitions += chunk.checked;
            resets += chunk.resets;
            if let Some(p) = chunk.parting {
                parting = Some((p, chunk.start));
                break;
            }
            for (parent, action, state) in chunk.successors {
                if visited.insert(state.store.clone()) {
                    next.push(Node {
                        state,
                        parent,
                        action: Some(action),
                    });
                }
            }
        }
        checked += transitions;
        let level = LevelStats {
            depth,
            new_states: next.len() as u64,
            total_states: stats.last().map_or(0, |l| l.total_states) + next.len() as u64,
            transitions,
            total_transitions: checked,
            elapsed_ms: started.elapsed().as_millis() as u64,
        };
        if parting.is_some() {
            break;
        }
        options.observer.level_done(&level);
        stats.push(level);
        if next.is_empty() {
            complete = true;
            break;
        }
        levels.push(next);
    }
    let steps = drivers.iter().map(|d| d.sent).sum::<u64>() - resets;
    let parting = parting.map(|(p, _)| build_parting(&model, &levels, p));
    Ok(BuildsReport {
        config: config.clone(),
        depth: options.depth,
        other: other.clone(),
        other_build,
        this_build,
        levels: stats,
        transitions_checked: checked,
        steps,
        resets,
        complete,
        parting,
        elapsed: started.elapsed(),
    })
}

/// A differing transition found while checking a chunk.
struct Found {
    node: u32,
    action: Action,
    before: Value,
    now: Value,
    comparison: Comparison,
}

/// What checking one chunk of a level gave.
struct ChunkResult {
    /// The chunk's first state's index in the level.
    start: usize,
    successors: Vec<(u32, Action, ModelState)>,
    parting: Option<Found>,
    checked: u64,
    resets: u64,
}

/// One level being checked by the drivers.
struct LevelWalk<'a> {
    model: &'a MemtxModel,
    levels: &'a [Vec<Node>],
    reset: &'a str,
    observer: &'a dyn RunObserver,
    started: Instant,
    depth: usize,
    next_chunk: AtomicUsize,
    /// The first chunk known to hold a parting: later chunks are skipped.
    parted_chunk: AtomicUsize,
    expanded: AtomicU64,
    last_beat: Mutex<Instant>,
    discovered: u64,
}

/// What is sent for one state, and what this build answers.
struct Plan {
    node: u32,
    ours: Vec<Ours>,
    path: Vec<Action>,
    path_lines: Vec<String>,
    arrival: Option<Value>,
    /// Indices into `ours`, one replay each.
    segments: Vec<Vec<usize>>,
}

/// This build's answer to one action in one state.
struct Ours {
    action: Action,
    answer: Value,
    /// The store changed (a driver then needs a fresh replay for the
    /// next action).
    changed: bool,
    /// The successor, when the action is a transition of the model.
    next: Option<ModelState>,
}

impl LevelWalk<'_> {
    fn frontier(&self) -> &[Node] {
        &self.levels[self.depth - 1]
    }

    /// Each driver on its own thread takes chunks until none is left;
    /// the results in chunk order (`None` for a chunk skipped after a
    /// parting in an earlier one).
    fn run(&self, drivers: &mut [Driver]) -> Result<Vec<Option<ChunkResult>>, WalkError> {
        let chunks = self.frontier().len().div_ceil(CHUNK);
        let results: Mutex<Vec<Option<ChunkResult>>> =
            Mutex::new((0..chunks).map(|_| None).collect());
        let failure: Mutex<Option<(usize, WalkError)>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for driver in drivers.iter_mut() {
                let (results, failure) = (&results, &failure);
                scope.spawn(move || {
                    let mut steps = StepCache::default();
                    loop {
                        let chunk = self.next_chunk.fetch_add(1, Ordering::Relaxed);
                        if chunk >= chunks || chunk > self.parted_chunk.load(Ordering::Relaxed) {
                            return;
                        }
                        if failure.lock().map(|f| f.is_some()).unwrap_or(true) {
                            return;
                        }
                        match self.check_chunk(driver, &mut steps, chunk) {
                            Ok(r) => {
                                if r.parting.is_some() {
                                    self.parted_chunk.fetch_min(chunk, Ordering::Relaxed);
                                }
                                if let Ok(mut all) = results.lock() {
                                    all[chunk] = Some(r);
                                }
                            }
                            Err(e) => {
                                if let Ok(mut f) = failure.lock() {
                                    if f.as_ref().is_none_or(|(c, _)| chunk < *c) {
                                        *f = Some((chunk, e));
                                    }
                                }
                                return;
                            }
                        }
                    }
                });
            }
        });
        if let Some((_, e)) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        // Chunks after the first parting may or may not have been checked,
        // depending on timing: they are dropped either way.
        if let Some(first) = results
            .iter()
            .position(|r| r.as_ref().is_some_and(|r| r.parting.is_some()))
        {
            results.truncate(first + 1);
        }
        Ok(results)
    }

    /// The actions from the initial state to `node` of level `depth`.
    fn path(&self, depth: usize, mut node: u32) -> Vec<Action> {
        let mut actions = Vec::with_capacity(depth);
        for d in (1..=depth).rev() {
            let n = &self.levels[d][node as usize];
            actions.push(n.action.expect("below the initial state"));
            node = n.parent;
        }
        actions.reverse();
        actions
    }

    /// Checks every transition out of the chunk's states: the requests of
    /// all its states are sent at once, then the answers read in order
    /// (the driver is not waited on between requests). The first state
    /// with a differing answer is checked again one action at a time, in
    /// the model's order, to find its first differing action for sure.
    fn check_chunk(
        &self,
        driver: &mut Driver,
        steps: &mut StepCache,
        chunk: usize,
    ) -> Result<ChunkResult, WalkError> {
        let start = chunk * CHUNK;
        let end = (start + CHUNK).min(self.frontier().len());
        let mut result = ChunkResult {
            start,
            successors: Vec::new(),
            parting: None,
            checked: 0,
            resets: 0,
        };
        let plans: Vec<Plan> = (start..end)
            .map(|node| self.plan(node as u32, steps))
            .collect();
        for plan in &plans {
            for segment in &plan.segments {
                driver
                    .send(
                        std::iter::once(self.reset.to_owned())
                            .chain(plan.path_lines.iter().cloned())
                            .chain(
                                segment
                                    .iter()
                                    .map(|&i| steps.line(self.model, &plan.ours[i].action)),
                            ),
                    )
                    .map_err(|f| self.fail(plan, f))?;
            }
        }
        let mut parted = None;
        for plan in &plans {
            let mut differs = false;
            for segment in &plan.segments {
                result.resets += 1;
                self.replayed(driver, plan)?;
                for &i in segment {
                    let theirs = self.answer(driver, plan)?;
                    result.checked += 1;
                    differs |= !same_answer(&theirs, &plan.ours[i].answer);
                }
            }
            if differs && parted.is_none() {
                parted = Some(plan);
            }
        }
        self.expanded
            .fetch_add((end - start) as u64, Ordering::Relaxed);
        self.beat();
        if let Some(plan) = parted {
            result.parting = Some(self.first_difference(driver, steps, plan, &mut result)?);
            return Ok(result);
        }
        for plan in plans {
            for o in plan.ours {
                if let Some(next) = o.next {
                    result.successors.push((plan.node, o.action, next));
                }
            }
        }
        Ok(result)
    }

    /// What to send for the state `node`: this build's answer to each
    /// action it offers there, and the actions grouped into replays —
    /// those that leave the store unchanged share the first, each other
    /// ends one.
    fn plan(&self, node: u32, steps: &mut StepCache) -> Plan {
        let model = self.model;
        let here = &self.frontier()[node as usize];
        let mut offered = Vec::new();
        model.actions(&here.state, &mut offered);
        let ours: Vec<Ours> = offered
            .into_iter()
            .filter_map(|a| self.ours(&here.state, a))
            .collect();
        let path = self.path(self.depth - 1, node);
        let path_lines = path.iter().map(|a| steps.line(model, a)).collect();
        // What the last path step must be answered again: this build's
        // answer for the edge into this state.
        // (Only the initial state has no action, and it is level 0.)
        let arrival = here.action.and_then(|a| {
            let parent = &self.levels[self.depth - 2][here.parent as usize];
            self.ours(&parent.state, a).map(|o| o.answer)
        });
        let mut segments = Vec::new();
        let unchanged: Vec<usize> = (0..ours.len()).filter(|&i| !ours[i].changed).collect();
        let mut changed = (0..ours.len()).filter(|&i| ours[i].changed);
        let mut first = unchanged;
        if let Some(c) = changed.next() {
            first.push(c);
        }
        if !first.is_empty() {
            segments.push(first);
        }
        segments.extend(changed.map(|c| vec![c]));
        Plan {
            node,
            ours,
            path,
            path_lines,
            arrival,
            segments,
        }
    }

    /// Reads a replay's answers: the reset's, then the path's, the last
    /// checked against what the driver answered when it was a transition
    /// of its own level.
    fn replayed(&self, driver: &mut Driver, plan: &Plan) -> Result<(), WalkError> {
        check_ready(&driver.recv().map_err(|f| self.fail(plan, f))?)
            .map_err(|why| self.fail(plan, DriverFault::Shape(why)))?;
        for k in 0..plan.path_lines.len() {
            let answer = self.answer(driver, plan)?;
            if k + 1 == plan.path_lines.len() {
                if let Some(arrival) = &plan.arrival {
                    if !same_answer(&answer, arrival) {
                        return Err(self.fail(
                            plan,
                            DriverFault::Shape(format!(
                                "to the last step of a replayed path differs from its answer when that step was checked: it does not answer the same steps the same way (now: {})",
                                crate::input::one_line(&answer.to_string())
                            )),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// A step's answer, which must hold the records.
    fn answer(&self, driver: &mut Driver, plan: &Plan) -> Result<Value, WalkError> {
        let theirs = driver.recv().map_err(|f| self.fail(plan, f))?;
        if theirs.get("records").is_none() {
            return Err(self.fail(
                plan,
                DriverFault::Shape(format!(
                    "to a step has no `records`: {}",
                    crate::input::one_line(&theirs.to_string())
                )),
            ));
        }
        Ok(theirs)
    }

    /// The first action, in the model's order, whose answers differ at
    /// `plan`'s state, each checked after a fresh replay unless the one
    /// before it left the store as it was.
    fn first_difference(
        &self,
        driver: &mut Driver,
        steps: &mut StepCache,
        plan: &Plan,
        result: &mut ChunkResult,
    ) -> Result<Found, WalkError> {
        let mut fresh = false;
        for (i, o) in plan.ours.iter().enumerate() {
            if !fresh {
                driver
                    .send(
                        std::iter::once(self.reset.to_owned())
                            .chain(plan.path_lines.iter().cloned()),
                    )
                    .map_err(|f| self.fail(plan, f))?;
                result.resets += 1;
                self.replayed(driver, plan)?;
            }
            driver
                .send([steps.line(self.model, &o.action)])
                .map_err(|f| self.fail(plan, f))?;
            let theirs = self.answer(driver, plan)?;
            if !same_answer(&theirs, &o.answer) {
                let comparison = compare_answers(&theirs, &o.answer, Fields::All);
                return Ok(Found {
                    node: plan.node,
                    action: plan.ours[i].action,
                    before: theirs,
                    now: o.answer.clone(),
                    comparison,
                });
            }
            fresh = !o.changed;
        }
        Err(self.fail(
            plan,
            DriverFault::Shape(
                "differed at this state when its steps were sent together, and not when they were sent one by one: it does not answer the same steps the same way".to_owned(),
            ),
        ))
    }

    fn fail(&self, plan: &Plan, fault: DriverFault) -> WalkError {
        WalkError {
            at: self.shown_path(&plan.path),
            fault,
        }
    }

    /// This build's answer to `action` in `state`; `None` for an action
    /// the model offers to no transaction (an open naming another id).
    fn ours(&self, state: &ModelState, action: Action) -> Option<Ours> {
        let model = self.model;
        let compiled = &model.spec.compiled;
        let (result, after, next): (Result<Outcome, ProtocolError>, Store, Option<ModelState>) =
            match model.step(state, &action) {
                Ok((next, outcome)) => (Ok(outcome), next.store.clone(), Some(next)),
                Err(StepRefusal::Protocol(e)) => (Err(e), state.store.clone(), None),
                Err(StepRefusal::NotThisTransaction) => return None,
                // Past the record bound: the protocol's decision still
                // counts, the state is not walked on.
                Err(StepRefusal::RecordBound) => {
                    match model.spec.protocol().step(&state.store, &model.op(&action)) {
                        Ok((after, outcome)) => (Ok(outcome), after, None),
                        Err(e) => (Err(e), state.store.clone(), None),
                    }
                }
            };
        let changed = after != state.store;
        let answer =
            serde_json::to_value(StepAnswer::new(&result, &after, compiled)).unwrap_or(Value::Null);
        Some(Ours {
            action,
            answer,
            changed,
            next,
        })
    }

    fn shown_path(&self, path: &[Action]) -> String {
        if path.is_empty() {
            return "the initial state".to_owned();
        }
        let labels: Vec<String> = path.iter().map(|a| a.describe(&self.model.spec)).collect();
        format!("the state after {}", labels.join(", "))
    }

    /// A heartbeat, at most once a second.
    fn beat(&self) {
        let Ok(mut last) = self.last_beat.try_lock() else {
            return;
        };
        if last.elapsed() < Duration::from_secs(1) {
            return;
        }
        *last = Instant::now();
        self.observer.heartbeat(&LevelProgress {
            depth: self.depth - 1,
            expanded: self.expanded.load(Ordering::Relaxed),
            level_size: self.frontier().len() as u64,
            discovered: self.discovered,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        });
    }
}

/// Request lines of the actions a driver has been sent, made once each.
#[derive(Default)]
struct StepCache {
    lines: HashMap<Action, String>,
}

impl StepCache {
    fn line(&mut self, model: &MemtxModel, action: &Action) -> String {
        self.lines
            .entry(*action)
            .or_insert_with(|| {
                let step = Step::from_op(&model.op(action), &model.spec.compiled);
                format!("{{\"step\":{}}}", step.to_json_line())
            })
            .clone()
    }
}

/// The parting as a whole sequence: its path, the steps, both builds'
/// answers to each (equal up to the last, by construction of the walk:
/// each earlier step was checked as a transition of its own level).
fn build_parting(model: &MemtxModel, levels: &[Vec<Node>], found: Found) -> Parting {
    let depth = levels.len();
    let mut actions = Vec::with_capacity(depth);
    let mut node = found.node;
    for d in (1..depth).rev() {
        let n = &levels[d][node as usize];
        actions.push(n.action.expect("below the initial state"));
        node = n.parent;
    }
    actions.reverse();
    actions.push(found.action);
    let spec = &model.spec;
    let mut now = Vec::with_capacity(actions.len());
    let mut state = ModelState::default();
    for a in &actions[..actions.len() - 1] {
        let (next, outcome) = model.step(&state, a).expect("a walked path is a path");
        now.push(
            serde_json::to_value(StepAnswer::new(&Ok(outcome), &next.store, &spec.compiled))
                .unwrap_or(Value::Null),
        );
        state = next;
    }
    let mut before = now.clone();
    before.push(found.before);
    now.push(found.now);
    Parting {
        labels: actions.iter().map(|a| a.describe(spec)).collect(),
        steps: actions
            .iter()
            .map(|a| Step::from_op(&model.op(a), &spec.compiled))
            .collect(),
        actions,
        before,
        now,
        comparison: found.comparison,
    }
}
