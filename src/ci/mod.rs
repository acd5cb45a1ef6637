//! The CI suite (`memtx-check ci`): every model of a folder checked and
//! judged, one verdict per property (against the model's `expect`) and
//! one for its committed baseline (`reports/NAME/`: counts per level,
//! verdicts and branch coverage), then told to CI dashboards as JUnit XML
//! and to GitHub as a step-summary table. This module is the judging and
//! the rendering; the command (`cli::ci`) runs the checks and writes the
//! files.
//!
//! A run and its baseline are compared on the depths both explored,
//! exactly ([`crate::diff::Side::capped`]; why it is exact:
//! docs/ci.md, "Capping the depth").

pub mod blessed;
pub mod judge;
pub mod junit;
pub mod markdown;
pub mod suite;

pub use judge::{Case, Failure, ModelResult};

#[cfg(test)]
mod tests;
