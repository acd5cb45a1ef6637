//! Random traces beside the exhaustive check (issue 4): many random walks
//! through the model's actions, far past the exhaustive bounds' depth,
//! reproducible whatever the thread count ([`rng`]), each ([`walk`])
//! judged and counted as `check` judges and counts, a violating one cut
//! and shortened ([`shrink`]), written out by [`report`].
//!
//! [`run`] gives each thread a contiguous block of walk indices and merges
//! the results in walk order. "Distinct states" counts distinct 64-bit
//! state fingerprints ([`crate::engine::fingerprint`]), not states: two
//! states that collide count once (the chance is about n²/2⁶⁵).
//!
//! The property-based tests of the protocol, the invariant checkers and
//! replay live beside what they test, on the generators of
//! `protocol::generate` (test builds only), which documents
//! `MEMTX_PROPTEST_CASES`.

pub mod report;
pub mod rng;
pub mod shrink;
pub mod walk;

#[cfg(test)]
mod tests;

pub use rng::walk_seed;
pub use shrink::shrink;

use crate::check::Counterexample;
use crate::config::{Expect, ModelConfig};
use crate::invariants::{Invariant, Selection};
use crate::model::coverage::Coverage;
use crate::model::{properties, MemtxModel, ModelSpec};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use walk::Seen;

/// How to run random walks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomOptions {
    /// Walks (at least one).
    pub walks: u64,
    /// Steps per walk at most (at least one).
    pub steps: usize,
    pub seed: u64,
    /// Worker threads; results do not depend on it.
    pub threads: usize,
    /// The invariants judged (and the companions that guard them).
    pub properties: Selection,
}

/// Called now and then with (walks done, walks in all).
pub type ProgressFn<'a> = &'a (dyn Fn(u64, u64) + Sync);

/// One walk's line in the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkSummary {
    pub index: u64,
    pub seed: u64,
    pub steps: usize,
    pub violations: Vec<(Invariant, usize)>,
    pub companions: u64,
}

/// One invariant's tally over the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantTally {
    pub invariant: Invariant,
    /// Walks that violated it.
    pub walks: u64,
    /// The first walk (by index) that violated it.
    pub first_walk: Option<u64>,
}

/// A violated invariant's first walk, shrunk and made a replay-verified
/// trace.
pub struct Failure {
    pub invariant: Invariant,
    pub walk: u64,
    /// Steps of the walk up to and including the violating one.
    pub original_steps: usize,
    pub counterexample: Counterexample,
}

impl Failure {
    /// The trace file stem: `NAME-random-PROPERTY`.
    pub fn stem(&self) -> String {
        Failure::stem_for(&self.counterexample.trace.config.name, self.invariant)
    }

    /// The stem of model `model`'s shrunk failure of `invariant`.
    pub fn stem_for(model: &str, invariant: Invariant) -> String {
        format!("{model}-random-{}", invariant.name())
    }
}

/// Everything a random run found.
pub struct RandomReport {
    pub config: ModelConfig,
    pub model: MemtxModel,
    pub options: RandomOptions,
    /// In walk order.
    pub walks: Vec<WalkSummary>,
    pub steps_taken: u64,
    /// Distinct state fingerprints seen over all walks.
    pub distinct_states: u64,
    pub invariants: Vec<InvariantTally>,
    /// Each companion's name and how many walks reached it.
    pub companions: Vec<(&'static str, u64)>,
    /// Per protocol branch, the steps (and refused attempts) that took it
    /// over all walks, and the earliest step position at which one did.
    pub coverage: Coverage,
    pub failures: Vec<Failure>,
    pub elapsed: Duration,
}

impl RandomReport {
    pub fn violated(&self) -> bool {
        self.invariants.iter().any(|t| t.walks > 0)
    }

    /// The invariants the walks violated that the model's `expect` block
    /// expects to hold, by name or by not naming them
    /// ([`crate::config::Expectations::judged`]). Only that is judged:
    /// an expected violation the walks did not find is no failure (walks
    /// are incomplete), and a violation's clause and depth are not
    /// compared, since a shrunk walk need not be a shortest
    /// counterexample.
    pub fn unexpected(&self) -> Vec<Invariant> {
        self.invariants
            .iter()
            .filter(|t| t.walks > 0 && self.config.expect.judged(t.invariant) == Expect::Holds)
            .map(|t| t.invariant)
            .collect()
    }

