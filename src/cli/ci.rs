//! `memtx-check ci [DIR] [--bless] [--junit FILE] [--baselines DIR]
//! [--out DIR] [--traces DIR] [--max-depth D] [--threads N]`: the CI
//! suite. Checks every model under DIR (default `models/`) at its bounds,
//! writes each run's report set to `OUT/NAME/` (its traces to
//! `OUT/traces/`), and judges it ([`crate::ci::judge`]): each property
//! against the model's `expect`, the run against the baseline in
//! `BASELINES/NAME/` (default `reports/NAME/`). `--bless` writes the runs
//! as the baselines instead (traces to `traces/`). `--junit FILE` writes
//! JUnit XML; with `GITHUB_STEP_SUMMARY` set, a Markdown table is
//! appended to that file. Exit 0 when every case passes, 1 otherwise, 2
//! on bad input (every model is loaded before any is checked).
//!
//! `--max-depth D` checks a model deeper than D only to depth D and
//! compares it with its baseline's depths 0..=D ([`crate::ci::baseline`])
//! and the branches its baseline first reached by depth D
//! ([`crate::ci::coverage`]), so a suite fits a CI time budget; `--bless` refuses it, since a
//! baseline is a run at the model's own bounds.

use super::args::ThreadsArg;
use super::check::write_reports;
use super::exit::{CliError, Verdict};
use super::files::{inside, prepare_dir};
use super::model::load_model;
use super::output::print;
use super::progress;
use crate::atomic_file::write_atomic;
use crate::check::{self, CheckOptions};
use crate::ci::coverage::{self, BaselineCoverage};
use crate::ci::judge::{judge, Baseline};
use crate::ci::{baseline, junit, markdown, suite, ModelResult};
use crate::config::limits::MAX_DEPTH;
use crate::config::{Depth, ModelConfig};
use crate::diff::{load_side, Side};
use crate::engine;
use crate::input::flag::whole_number;
use clap::Args;
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct CiArgs {
    /// The folder of models: every *.json under it.
    #[arg(default_value = "models")]
    pub dir: PathBuf,
    /// Write this run as each model's baseline instead of comparing.
    #[arg(long, conflicts_with = "max_depth")]
    pub bless: bool,
    /// Write JUnit XML here: a testsuite per model, a testcase per
    /// property and one for the baseline.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Where the baselines are, one folder per model name.
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub baselines: PathBuf,
    /// Where this run's report sets go, one folder per model name (with
    /// --bless: the baselines' folder).
    #[arg(long, value_name = "DIR", default_value = "ci-reports")]
    pub out: PathBuf,
    /// Where counterexample traces go (default: OUT/traces; with --bless,
    /// traces).
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Check models deeper than D to depth D only, comparing their
    /// baselines' depths 0..=D (to fit a CI time budget).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub max_depth: Option<String>,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

pub fn run(args: &CiArgs) -> Result<Verdict, CliError> {
    let threads = args.threads.count()?;
    let cap = args
        .max_depth
        .as_deref()
        .map(|d| whole_number("--max-depth", d, 0, MAX_DEPTH as u64).map(|d| d as usize))
        .transpose()?;
    let files = suite::model_files(&args.dir).map_err(CliError)?;
    let mut models = Vec::new();
    for file in files {
        let config = load_model(&file)?;
        models.push((file, config));
    }
    let named: Vec<_> = models
        .iter()
        .map(|(f, c)| (f.clone(), c.name.clone()))
        .collect();
    suite::unique_names(&named).map_err(CliError)?;
    let (out, traces) = if args.bless {
        let traces = args.traces.clone().unwrap_or_else(|| "traces".into());
        (args.baselines.clone(), traces)
    } else {
        let traces = args
            .traces
            .clone()
            .unwrap_or_else(|| args.out.join("traces"));
        (args.out.clone(), traces)
    };
    let mut results = Vec::new();
    for (file, mut config) in models {
        let capped = cap.filter(|&d| deeper_than(config.bounds.depth, d));
        if let Some(d) = capped {
            config.bounds.depth = Depth::Bounded(d);
        }
        let result = run_one(args, &config, &file, capped, &out, &traces, threads)?;
        print(&model_line(&result))?;
        results.push(result);
    }
    finish(args, cap, &results)
}

fn deeper_than(depth: Depth, cap: usize) -> bool {
    match depth {
        Depth::Full => true,
        Depth::Bounded(d) => d > cap,
    }
}

/// Checks one model, writes its report set and judges it.
fn run_one(
    args: &CiArgs,
    config: &ModelConfig,
    file: &Path,
    capped: Option<usize>,
    out: &Path,
    traces: &Path,
    threads: usize,
) -> Result<ModelResult, CliError> {
    let dir = inside(out, &config.name)?;
    prepare_dir(&dir, if args.bless { "--baselines" } else { "--out" })?;
    let report = check::run(
        config,
        CheckOptions {
            observer: progress::observer(),
            max_memory: engine::default_max_memory(),
            spill_dir: Some(dir.join("links")),
            ..CheckOptions::quiet(threads)
        },
    );
    let written = write_reports(&report, &dir, traces)?;
    let run = Side::of_report(&report, dir.display().to_string());
    let base_dir = inside(&args.baselines, &config.name)?;
    let baseline = if args.bless {
        Baseline::Blessed(base_dir.display().to_string())
    } else if !base_dir.join("summary.json").exists() {
        Baseline::Missing(base_dir.display().to_string())
    } else {
        match read_baseline(&base_dir, threads) {
            Ok((side, coverage)) => match capped {
                Some(d) => Baseline::Found(baseline::capped(&side, d), coverage.capped(d)),
                None => Baseline::Found(side, coverage),
            },
            Err(e) => Baseline::Unreadable(e),
        }
    };
    Ok(judge(
        &report,
        &written,
        &file.display().to_string(),
        &run,
        baseline,
    ))
}

/// The baseline in `dir`: its summary and growth (as `diff` reads a
/// side) and its `coverage.csv`, which a baseline must have.
fn read_baseline(dir: &Path, threads: usize) -> Result<(Side, BaselineCoverage), String> {
    let side = load_side(dir, threads, None).map_err(|e| e.0)?;
    let path = dir.join("coverage.csv");
    let coverage = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| coverage::parse(&text))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((side, coverage))
}

