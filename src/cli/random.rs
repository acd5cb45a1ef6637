//! `memtx-check random [MODEL] --traces N --steps N --seed S [--threads N]
//! [--records N] [--transactions N] [--out DIR] [--traces-dir DIR]`: random
//! walks through the model's actions, within its record and transaction
//! bounds (overridable, as for `check`); `--steps` replaces the depth. Writes `random.csv` and `random-summary.json`, a shrunk,
//! replayable trace (and its ITF twin) per violated invariant, and prints
//! a summary with the command that replays each failure.

use super::files::{write, write_counterexample};
use super::{print, CliError, Verdict};
use crate::config::ModelConfig;
use crate::protocol::MAX_RECORDS;
use crate::random::report::{csv_bytes, human_summary, summary_json, Written};
use crate::random::{self, RandomOptions, RandomReport};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The largest `--traces`, `--steps` and `--threads` accepted.
const MAX_TRACES: u64 = 100_000_000;
const MAX_STEPS: u64 = 100_000;
const MAX_THREADS: u64 = 1024;

/// Numbers are taken as text and checked here, so that a bad value gets
/// the one-line error every bad input gets.
#[derive(Debug, Args)]
pub struct RandomArgs {
    /// The model configuration.
    #[arg(default_value = "models/default.json")]
    pub model: PathBuf,
    /// Random walks to run, 1..=100000000.
    #[arg(
        long,
        value_name = "N",
        default_value = "10000",
        allow_hyphen_values = true
    )]
    pub traces: String,
    /// Steps per walk at most, 1..=100000 (a walk stops early when no
    /// action is enabled).
    #[arg(
        long,
        value_name = "N",
        default_value = "20",
        allow_hyphen_values = true
    )]
    pub steps: String,
    /// The run's seed (0..=2^64-1); the same seed gives the same walks and
    /// the same random.csv whatever the thread count.
    #[arg(
        long,
        value_name = "S",
        default_value = "0",
        allow_hyphen_values = true
    )]
    pub seed: String,
    /// Override the record bound (tool actions included), 1..=64.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub records: Option<String>,
    /// Override the transaction bound, 1..=255.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub transactions: Option<String>,
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub threads: Option<String>,
    /// Where random.csv and random-summary.json go (default: reports/NAME).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where the traces of violating walks go.
    #[arg(long, value_name = "DIR", default_value = "traces")]
    pub traces_dir: PathBuf,
}

/// `flag`'s value as a number in `min..=max`.
fn number(flag: &str, text: &str, min: u64, max: u64) -> Result<u64, CliError> {
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) => Err(CliError(format!("{flag}: {n} is outside {min}..={max}"))),
        Err(_) => Err(CliError(format!("{flag}: {text:?} is not a whole number"))),
    }
}

/// The validated options.
pub fn options(args: &RandomArgs) -> Result<RandomOptions, CliError> {
    let threads = match &args.threads {
        Some(t) => number("--threads", t, 1, MAX_THREADS)? as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(RandomOptions {
        traces: number("--traces", &args.traces, 1, MAX_TRACES)?,
        steps: number("--steps", &args.steps, 1, MAX_STEPS)? as usize,
        seed: number("--seed", &args.seed, 0, u64::MAX)?,
        threads,
    })
}

pub fn run(args: &RandomArgs) -> Result<Verdict, CliError> {
    let options = options(args)?;
    let mut config = ModelConfig::load(&args.model)?;
    if let Some(r) = &args.records {
        config.bounds.records = number("--records", r, 1, MAX_RECORDS as u64)? as usize;
    }
    if let Some(t) = &args.transactions {
        config.bounds.transactions = number("--transactions", t, 1, 255)? as usize;
    }
    let started = Instant::now();
    let progress = move |done: u64, total: u64| {
        if started.elapsed().as_secs() >= 1 {
            eprintln!("  {done:>10} of {total} traces");
        }
    };
    let report = random::run(&config, &options, Some(&progress));
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(&config.name));
    let written = write_failures(&report, &args.traces_dir)?;
    let csv_path = out.join("random.csv");
    let summary_path = out.join("random-summary.json");
    let csv = csv_bytes(&report).map_err(|e| CliError(format!("{}: {e}", csv_path.display())))?;
    write(&csv_path, &csv)?;
    write(&summary_path, summary_json(&report, &written).as_bytes())?;
    let mut text = human_summary(&report, &written);
    for (f, w) in report.failures.iter().zip(&written) {
        let actions = &f.counterexample.actions;
        if let Some(hint) = crate::explore::hint(&report.model, actions, &w.trace) {
            text.push_str(&hint);
        }
    }
    text.push_str(&format!(
        "wrote {} and {}\n",
        csv_path.display(),
        summary_path.display()
    ));
    print(&text)?;
    Ok(if report.violated() {
        Verdict::Violated
    } else {
        Verdict::Holds
    })
}

fn write_failures(report: &RandomReport, dir: &Path) -> Result<Vec<Written>, CliError> {
    report
        .failures
        .iter()
        .map(|f| {
            write_counterexample(
                dir,
                &f.stem(),
                &f.counterexample,
                &report.model.spec.compiled,
            )
        })
        .collect()
}
