//! Replay of a trace through the protocol (DESIGN.md "Formats"): every step
//! is applied with `Protocol::apply` from an empty store; a refused step is
//! reported with its error and leaves the store unchanged. After each
//! accepted step the invariant checkers run (I1 on the transition, I2 and
//! G3 on the new state), after each refused one `refusals` (refused by the
//! rule that applies), and each invariant is reported once, at the first
//! step where it is seen.
//!
//! [`text`] and [`wire`] render a [`ReplayReport`] for people and for
//! programs; the report is also what other commands reuse to re-check a
//! counterexample.

pub mod text;
pub mod wire;

#[cfg(test)]
mod round_trip;
#[cfg(test)]
mod tests;

pub use text::render_text;
pub use wire::render_json;

use crate::config::Compiled;
use crate::input::InputError;
use crate::invariants::{Invariant, Monitor, Violation};
use crate::protocol::{Op, Outcome, ProtocolError, Store};
use crate::trace::{Step, Trace, TraceViolation};

/// Everything a replay found.
#[derive(Clone, Debug)]
pub struct ReplayReport {
    /// The trace file's name.
    pub origin: String,
    /// The configuration compiled, with the strings the steps interned.
    pub compiled: Compiled,
    pub steps: Vec<StepReport>,
    /// `stores[0]` is the initial store, `stores[i + 1]` the store after
    /// step `i` (equal to `stores[i]` when step `i` was refused).
    pub stores: Vec<Store>,
    pub final_store: Store,
    /// Each invariant at most once, at the first step it was seen, in the
    /// order found.
    pub violations: Vec<FoundViolation>,
    /// The violation the trace file declares.
    pub declared: Option<TraceViolation>,
}

/// One step and what the protocol made of it.
#[derive(Clone, Debug)]
pub struct StepReport {
    pub index: usize,
    pub step: Step,
    pub op: Op,
    pub result: Result<Outcome, ProtocolError>,
}

/// A violation and the index of the step after which it was first seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundViolation {
    pub step: usize,
    pub violation: Violation,
}

/// How the replay relates to the violation the trace declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    /// Found at the declared step.
    Refound,
    /// Found, but first after another step.
    ElsewhereAt(usize),
    NotFound,
}

impl ReplayReport {
    /// Whether any invariant was violated.
    pub fn violated(&self) -> bool {
        !self.violations.is_empty()
    }

    /// Where `inv` was first seen violated.
    pub fn first(&self, inv: Invariant) -> Option<&FoundViolation> {
        self.violations
            .iter()
            .find(|v| v.violation.invariant == inv)
    }

    /// Whether the declared violation was re-found; `None` if the trace
    /// declares none.
    pub fn declared_status(&self) -> Option<Declared> {
        let declared = self.declared.as_ref()?;
        Some(match self.first(declared.property) {
            Some(found) if found.step == declared.step => Declared::Refound,
            Some(found) => Declared::ElsewhereAt(found.step),
            None => Declared::NotFound,
        })
    }
}

/// Replays `trace` from an empty store. Protocol refusals are step
/// results, not errors; the error case is a step that cannot become an
/// operation at all (an unknown tool in a hand-built trace).
pub fn replay(trace: &Trace) -> Result<ReplayReport, InputError> {
    let mut compiled = trace.config.compile();
    let mut store = Store::new();
    let mut stores = vec![store.clone()];
    let mut steps = Vec::with_capacity(trace.steps.len());
    let mut violations: Vec<FoundViolation> = Vec::new();
    // What the steps taken retracted, as the model keeps it.
    let mut monitor = Monitor::default();
    for (index, step) in trace.steps.iter().enumerate() {
        let op = step
            .to_op(&mut compiled)
            .map_err(|e| InputError::at(&trace.origin, &format!("steps[{index}]"), e))?;
        let before = store.clone();
        let result = compiled.protocol.apply(&mut store, &op);
        let ctx = &compiled.invariant_context;
        let found = match &result {
            Ok(outcome) => monitor.judge(ctx, before.view(), &op, outcome, store.view()),
            Err(error) => monitor
                .judge_refusal(ctx, before.view(), &op, error)
                .into_iter()
                .collect(),
        };
        for violation in found {
            let known = violations
                .iter()
                .any(|v| v.violation.invariant == violation.invariant);
            if !known {
                violations.push(FoundViolation {
                    step: index,
                    violation,
                });
            }
        }
        stores.push(store.clone());
        steps.push(StepReport {
            index,
            step: step.clone(),
            op,
            result,
        });
    }
    Ok(ReplayReport {
        origin: trace.origin.clone(),
        compiled,
        steps,
        stores,
        final_store: store,
        violations,
        declared: trace.violation.clone(),
    })
}
