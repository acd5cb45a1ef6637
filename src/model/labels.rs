//! The model's transition labels, counted by the engine
//! (`engine::LabelledModel`). It names none yet, so every transition's
//! label is 0: the labelled entry points already run on this model, and
//! protocol branch coverage fills the labels in here.

use super::{Action, MemtxModel, ModelState};
use crate::engine::LabelledModel;
use stateright::Model;

impl LabelledModel for MemtxModel {
    fn next_state_labelled(
        &self,
        state: &ModelState,
        action: Action,
    ) -> Option<(ModelState, u128)> {
        self.next_state(state, action).map(|next| (next, 0))
    }

    fn label_names(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Depth, ModelConfig};
    use crate::engine::{enumerate_labelled_with_codec, enumerate_with_codec, EngineOptions};
    use crate::model::{ModelCodec, ModelSpec};

    #[test]
    fn the_labelled_run_finds_what_the_plain_run_finds() {
        let mut config = ModelConfig::load(std::path::Path::new("models/default.json"))
            .expect("a shipped model loads");
        config.bounds.depth = Depth::Bounded(6);
        let model = MemtxModel::new(ModelSpec::from_config(&config));
        let codec = ModelCodec::new(&model.spec);
        let opts = EngineOptions::new(Some(6), 2);
        let plain = enumerate_with_codec(&model, &codec, &opts);
        let labelled = enumerate_labelled_with_codec(&model, &codec, &opts);
        assert_eq!(labelled.level_counts(), plain.level_counts());
        assert_eq!(labelled.properties, plain.properties);
        assert!(labelled.labels.is_empty());
    }
}
