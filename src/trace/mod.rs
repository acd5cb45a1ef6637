//! Traces (`traces/*.json`, DESIGN.md "Formats"): a model configuration,
//! inline or by path, then the steps, each an operation with its arguments
//! written out in full (explicit record fields and parent ids), then the
//! violation the trace demonstrates, if any. One format for
//! counterexamples, random-trace failures and hand-written scenarios.
//!
//! [`Trace`] and its steps are defined in `document`; `parse` reads and
//! validates a trace, `write` writes one back, `ops` converts steps to and
//! from protocol operations, and [`itf`] exports a replayed trace in the
//! Informal Trace Format.

mod document;
pub mod itf;
mod ops;
mod parse;
mod raw;
mod write;

#[cfg(test)]
mod tests;

pub use crate::config::RecordSpec;
pub use document::{ConfigRef, Step, StepArgs, Trace, TraceViolation};
pub use itf::to_itf;
pub use parse::parse_step_value;
