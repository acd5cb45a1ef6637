//! The behavioural diff of two *builds* on one model
//! (`diff --behaviour MODEL --before-exe OLD | --before-rev REV`): what a
//! change to the protocol's code did, as the shortest action sequence
//! after which the other build answers differently from this one.
//!
//! This build's model gives the action alphabet and the states; the other
//! build is a driver process (`docs/driver-protocol.md`), which holds
//! its own store and can only be reset and stepped. The walk is
//! breadth-first, level by level: for every state of the level and every
//! action this build's model offers there, the driver is reset, replayed
//! along the state's path and sent the action, and its answer (refused or
//! not, the outcome, every record, the rollback log) is compared with
//! this build's ([`crate::driver::compare`]). A step this build leaves the
//! store unchanged by (a refusal, a blocked call) leaves the driver where
//! it was, so the next action follows without a replay. The first level
//! where some answer differs is the parting depth; among its differing
//! transitions the first in the walk's order (states in the order they
//! were found, actions in the model's order) is reported, so the result
//! is the same for every `--jobs`. Until the sides part their stores
//! agree after every step, so a state is identified by this build's store
//! alone: a second path to a known store is not walked again. Every
//! answer along a replayed path is checked against this build's too,
//! which catches a driver that does not answer the same way twice.
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
