//! `memtx-check check [MODEL] [--records N] [--transactions N] [--depth N|full]
//! [--threads N] [--out DIR] [--traces DIR] [--expect] [--fingerprint 64|128]
//! [--max-memory SIZE] [--checkpoint DIR] [--resume DIR] [--dump DIR]`: the exhaustive
//! bounded check. Writes `growth.csv`, `growth.svg` and `summary.json`, a
//! replayable trace (and its ITF twin) per violated invariant, as one report set
//! (`outputs::ReportSet`), and prints a summary with each counterexample
//! step by step. A run stopped by the memory guard still writes its
//! reports, for the depths it completed, and exits 3 (inconclusive) unless
//! it found a violation.

use super::args::{overrides, BoundArgs, DepthArg, ThreadsArg};
use super::files::{report_dir, report_set, retire_traces, write_counterexample};
use super::model::load_model;
use super::progress;
use super::{print, CliError, Verdict};
use crate::check::dump::DumpTotals;
use crate::check::summary::{growth_csv, growth_series, human_summary, summary_json, Written};
use crate::check::{self, CheckOptions, CheckReport, Counterexample};
use crate::config::flags;
use crate::engine::{self, FingerprintWidth};
use crate::explore;
use crate::outputs::{growth_svg, ReportSet};
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
    /// Stream every state to DIR/states.csv and every transition to
    /// DIR/transitions.csv as the run goes (on one thread, so that rows
    /// and parents come in the engine's order).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub dump: Option<PathBuf>,
    /// Stop after N levels, as an interruption would (for testing resume).
    #[arg(long, value_name = "N", hide = true)]
    pub max_levels: Option<usize>,
}

pub fn run(args: &CheckArgs) -> Result<Verdict, CliError> {
    let bounds = overrides(Some(&args.bounds), Some(&args.depth))?;
    let threads = args.threads.count()?;
    let mut config = load_model(&args.model)?;
    bounds.apply(&mut config.bounds);
    let out = report_dir(args.out.as_deref(), &config.name)?;
    let options = run_options(args, threads, &out)?;
    if let Some(dir) = &options.resume {
        check::resumable(&config, &options, dir).map_err(CliError)?;
    }
    let report = check::run(&config, options);
    let Reports {
        written,
        growth: growth_path,
        summary: summary_path,
    } = write_reports(&report, &out, &args.traces)?;
    let mut text = human_summary(&report, &written);
    text.push_str(&format!(
        "wrote {} and {}\n",
        growth_path.display(),
        summary_path.display()
    ));
    if let Some(dump) = &report.dump {
        text.push_str(&dump_line(dump.as_ref().map_err(|e| CliError(e.clone()))?));
    }
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
        observer: progress::observer(),
        fingerprint: FingerprintWidth::from_bits(bits).expect("64 or 128"),
        max_memory,
        spill_dir: Some(out.join("links")),
        checkpoint: args.checkpoint.clone().or_else(|| args.resume.clone()),
        resume: args.resume.clone(),
        max_levels: args.max_levels,
        dump: args.dump.clone(),
        ..CheckOptions::quiet(if args.dump.is_some() { 1 } else { threads })
    })
}

/// The dump's two files with their rows and sizes.
fn dump_line(d: &DumpTotals) -> String {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    format!(
        "dumped {} ({} states, {:.1} MiB) and {} ({} transitions, {:.1} MiB)\n",
        d.states_path.display(),
        d.state_rows,
        mib(d.states_bytes),
        d.transitions_path.display(),
        d.transition_rows,
        mib(d.transitions_bytes)
    )
}

/// Where a check's report set went.
pub(super) struct Reports {
    /// Each counterexample's trace and ITF twin, in report order.
    pub written: Vec<Written>,
    pub growth: PathBuf,
    pub summary: PathBuf,
}

/// Writes a check's report set: growth.csv, growth.svg and summary.json
/// in `out`, a trace per counterexample in `traces`.
pub(super) fn write_reports(
    report: &CheckReport,
    out: &Path,
    traces: &Path,
) -> Result<Reports, CliError> {
    let config = &report.config;
    let mut set = report_set(out, traces, "check", config);
    let written = write_counterexamples(&mut set, report)?;
    retire_traces(&mut set, |inv| Counterexample::stem_for(&config.name, inv));
    let growth = growth_csv(report).map_err(|e| CliError(format!("{}: {e}", out.display())))?;
    let growth_path = set.add("growth.csv", &growth)?;
    let title = format!("{}: growth per depth", config.name);
    set.add(
        "growth.svg",
        growth_svg(&title, &[growth_series(report)])?.as_bytes(),
    )?;
    let summary_path = set.add("summary.json", summary_json(report, &written).as_bytes())?;
    set.commit()?;
    Ok(Reports {
        written,
        growth: growth_path,
        summary: summary_path,
    })
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
