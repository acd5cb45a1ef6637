//! Each broken variant that the exhaustive check catches (the gate,
//! dependency-stability, cascade and typed-repair ablations, and the
//! literal card's `snapshot` tool basis) is caught by proptest too, over
//! the same generated sequences, within the configured case count and
//! from a fixed seed. Proptest shrinks the failing sequence; the test
//! bounds its length, prints it (`--nocapture`), writes it as a trace
//! file and checks that replaying the file re-finds the violation at the
//! declared step.

use super::strategy::{op, setup, AbstractOp, Setup};
use super::{config, run};
use crate::invariants::{self, Invariant, Violation};
use crate::protocol::Mechanism;
use crate::replay::{replay, Declared};
use crate::trace::{Step, Trace, TraceViolation};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestError, TestRng, TestRunner};

/// The first violation of a sequence and the index of its step.
fn violation(setup: &Setup, ops: &[AbstractOp]) -> Option<(Violation, usize)> {
    let (_, compiled, _) = setup.compiled();
    let ctx = &compiled.invariant_context;
    for (i, s) in run(setup, ops).0.into_iter().enumerate() {
        if s.result.is_err() {
            continue;
        }
        let found = invariants::check_transition(ctx, s.before.view(), &s.op, s.after.view())
            .into_iter()
            .chain(invariants::check_state(ctx, s.after.view()))
            .next();
        if let Some(v) = found {
            return Some((v, i));
        }
    }
    None
}

/// Removes single operations while the sequence still fails, cutting it
/// after its first violation each time.
fn remove_singles(setup: &Setup, mut ops: Vec<AbstractOp>) -> Vec<AbstractOp> {
    let mut i = 0;
    while i < ops.len() {
        let mut candidate = ops.clone();
        candidate.remove(i);
        match violation(setup, &candidate) {
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
type Broken = (&'static str, Option<Mechanism>, bool, &'static [Invariant]);

const BROKEN: [Broken; 5] = [
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

#[test]
fn every_broken_variant_is_caught_by_proptest_with_a_short_case() {
    let dir = std::env::temp_dir().join(format!("memtx-proptest-{}", std::process::id()));
    let mut lines = Vec::new();
    for (name, ablation, snapshot, breaks) in BROKEN {
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
        let result = runner.run(&strategy, |(setup, ops)| match violation(&setup, &ops) {
            Some((v, _)) => Err(TestCaseError::fail(v.to_string())),
            None => Ok(()),
        });
        let Err(TestError::Fail(_, (setup, ops))) = result else {
            panic!("{name}: not caught in {} cases", config().cases);
        };
        let (_, proptest_at) = violation(&setup, &ops).expect("the shrunk case fails");
        // Proptest removes each element once, before it shrinks values;
        // finish with greedy single removals until none helps.
        let ops = remove_singles(&setup, ops[..=proptest_at].to_vec());
        let (v, at) = violation(&setup, &ops).expect("the shrunk case fails");
        assert!(breaks.contains(&v.invariant), "{name}: {v}");
        assert!(at < SHRUNK_BOUND, "{name}: shrunk to {} operations", at + 1);
        // The failing case as a trace file, replayed from the file.
        let (config, compiled, _) = setup.compiled();
        let stepped = run(&setup, &ops[..=at]).0;
        let steps: Vec<Step> = stepped
            .iter()
            .map(|s| Step::from_op(&s.op, &compiled))
            .collect();
        let declared = TraceViolation {
            property: v.invariant,
            step: at,
            detail: v.detail.clone(),
        };
        let path = dir.join(format!("{name}-proptest-{}.json", v.invariant));
        Trace::new(config, steps, Some(declared))
            .save(&path)
            .expect("temp dir is writable");
        let report = replay(&Trace::load(&path).expect("it loads back")).expect("it replays");
        assert_eq!(report.declared_status(), Some(Declared::Refound), "{name}");
        let accepted = stepped.iter().filter(|s| s.result.is_ok()).count();
        lines.push(format!(
            "{name}: {} after {} operations ({accepted} accepted; proptest's own shrinking: {})",
            v.invariant,
            at + 1,
            proptest_at + 1
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Shown with `--nocapture`.
    println!("{}", lines.join("\n"));
}
