//! `memtx-check diff BEFORE AFTER [--depth N|full] [--threads N]`: compares
//! two check results (a report directory, a `summary.json`, or a model
//! file checked now). Exit 0 when they are identical (totals, every level,
//! every verdict), 1 when they differ, 2 for bad input, like diff(1).

use super::args::{overrides, DepthArg, ThreadsArg};
use super::model::warn;
use super::{print, CliError, Verdict};
use crate::config::limits::{MAX_DEPTH, MAX_THREADS};
use crate::diff::{compare, load_side, render};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
// The shared flags' help, said of the model file they apply to.
#[command(
    mut_arg("depth", |a| a.help(format!(
        "For a model file: check to this depth (0..={MAX_DEPTH} or `full`) instead of the model's own"
    ))),
    mut_arg("threads", |a| a.help(format!(
        "For a model file: worker threads, 1..={MAX_THREADS} (default: every core)"
    )))
)]
pub struct DiffArgs {
    /// The result before the change: reports/NAME/, its summary.json, or a
    /// model file.
    pub before: PathBuf,
    /// The result after the change, the same kinds of path.
    pub after: PathBuf,
    #[command(flatten)]
    pub depth: DepthArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

pub fn run(args: &DiffArgs) -> Result<Verdict, CliError> {
    let depth = overrides(None, Some(&args.depth))?.depth;
    let threads = args.threads.count()?;
    let load = |path: &PathBuf| -> Result<_, CliError> { Ok(load_side(path, threads, depth)?) };
    let (a, b) = (load(&args.before)?, load(&args.after)?);
    warn(&a.warnings);
    warn(&b.warnings);
    let differences = compare(&a, &b);
    print(&render(&a, &b, &differences))?;
    Ok(if differences.is_empty() {
        Verdict::Holds
    } else {
        Verdict::Violated
    })
}
