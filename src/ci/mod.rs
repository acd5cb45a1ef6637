//! The CI suite (`memtx-check ci`): every model of a folder checked and
//! judged, one verdict per property (against the model's `expect`) and
//! one for its committed baseline (`reports/NAME/`: counts per level,
//! verdicts and branch coverage), then told to CI dashboards as JUnit XML
//! and to GitHub as a step-summary table. This module is the judging and
//! the rendering; the command (`cli::ci`) runs the checks and writes the
//! files.
//!
//! A run and its baseline are compared on the depths both explored
//! (`ci --max-depth D` caps the run; a baseline blessed at a depth caps
//! both): [`crate::diff::Side::capped`] reads a side as a run to that
//! depth would find it — its levels, the verdicts found by then, its
//! branches' first depths and, from `coverage-depths.csv`, their
//! transition counts of those depths. These are exact, not estimates:
//! they are per breadth-first level, which neither the thread count nor
//! the cap changes.

pub mod blessed;
pub mod judge;
pub mod junit;
pub mod markdown;
pub mod suite;

pub use judge::{Case, Failure, ModelResult};

#[cfg(test)]
mod tests;
