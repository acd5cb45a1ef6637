//! The model in stateright's web explorer, made readable for MemTX
//! (docs/explorer.md): [`model`] wraps the MemTX model and adds the
//! explorer's two views, [`step`] (what the protocol decided at one step)
//! and [`picture`] (the store at a path's last state, with [`panels`]
//! under it); [`link`] maps traces onto deep links; [`serve`], [`front`]
//! and [`request`] serve it. Each submodule says what else it owns.

pub mod front;
pub mod link;
pub mod model;
pub mod panels;
pub mod picture;
pub mod request;
pub mod serve;
pub mod step;
pub mod style;
pub mod svg;
pub mod verdicts;

#[cfg(test)]
mod tests;

pub use link::{deep_link, hint, states_path, trace_actions, DEFAULT_ADDR};
pub use model::ExploredMemtxModel;
pub use picture::as_svg;
pub use serve::{is_loopback, listen, serve, serve_on};
pub use step::format_step;

use crate::model::ModelState;
use crate::protocol::Store;

/// The protocol store of a model state: the one place this module reads
/// the model's state type.
fn store(state: &ModelState) -> &Store {
    &state.store
}
