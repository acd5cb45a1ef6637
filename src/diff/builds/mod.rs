//! The behavioural diff of two *builds* on one model
//! (`diff --behaviour MODEL --before-exe OLD | --before-rev REV`): what a
//! change to the protocol's code did, as the shortest action sequence
//! after which the other build answers differently from this one.
//!
//! This build's model gives the action alphabet and the states; the other
//! build is a driver process (`docs/driver-protocol.md`), which holds
//! its own store and can only be reset and stepped. The walk is
//! conform's parts, not a search of its own: the model's graph
//! breadth-first ([`crate::conform::graph`]), level by level; every
//! action this build's model offers at a state of the level (refused ones
//! included) is one trace — the shortest path to the state, then the
//! action — and the level's traces go through conform's pool of drivers
//! ([`crate::conform::pool`]), each answer compared with this build's on
//! every field ([`crate::driver::compare`]). The first level where some
//! trace departs is the parting depth; among its departing traces the
//! first in the walk's order (states in the order they were found,
//! actions in the model's order) is reported, so the result is the same
//! for every `--jobs`. Until the sides part their stores agree after every
//! step, so a state is identified by this build's store alone. Every
//! answer along a trace's path is compared too: a path step answered
//! otherwise than when it was checked is a driver that does not answer
//! the same way twice, a fault.
//!
//! [`run`] walks; [`render`] and [`builds_json`] report; [`revision`]
//! builds another revision of the crate into a cache to drive.

mod render;
pub mod revision;
mod walk;
mod wire;

pub use render::render;
pub use walk::{run, BuildsOptions, BuildsReport, OtherBuild, Parting, WalkError};
pub use wire::builds_json;
