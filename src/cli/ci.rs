//! `memtx-check ci [DIR]`: the CI suite's flags ([`CiPlan`]) and its run:
//! every model loaded and every folder it writes into probed before the
//! first model is checked, then each checked, its report set written and
//! judged ([`crate::ci::judge`]) against its `expect` and its baseline
//! (blessed or stale, [`crate::ci::blessed`]). What it judges, writes and
//! exits with, and `--bless`, `--update-expect` and `--max-depth`, are
//! docs/ci.md's.
use super::args::ThreadsArg;
use super::check::write_reports;
use super::exit::{CliError, Verdict};
use super::files::{ensure_writable, inside, prepare_dir, prepare_report_dir, probe_traces};
use super::model::load_model;
use super::output::print;
use super::progress;
use crate::build_info::BuildInfo;
use crate::check::{self, CheckOptions};
use crate::ci::blessed::{self, definition};
use crate::ci::judge::{judge, Baseline};
use crate::ci::{junit, markdown, suite, ModelResult};
use crate::config::limits::MAX_DEPTH;
use crate::config::{replace_expect, Depth, Expect, ModelConfig};
use crate::diff::{load_side, Side};
use crate::engine;
use crate::human::count;
use crate::input::flag::whole_number;
use crate::model::PropertyKind;
use crate::outputs::atomic_file::write_atomic;
use crate::outputs::{
    read_marker, refuse_blessed, refuse_planted, BASELINE_FORMAT, BASELINE_MARKER,
};
use clap::Args;
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct CiArgs {
    /// The folder of models: every *.json under it.
    #[arg(default_value = "models")]
    pub dir: PathBuf,
    /// Write this run as each model's baseline instead of comparing (with
    /// --max-depth, a baseline of the depths run; it records them).
    #[arg(long)]
    pub bless: bool,
    /// With --bless: also rewrite each model file's `expect` block to the
    /// verdicts found, printing every change (nothing else in the file
    /// changes).
    #[arg(long, requires = "bless")]
    pub update_expect: bool,
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

/// `ci`'s flags ([`CiArgs`]), validated once: every number parsed and
/// every folder resolved before a model is read.
#[derive(Debug)]
pub struct CiPlan {
    pub dir: PathBuf,
    pub bless: bool,
    pub update_expect: bool,
    pub junit: Option<PathBuf>,
    pub baselines: PathBuf,
    /// Where each run's report set goes, one folder per model name
    /// (`baselines` when blessing).
    pub out: PathBuf,
    /// Where counterexample traces go, resolved.
    pub traces: PathBuf,
    /// `--max-depth`: models deeper than this are checked to it.
    pub cap: Option<usize>,
    pub threads: usize,
}

impl CiPlan {
    /// The plan `args` ask for, or the one-line error of the first flag
    /// that cannot be read.
    pub fn from_args(args: &CiArgs) -> Result<CiPlan, CliError> {
        let threads = args.threads.count()?;
        let cap = args
            .max_depth
            .as_deref()
            .map(|d| whole_number("--max-depth", d, 0, MAX_DEPTH as u64).map(|d| d as usize))
            .transpose()?;
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
        Ok(CiPlan {
            dir: args.dir.clone(),
            bless: args.bless,
            update_expect: args.update_expect,
            junit: args.junit.clone(),
            baselines: args.baselines.clone(),
            out,
            traces,
            cap,
            threads,
        })
    }
}

pub fn run(plan: &CiPlan) -> Result<Verdict, CliError> {
    let files = suite::model_files(&plan.dir).map_err(CliError)?;
    if files.is_empty() {
        let dir = plan.dir.display();
        return Err(CliError(format!("{dir}: no model file (*.json) in it")));
    }
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
    let mut results = Vec::new();
    let mut expect_changes = Vec::new();
    refuse_unwritable(plan, &models)?;
    for (file, declared) in models {
        let mut config = declared.clone();
        let capped = plan.cap.filter(|&d| deeper_than(config.bounds.depth, d));
        if let Some(d) = capped {
            config.bounds.depth = Depth::Bounded(d);
        }
        let (result, report) = run_one(plan, &config, &definition(&declared), &file)?;
        print(&model_line(&result))?;
        if plan.update_expect {
            let (changes, kept) = update_expect(&file, &report, capped)?;
            for line in changes.iter().chain(&kept) {
                print(&format!("       {line}\n"))?;
            }
            expect_changes.extend(changes);
        }
        results.push(result);
    }
    if plan.update_expect {
        print(&format!(
            "updated expect blocks: {} changes\n",
            expect_changes.len()
        ))?;
    }
    finish(plan, &results)
}

/// Refuses, before any model is checked, what a write would fail on
/// after it: the traces folder, each report folder (a blessed baseline
/// for a plain run, a link planted where it writes), and with
/// `--update-expect` each model file's folder; so that a suite either
/// writes everything or, with one line, nothing.
fn refuse_unwritable(plan: &CiPlan, models: &[(PathBuf, ModelConfig)]) -> Result<(), CliError> {
    if plan.update_expect {
        for (file, _) in models {
            let folder = match file.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            ensure_writable(folder, "--update-expect")?;
        }
    }
    let flag = if plan.bless { "--baselines" } else { "--out" };
    // OUT as it is, if it is there (a file at OUT is OUT's fault, not that
    // of the traces folder under it); then the traces folder, whose probe
    // makes nothing; OUT is made last, so that no refusal leaves it behind.
    if std::fs::symlink_metadata(&plan.out).is_ok() {
        ensure_writable(&plan.out, flag)?;
    }
    probe_traces(&plan.traces)?;
    for (_, config) in models {
        let dir = inside(&plan.out, &config.name)?;
        if !plan.bless {
            refuse_blessed(&dir, flag).map_err(CliError)?;
        }
        refuse_planted(&dir, flag).map_err(CliError)?;
    }
    ensure_writable(&plan.out, flag)
}

/// Rewrites `file`'s `expect` block to what `report` found (its coverage
/// expectation kept); the changes, and what was kept, one line each. A
/// run `capped` at a
/// depth below the model's own bound writes only what it could see
/// (issue 51.10: a baseline never weakens silently): a violation it
/// found, or a verdict that holds where the block expects a violation
/// within the cap; a violation the block expects deeper than the cap, or
/// at no stated depth, is kept, and a line says so.
fn update_expect(
    file: &Path,
    report: &check::CheckReport,
    capped: Option<usize>,
) -> Result<(Vec<String>, Vec<String>), CliError> {
    let old = &report.config.expect;
    let mut new = old.clone();
    let (mut changes, mut kept) = (Vec::new(), Vec::new());
    for p in report.invariants() {
        let PropertyKind::Invariant(inv) = p.kind else {
            continue;
        };
        let before = old.get(inv);
        // "any" is the model's word that the verdict is not pinned.
        if before == Some(Expect::Any) {
            continue;
        }
        let found = match p.outcome {
            check::Outcome::Violated { depth } => Expect::violated(p.clause, Some(depth)),
            _ => Expect::Holds,
        };
        if let (Some(cap), Some(expected @ Expect::Violated { depth, .. }), Expect::Holds) =
            (capped, before, found)
        {
            if depth.is_none_or(|d| d > cap) {
                kept.push(format!(
                    "{}: expect.{}: kept {} (--max-depth {cap} cannot see it)",
                    file.display(),
                    inv.name(),
                    expected.describe()
                ));
                continue;
            }
        }
        if before != Some(found) {
            changes.push(format!(
                "{}: expect.{}: {} → {}",
                file.display(),
                inv.name(),
                before.map_or("nothing".to_owned(), |e| e.describe()),
                found.describe()
            ));
        }
        new.verdicts[inv as usize] = Some(found);
    }
    if changes.is_empty() {
        return Ok((changes, kept));
    }
    let text =
        std::fs::read_to_string(file).map_err(|e| CliError(format!("{}: {e}", file.display())))?;
    let rewritten = replace_expect(&text, &new).ok_or_else(|| {
        CliError(format!(
            "{}: not one JSON object; expect not rewritten",
            file.display()
        ))
    })?;
    write_atomic(file, rewritten.as_bytes())
        .map_err(|e| CliError(format!("{}: cannot rewrite: {e}", file.display())))?;
    Ok((changes, kept))
}

fn deeper_than(depth: Depth, cap: usize) -> bool {
    depth.bound().is_none_or(|d| d > cap)
}

/// Checks one model, writes its report set and judges it.
fn run_one(
    plan: &CiPlan,
    config: &ModelConfig,
    declared: &serde_json::Value,
    file: &Path,
) -> Result<(ModelResult, check::CheckReport), CliError> {
    let threads = plan.threads;
    let dir = inside(&plan.out, &config.name)?;
    // Held until this model's reports are written.
    let _lock = if plan.bless {
        prepare_dir(&dir, "--baselines")?
    } else {
        prepare_report_dir(&dir, "--out")?
    };
    // Parent links spilled here go if a signal ends the run.
    crate::outputs::scratch::track_spill(&dir.join("links"));
    let report = check::run(
        config,
        CheckOptions {
            engine: engine::EngineOptions {
                observer: progress::observer(),
                max_memory: engine::default_max_memory(),
                spill_dir: Some(dir.join("links")),
                ..engine::EngineOptions::new(None, threads)
            },
            ..CheckOptions::quiet(threads)
        },
    );
    let marker = plan.bless.then(|| baseline_marker(&report, declared));
    let extra: Vec<(&str, &[u8])> = marker
        .as_deref()
        .map(|m| (BASELINE_MARKER, m.as_bytes()))
        .into_iter()
        .collect();
    let written = write_reports(&report, &dir, &plan.traces, &extra)?;
    let run = Side::of_report(&report, dir.display().to_string());
    let base_dir = inside(&plan.baselines, &config.name)?;
    let baseline = if plan.bless {
        Baseline::Blessed(base_dir.display().to_string())
    } else if !base_dir.join("summary.json").exists() {
        Baseline::Missing(base_dir.display().to_string())
    } else {
        match read_marker(&base_dir).and_then(|m| {
            load_side(&base_dir, threads, None)
                .map(|side| (m, side))
                .map_err(|e| e.0)
        }) {
            Ok((Some(marker), _))
                if marker
                    .definition
                    .as_ref()
                    .is_some_and(|blessed| blessed != declared) =>
            {
                let blessed = marker.definition.as_ref().expect("just seen");
                Baseline::Stale(
                    base_dir.display().to_string(),
                    blessed::changes(blessed, declared),
                )
            }
            Ok((_, side)) if side.coverage.is_some() => Baseline::Found(Box::new(side)),
            Ok(_) => Baseline::Unreadable(format!(
                "{}: a baseline has a coverage.csv",
                base_dir.display()
            )),
            Err(e) => Baseline::Unreadable(e),
        }
    };
    let result = judge(
        &report,
        &written,
        &file.display().to_string(),
        &run,
        baseline,
    );
    Ok((result, report))
}

/// `baseline.json`: this folder is a blessed baseline (a plain `check`
/// refuses to write into it), of this depth, by this build, of the model
/// defined so (as its file declares it, before `--max-depth`).
fn baseline_marker(report: &check::CheckReport, declared: &serde_json::Value) -> String {
    let json = serde_json::json!({
        "format": BASELINE_FORMAT,
        "model": report.config.name,
        "depth": report.levels.last().map_or(0, |l| l.depth),
        "build": BuildInfo::this(),
        "model_definition": declared,
    });
    let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
    text.push('\n');
    text
}

/// `ok   NAME  N states  T s  verdicts; baseline WORD`, cut to the
/// terminal's width (each failure is told once, under every model, by
/// [`grouped_changes`]).
fn model_line(r: &ModelResult) -> String {
    let line = format!(
        "{} {:<28} {:>13} states {:>10}  {}; baseline {}",
        if r.failures() == 0 { "ok  " } else { "FAIL" },
        r.model,
        count(r.states),
        crate::human::duration(
            std::time::Duration::try_from_secs_f64(r.seconds).unwrap_or_default()
        ),
        r.verdicts,
        r.baseline
    );
    format!("{}\n", fit(&line, width()))
}

/// Every change the failing cases are made of, each once with the models
/// it was seen in, first seen first; each line cut to `width`.
fn grouped_changes(results: &[ModelResult], width: usize) -> String {
    let mut changes: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in results {
        for change in r
            .cases
            .iter()
            .filter_map(|c| c.failure.as_ref())
            .flat_map(|f| &f.changes)
        {
            match changes.iter_mut().find(|(c, _)| c == change) {
                Some((_, models)) if !models.contains(&r.model.as_str()) => models.push(&r.model),
                Some(_) => {}
                None => changes.push((change, vec![&r.model])),
            }
        }
    }
    let mut out = String::new();
    if changes.is_empty() {
        return out;
    }
    out.push_str("what failed, each once, with the models it failed in:\n");
    for (change, models) in changes {
        let who = match models.len() {
            1 => models[0].to_owned(),
            n => format!("{n} models: {}", models.join(", ")),
        };
        // The change itself first; the model list is what gives way.
        let change = fit(change, width.saturating_sub(24).max(40));
        out.push_str(&fit(&format!("  {change} — {who}"), width));
        out.push('\n');
    }
    out.push_str("  (each failure in full: the JUnit file, --junit FILE)\n");
    out
}

/// The terminal's width: `COLUMNS`, else 100.
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &usize| w >= 40)
        .unwrap_or(100)
}

