//! A suite's traces run by a [`Pool`] of `jobs` connections at once, each
//! on a thread of its own taking chunks of traces in turn (the pool is
//! kept from one batch of traces to the next: the diff across builds
//! sends one level at a time); results land by trace index,
//! so they are the same for any number of jobs. A driver that breaks the
//! protocol stops the run: the breach reported is the one of the lowest
//! trace (chunks past it are skipped, those before it finished), again
//! the same for any number of jobs.

use super::endpoint::{Connection, Implementation};
use super::lockstep::{prepare, run_traces, Breach, Departure, FieldsSeen, Prepared};
use crate::driver::compare::Fields;
use crate::model::{Action, MemtxModel};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Traces a connection takes at once: enough to keep its pipe full.
const CHUNK: usize = 16;

/// Told how the run goes, now and then (after each chunk).
pub trait Progress: Sync {
    fn update(&self, _done: u64, _total: u64, _steps: u64, _departures: u64) {}
}

/// No progress shown.
#[cfg(test)]
pub struct Quiet;

#[cfg(test)]
impl Progress for Quiet {}

/// A breach, with the trace it happened on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceBreach {
    /// `None`: starting the driver.
    pub trace: Option<usize>,
    pub breach: Breach,
    /// Where, in words: `trace 3 of 38 (branch commit.partial), step 2
    /// (T0 commits)` (filled in by [`super::run`]).
    pub at: String,
}

impl std::fmt::Display for TraceBreach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.breach.fault)
    }
}

/// What one suite's traces gave.
pub struct PoolResult {
    /// Per trace, its departure.
    pub departures: Vec<Option<Departure>>,
    pub fields: FieldsSeen,
    /// Steps sent, resets not counted.
    pub steps: u64,
}

/// `jobs` running connections of one implementation, kept from one batch
/// of traces to the next (and for shrinking).
pub struct Pool {
    pub connections: Vec<Box<dyn Connection>>,
    /// What the implementation says it is (its first reset's answer's
    /// `implementation`).
    pub implementation: Option<Value>,
}

impl Pool {
    /// Starts `jobs` connections of `imp`.
    pub fn start(imp: &dyn Implementation, jobs: usize) -> Result<Pool, TraceBreach> {
        let mut connections = Vec::new();
        for _ in 0..jobs.max(1) {
            connections.push(imp.start().map_err(|fault| TraceBreach {
                trace: None,
                breach: Breach { step: None, fault },
                at: "starting the driver".to_owned(),
            })?);
        }
        Ok(Pool {
            connections,
            implementation: None,
        })
    }

    /// Runs every trace of `traces`, their answers compared on `compare`.
    pub fn run(
        &mut self,
        model: &MemtxModel,
        reset: &str,
        traces: &[Vec<Action>],
        compare: Fields,
        progress: &dyn Progress,
    ) -> Result<PoolResult, TraceBreach> {
        let chunks = traces.len().div_ceil(CHUNK);
        let next = AtomicUsize::new(0);
        let broken = AtomicUsize::new(usize::MAX);
        let failure: Mutex<Option<TraceBreach>> = Mutex::new(None);
        let results: Mutex<Vec<Option<Departure>>> = Mutex::new(vec![None; traces.len()]);
        let (done, steps, departed) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
        let implementation = Mutex::new(self.implementation.take());
        let total = traces.len() as u64;
        let fields: Vec<FieldsSeen> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .connections
                .iter_mut()
                .map(|conn| {
                    let (next, broken, failure, results) = (&next, &broken, &failure, &results);
                    let (done, steps, departed, implementation) =
                        (&done, &steps, &departed, &implementation);
                    scope.spawn(move || {
                        let mut fields = FieldsSeen::default();
                        loop {
                            let chunk = next.fetch_add(1, Ordering::Relaxed);
                            if chunk >= chunks || chunk * CHUNK > broken.load(Ordering::Relaxed) {
                                return fields;
                            }
                            let start = chunk * CHUNK;
                            let end = (start + CHUNK).min(traces.len());
                            let prepared: Vec<Prepared> = traces[start..end]
                                .iter()
                                .map(|t| prepare(model, t))
                                .collect();
                            let refs: Vec<&Prepared> = prepared.iter().collect();
                            let mut ready = |answer: &Value| {
                                if let Ok(mut i) = implementation.lock() {
                                    if i.is_none() {
                                        *i = answer.get("implementation").cloned();
                                    }
                                }
                            };
                            let run = run_traces(
                                conn.as_mut(),
                                reset,
                                &refs,
                                compare,
                                &mut fields,
                                &mut ready,
                            );
                            match run {
                                Ok(outcomes) => {
                                    let n: u64 =
                                        prepared.iter().map(|p| p.lines.len() as u64).sum();
                                    steps.fetch_add(n, Ordering::Relaxed);
                                    let d = outcomes.iter().filter(|o| o.is_some()).count();
                                    departed.fetch_add(d as u64, Ordering::Relaxed);
                                    let mut r = results.lock().unwrap_or_else(|e| e.into_inner());
                                    for (i, o) in outcomes.into_iter().enumerate() {
                                        r[start + i] = o;
                                    }
                                    drop(r);
                                    let now = done
                                        .fetch_add((end - start) as u64, Ordering::Relaxed)
                                        + (end - start) as u64;
                                    progress.update(
                                        now,
                                        total,
                                        steps.load(Ordering::Relaxed),
                                        departed.load(Ordering::Relaxed),
                                    );
                                }
                                Err((i, breach)) => {
                                    let trace = start + i;
                                    broken.fetch_min(trace, Ordering::Relaxed);
                                    let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                                    if f.as_ref().is_none_or(|f| f.trace > Some(trace)) {
                                        *f = Some(TraceBreach {
                                            trace: Some(trace),
                                            breach,
                                            at: String::new(),
                                        });
                                    }
                                    return fields;
                                }
                            }
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        self.implementation = implementation
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(f) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(f);
        }
        let mut all = FieldsSeen::default();
        for f in fields {
            all.merge(f);
        }
        Ok(PoolResult {
            departures: results.into_inner().unwrap_or_else(|e| e.into_inner()),
            fields: all.settled(),
            steps: steps.into_inner(),
        })
    }
}