    pub fn traces_per_second(&self) -> f64 {
        self.walks.len() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// What one thread brings back.
struct Block {
    walks: Vec<WalkSummary>,
    seen: HashSet<u64>,
    coverage: Coverage,
}

/// Runs `options.walks` random walks of the model of `config`.
pub fn run(
    config: &ModelConfig,
    options: &RandomOptions,
    progress: Option<ProgressFn<'_>>,
) -> RandomReport {
    let started = Instant::now();
    let mut spec = ModelSpec::from_config(config);
    spec.select(options.properties);
    let model = MemtxModel::new(spec);
    let threads = options.threads.max(1) as u64;
    let per_thread = options.walks.div_ceil(threads);
    let done = AtomicU64::new(0);
    let tick = (options.walks / 20).max(1);
    let blocks: Vec<Block> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let start = (t * per_thread).min(options.walks);
                let end = ((t + 1) * per_thread).min(options.walks);
                let (model, done) = (&model, &done);
                scope.spawn(move || {
                    let mut block = Block {
                        walks: Vec::with_capacity((end - start) as usize),
                        seen: HashSet::new(),
                        coverage: Coverage::new(),
                    };
                    for index in start..end {
                        let seed = walk_seed(options.seed, index);
                        let seen = Seen {
                            states: &mut block.seen,
                            coverage: &mut block.coverage,
                        };
                        let w = walk::walk(model, seed, options.steps, seen, false);
                        block.walks.push(WalkSummary {
                            index,
                            seed,
                            steps: w.steps,
                            violations: w.violations,
                            companions: w.companions,
                        });
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if let Some(report) = progress.filter(|_| n % tick == 0) {
                            report(n, options.walks);
                        }
                    }
                    block
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a walk thread does not panic"))
            .collect()
    });
    let mut walks = Vec::with_capacity(options.walks as usize);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut coverage = Coverage::new();
    for block in blocks {
        walks.extend(block.walks);
        seen.extend(block.seen);
        coverage.merge(&block.coverage);
    }
    let invariants = tally(&model, &walks);
    let companions = model
        .judged_companions()
        .enumerate()
        .map(|(bit, companion)| {
            let n = walks
                .iter()
                .filter(|w| w.companions & (1 << bit) != 0)
                .count();
            (companion.name(), n as u64)
        })
        .collect();
    let failures = invariants
        .iter()
        .filter_map(|t| Some((t.invariant, t.first_walk?)))
        .map(|(inv, index)| failure(&model, config, options, inv, index))
        .collect();
    RandomReport {
        config: config.clone(),
        options: options.clone(),
        steps_taken: walks.iter().map(|w| w.steps as u64).sum(),
        distinct_states: seen.len() as u64,
        walks,
        invariants,
        companions,
        coverage,
        failures,
        model,
        elapsed: started.elapsed(),
    }
}

fn tally(model: &MemtxModel, walks: &[WalkSummary]) -> Vec<InvariantTally> {
    model
        .judged_invariants()
        .filter_map(|p| p.invariant())
        .map(|invariant| {
            let mut violating = walks
                .iter()
                .filter(|w| w.violations.iter().any(|(i, _)| *i == invariant));
            let first_walk = violating.next().map(|w| w.index);
            InvariantTally {
                invariant,
                walks: u64::from(first_walk.is_some()) + violating.count() as u64,
                first_walk,
            }
        })
        .collect()
}

/// Re-runs walk `index` keeping its actions, shrinks its violation of
/// `inv`, and builds the replay-verified trace.
fn failure(
    model: &MemtxModel,
    config: &ModelConfig,
    options: &RandomOptions,
    inv: Invariant,
    index: u64,
) -> Failure {
    let seed = walk_seed(options.seed, index);
    let seen = Seen {
        states: &mut HashSet::new(),
        coverage: &mut Coverage::new(),
    };
    let w = walk::walk(model, seed, options.steps, seen, true);
    let holds = properties::invariant_property(inv).holds;
    let at = w
        .violated(inv)
        .expect("re-running a walk from its seed repeats it");
    let shrunk = shrink(model, &w.actions[..=at], holds);
    let path = walk::path_of(model, &shrunk).expect("a shrunk walk is a path of the model");
    Failure {
        invariant: inv,
        walk: index,
        original_steps: at + 1,
        counterexample: Counterexample::build(model, config, inv, &path),
    }
}