/// `text` cut to `width` characters, ending in `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The closing line, the JUnit file and the step summary; the verdict.
fn finish(plan: &CiPlan, results: &[ModelResult]) -> Result<Verdict, CliError> {
    let failing = results.iter().filter(|r| r.failures() > 0).count();
    let title = match plan.cap {
        Some(d) => format!("memtx-check ci (depth at most {d})"),
        None => "memtx-check ci".to_owned(),
    };
    let mut text = grouped_changes(results, width());
    text.push_str(&format!(
        "{title}: {} models, {}\n",
        results.len(),
        if failing == 0 {
            "every case passes".to_owned()
        } else {
            format!("{failing} failing")
        }
    ));
    if let Some(path) = &plan.junit {
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
    Ok(Verdict::violated_if(failing > 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::parse_args;

    fn plan(line: &[&str]) -> Result<CiPlan, String> {
        CiPlan::from_args(&parse_args::<CiArgs>("ci", line)?).map_err(|e| e.0)
    }

    #[test]
    fn the_plan_resolves_the_folders_and_reads_every_number_once() {
        let p = plan(&["models", "--max-depth", "8", "--threads", "2"]).unwrap();
        assert_eq!((p.cap, p.threads, p.bless), (Some(8), 2, false));
        assert_eq!(p.out, PathBuf::from("ci-reports"));
        assert_eq!(p.traces, PathBuf::from("ci-reports/traces"));
        let blessed = plan(&["--bless", "--baselines", "base"]).unwrap();
        assert_eq!(blessed.out, PathBuf::from("base"));
        assert_eq!(blessed.traces, PathBuf::from("traces"));
        let own = plan(&["--traces", "t", "--out", "o"]).unwrap();
        assert_eq!((own.out, own.traces), ("o".into(), "t".into()));
    }

    #[test]
    fn a_bad_number_is_refused_before_a_model_is_read() {
        // The folder does not exist: the flag is what is named.
        let e = plan(&["no/such/folder", "--max-depth", "-1"]).unwrap_err();
        assert!(e.contains("--max-depth") && e.contains("-1"), "{e}");
        let e = plan(&["no/such/folder", "--threads", "0"]).unwrap_err();
        assert!(e.contains("--threads"), "{e}");
    }
}
