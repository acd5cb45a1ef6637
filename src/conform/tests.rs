//! The conformance core against implementations in-process: this build's
//! protocol served by a driver [`Session`] (which must agree), the same
//! with a deliberate bug (which each suite must find and shrink to a
//! short trace), and one that breaks the protocol.

use super::endpoint::{Connection, Implementation};
use super::pool::Quiet;
use super::suite::Suite;
use super::*;
use crate::config::ModelConfig;
use crate::driver::client::DriverFault;
use crate::driver::Session;
use crate::engine::LabelledModel;
use crate::model::coverage::BRANCHES;
use crate::protocol::Fault;
use std::collections::VecDeque;

/// A session in this process; `sabotage` may rewrite the `n`th answer.
struct Local {
    fault: Option<Fault>,
    sabotage: Option<fn(u64, Value) -> Value>,
}

struct LocalConnection {
    session: Session,
    sabotage: Option<fn(u64, Value) -> Value>,
    answers: VecDeque<Value>,
    number: u64,
}

impl Implementation for Local {
    fn start(&self) -> Result<Box<dyn Connection>, DriverFault> {
        Ok(Box::new(LocalConnection {
            session: match self.fault {
                Some(f) => Session::with_fault(f),
                None => Session::new(),
            },
            sabotage: self.sabotage,
            answers: VecDeque::new(),
            number: 0,
        }))
    }

    fn shown(&self) -> String {
        format!("in-process ({:?})", self.fault)
    }
}

impl Connection for LocalConnection {
    fn send(&mut self, lines: Vec<String>) -> Result<(), DriverFault> {
        for line in lines {
            self.number += 1;
            let answer = self.session.answer(&line, self.number);
            let mut value: Value = serde_json::from_str(answer.line()).expect("JSON");
            if let Some(f) = self.sabotage {
                value = f(self.number, value);
            }
            self.answers.push_back(value);
        }
        Ok(())
    }

    fn recv(&mut self) -> Result<Value, DriverFault> {
        self.answers.pop_front().ok_or(DriverFault::Exited {
            status: "gone".into(),
            stderr: String::new(),
        })
    }
}

fn default_model(depth: usize) -> ModelConfig {
    let mut c = ModelConfig::load(std::path::Path::new("models/default.json")).expect("loads");
    c.bounds.depth = crate::config::Depth::Bounded(depth);
    c
}

fn conform(config: &ModelConfig, suite: Suite, fault: Option<Fault>, jobs: usize) -> ConformReport {
    run(
        config,
        &Local {
            fault,
            sabotage: None,
        },
        &ConformOptions {
            suite,
            jobs,
            max_memory: None,
        },
        &Quiet,
    )
    .expect("the in-process driver keeps the protocol")
}

const BRANCHES6: Suite = Suite::Branches { depth: Some(6) };
const TRANSITIONS4: Suite = Suite::Transitions { depth: 4 };
const RANDOM: Suite = Suite::Random {
    walks: 200,
    steps: 12,
    seed: 7,
};

#[test]
fn this_builds_protocol_agrees_with_itself_on_every_suite() {
    let config = default_model(10);
    for suite in [BRANCHES6, TRANSITIONS4, RANDOM] {
        let r = conform(&config, suite, None, 2);
        assert!(r.agrees(), "{}", render::render(&r, &[]));
        assert!(r.steps > 100, "{:?}: {} steps", suite, r.steps);
        assert!(
            r.fields.not_compared.is_empty(),
            "{:?}",
            r.fields.not_compared
        );
        for f in [
            "refused",
            "records[].state",
            "records[].derived_from",
            "rollback_log[].repair",
        ] {
            assert!(r.fields.compared.contains(f), "{f} not compared");
        }
    }
}

#[test]
fn every_branch_trace_takes_its_branch_at_its_step() {
    let config = default_model(10);
    let model = MemtxModel::new(ModelSpec::from_config(&config));
    let t = suite::traces(&model, BRANCHES6, None);
    // The default model's branches reached within six actions
    // (reports/default/coverage.csv: 50 by depth 7, 3 of them at 7).
    assert_eq!(t.covers.len(), 47);
    assert_eq!(t.covers.len() + t.unreached.len(), BRANCHES.len());
    for c in &t.covers {
        let actions = &t.traces[c.trace];
        let mut state = crate::model::ModelState::default();
        for a in &actions[..c.step] {
            state = model.step(&state, a).expect("a path").0;
        }
        let bit = BRANCHES.iter().position(|b| *b == c.branch).unwrap();
        let labels = match model.attempt_labelled(&state, actions[c.step]) {
            Ok((_, l)) | Err(l) => l,
        };
        assert!(labels & (1 << bit) != 0, "{} at step {}", c.branch, c.step);
    }
    // No kept trace is a prefix of another.
    for (i, a) in t.traces.iter().enumerate() {
        for (j, b) in t.traces.iter().enumerate() {
            assert!(i == j || !b.starts_with(a), "{i} is a prefix of {j}");
        }
    }
}

