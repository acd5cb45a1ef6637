//! `memtx-check check MODEL` (its flags: [`super::check_plan`]): the
//! exhaustive bounded check, in this process or across several (`cluster`),
//! a directory as a suite (`super::suite`): its reports written as one
//! report set (`outputs::ReportSet`), even for a run the memory guard
//! stopped, and its summary printed. What it writes and exits with is
//! docs/check.md's.

use super::check_plan::{CheckPlan, Distribution};
use super::cluster;
use super::exit::{CliError, Verdict};
use super::files::{
    ensure_writable, prepare_dir, probe_traces, refuse_overlap, report_dir, report_set,
    retire_traces, write_counterexamples,
};
use super::model::warn;
use super::output::print;
use super::progress;
use crate::check::dump::DumpTotals;
use crate::check::summary::{
    coverage_csv, coverage_depths_csv, growth_csv, growth_series, human_summary, summary_json,
    Written,
};
use crate::check::{self, CheckOptions, CheckReport, Counterexample};
use crate::config::{BoundOverrides, ModelConfig};
use crate::distributed::Hosts;
use crate::engine;
use crate::explore;
use crate::model::coverage::unknown_branch;
use crate::outputs::growth_svg;
use crate::outputs::{refuse_blessed, refuse_planted, scratch, FolderLock};
use crate::replay::render_text;
use std::path::Path;

