//! The model the explorer serves: [`ExploredMemtxModel`] wraps
//! [`MemtxModel`] and delegates everything to it (states, actions in the
//! same order, transitions, labels, the property table), adding only what
//! the explorer shows: [`format_step`] and [`as_svg`]. So the model knows
//! nothing of the explorer, and the explorer's paths are the model's: the
//! deep links `check` and `random` print (positions in `Model::actions`)
//! open the same states here. One difference: its boundary holds no state,
//! which turns the explorer's unbounded "Run to completion" off.

use super::picture::as_svg;
use super::step::format_step;
use crate::model::{properties, Action, MemtxModel, ModelProperty, ModelState};
use stateright::{Model, Path, Property};

/// [`MemtxModel`] as the explorer shows it.
#[derive(Clone, Debug)]
pub struct ExploredMemtxModel(pub MemtxModel);

impl AsRef<MemtxModel> for ExploredMemtxModel {
    fn as_ref(&self) -> &MemtxModel {
        &self.0
    }
}

impl Model for ExploredMemtxModel {
    type State = ModelState;
    type Action = Action;

    fn init_states(&self) -> Vec<ModelState> {
        self.0.init_states()
    }

    fn actions(&self, state: &ModelState, actions: &mut Vec<Action>) {
        self.0.actions(state, actions)
    }

    fn next_state(&self, state: &ModelState, action: Action) -> Option<ModelState> {
        self.0.next_state(state, action)
    }

    /// No state is within the boundary of the explorer's own checker, so
    /// its "Run to completion" (POST `/.runtocompletion`) explores
    /// nothing. It would otherwise explore the whole finite but huge state
    /// space with no bound (stateright 0.31's on-demand checker ignores
    /// `target_max_depth`) at some 10 MB/s, for anyone who can reach the
    /// port; depth is not part of a state, so the model's depth cannot
    /// bound it here. The exhaustive check is `memtx-check check`, and the
    /// legend says so. Browsing replays paths and never asks.
    fn within_boundary(&self, _state: &ModelState) -> bool {
        false
    }

    fn format_action(&self, action: &Action) -> String {
        self.0.format_action(action)
    }

    fn format_step(&self, last_state: &ModelState, action: Action) -> Option<String> {
        format_step(&self.0, last_state, &action)
    }

    fn as_svg(&self, path: Path<ModelState, Action>) -> Option<String> {
        as_svg(&self.0, path)
    }

    /// The model's property table, with predicates that take this wrapper.
    fn properties(&self) -> Vec<Property<Self>> {
        let selection = self.0.spec.context().selection();
        properties::table::<Self>()
            .iter()
            .filter(|p| selection.contains(p.concerns()))
            .map(ModelProperty::stateright)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ModelConfig;
    use crate::model::{ModelSpec, PROPERTIES};

    fn model() -> MemtxModel {
        let config = ModelConfig::load(std::path::Path::new("models/default.json"))
            .expect("the default model loads");
        MemtxModel::new(ModelSpec::from_config(&config))
    }

    #[test]
    fn it_delegates_states_actions_and_properties() {
        let inner = model();
        let explored = ExploredMemtxModel(inner.clone());
        let init = inner.init_states();
        assert_eq!(explored.init_states(), init);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        inner.actions(&init[0], &mut a);
        explored.actions(&init[0], &mut b);
        assert_eq!(a, b);
        assert_eq!(explored.next_steps(&init[0]), inner.next_steps(&init[0]));
        let names: Vec<_> = explored.properties().iter().map(|p| p.name).collect();
        let table: Vec<_> = PROPERTIES.iter().map(|p| p.name()).collect();
        assert_eq!(names, table);
        // A property evaluates the same through the wrapper.
        let step = inner.next_steps(&init[0]).remove(0).1;
        for (p, q) in explored.properties().iter().zip(inner.properties()) {
            assert_eq!(
                (p.condition)(&explored, &step),
                (q.condition)(&inner, &step)
            );
        }
    }

    #[test]
    fn it_adds_the_step_text_and_the_picture() {
        let inner = model();
        let explored = ExploredMemtxModel(inner.clone());
        let init = inner.init_states().remove(0);
        let mut actions = Vec::new();
        inner.actions(&init, &mut actions);
        let step = explored.format_step(&init, actions[0]).expect("a step");
        assert!(step.starts_with("agent 0 opens T0"), "{step}");
        let path = Path::from_actions(&inner, init, &actions[..1]).expect("a path");
        assert_eq!(
            path.encode(&explored),
            path.encode(&inner),
            "the same deep link"
        );
        let svg = explored.as_svg(path).expect("a picture");
        assert!(svg.starts_with("<svg"));
    }
}
