//! Property-based tests of the protocol, the invariant checkers and the
//! trace format, over whole generated operation sequences (see
//! [`strategy`]): wide values, every variant switch, refusals included.
//!
//! Each property runs `MEMTX_PROPTEST_CASES` cases (default
//! [`DEFAULT_CASES`], sized so that all of them together stay well inside
//! CI's budget of about a minute in `cargo test --release` on two cores).
//! Run many more with, for example,
//! `MEMTX_PROPTEST_CASES=20000 cargo test --release random::proptests`.
//! Failures are not persisted to files; proptest prints the shrunk case.

mod ablations;
mod contracts;
mod strategy;

use crate::invariants::ancestry::Graph;
use crate::protocol::{Op, Outcome, ProtocolError, RecordSet, Store, Symbols};
use crate::replay::replay;
use crate::trace::{Step, Trace};
use proptest::prelude::*;
use strategy::{resolve, scenario, AbstractOp, Setup};

/// Cases per property unless `MEMTX_PROPTEST_CASES` says otherwise.
pub const DEFAULT_CASES: u32 = 2048;

fn config() -> ProptestConfig {
    let cases = std::env::var("MEMTX_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// One step of a run: the store before, the operation, its result and
/// the store after.
struct Stepped {
    before: Store,
    op: Op,
    result: Result<Outcome, ProtocolError>,
    after: Store,
}

/// Runs the operations from an empty store, resolving each against the
/// store it meets.
fn run(setup: &Setup, ops: &[AbstractOp]) -> (Vec<Stepped>, Store) {
    let (_, compiled, strings) = setup.compiled();
    let mut store = Store::new();
    let mut steps = Vec::with_capacity(ops.len());
    for a in ops {
        let op = resolve(a, &store, &strings, setup.tools.len());
        let before = store.clone();
        let result = compiled.protocol.apply(&mut store, &op);
        steps.push(Stepped {
            before,
            op,
            result,
            after: store.clone(),
        });
    }
    (steps, store)
}

/// Every record with its strings spelled out.
fn spelled(store: &Store, symbols: &Symbols) -> Vec<String> {
    store
        .records()
        .iter()
        .map(|r| {
            let name = |s| symbols.name(s).to_owned();
            format!(
                "{:?} {} {} {} {:?} {:?} {:?} owner {} {:?} {:?} {:?} {:?} {:?} {:?}",
                r.kind(),
                name(r.entity()),
                name(r.attribute()),
                name(r.value()),
                r.source().map(name),
                r.authority(),
                r.confidence(),
                r.owner(),
                r.scope(),
                r.derived_from(),
                r.window(),
                r.state(),
                r.reason(),
                r.tool(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_operation_keeps_the_invariants_and_the_protocols_contracts(
        (setup, ops) in scenario()
    ) {
        let (_, compiled, _) = setup.compiled();
        let ctx = &compiled.invariant_context;
        for s in &run(&setup, &ops).0 {
            contracts::check_step(ctx, &s.before, &s.op, &s.result, &s.after, !setup.basis_snapshot)?;
        }
    }

    #[test]
    fn recomputed_ancestry_equals_the_protocols_dependency_walks(
        (setup, ops) in scenario(),
        roots in any::<u64>(),
    ) {
        let store = run(&setup, &ops).1;
        let graph = Graph::of(store.view());
        for id in store.ids().iter() {
            prop_assert_eq!(graph.ancestors(id), store.ancestors_for_tests(id), "ancestors of r{}", id);
            prop_assert_eq!(
                graph.descendants(id),
                store.descendants_for_tests(RecordSet::single(id)),
                "descendants of r{}", id
            );
        }
        let roots = RecordSet::from_bits(roots).intersection(store.ids());
        let union = roots
            .iter()
            .fold(RecordSet::EMPTY, |acc, r| acc.union(graph.descendants(r)));
        prop_assert_eq!(union.difference(roots), store.descendants_for_tests(roots));
    }

    #[test]
    fn generated_traces_round_trip_and_replay_to_the_same_outcomes(
        (setup, mut ops) in scenario()
    ) {
        // The trace format refuses what it cannot name, which the
        // protocol itself takes: an empty window (valid_to before
        // valid_from) and a tool the configuration does not have.
        for op in &mut ops {
            match op {
                AbstractOp::Stage { record, .. } => {
                    let w = &mut record.window;
                    if let (Some(f), Some(t)) = (w.from, w.to) {
                        (w.from, w.to) = (Some(f.min(t)), Some(f.max(t)));
                    }
                }
                AbstractOp::ToolCall { tool, .. } => *tool %= u8::MAX,
                _ => {}
            }
        }
        let (config, compiled, _) = setup.compiled();
        let (stepped, store) = run(&setup, &ops);
        let steps: Vec<Step> = stepped.iter().map(|s| Step::from_op(&s.op, &compiled)).collect();
        let trace = Trace::new(config, steps, None);
        let text = trace.to_json_string();
        let back = Trace::parse(&text, &trace.origin, None)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &trace);
        let report = replay(&back).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(report.steps.len(), stepped.len());
        for (r, s) in report.steps.iter().zip(&stepped) {
            prop_assert_eq!(&r.result, &s.result, "step {} ({:?})", r.index, s.op);
        }
        // Symbols are numbered in interning order, which differs: compare
        // records by their strings, the rest as is.
        prop_assert_eq!(
            spelled(&report.final_store, &report.compiled.symbols),
            spelled(&store, &compiled.symbols)
        );
        prop_assert_eq!(report.final_store.transactions(), store.transactions());
        prop_assert_eq!(report.final_store.rollback_log(), store.rollback_log());
    }
}

/// The generator is not degenerate: over a fixed sample of scenarios, every
/// commit result and reason, every repair, both gate decisions and the
/// main refusals occur.
#[test]
fn generated_sequences_reach_every_outcome() {
    use crate::protocol::GateOutcome;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    let mut runner = TestRunner::deterministic();
    let mut seen = BTreeSet::new();
    for _ in 0..400 {
        let (setup, ops) = scenario().new_tree(&mut runner).unwrap().current();
        for s in run(&setup, &ops).0 {
            match &s.result {
                Err(e) => {
                    let text = format!("{e:?}");
                    seen.insert(format!(
                        "error {}",
                        &text[..text.find([' ', '(', '{']).unwrap_or(text.len())]
                    ));
                }
                Ok(Outcome::Committed(c)) => {
                    for r in &c.records {
                        seen.insert(format!("commit {}", r.result.name()));
                        if !r.superseded.is_empty() {
                            seen.insert("supersede".to_owned());
                        }
                        if let Some(reason) = r.reason {
                            seen.insert(format!("reason {}", reason.name()));
                        }
                    }
                }
                Ok(Outcome::Retracted { repairs }) => {
                    for (_, r) in repairs {
                        seen.insert(format!("repair {}", r.name()));
                    }
                }
                Ok(Outcome::ToolCall(GateOutcome {
                    allowed, reason, ..
                })) => {
                    seen.insert(format!(
                        "gate {allowed} {}",
                        reason.map_or("-", |r| r.name())
                    ));
                }
                Ok(_) => {}
            }
        }
    }
    let expected = [
        "commit action_safe",
        "commit committed",
        "commit quarantined",
        "commit revoked",
        "error BasisNotAllowed",
        "error NotRevocable",
        "error StagedToolAction",
        "error TransactionAborted",
        "error TransactionNotOpen",
        "error UnknownParent",
        "error UnknownRecord",
        "error UnknownTool",
        "error UnknownTransaction",
        "gate false no_action_safe_support",
        "gate false tentative_in_flight",
        "gate true -",
        "reason low_evidence",
        "reason lower_authority",
        "reason needs_review",
        "reason outside_validity",
        "reason permission_laundering",
        "reason revoked_parent",
        "reason stale_write",
        "reason unstable_dependency",
        "repair compensated",
        "repair leaked",
        "repair quarantined",
        "repair revoked",
        "supersede",
    ];
    let missing: Vec<_> = expected.iter().filter(|e| !seen.contains(**e)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
