//! Each broken variant that the exhaustive check catches (the gate,
//! dependency-stability, cascade and typed-repair ablations, and the
//! literal card's `snapshot` tool basis) is caught by proptest too, over
//! the same generated sequences ([`crate::protocol::generate`]), within
//! the configured case count and from a fixed seed. Proptest shrinks the
//! failing sequence and greedy single removals finish; the test bounds its
//! length and prints it (`--nocapture`). Replay's tests write the same
//! short cases as trace files and replay them from the files.

use super::context::Context;
use super::invariant::{Invariant, Selection};
use super::monitor::Monitor;
use super::violation::Violation;
use crate::protocol::generate::{config, op, setup, AbstractOp, Setup};
use crate::protocol::{Mechanism, Symbols};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestError, TestRng, TestRunner};

/// The first violation of one of the invariants `judged` in a sequence,
/// and the index of its step.
pub fn violation(
    setup: &Setup,
    ops: &[AbstractOp],
    judged: Selection,
) -> Option<(Violation, usize)> {
    let mut ctx = Context::new(
        &setup.tools(&mut Symbols::new()),
        setup.clock,
        &setup.variant(),
    );
    ctx.select(judged);
    let mut monitor = Monitor::default();
    for (i, s) in setup.run(ops).0.into_iter().enumerate() {
        let Ok(outcome) = &s.result else {
            continue;
        };
        let found = monitor
            .judge(&ctx, s.before.view(), &s.op, outcome, s.after.view())
            .into_iter()
            .next();
        if let Some(v) = found {
            return Some((v, i));
        }
    }
    None
}

/// Removes single operations while the sequence still fails, cutting it
/// after its first violation each time.
fn remove_singles(setup: &Setup, mut ops: Vec<AbstractOp>, judged: Selection) -> Vec<AbstractOp> {
    let mut i = 0;
    while i < ops.len() {
        let mut candidate = ops.clone();
        candidate.remove(i);
        match violation(setup, &candidate, judged) {
            Some((_, at)) => {
                candidate.truncate(at + 1);
                ops = candidate;
            }
            None => i += 1,
        }
    }
    ops
}

/// A broken variant: name, ablation, snapshot tool basis, the invariants
/// it may break.
pub type Broken = (&'static str, Option<Mechanism>, bool, &'static [Invariant]);

pub const BROKEN: [Broken; 5] = [
    ("no-gate", Some(Mechanism::Gate), false, &[Invariant::I1]),
    (
        "no-dependency-stability",
        Some(Mechanism::DependencyStability),
        false,
        &[Invariant::G3],
    ),
    (
        "no-cascade",
        Some(Mechanism::Cascade),
        false,
        &[Invariant::I2, Invariant::G3],
    ),
    (
        "no-typed-repair",
        Some(Mechanism::TypedRepair),
        false,
        &[Invariant::I2],
    ),
    ("tool-basis-snapshot", None, true, &[Invariant::G3]),
];

/// Shrunk sequences must be at most this long (operations up to and
/// including the violating one).
const SHRUNK_BOUND: usize = 16;

/// The short case found for a broken variant.
pub struct ShortCase {
    pub setup: Setup,
    /// The operations, the violating one last.
    pub ops: Vec<AbstractOp>,
    pub violation: Violation,
    /// How many operations proptest's own shrinking left.
    pub proptest_len: usize,
}

/// Finds a case of `broken` from the fixed seed and shrinks it.
///
/// # Panics
/// When no case of the configured count breaks an invariant.
pub fn short_case(broken: &Broken) -> ShortCase {
    let (name, ablation, snapshot, breaks) = *broken;
    // Only what the variant is meant to break: the correct protocol's own
    // findings (scope, one value per slot) are not what is sought here.
    let judged = Selection::of(breaks);
    let strategy = (
        setup().prop_map(move |mut s| {
            s.ablation = ablation;
            s.basis_snapshot |= snapshot;
            s
        }),
        vec(op(), 0..=60),
    );
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    // Selectors resolve against the store, so removing one operation
    // can change what later ones mean: give shrinking room.
    let shrinking = ProptestConfig {
        max_shrink_iters: 50_000,
        ..config()
    };
    let mut runner = TestRunner::new_with_rng(shrinking, rng);
    let result = runner.run(&strategy, |(setup, ops)| {
        match violation(&setup, &ops, judged) {
            Some((v, _)) => Err(TestCaseError::fail(v.to_string())),
            None => Ok(()),
        }
    });
    let Err(TestError::Fail(_, (setup, ops))) = result else {
        panic!("{name}: not caught in {} cases", config().cases);
    };
    let (_, proptest_at) = violation(&setup, &ops, judged).expect("the shrunk case fails");
    // Proptest removes each element once, before it shrinks values;
    // finish with greedy single removals until none helps.
    let mut ops = remove_singles(&setup, ops[..=proptest_at].to_vec(), judged);
    let (violation, at) = violation(&setup, &ops, judged).expect("the shrunk case fails");
    ops.truncate(at + 1);
    ShortCase {
        setup,
        ops,
        violation,
        proptest_len: proptest_at + 1,
    }
}

#[test]
fn generated_sequences_catch_every_broken_variant_with_a_short_case() {
    let mut lines = Vec::new();
    for broken in &BROKEN {
        let (name, _, _, breaks) = *broken;
        let case = short_case(broken);
        let v = &case.violation;
        assert!(breaks.contains(&v.invariant), "{name}: {v}");
        let len = case.ops.len();
        assert!(len <= SHRUNK_BOUND, "{name}: shrunk to {len} operations");
        let stepped = case.setup.run(&case.ops).0;
        let accepted = stepped.iter().filter(|s| s.result.is_ok()).count();
        lines.push(format!(
            "{name}: {} after {len} operations ({accepted} accepted; proptest's own shrinking: {})",
            v.invariant, case.proptest_len
        ));
    }
    // Shown with `--nocapture`.
    println!("{}", lines.join("\n"));
}
