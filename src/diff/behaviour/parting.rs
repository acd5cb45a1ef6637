//! [`Parting`]: the shortest action sequence after which two models'
//! protocols answer differently, as one trace and its replay under each
//! model, [`answer`], one side's answer in brief, and [`differs_in`],
//! what of the answer differs.

use super::lockstep::Lockstep;
use crate::config::ModelConfig;
use crate::model::Action;
use crate::outcome_text::brief;
use crate::protocol::{Outcome, ProtocolError};
use crate::replay::{replay, ReplayReport};
use crate::trace::{Step, Trace};

/// An answer in one line: the outcome in brief, or the refusal.
pub fn answer(result: &Result<Outcome, ProtocolError>) -> String {
    match result {
        Ok(o) => brief(o),
        Err(e) => format!("refused: {e}"),
    }
}

/// The parting sequence, its trace and both replays.
pub struct Parting {
    /// The model's actions, the parting one last.
    pub actions: Vec<Action>,
    /// The actions as the protocol reads them, e.g. `T0 commits`.
    pub labels: Vec<String>,
    /// The trace, with A's configuration inline; B's alphabet is the
    /// same, so it replays under B as it is (`replay --model B.json`).
    pub trace: Trace,
    pub replay_a: ReplayReport,
    pub replay_b: ReplayReport,
}

impl Parting {
    /// Builds the trace of `actions` and replays it under each model.
    ///
    /// # Panics
    /// If the replays do not agree up to the last step and part there:
    /// the lockstep model and the replayer would disagree on the
    /// protocol, which is a bug, never bad input.
    pub fn build(
        product: &Lockstep,
        a: &ModelConfig,
        b: &ModelConfig,
        actions: &[Action],
    ) -> Parting {
        let spec = &product.a.spec;
        let steps: Vec<Step> = actions
            .iter()
            .map(|action| Step::from_op(&product.a.op(action), &spec.compiled))
            .collect();
        let labels = actions.iter().map(|a| a.describe(spec)).collect();
        let trace = Trace::new(a.clone(), steps.clone(), None);
        let replay_a = replay(&trace).expect("a generated trace is well-formed");
        let replay_b = replay(&Trace::new(b.clone(), steps, None))
            .expect("a generated trace is well-formed under the same alphabet");
        let last = actions.len().saturating_sub(1);
        for (i, (x, y)) in replay_a.steps.iter().zip(&replay_b.steps).enumerate() {
            let same = x.result == y.result;
            assert_eq!(
                same,
                i != last,
                "the replays under A and B part at step {i}, the lockstep at step {last}"
            );
        }
        Parting {
            actions: actions.to_vec(),
            labels,
            trace,
            replay_a,
            replay_b,
        }
    }

    /// The index of the step at which the sides part (0-based, as in
    /// replay).
    pub fn step(&self) -> usize {
        self.actions.len().saturating_sub(1)
    }

    /// What A's and B's protocols said at the parting step.
    pub fn answers(
        &self,
    ) -> (
        &Result<Outcome, ProtocolError>,
        &Result<Outcome, ProtocolError>,
    ) {
        let i = self.step();
        (
            &self.replay_a.steps[i].result,
            &self.replay_b.steps[i].result,
        )
    }
}

/// What differs between two answers to one operation, in a few words:
/// `error`, `commit verdict`, `reason of r2`, `gate decision`,
/// `repairs`, …
pub fn differs_in(
    a: &Result<Outcome, ProtocolError>,
    b: &Result<Outcome, ProtocolError>,
) -> String {
    let (x, y) = match (a, b) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(_), Err(_)) => return "error (refused differently)".to_owned(),
        (Err(_), Ok(_)) => return "error (refused under A only)".to_owned(),
        (Ok(_), Err(_)) => return "error (refused under B only)".to_owned(),
    };
    match (x, y) {
        (Outcome::Opened { .. }, Outcome::Opened { .. }) => "snapshot".to_owned(),
        (Outcome::Staged { .. }, Outcome::Staged { .. }) => "staged record".to_owned(),
        (Outcome::Committed(p), Outcome::Committed(q)) => {
            for (u, v) in p.records.iter().zip(&q.records) {
                if u.id != v.id {
                    return "records committed".to_owned();
                }
                if u.result != v.result {
                    return format!("commit verdict of r{}", u.id);
                }
                if u.reason != v.reason {
                    return format!("reason of r{}", u.id);
                }
                if u.superseded != v.superseded {
                    return format!("what r{} supersedes", u.id);
                }
            }
            if p.records.len() != q.records.len() {
                "records committed".to_owned()
            } else if p.status != q.status {
                "commit verdict".to_owned()
            } else {
                "verifier calls".to_owned()
            }
        }
        (Outcome::ToolCall(p), Outcome::ToolCall(q)) => {
            if p.allowed != q.allowed {
                "gate decision".to_owned()
            } else if p.reason != q.reason {
                "gate reason".to_owned()
            } else {
                "tool_action record".to_owned()
            }
        }
        (Outcome::Retracted { .. }, Outcome::Retracted { .. }) => "repairs".to_owned(),
        _ => "outcome".to_owned(),
    }
}