#[test]
fn the_transition_suite_covers_every_transition_once_as_a_last_step_or_inside() {
    let config = default_model(10);
    let model = MemtxModel::new(ModelSpec::from_config(&config));
    let t = suite::traces(&model, Suite::Transitions { depth: 3 }, None);
    // Depth 3 of reports/default/growth.csv: 126 transitions, 107 states;
    // every tree edge into a state with successors is inside a trace.
    assert_eq!(t.walked.map(|w| w.states), Some(107));
    let edges: std::collections::HashSet<Vec<Action>> = t
        .traces
        .iter()
        .flat_map(|tr| (1..=tr.len()).map(move |k| tr[..k].to_vec()))
        .collect();
    let mut last_steps = std::collections::HashSet::new();
    for tr in &t.traces {
        assert!(tr.len() <= 3);
        assert!(last_steps.insert(tr.clone()), "a trace twice");
    }
    // One prefix per transition: growth.csv's 126 edges out of the states
    // at depths 0 to 2.
    assert_eq!(edges.len(), 126);
}

/// The faults each suite must find, each breaking one mechanism the
/// driver's answers show.
const FAULTS: [Fault; 4] = [
    Fault::GateIgnoresSupport,
    Fault::SupersedeForgetsRivals,
    Fault::AbortLeavesTentative,
    Fault::ExternalCommitNotSafe,
];

