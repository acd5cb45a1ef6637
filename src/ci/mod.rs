//! The CI suite (`memtx-check ci`): every model of a folder checked and
//! judged, one verdict per property (against the model's `expect`) and
//! one for its committed baseline (`reports/NAME/`: counts per level,
//! verdicts and branch coverage), then told to CI dashboards as JUnit XML
//! and to GitHub as a step-summary table. This module is the judging and
//! the rendering; the command (`cli::ci`) runs the checks and writes the
//! files.
//!
//! Under a depth cap D the baseline is read as a run to D would find it
//! ([`baseline`], [`coverage`]): its levels 0..=D, the verdicts found by
//! then, and the branches whose first depth (`coverage.csv`'s
//! `first_depth`) is at most D, each at that depth. These are exact, not
//! estimates: levels, verdict depths and first depths are per breadth-
//! first level, which neither the thread count nor the cap changes.

pub mod baseline;
pub mod coverage;
pub mod judge;
pub mod junit;
pub mod markdown;
pub mod suite;

pub use judge::{Case, Failure, ModelResult};

#[cfg(test)]
mod tests;
