//! The model's transition labels, counted by the engine
//! (`engine::LabelledModel`): one bit per protocol branch of
//! [`super::coverage`], computed from the protocol's outcome of the step
//! (and, for an attempt the protocol refuses, from its error).

use super::action::Action;
use super::coverage::{refusal_labels, transition_labels, BRANCHES};
use super::state::{MemtxModel, ModelState};
use crate::engine::{LabelledModel, StepInto};

impl LabelledModel for MemtxModel {
    fn next_state_labelled(
        &self,
        state: &ModelState,
        action: Action,
    ) -> Option<(ModelState, u128)> {
        self.attempt_labelled(state, action).ok()
    }

    fn attempt_labelled(
        &self,
        state: &ModelState,
        action: Action,
    ) -> Result<(ModelState, u128), u128> {
        let mut next = ModelState::default();
        let labels = self.attempt_labelled_into(state, action, &mut next)?;
        Ok((next, labels))
    }

    fn attempt_labelled_into(
        &self,
        state: &ModelState,
        action: Action,
        into: &mut ModelState,
    ) -> Result<u128, u128> {
        // `step_into`'s steps, the protocol's result read where it lies
        // (see `MemtxModel::successor_into`).
        if self.admit(state, &action).is_err() {
            return Err(0);
        }
        let op = self.op(&action);
        match self
            .spec
            .protocol()
            .step_into(&state.store, &op, &mut into.store)
        {
            Ok(outcome) => {
                self.conclude(state, &op, &outcome, into)
                    .map_err(|_| 0u128)?;
                Ok(transition_labels(
                    &self.spec,
                    &state.store,
                    &outcome,
                    &into.store,
                ))
            }
            Err(error) => {
                let labels = refusal_labels(&op, &error);
                if self.misjudged_into(state, &op, &error, into) {
                    Ok(labels)
                } else {
                    Err(labels)
                }
            }
        }
    }

    fn label_names(&self) -> Vec<&'static str> {
        BRANCHES.to_vec()
    }
}

/// The engine steps the model into one reused state: no allocation per
/// transition.
impl StepInto for MemtxModel {
    fn next_state_into(&self, state: &ModelState, action: Action, into: &mut ModelState) -> bool {
        self.successor_into(state, &action, into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Depth, ModelConfig};
    use crate::engine::{Engine, EngineOptions};
    use crate::model::{ModelCodec, ModelSpec};

    /// The labelled path offers and takes the same actions as the plain
    /// one: on the default model, and on the model whose revalidations and
    /// refused tool calls give the labelled path the most to count.
    #[test]
    fn the_labelled_run_finds_what_the_plain_run_finds() {
        for (path, depth) in [
            ("models/default.json", 6),
            ("models/coverage/revalidate.json", 9),
        ] {
            let mut config =
                ModelConfig::load(std::path::Path::new(path)).expect("a shipped model loads");
            config.bounds.depth = Depth::Bounded(depth);
            let model = MemtxModel::new(ModelSpec::from_config(&config));
            let codec = ModelCodec::new(&model.spec);
            let opts = EngineOptions::new(Some(depth), 2);
            let plain = Engine::new(&model).options(&opts).codec(&codec).run();
            let labelled = Engine::new(&model)
                .options(&opts)
                .codec(&codec)
                .labelled()
                .run();
            assert_eq!(labelled.level_counts(), plain.level_counts(), "{path}");
            assert_eq!(labelled.properties, plain.properties, "{path}");
            // Stepping into one reused state (the labelled run does too)
            // finds what fresh successors find.
            let in_place = Engine::new(&model)
                .options(&opts)
                .codec(&codec)
                .in_place()
                .run();
            assert_eq!(in_place.level_counts(), plain.level_counts(), "{path}");
            assert_eq!(in_place.properties, plain.properties, "{path}");
            assert_eq!(labelled.labels.len(), BRANCHES.len());
        }
    }
}