#[test]
fn each_suite_finds_each_fault_and_shrinks_it_to_a_short_replayable_trace() {
    let config = default_model(10);
    let mut lengths = Vec::new();
    for suite in [BRANCHES6, Suite::Transitions { depth: 5 }, RANDOM] {
        for fault in FAULTS {
            let r = conform(&config, suite, Some(fault), 2);
            assert!(!r.agrees(), "{suite:?} misses {fault:?}");
            let d = &r.divergences[0];
            assert!(d.actions.len() <= d.original_steps);
            assert_eq!(d.departure.step, d.actions.len() - 1);
            assert_eq!(d.actions.last().unwrap().verb().name(), d.kind.op);
            // Replayable: the trace file replays to the model's answers.
            let trace = crate::trace::Trace::new(config.clone(), d.steps.clone(), None);
            let text = trace.to_json_string();
            let back = crate::trace::Trace::parse(&text, "conform.json", None).expect("parses");
            let replayed = crate::replay::replay(&back).expect("replays");
            assert_eq!(replayed.steps.len(), d.actions.len());
            // Through the faulty implementation the shrunk trace departs
            // again, at its last step.
            let model = MemtxModel::new(ModelSpec::from_config(&config));
            let p = lockstep::prepare(&model, &d.actions);
            let mut conn = Local {
                fault: Some(fault),
                sabotage: None,
            }
            .start()
            .unwrap();
            let again = lockstep::run_traces(
                conn.as_mut(),
                &lockstep::reset_line(&config),
                &[&p],
                crate::driver::compare::Fields::Shared,
                &mut lockstep::FieldsSeen::default(),
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(again[0].as_ref().map(|a| a.step), Some(d.actions.len() - 1));
            lengths.push((suite.name(), fault, d.actions.len()));
        }
    }
    let shown: Vec<String> = lengths
        .iter()
        .map(|(s, f, n)| format!("{s} {f:?} {n}"))
        .collect();
    // What each suite's departure shrinks to, whichever suite found it:
    // the gate one to an external_action transaction that stages lookup,
    // commits it and calls issue_refund on it (its snapshot, taken at
    // open, holds no action_safe record: the model blocks, the faulty
    // gate allows; a call with no basis is another action, which dropping
    // steps cannot reach); the rivals one to lookup and correction staged
    // and committed together (the model supersedes lookup); the abort one
    // to a stage and an abort; the external_action commit to a stage and
    // a commit at that tier (committed, not action_safe).
    let per_suite = [
        "GateIgnoresSupport 4",
        "SupersedeForgetsRivals 4",
        "AbortLeavesTentative 3",
        "ExternalCommitNotSafe 3",
    ];
    let expected: Vec<String> = ["branches", "transitions", "random"]
        .iter()
        .flat_map(|s| per_suite.iter().map(move |f| format!("{s} {f}")))
        .collect();
    assert_eq!(shown, expected);
}

#[test]
fn results_do_not_depend_on_the_number_of_jobs() {
    let config = default_model(10);
    for suite in [BRANCHES6, RANDOM] {
        let one = conform(&config, suite, Some(Fault::SupersedeForgetsRivals), 1);
        let three = conform(&config, suite, Some(Fault::SupersedeForgetsRivals), 3);
        assert!(!one.agrees());
        assert_eq!(one.departures, three.departures);
        assert_eq!(one.steps, three.steps);
        let actions = |r: &ConformReport| -> Vec<Vec<Action>> {
            r.divergences.iter().map(|d| d.actions.clone()).collect()
        };
        assert_eq!(actions(&one), actions(&three));
        assert_eq!(
            wire::conform_json(&one, &[])
                .lines()
                .filter(|l| !l.contains("_ms") && !l.contains("per_second"))
                .collect::<Vec<_>>(),
            wire::conform_json(&three, &[])
                .lines()
                .filter(|l| !l.contains("_ms") && !l.contains("per_second"))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn the_report_names_the_differing_fields_model_first() {
    let config = default_model(10);
    let r = conform(&config, BRANCHES6, Some(Fault::AbortLeavesTentative), 1);
    let text = render::render(&r, &["traces/conform-default-1.json".to_owned()]);
    assert!(text.contains("← departs here"), "{text}");
    assert!(
        text.contains("records[1].state: model revoked, implementation tentative")
            || text.contains(": model revoked, implementation tentative"),
        "{text}"
    );
    assert!(
        text.contains("memtx-check replay traces/conform-default-1.json"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&wire::conform_json(&r, &[])).unwrap();
    assert_eq!(json["format"], 1);
    assert_eq!(json["agrees"], false);
    assert!(json["branches"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["agrees"] == false));
}

#[test]
fn a_driver_that_breaks_the_protocol_is_named_by_trace_and_step() {
    let config = default_model(10);
    // The 5th answer (the reset is the 1st) loses its records.
    fn lose_records(n: u64, mut v: Value) -> Value {
        if n == 5 {
            v.as_object_mut().unwrap().remove("records");
        }
        v
    }
    let e = run(
        &config,
        &Local {
            fault: None,
            sabotage: Some(lose_records),
        },
        &ConformOptions {
            suite: BRANCHES6,
            jobs: 1,
            max_memory: None,
        },
        &Quiet,
    )
    .err()
    .and_then(|f| match f {
        super::Failed::Breach(b) => Some(b),
        super::Failed::Memory(_) => None,
    })
    .expect("a breach");
    // The first trace has two steps: its reset, two answers, the next
    // reset, then the second trace's first step.
    assert_eq!((e.trace, e.breach.step), (Some(1), Some(0)));
    assert!(
        matches!(&e.breach.fault, DriverFault::Shape(w) if w.contains("has no `records`")),
        "{:?}",
        e.breach.fault
    );
}

#[test]
fn fields_a_driver_leaves_out_are_not_compared_and_said_so() {
    let config = default_model(10);
    fn lean(_: u64, mut v: Value) -> Value {
        if let Some(o) = v.get_mut("outcome").and_then(Value::as_object_mut) {
            o.remove("verifier_calls");
            for verdict in o
                .get_mut("records")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                verdict.as_object_mut().unwrap().remove("admission");
            }
        }
        v
    }
    let r = run(
        &config,
        &Local {
            fault: None,
            sabotage: Some(lean),
        },
        &ConformOptions {
            suite: BRANCHES6,
            jobs: 2,
            max_memory: None,
        },
        &Quiet,
    )
    .expect("optional fields may be left out");
    assert!(r.agrees(), "{}", render::render(&r, &[]));
    let left_out: Vec<&str> = r.fields.not_compared.iter().map(String::as_str).collect();
    assert_eq!(
        left_out,
        ["outcome.records[].admission", "outcome.verifier_calls"]
    );
    assert!(r.fields.compared.contains("outcome.records[].result"));
    assert!(render::render(&r, &[]).contains(
        "not compared (one side leaves them out): outcome.records[].admission, outcome.verifier_calls"
    ));
}

#[test]
fn a_suite_past_the_memory_bound_is_refused_with_the_figures_before_driving() {
    // Issue 38.9: `conform --suite transitions --depth 9` aborted under a
    // memory limit instead of refusing.
    let config = default_model(10);
    let failed = run(
        &config,
        &Local {
            fault: None,
            sabotage: None,
        },
        &ConformOptions {
            suite: Suite::Transitions { depth: 9 },
            jobs: 1,
            max_memory: Some(1 << 20),
        },
        &Quiet,
    )
    .err()
    .expect("refused");
    let super::Failed::Memory(m) = failed else {
        panic!("{failed:?}")
    };
    assert_eq!((m.depth, m.limit), (0, 1 << 20));
    assert!(m.needed > m.limit);
    assert!(m.to_string().contains("more than the bound of 1 MB"), "{m}");
}