/// Checks the one model of `plan` (a suite is `super::suite`'s).
pub fn run(plan: &CheckPlan) -> Result<Verdict, CliError> {
    let config = load(&plan.model, &plan.bounds, plan.symmetry)?;
    let out = report_dir(plan.out.as_deref(), &config.name)?;
    if let Distribution::Local { processes: n, .. } = plan.distribution {
        // Taken, judged and held for its processes by this parent while
        // they run: one line here rather than one from each process.
        let _locks = prepare_run_dirs(plan, &config, &out, || Ok(()))?;
        return cluster::run_local(n);
    }
    let Some((report, written)) = check_and_write(plan, &config, &out)? else {
        // Another process of a distributed run: process 0 reports.
        return Ok(Verdict::Holds);
    };
    let mut text = human_summary(&report, &written);
    text.push_str(&format!(
        "wrote {}, {} and {}\n",
        out.join("growth.csv").display(),
        out.join("coverage.csv").display(),
        out.join("summary.json").display()
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
        if report.stopped.is_some() && (plan.expect || !report.violated()) {
            Verdict::Inconclusive
        } else if plan.expect {
            Verdict::violated_if(!report.as_expected())
        } else {
            Verdict::violated_if(report.violated())
        },
    )
}

/// Loads a model file with the command line's bounds (and `--symmetry`)
/// in place; a branch
/// that `expect.coverage` names but the protocol does not have is bad
/// input.
pub fn load(path: &Path, bounds: &BoundOverrides, symmetry: bool) -> Result<ModelConfig, CliError> {
    let mut config = ModelConfig::load(path)?;
    bounds.apply(&mut config.bounds);
    config.symmetry |= symmetry;
    if let Some((i, name)) = config.expect.coverage.as_ref().and_then(unknown_branch) {
        return Err(CliError(format!(
            "{}: expect.coverage[{i}]: \"{name}\" is not a branch (coverage.csv lists every one)",
            path.display()
        )));
    }
    // Warnings only for a model that is not refused: an error is one line.
    warn(&config.warnings());
    Ok(config)
}

/// Checks `config` with the flags' run options (across processes with
/// `--hosts`; `None` for a process other than 0) and writes its report set:
/// `growth.csv`, `coverage.csv` and `summary.json` into `out`, a trace per
/// counterexample into `--traces`.
pub fn check_and_write(
    plan: &CheckPlan,
    config: &ModelConfig,
    out: &Path,
) -> Result<Option<(CheckReport, Vec<Written>)>, CliError> {
    if plan.dump.is_some() && config.symmetry {
        return Err(CliError(format!(
            "{}: --dump writes every state, and --symmetry keeps one per class: use one or the other",
            plan.model.display()
        )));
    }
    let options = run_options(plan, out);
    let (report, locks) = match &plan.distribution {
        Distribution::Hosts {
            file,
            process,
            connect_timeout,
        } => {
            let locks = prepare_run_dirs(plan, config, out, || Ok(()))?;
            let run = cluster::HostsRun {
                spill_dir: Some(out.join("links")),
                ..hosts_run(plan)
            };
            match cluster::check_on_hosts(&run, file, *process, *connect_timeout, config)? {
                Some(report) => (report, locks),
                None => return Ok(None),
            }
        }
        Distribution::Single | Distribution::Local { .. } => {
            // The checkpoint is read once locked (not while another run
            // writes it), and before --out is made (a refused resume
            // writes nothing).
            // A fresh checkpoint goes into an empty folder or over one of
            // the same run, cleared by name; anything else is refused.
            let locks = prepare_run_dirs(plan, config, out, || {
                let engine = &options.engine;
                match (
                    &engine.resume,
                    engine.checkpoint.as_ref().or(engine.disk.as_ref()),
                ) {
                    (Some(dir), _) => warn(&check::resumable(config, &options, dir)?),
                    (None, Some(dir)) => check::prepare_checkpoint(config, &options, dir)?,
                    (None, None) => {}
                }
                Ok(())
            })?;
            // Parent links spilled under --out go if a signal ends the
            // run, and a checkpoint keeps no links past its last level.
            if let Some(spill) = &options.engine.spill_dir {
                scratch::track_spill(spill);
            }
            let engine = &options.engine;
            if let Some(dir) = engine.checkpoint.as_ref().or(engine.disk.as_ref()) {
                scratch::track_tidy(dir, engine::level_files::remove_unsealed_links);
            }
            (check::run(config, options), locks)
        }
    };
    let written = write_reports(&report, out, &plan.traces, &[])?;
    drop(locks);
    Ok(Some((report, written)))
}

/// The folders the engine writes into as it runs (the checkpoint, the
/// dump, or the parent links spilled under `out`) and the report folder
/// `out`, made ready or refused in one line before the run rather than
/// after it, and locked for the run ([`prepare_dir`]): keep the locks
/// until the reports are written; `before_out` runs once the others are
/// locked, before `out` is made. The processes of one distributed run
/// share the checkpoint and `--out` (each writes its own part), so each
/// part is taken and locked instead ([`cluster::HostsRun::take_parts`]):
/// for every process by the parent of `--local-processes`, for itself by
/// a `--hosts` process (then the report folder by process 0 only); a
/// process the parent started finds them held for it.
fn prepare_run_dirs(
    plan: &CheckPlan,
    config: &ModelConfig,
    out: &Path,
    before_out: impl FnOnce() -> Result<(), CliError>,
) -> Result<Vec<FolderLock>, CliError> {
    let mut dirs: Vec<(&Path, &str)> = plan.storage.folder().into_iter().collect();
    if let Some(dir) = &plan.dump {
        dirs.push((dir, "--dump"));
    }
    refuse_overlap(&dirs, &[(out, "--out"), (&plan.traces, "--traces")])?;
    refuse_blessed(out, "--out").map_err(CliError)?;
    probe_traces(&plan.traces)?;
    // Not locked (runs share a traces folder): only the temporaries of
    // runs whose process is gone.
    scratch::sweep_leftovers(&plan.traces, false);
    let (parts, reports) = match &plan.distribution {
        Distribution::Single => (None, true),
        Distribution::Local { processes: n, .. } => (Some((vec![String::new(); *n], 0..*n)), true),
        Distribution::Hosts { .. } if cluster::started_by_parent() => (None, false),
        Distribution::Hosts { file, process, .. } => {
            let addresses = Hosts::read(file, *process)?.addresses;
            (Some((addresses, *process..*process + 1)), *process == 0)
        }
    };
    let mut locks = Vec::new();
    for (dir, flag) in dirs {
        if plan.distribution == Distribution::Single {
            locks.push(prepare_dir(dir, flag)?);
        } else {
            ensure_writable(dir, flag)?;
        }
    }
    if let Some((addresses, processes)) = parts {
        locks.extend(hosts_run(plan).take_parts(config, addresses, processes, out)?);
    }
    before_out()?;
    if reports {
        locks.push(prepare_dir(out, "--out")?);
    } else {
        refuse_planted(out, "--out").map_err(CliError)?;
        ensure_writable(out, "--out")?;
    }
    Ok(locks)
}

/// The distributed check's options from the plan.
fn hosts_run(plan: &CheckPlan) -> cluster::HostsRun {
    cluster::HostsRun {
        properties: plan.properties,
        threads: plan.threads,
        fingerprint: plan.fingerprint,
        checkpoint: plan.storage.checkpoint().map(Path::to_path_buf),
        resume: plan.storage.resumed().is_some(),
        max_levels: plan.max_levels,
        max_memory: plan.max_memory,
        spill_dir: None,
    }
}

/// The check's options from the plan: parent links spilled under `out`
/// (or into the checkpoint directory), the memory guard at `--max-memory`
/// or [`engine::default_max_memory`].
fn run_options(plan: &CheckPlan, out: &Path) -> CheckOptions {
    let threads = if plan.dump.is_some() { 1 } else { plan.threads };
    let run = engine::EngineOptions {
        observer: progress::observer(),
        fingerprint: plan.fingerprint,
        max_memory: plan.max_memory.or_else(engine::default_max_memory),
        spill_dir: Some(out.join("links")),
        checkpoint: plan.storage.checkpoint().map(Path::to_path_buf),
        resume: plan.storage.resumed().map(Path::to_path_buf),
        max_levels: plan.max_levels,
        disk: plan.storage.disk().map(Path::to_path_buf),
        ..engine::EngineOptions::new(None, threads)
    };
    CheckOptions {
        engine: run,
        properties: plan.properties,
        dump: plan.dump.clone(),
    }
}

/// The dump's two files with their rows and sizes.
fn dump_line(d: &DumpTotals) -> String {
    use crate::human::{bytes, count};
    format!(
        "dumped {} ({} states, {}) and {} ({} transitions, {})\n",
        d.states_path.display(),
        count(d.state_rows),
        bytes(d.states_bytes),
        d.transitions_path.display(),
        count(d.transition_rows),
        bytes(d.transitions_bytes)
    )
}

/// Writes a check's report set: growth.csv, growth.svg, coverage.csv and
/// summary.json in `out`, a trace per counterexample in `traces`.
pub(super) fn write_reports(
    report: &CheckReport,
    out: &Path,
    traces: &Path,
    extra: &[(&str, &[u8])],
) -> Result<Vec<Written>, CliError> {
    let config = &report.config;
    let mut set = report_set(out, traces, "check", config);
    let counterexamples = report.counterexamples.iter().map(|c| (c.stem(), c));
    let written = write_counterexamples(&mut set, &report.model.spec.compiled, counterexamples)?;
    retire_traces(&mut set, |inv| Counterexample::stem_for(&config.name, inv));
    let csv_error = |e: csv::Error| CliError(format!("{}: {e}", out.display()));
    set.add("growth.csv", &growth_csv(report).map_err(csv_error)?)?;
    let title = format!("{}: growth per depth", config.name);
    set.add(
        "growth.svg",
        growth_svg(&title, &[growth_series(report)])?.as_bytes(),
    )?;
    set.add(
        "coverage.csv",
        &coverage_csv(&report.coverage).map_err(csv_error)?,
    )?;
    if let Some(csv) = coverage_depths_csv(&report.coverage) {
        set.add("coverage-depths.csv", &csv.map_err(csv_error)?)?;
    }
    set.add("summary.json", summary_json(report, &written).as_bytes())?;
    for (name, bytes) in extra {
        set.add(name, bytes)?;
    }
    set.commit()?;
    Ok(written)
}
