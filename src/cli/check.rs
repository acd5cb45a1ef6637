//! `memtx-check check [MODEL] [--records N] [--transactions N] [--depth N|full]
//! [--threads N] [--properties LIST] [--out DIR] [--traces DIR] [--expect]`: the exhaustive
//! bounded check. Writes `growth.csv` and `summary.json`, a replayable
//! trace (and its ITF twin) per violated invariant, and prints a summary
//! with each counterexample step by step.

use super::args::{overrides, BoundArgs, DepthArg, PropertiesArg, ThreadsArg};
use super::files::{write, write_counterexample};
use super::{print, CliError, Verdict};
use crate::check::summary::{growth_csv, human_summary, summary_json, Written};
use crate::check::{self, CheckOptions, CheckReport};
use crate::config::ModelConfig;
use crate::engine::{LevelProgress, LevelStats, RunObserver};
use crate::explore;
use crate::replay::render_text;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The model configuration.
    #[arg(default_value = "models/default.json")]
    pub model: PathBuf,
    #[command(flatten)]
    pub bounds: BoundArgs,
    #[command(flatten)]
    pub depth: DepthArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub properties: PropertiesArg,
    /// Where growth.csv and summary.json go (default: reports/NAME).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where counterexample traces go.
    #[arg(long, default_value = "traces")]
    pub traces: PathBuf,
    /// Exit 0 when every invariant's verdict matches the model's `expect`
    /// (a broken variant that is caught passes), 1 otherwise.
    #[arg(long)]
    pub expect: bool,
}

pub fn run(args: &CheckArgs) -> Result<Verdict, CliError> {
    let bounds = overrides(Some(&args.bounds), Some(&args.depth))?;
    let threads = args.threads.count()?;
    let properties = args.properties.selection()?;
    let mut config = ModelConfig::load(&args.model)?;
    bounds.apply(&mut config.bounds);
    let report = check::run(
        &config,
        CheckOptions {
            threads,
            properties,
            observer: Box::new(StderrProgress),
        },
    );
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(&config.name));
    let written = write_counterexamples(&report, &args.traces)?;
    write(
        &out.join("growth.csv"),
        &growth_csv(&report).map_err(|e| CliError(format!("{}: {e}", out.display())))?,
    )?;
    write(
        &out.join("summary.json"),
        summary_json(&report, &written).as_bytes(),
    )?;
    let mut text = human_summary(&report, &written);
    text.push_str(&format!(
        "wrote {} and {}\n",
        out.join("growth.csv").display(),
        out.join("summary.json").display()
    ));
    for (c, w) in report.counterexamples.iter().zip(&written) {
        text.push_str(&format!(
            "\n── {} counterexample ({} steps) ──\n",
            c.invariant.name(),
            c.depth
        ));
        text.push_str(&render_text(&c.replay));
        if let Some(hint) = explore::hint(&report.model, &c.actions, &w.trace) {
            text.push_str(&hint);
        }
    }
    print(&text)?;
    Ok(if args.expect {
        if report.as_expected() {
            Verdict::Holds
        } else {
            Verdict::Violated
        }
    } else if report.violated() {
        Verdict::Violated
    } else {
        Verdict::Holds
    })
}

/// The check's progress on stderr: a line per level once the run has
/// lasted a second, and a heartbeat line within long levels.
struct StderrProgress;

impl RunObserver for StderrProgress {
    fn level_done(&self, level: &LevelStats) {
        progress_line(level)
    }
    fn heartbeat(&self, progress: &LevelProgress) {
        heartbeat_line(progress)
    }
}

/// Within a long level, a line a second: how far its expansion has got.
fn heartbeat_line(p: &LevelProgress) {
    eprintln!(
        "  depth {:>3}: {:>3.0}% of the {} states at depth {} expanded; {} states so far, {:.0} states/s",
        p.depth + 1,
        100.0 * p.expanded as f64 / p.level_size.max(1) as f64,
        p.level_size,
        p.depth,
        p.discovered,
        p.discovered as f64 * 1000.0 / p.elapsed_ms.max(1) as f64
    );
}

/// Progress on stderr, once the run has lasted a second.
fn progress_line(l: &LevelStats) {
    if l.elapsed_ms >= 1000 {
        eprintln!(
            "  depth {:>3}: {:>12} states ({:>+11} new), {:>13} transitions, {:>9.0} states/s",
            l.depth,
            l.total_states,
            l.new_states,
            l.total_transitions,
            l.total_states as f64 * 1000.0 / l.elapsed_ms as f64
        );
    }
}

fn write_counterexamples(report: &CheckReport, dir: &Path) -> Result<Vec<Written>, CliError> {
    report
        .counterexamples
        .iter()
        .map(|c| write_counterexample(dir, &c.stem(), c, &report.model.spec.compiled))
        .collect()
}
