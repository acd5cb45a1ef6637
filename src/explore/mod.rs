//! The model in stateright's web explorer, made readable for MemTX.
//!
//! - [`link`]: deep links into the explorer (`#/steps/<init>/<action>/…`,
//!   each index a position in `Model::actions`), and the mapping of a trace
//!   file's steps onto the model's actions.
//! - [`model`]: the model the explorer serves, which wraps the MemTX model
//!   and adds the two views below.
//! - [`step`]: `format_step`, what the protocol decided at one step.
//! - [`picture`]: `as_svg`, a drawing of the store at a path's last state,
//!   with the records an invariant violation names highlighted.
//! - [`panels`]: the invariants, transactions, rollback log and legend
//!   under the drawing.
//! - [`verdicts`]: each invariant and companion along a path.
//! - [`style`]: the drawing's colours, layout and text style, shared by
//!   the picture and the panels.
//! - [`svg`]: a tiny, escaping SVG writer.
//! - [`serve`]: starting the explorer on an address (blocks).
//! - [`front`]: the explorer's front door: the built-in page, and the
//!   endpoints forwarded to stateright's server behind it.
//! - [`request`]: reading one HTTP request within bounds.

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
