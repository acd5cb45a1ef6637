//! A violated invariant's shortest path, written out as a trace in the
//! replay format (explicit record fields and parent ids, the configuration
//! inline) and checked by replaying it: the replay must re-find the same
//! violation after the same step.

use crate::config::ModelConfig;
use crate::invariants::Invariant;
use crate::model::{Action, MemtxModel, ModelState};
use crate::protocol::Store;
use crate::replay::{replay, ReplayReport};
use crate::trace::{Step, Trace, TraceViolation};

/// A counterexample: the property, its trace and the replay of the trace.
pub struct Counterexample {
    pub invariant: Invariant,
    /// The clause its last step breaks.
    pub clause: &'static str,
    /// Actions from the initial store.
    pub depth: usize,
    pub trace: Trace,
    /// The model's actions along the path (for the explorer's deep link).
    pub actions: Vec<Action>,
    /// Stores along the path, the initial store first.
    pub stores: Vec<Store>,
    pub replay: ReplayReport,
}

impl Counterexample {
    /// Builds the trace of an engine path `(state, action taken from it)`.
    ///
    /// # Panics
    /// If the replay of the trace does not re-find the violation after its
    /// last step: the model and the replayer would disagree on the
    /// protocol, which is a bug, never bad input.
    pub fn build(
        model: &MemtxModel,
        config: &ModelConfig,
        invariant: Invariant,
        path: &[(ModelState, Option<Action>)],
    ) -> Counterexample {
        let mut steps = Vec::new();
        let mut actions = Vec::new();
        for action in path.iter().filter_map(|(_, a)| a.as_ref()) {
            steps.push(Step::from_op(&model.op(action), &model.spec.compiled));
            actions.push(*action);
        }
        let stores = path.iter().map(|(s, _)| s.store.clone()).collect();
        let last = steps.len().saturating_sub(1);
        let unverified = Trace::new(config.clone(), steps.clone(), None);
        let replayed = replay(&unverified).expect("a generated trace is well-formed");
        let found = replayed.first(invariant).unwrap_or_else(|| {
            panic!("replay of the {invariant} counterexample does not violate it")
        });
        assert_eq!(
            found.step, last,
            "replay finds {invariant} after the same step"
        );
        let found_clause = found.violation.clause;
        let violation = TraceViolation {
            property: invariant,
            step: last,
            detail: found.violation.detail.clone(),
        };
        let trace = Trace::new(config.clone(), steps, Some(violation));
        let replay = replay(&trace).expect("a generated trace is well-formed");
        Counterexample {
            invariant,
            clause: found_clause,
            depth: actions.len(),
            trace,
            actions,
            stores,
            replay,
        }
    }

    /// The file name stem: `NAME-PROPERTY`.
    pub fn stem(&self) -> String {
        Counterexample::stem_for(&self.trace.config.name, self.invariant)
    }

    /// The stem of model `model`'s counterexample to `invariant`.
    pub fn stem_for(model: &str, invariant: Invariant) -> String {
        format!("{model}-{}", invariant.name())
    }
}
