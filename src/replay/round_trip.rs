//! A run written as a trace file and read back replays to what the run
//! did, over generated operation sequences
//! ([`crate::protocol::generate`]): every step's result, the records (by
//! their strings), the transactions and the rollback log; and the short
//! case proptest finds for each broken variant
//! ([`crate::invariants::broken`]), written as a trace file, replays to
//! its violation at the declared step.

use super::{replay, Declared};
use crate::config::{Compiled, ModelConfig};
use crate::invariants::broken::{short_case, BROKEN};
use crate::protocol::generate::{config, run, scenario, AbstractOp, Setup, Strings, AGENTS};
use crate::protocol::{Store, Symbols};
use crate::trace::{Step, Trace, TraceViolation};
use proptest::prelude::*;

/// The setup as a model file writes it.
fn model_config(setup: &Setup) -> ModelConfig {
    let tools: Vec<String> = setup
        .tools
        .iter()
        .enumerate()
        .map(|(i, irr)| format!(r#"{{"name": "tool{i}", "irreversible": {irr}}}"#))
        .collect();
    let name = |b: bool, yes: &str, no: &str| if b { yes } else { no }.to_owned();
    let text = format!(
        r#"{{"name": "proptest", "agents": {AGENTS}, "tools": [{}], "clock": {},
            "variant": {{"same_source_tie": "{}", "stale_check_empty_snapshot": "{}",
                         "laundering_parents": "{}", "tool_basis": "{}", "ablate": [{}]}}}}"#,
        tools.join(", "),
        setup.clock.map_or("null".to_owned(), |c| c.to_string()),
        name(setup.same_source_review, "review", "supersede"),
        name(setup.stale_apply, "apply", "skip"),
        name(setup.laundering_any, "any", "active"),
        name(setup.basis_snapshot, "snapshot", "active"),
        setup
            .ablation
            .map_or(String::new(), |a| format!("\"{}\"", a.name())),
    );
    ModelConfig::parse(&text, "proptest.json").expect("the generated configuration is valid")
}

/// The setup's model file compiled, with every string the operations use
/// interned; its protocol is the one the setup builds directly.
fn compiled(setup: &Setup) -> (ModelConfig, Compiled, Strings) {
    let config = model_config(setup);
    let mut compiled = config.compile();
    assert_eq!(
        compiled.protocol,
        setup.protocol(&mut Symbols::new()),
        "the model file and the setup agree"
    );
    let strings = Strings::intern(&mut compiled.symbols);
    (config, compiled, strings)
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
    fn generated_traces_round_trip_and_replay_to_the_same_outcomes(
        (setup, mut ops) in scenario()
    ) {
        // The trace format refuses what it cannot name, which the
        // protocol itself takes: an empty window (valid_to before
        // valid_from) and a tool the configuration does not have.
        for op in &mut ops {
            match op {
                AbstractOp::Stage {
                    proposal: record, ..
                } => {
                    let w = &mut record.window;
                    if let (Some(f), Some(t)) = (w.from, w.to) {
                        (w.from, w.to) = (Some(f.min(t)), Some(f.max(t)));
                    }
                }
                AbstractOp::ToolCall { tool, .. } => *tool %= u8::MAX,
                _ => {}
            }
        }
        let (config, compiled, strings) = compiled(&setup);
        let (stepped, store) = run(&compiled.protocol, &strings, &ops);
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

#[test]
fn generated_counterexamples_replay_from_their_trace_files() {
    let dir = std::env::temp_dir().join(format!("memtx-proptest-{}", std::process::id()));
    for broken in &BROKEN {
        let name = broken.0;
        let case = short_case(broken);
        let v = &case.violation;
        let (config, compiled, strings) = compiled(&case.setup);
        let stepped = run(&compiled.protocol, &strings, &case.ops).0;
        let steps: Vec<Step> = stepped
            .iter()
            .map(|s| Step::from_op(&s.op, &compiled))
            .collect();
        let declared = TraceViolation {
            property: v.invariant,
            step: case.ops.len() - 1,
            detail: v.detail.clone(),
        };
        let path = dir.join(format!("{name}-proptest-{}.json", v.invariant));
        Trace::new(config, steps, Some(declared))
            .save(&path)
            .expect("temp dir is writable");
        let report = replay(&Trace::load(&path).expect("it loads back")).expect("it replays");
        assert_eq!(report.declared_status(), Some(Declared::Refound), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