/// `ok   NAME  N states  T s  verdicts; baseline WORD`, and each failure.
fn model_line(r: &ModelResult) -> String {
    let mut line = format!(
        "{} {:<28} {:>11} states {:>7.1} s  {}; baseline {}\n",
        if r.failures() == 0 { "ok  " } else { "FAIL" },
        r.model,
        r.states,
        r.seconds,
        r.verdicts,
        r.baseline
    );
    for f in r.cases.iter().filter_map(|c| c.failure.as_ref()) {
        line.push_str(&format!("       {}\n", f.message));
    }
    line
}

/// The closing line, the JUnit file and the step summary; the verdict.
fn finish(args: &CiArgs, cap: Option<usize>, results: &[ModelResult]) -> Result<Verdict, CliError> {
    let failing = results.iter().filter(|r| r.failures() > 0).count();
    let title = match cap {
        Some(d) => format!("memtx-check ci (depth at most {d})"),
        None => "memtx-check ci".to_owned(),
    };
    let mut text = format!(
        "{title}: {} models, {}\n",
        results.len(),
        if failing == 0 {
            "every case passes".to_owned()
        } else {
            format!("{failing} failing")
        }
    );
    if let Some(path) = &args.junit {
        write_atomic(path, junit::render(&title, results).as_bytes())
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(markdown::step_summary(&title, results).as_bytes()))
            .map_err(|e| CliError(format!("GITHUB_STEP_SUMMARY {}: {e}", path.display())))?;
    }
    print(&text)?;
    Ok(if failing == 0 {
        Verdict::Holds
    } else {
        Verdict::Violated
    })
}
