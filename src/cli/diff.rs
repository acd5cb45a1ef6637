//! `memtx-check diff BEFORE AFTER [--depth N|full] [--threads N]`: compares
//! two check results (a report directory, a `summary.json`, or a model
//! file checked now). Exit 0 when they are identical (totals, every level,
//! every verdict), 1 when they differ, 2 for bad input, like diff(1).

use super::check::parse_depth;
use super::{print, CliError, Verdict};
use crate::config::Depth;
use crate::diff::{compare, load_side, render};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The result before the change: reports/NAME/, its summary.json, or a
    /// model file.
    pub before: PathBuf,
    /// The result after the change, the same kinds of path.
    pub after: PathBuf,
    /// For a model file: check to this depth instead of the model's own.
    #[arg(long, value_parser = parse_depth)]
    pub depth: Option<Depth>,
    /// For a model file: worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(args: &DiffArgs) -> Result<Verdict, CliError> {
    if args.threads == Some(0) {
        return Err(CliError("--threads: 0 is not a thread count".into()));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let load =
        |path: &PathBuf| -> Result<_, CliError> { Ok(load_side(path, threads, args.depth)?) };
    let (a, b) = (load(&args.before)?, load(&args.after)?);
    let differences = compare(&a, &b);
    print(&render(&a, &b, &differences))?;
    Ok(if differences.is_empty() {
        Verdict::Holds
    } else {
        Verdict::Violated
    })
}
