//! One trace in lockstep: the model's answer to each step, computed by
//! this build's protocol exactly as `memtx-check driver` computes it, and
//! the implementation's, read from a [`Connection`] after a reset and the
//! whole trace sent at once. Every answer is checked for the protocol's
//! shape ([`super::shape`]) and compared with the model's on the fields
//! both report ([`Fields::Shared`]); the first step whose answers differ
//! is where the trace departs. Which fields were compared, and which one
//! side left out, is gathered over every step ([`FieldsSeen`]).

use super::endpoint::Connection;
use super::shape::check_step_answer;
use crate::config::ModelConfig;
use crate::driver::check_ready;
use crate::driver::client::DriverFault;
use crate::driver::compare::{compare_answers, same_answer, Comparison, Fields};
use crate::model::{Action, MemtxModel};
use crate::protocol::Store;
use crate::replay::wire::StepAnswer;
use crate::trace::Step;
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};

/// A trace ready to send: its steps, their request lines, and the model's
/// answer to each.
pub struct Prepared {
    pub steps: Vec<Step>,
    pub lines: Vec<String>,
    pub answers: Vec<Value>,
}

/// The steps of `actions` and the model's answers.
pub fn prepare(model: &MemtxModel, actions: &[Action]) -> Prepared {
    let compiled = &model.spec.compiled;
    let mut store = Store::new();
    let mut steps = Vec::with_capacity(actions.len());
    let mut lines = Vec::with_capacity(actions.len());
    let mut answers = Vec::with_capacity(actions.len());
    for action in actions {
        let op = model.op(action);
        let step = Step::from_op(&op, compiled);
        lines.push(format!("{{\"step\":{}}}", step.to_json_line()));
        steps.push(step);
        let result = compiled.protocol.apply(&mut store, &op);
        answers.push(
            serde_json::to_value(StepAnswer::new(&result, &store, compiled)).unwrap_or(Value::Null),
        );
    }
    Prepared {
        steps,
        lines,
        answers,
    }
}

/// The first step at which the implementation answers otherwise.
#[derive(Clone, Debug)]
pub struct Departure {
    /// 0-based, as in replay.
    pub step: usize,
    pub model: Value,
    pub implementation: Value,
    pub comparison: Comparison,
}

/// The driver broke the protocol at a step (`None`: at the reset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breach {
    pub step: Option<usize>,
    pub fault: DriverFault,
}

/// The field paths compared over a run, and those one side left out.
#[derive(Clone, Debug, Default)]
pub struct FieldsSeen {
    pub compared: BTreeSet<String>,
    pub not_compared: BTreeSet<String>,
    /// Shapes of answers already inventoried (an answer equal on both
    /// sides adds only its own fields, the same for every answer of one
    /// shape).
    shapes: HashSet<u64>,
}

impl FieldsSeen {
    fn add(&mut self, c: &Comparison) {
        self.compared.extend(c.compared.iter().cloned());
        self.not_compared.extend(c.not_compared.iter().cloned());
    }

    /// Adds another run's fields.
    pub fn merge(&mut self, other: FieldsSeen) {
        self.compared.extend(other.compared);
        self.not_compared.extend(other.not_compared);
    }

    /// A field one side left out on some step and both reported on
    /// another is compared, not left out.
    pub fn settled(mut self) -> FieldsSeen {
        let compared = &self.compared;
        self.not_compared.retain(|f| !compared.contains(f));
        self
    }
}

/// The keys of `v`, arrays' elements merged, hashed: two answers of one
/// shape have the same field paths.
fn shape(v: &Value, h: &mut u64) {
    let mix = |h: &mut u64, x: u64| *h = (*h ^ x).wrapping_mul(0x100_0000_01b3);
    match v {
        Value::Object(fields) => {
            mix(h, 1);
            for (k, v) in fields {
                for b in k.bytes() {
                    mix(h, u64::from(b));
                }
                shape(v, h);
            }
            mix(h, 2);
        }
        Value::Array(items) => {
            mix(h, 3);
            let mut kinds = BTreeSet::new();
            for item in items {
                let mut g = 0xcbf2_9ce4_8422_2325;
                shape(item, &mut g);
                kinds.insert(g);
            }
            for k in kinds {
                mix(h, k);
            }
            mix(h, 4);
        }
        _ => mix(h, 5),
    }
}

/// The request line of a reset to `config`'s JSON.
pub fn reset_line(config: &ModelConfig) -> String {
    serde_json::json!({ "reset": config.to_json() }).to_string()
}

/// Sends each trace's reset and steps, then reads and compares their
/// answers in order on the fields `compare` names (conform: those both
/// report; two builds: all): per trace, its departure if it has one. `ready` is
/// given each reset's answer.
pub fn run_traces(
    conn: &mut dyn Connection,
    reset: &str,
    traces: &[&Prepared],
    compare: Fields,
    fields: &mut FieldsSeen,
    ready: &mut dyn FnMut(&Value),
) -> Result<Vec<Option<Departure>>, (usize, Breach)> {
    let mut lines = Vec::new();
    for t in traces {
        lines.push(reset.to_owned());
        lines.extend(t.lines.iter().cloned());
    }
    let at = |i: usize, step| move |fault| (i, Breach { step, fault });
    conn.send(lines).map_err(at(0, None))?;
    let mut out = Vec::with_capacity(traces.len());
    for (i, t) in traces.iter().enumerate() {
        let answer = conn.recv().map_err(at(i, None))?;
        check_ready(&answer).map_err(|why| at(i, None)(DriverFault::Shape(why)))?;
        ready(&answer);
        let mut departure = None;
        for (s, model) in t.answers.iter().enumerate() {
            let theirs = conn.recv().map_err(at(i, Some(s)))?;
            check_step_answer(t.steps[s].verb(), &theirs)
                .map_err(|why| at(i, Some(s))(DriverFault::Shape(why)))?;
            if same_answer(model, &theirs) {
                let mut h = 0xcbf2_9ce4_8422_2325;
                shape(model, &mut h);
                if fields.shapes.insert(h) {
                    fields.add(&compare_answers(model, model, compare));
                }
                continue;
            }
            let c = compare_answers(model, &theirs, compare);
            fields.add(&c);
            if !c.agree() && departure.is_none() {
                departure = Some(Departure {
                    step: s,
                    model: model.clone(),
                    implementation: theirs,
                    comparison: c,
                });
            }
        }
        out.push(departure);
    }
    Ok(out)
}
