//! `memtx-check check [MODEL] [--records N] [--transactions N] [--depth N|full]
//! [--threads N] [--out DIR] [--traces DIR] [--expect] [--fingerprint 64|128]
//! [--max-memory SIZE] [--checkpoint DIR] [--resume DIR]
//! [--hosts FILE --process I | --local-processes N] [--connect-timeout SECS]`:
//! the exhaustive bounded check, in this process or across several
//! (`cluster`). Writes `growth.csv` and `summary.json`, a replayable
//! trace (and its ITF twin) per violated invariant, as one report set
//! (`outputs::ReportSet`), and prints a summary with each counterexample
//! step by step. A run stopped by the memory guard still writes its
//! reports, for the depths it completed, and exits 3 (inconclusive) unless
//! it found a violation.

use super::args::{overrides, BoundArgs, DepthArg, ThreadsArg};
use super::cluster;
use super::files::{report_dir, report_set, retire_traces, write_counterexample};
use super::model::load_model;
use super::{print, CliError, Verdict};
use crate::check::summary::{growth_csv, human_summary, summary_json, Written};
use crate::check::{self, CheckOptions, CheckReport, Counterexample};
use crate::config::flags;
use crate::engine::{self, FingerprintWidth, LevelProgress, LevelStats, RunObserver};
use crate::explore;
use crate::outputs::ReportSet;
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
    /// Bits of the stored state fingerprints: 64 (8 bytes a state) or 128
    /// (16 bytes, a negligible collision probability).
    #[arg(
        long,
        value_name = "64|128",
        default_value = "64",
        allow_hyphen_values = true
    )]
    pub fingerprint: String,
    /// Before each level, estimate its peak memory and stop cleanly (exit
    /// 3) if it would pass SIZE, e.g. 8G or 512M (default: 90% of physical
    /// memory).
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub max_memory: Option<String>,
    /// After each completed level, write what is needed to continue into
    /// DIR (parent links included).
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Continue from the last complete level checkpointed in DIR (same
    /// model and bounds), checkpointing on into DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "checkpoint")]
    pub resume: Option<PathBuf>,
    /// Stop after N levels, as an interruption would (for testing resume).
    #[arg(long, value_name = "N", hide = true)]
    pub max_levels: Option<usize>,
    /// Run as one of several processes (on timely dataflow): FILE lists
    /// one host:port a line, process I listening on line I; every process
    /// runs the same command with its own --process, and process 0 writes
    /// the reports. Results are those of a plain check.
    #[arg(long, value_name = "FILE", requires = "process",
          conflicts_with_all = ["checkpoint", "resume", "max_memory", "max_levels"])]
    pub hosts: Option<PathBuf>,
    /// This process's line in the --hosts file, counting from 0.
    #[arg(long, value_name = "I", requires = "hosts", allow_hyphen_values = true)]
    pub process: Option<String>,
    /// Start N processes of this program on free loopback ports, as
    /// --hosts would on N machines, and wait for them.
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          conflicts_with_all = ["hosts", "process", "checkpoint", "resume", "max_memory", "max_levels"])]
    pub local_processes: Option<String>,
    /// With --hosts: end the run (exit 2) when a process has not
    /// connected within SECS seconds.
    #[arg(
        long,
        value_name = "SECS",
        default_value = "30",
        allow_hyphen_values = true
    )]
    pub connect_timeout: String,
}

pub fn run(args: &CheckArgs) -> Result<Verdict, CliError> {
    let bounds = overrides(Some(&args.bounds), Some(&args.depth))?;
    let threads = args.threads.count()?;
    let mut config = load_model(&args.model)?;
    bounds.apply(&mut config.bounds);
    let out = report_dir(args.out.as_deref(), &config.name)?;
    flags::connect_timeout(&args.connect_timeout)?;
    if let Some(n) = &args.local_processes {
        return cluster::run_local(flags::local_processes(n)?);
    }
    let options = run_options(args, threads, &out)?;
    let report = match &args.hosts {
        Some(hosts) => {
            match cluster::check_on_hosts(args, hosts, &config, threads, options.fingerprint)? {
                Some(report) => report,
                // Process 0 reports; this one's part is done.
                None => return Ok(Verdict::Holds),
            }
        }
        None => {
            if let Some(dir) = &options.resume {
                check::resumable(&config, &options, dir).map_err(CliError)?;
            }
            check::run(&config, options)
        }
    };
    let mut set = report_set(&out, &args.traces, "check", &config);
    let written = write_counterexamples(&mut set, &report)?;
    retire_traces(&mut set, |inv| Counterexample::stem_for(&config.name, inv));
    let growth = growth_csv(&report).map_err(|e| CliError(format!("{}: {e}", out.display())))?;
    let growth_path = set.add("growth.csv", &growth)?;
    let summary_path = set.add("summary.json", summary_json(&report, &written).as_bytes())?;
    set.commit()?;
    let mut text = human_summary(&report, &written);
    text.push_str(&format!(
        "wrote {} and {}\n",
        growth_path.display(),
        summary_path.display()
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
    Ok(
        if report.stopped.is_some() && (args.expect || !report.violated()) {
            Verdict::Inconclusive
        } else if args.expect {
            if report.as_expected() {
                Verdict::Holds
            } else {
                Verdict::Violated
            }
        } else if report.violated() {
            Verdict::Violated
        } else {
            Verdict::Holds
        },
    )
}

/// The check's options from the flags: parent links spilled under `out`
/// (or into the checkpoint directory), the memory guard at `--max-memory`
/// or 90% of physical memory.
fn run_options(args: &CheckArgs, threads: usize, out: &Path) -> Result<CheckOptions, CliError> {
    let bits = flags::fingerprint_bits(&args.fingerprint)?;
    let max_memory = match &args.max_memory {
        Some(text) => Some(flags::memory_size(text)?),
        None => engine::default_max_memory(),
    };
    Ok(CheckOptions {
        observer: Box::new(StderrProgress),
        fingerprint: FingerprintWidth::from_bits(bits).expect("64 or 128"),
        max_memory,
        spill_dir: Some(out.join("links")),
        checkpoint: args.checkpoint.clone().or_else(|| args.resume.clone()),
        resume: args.resume.clone(),
        max_levels: args.max_levels,
        ..CheckOptions::quiet(threads)
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
pub(super) fn progress_line(l: &LevelStats) {
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

fn write_counterexamples(
    set: &mut ReportSet,
    report: &CheckReport,
) -> Result<Vec<Written>, CliError> {
    report
        .counterexamples
        .iter()
        .map(|c| write_counterexample(set, &c.stem(), c, &report.model.spec.compiled))
        .collect()
}
