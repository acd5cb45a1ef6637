//! `memtx-check diff`: its flags made into one validated [`DiffPlan`], a
//! [`DiffMode`] a kind of comparison (two results, two dumps, two models
//! in lockstep, two builds), and each mode's run: what it loads, writes
//! into its report set and prints. What each compares, writes and exits
//! with is docs/diff.md's (two dumps: docs/dumps.md); the comparing is
//! [`crate::diff`]'s.

use super::args::{driver_flags, overrides, DepthArg, ThreadsArg};
use super::exit::{CliError, Verdict};
use super::files::{inside, report_dir};
use super::model::{load_model, warn};
use super::output::print;
use super::progress;
use crate::build_info::BuildInfo;
use crate::config::limits::{MAX_DEPTH, MAX_THREADS};
use crate::config::{Depth, ModelConfig};
use crate::diff::behaviour::{self, behaviour_json, BehaviourOptions};
use crate::diff::builds::{self, builds_json, revision::build_revision, BuildsOptions, OtherBuild};
use crate::diff::states::{compare_dumps, is_dump, Dump, Pair, StateDiff};
use crate::diff::{compare, load_side, pair_name, render};
use crate::human::count;
use crate::outputs::{checksum, growth_svg, refuse_blessed, ReportSet};
use crate::trace::Trace;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
// The shared flags' help, said of the model file they apply to.
#[command(
    mut_arg("depth", |a| a.help(format!(
        "For a model file: check to this depth (0..={MAX_DEPTH} or `full`) instead of the model's own; \
         with --behaviour: the longest action sequence tried (default: the smaller model depth)"
    ))),
    mut_arg("threads", |a| a.help(format!(
        "For a model file: worker threads, 1..={MAX_THREADS} (default: every core)"
    )))
)]
pub struct DiffArgs {
    /// The result before the change: reports/NAME/, its summary.json, a
    /// model file, or a dump folder (check --dump) to compare state by state.
    pub before: PathBuf,
    /// The result after the change, the same kinds of path (left out with
    /// --before-exe or --before-rev: the one path is then the model).
    pub after: Option<PathBuf>,
    #[command(flatten)]
    pub depth: DepthArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Explore two model files in lockstep (the same actions applied to
    /// both) and stop at the shortest action sequence after which the
    /// protocol's outcomes differ.
    #[arg(long)]
    pub behaviour: bool,
    /// Where the diff's reports go (default: runs/A-vs-B).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where the parting trace goes (--behaviour).
    #[arg(long, value_name = "DIR", default_value = "runs/traces")]
    pub traces: PathBuf,
    /// With --behaviour and one model: compare this build's protocol with
    /// the one of this memtx-check binary (an older build), driven over
    /// the driver protocol (`EXE driver`).
    #[arg(long, value_name = "EXE", conflicts_with = "before_rev")]
    pub before_exe: Option<PathBuf>,
    /// With --behaviour and one model: compare this build with the crate
    /// at this git revision, built once into target/memtx-check-builds/.
    #[arg(long, value_name = "REV")]
    pub before_rev: Option<String>,
    /// Across builds: drivers run at once, each a process (default: one a
    /// core). The result does not depend on it.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub jobs: Option<String>,
    /// Across builds: seconds the other build may take to answer one step
    /// (default 10).
    #[arg(long, value_name = "SECS", allow_hyphen_values = true)]
    pub step_timeout: Option<String>,
}

/// The depth a diff across builds walks to unless told: each level costs
/// a driver round per transition.
const BUILDS_DEFAULT_DEPTH: usize = 6;

/// The other build of a diff across builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OtherSide {
    /// `--before-exe EXE`.
    Exe(PathBuf),
    /// `--before-rev REV`, built once.
    Rev(String),
}

/// Two sides a diff explores (or loads) with the same flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    pub before: PathBuf,
    pub after: PathBuf,
    pub depth: Option<Depth>,
    pub threads: usize,
}

/// What a diff compares, each with the flags it reads, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffMode {
    /// Two results (report folders, summaries or models checked now).
    Results(Sides),
    /// Two dumps, state by state, as they were written.
    Dumps { before: PathBuf, after: PathBuf },
    /// Two models explored in lockstep.
    Behaviour(Sides),
    /// One model, this build against another, over the driver protocol.
    Builds {
        model: PathBuf,
        other: OtherSide,
        /// A bounded depth, or `None` for the default.
        depth: Option<usize>,
        jobs: usize,
        step_timeout: std::time::Duration,
    },
}

/// `diff`'s flags, validated once: the mode, its numbers and its folders,
/// judged before anything is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffPlan {
    pub mode: DiffMode,
    /// `--out`, or `None` for runs/A-vs-B.
    pub out: Option<PathBuf>,
    /// Where parting and one-sided traces go.
    pub traces: PathBuf,
}

impl DiffPlan {
    /// The plan `args` ask for, or the one-line error of the first flag
    /// that cannot be read or does not fit the mode.
    pub fn from_args(args: &DiffArgs) -> Result<DiffPlan, CliError> {
        Ok(DiffPlan {
            mode: mode(args)?,
            out: args.out.clone(),
            traces: args.traces.clone(),
        })
    }
}

/// The mode `args` ask for.
fn mode(args: &DiffArgs) -> Result<DiffMode, CliError> {
    if args.before_exe.is_some() || args.before_rev.is_some() {
        return builds_mode(args);
    }
    for (flag, given) in [
        ("--jobs", args.jobs.is_some()),
        ("--step-timeout", args.step_timeout.is_some()),
    ] {
        if given {
            return Err(CliError(format!(
                "{flag} goes with --before-exe or --before-rev (a diff across builds)"
            )));
        }
    }
    let Some(after) = args.after.clone() else {
        return Err(CliError(
            "diff takes two results (BEFORE AFTER), or one model with --behaviour and --before-exe or --before-rev".to_owned(),
        ));
    };
    let before = args.before.clone();
    let depth = overrides(None, Some(&args.depth))?.depth;
    if args.behaviour {
        return Ok(DiffMode::Behaviour(Sides {
            before,
            after,
            depth,
            threads: args.threads.count()?,
        }));
    }
    if is_dump(&before) && is_dump(&after) {
        // A dump is compared as written: nothing is explored.
        for (flag, given) in [
            ("--depth", args.depth.depth.is_some()),
            ("--threads", args.threads.threads.is_some()),
        ] {
            if given {
                return Err(CliError(format!(
                    "{flag}: two dumps are compared as they were written, to their own depth; \
                     nothing is explored"
                )));
            }
        }
        return Ok(DiffMode::Dumps { before, after });
    }
    Ok(DiffMode::Results(Sides {
        before,
        after,
        depth,
        threads: args.threads.count()?,
    }))
}

/// The mode of a diff across builds: `--behaviour`, one model, a bounded
/// depth.
fn builds_mode(args: &DiffArgs) -> Result<DiffMode, CliError> {
    if !args.behaviour {
        return Err(CliError(
            "--before-exe and --before-rev compare behaviour: give --behaviour too".to_owned(),
        ));
    }
    if let Some(extra) = &args.after {
        return Err(CliError(format!(
            "a diff across builds takes one model; {} is one too many (the other side is the other build)",
            extra.display()
        )));
    }
    if args.threads.threads.is_some() {
        return Err(CliError(
            "--threads: a diff across builds runs drivers, as many as --jobs says".to_owned(),
        ));
    }
    let depth = match overrides(None, Some(&args.depth))?.depth {
        Some(Depth::Bounded(d)) => Some(d),
        Some(Depth::Full) => {
            return Err(CliError(
                "--depth full: a diff across builds walks to a bounded depth (each level costs a driver round per transition)".to_owned(),
            ))
        }
        None => None,
    };
    let other = match (&args.before_exe, &args.before_rev) {
        (Some(exe), _) => OtherSide::Exe(exe.clone()),
        (None, Some(rev)) => OtherSide::Rev(rev.clone()),
        (None, None) => unreachable!("builds_mode is for a diff across builds"),
    };
    let (jobs, step_timeout) = driver_flags(args.jobs.as_deref(), args.step_timeout.as_deref())?;
    Ok(DiffMode::Builds {
        model: args.before.clone(),
        other,
        depth,
        jobs,
        step_timeout,
    })
}

pub fn run(plan: &DiffPlan) -> Result<Verdict, CliError> {
    match &plan.mode {
        DiffMode::Results(sides) => run_results(plan, sides),
        DiffMode::Dumps { before, after } => run_states(plan, before, after),
        DiffMode::Behaviour(sides) => run_behaviour(plan, sides),
        DiffMode::Builds {
            model,
            other,
            depth,
            jobs,
            step_timeout,
        } => run_builds(plan, model, other, *depth, *jobs, *step_timeout),
    }
}

fn run_results(plan: &DiffPlan, sides: &Sides) -> Result<Verdict, CliError> {
    let load =
        |path: &Path| -> Result<_, CliError> { Ok(load_side(path, sides.threads, sides.depth)?) };
    let (a, b) = (load(&sides.before)?, load(&sides.after)?);
    warn(&a.warnings);
    warn(&b.warnings);
    let differences = compare(&a, &b);
    let mut set = diff_set(plan, "diff", &pair_name(&a, &b))?;
    let chart = growth_svg(
        &format!(
            "{} (A, solid) and {} (B, dashed): growth per depth",
            a.model, b.model
        ),
        &[a.growth("A"), b.growth("B")],
    )?;
    let chart_path = set.add("growth.svg", chart.as_bytes())?;
    set.commit()?;
    let mut text = render(&a, &b, &differences);
    text.push_str(&format!(
        "drew both sides on one chart: {}\n",
        chart_path.display()
    ));
    print(&text)?;
    Ok(Verdict::violated_if(!differences.is_empty()))
}

/// The report set of a diff named `name` (`A-vs-B` of two models,
/// `NAME-BUILD_A-vs-BUILD_B` of two builds of one): one folder per pair,
/// whatever the command that wrote into it.
fn diff_set(plan: &DiffPlan, command: &str, name: &str) -> Result<ReportSet, CliError> {
    let dir = report_dir(plan.out.as_deref(), name)?;
    refuse_blessed(&dir, "--out").map_err(CliError)?;
    let digest = checksum(name.as_bytes()).fnv1a64;
    Ok(ReportSet::new(&dir, command, name, &digest).with_traces(&plan.traces))
}

fn run_behaviour(plan: &DiffPlan, sides: &Sides) -> Result<Verdict, CliError> {
    let a = load_model(&sides.before)?;
    let b = load_model(&sides.after)?;
    let depth = sides.depth.unwrap_or_else(|| smaller(&a, &b)).bound();
    let report = behaviour::run(
        &a,
        &b,
        BehaviourOptions {
            depth,
            threads: sides.threads,
            observer: progress::observer(),
        },
    )
    .map_err(|e| {
        let (a_shown, b_shown) = (a.source_or(&a.name), b.source_or(&b.name));
        CliError(format!("{a_shown} and {b_shown}: {e}"))
    })?;
    let trace = report.parting.as_ref().map(|p| &p.trace);
    write_behaviour(
        plan,
        &format!("{}-vs-{}", a.name, b.name),
        trace,
        |path| behaviour_json(&report, path),
        |path| behaviour::render(&report, path),
    )?;
    Ok(Verdict::violated_if(report.parting.is_some()))
}

/// Writes a lockstep diff named `name`: its parting trace if any
/// (`NAME.json` under `--traces`) and `behaviour.json`, then prints the
/// report; `json` and `text` are told where the trace went.
fn write_behaviour(
    plan: &DiffPlan,
    name: &str,
    parting: Option<&Trace>,
    json: impl FnOnce(Option<&str>) -> String,
    text: impl FnOnce(Option<&str>) -> String,
) -> Result<(), CliError> {
    let mut set = diff_set(plan, "behaviour", name)?;
    let trace_name = format!("{name}.json");
    // A path check before any work is written.
    inside(&plan.traces, &trace_name)?;
    let trace = match parting {
        Some(t) => Some(
            set.add_trace(&trace_name, t.to_json_string().as_bytes())?
                .display()
                .to_string(),
        ),
        None => None,
    };
    set.retire_traces([trace_name]);
    set.add("behaviour.json", json(trace.as_deref()).as_bytes())?;
    set.commit()?;
    print(&text(trace.as_deref()))
}

fn run_states(plan: &DiffPlan, before: &Path, after: &Path) -> Result<Verdict, CliError> {
    let a = Dump::load(before)?;
    let b = Dump::load(after)?;
    let d = compare_dumps(&a, &b)?;
    let (na, nb) = (&a.config.name, &b.config.name);
    let mut set = diff_set(plan, "states", &format!("{na}-vs-{nb}"))?;
    let trace_name = |side: char| format!("{na}-vs-{nb}-only-in-{side}.json");
    for side in ['A', 'B'] {
        inside(&plan.traces, &trace_name(side))?;
    }
    let mut csv = String::from("depth,only_in_a,only_in_b\n");
    let mut text = format!(
        "states: A = {} (model {na}), B = {} (model {nb})\n",
        a.origin, b.origin
    );
    if let Some(note) = &d.build_note {
        text.push_str(&format!("{note}\n"));
    }
    for (side, dump) in [('A', &a), ('B', &b)] {
        if !dump.manifest.whole {
            text.push_str(&format!(
                "{side} is not whole: its run stopped before its bound\n"
            ));
        }
    }
    if d.per_depth.is_empty() {
        text.push_str("the same states at every depth\n");
    } else {
        text.push_str("depth  only in A  only in B\n");
    }
    for (depth, x, y) in &d.per_depth {
        csv.push_str(&format!("{depth},{x},{y}\n"));
        text.push_str(&format!("{depth:>5}  {x:>9}  {y:>9}\n"));
    }
    if d.one_sided > 0 {
        text.push_str(&pairs_text(&d));
    }
    set.retire_traces([
        format!("{na}-vs-{nb}-state.json"),
        trace_name('A'),
        trace_name('B'),
    ]);
    for f in &d.firsts {
        let path = set.add_trace(&trace_name(f.side), f.trace.to_json_string().as_bytes())?;
        text.push_str(&format!(
            "the shallowest state only in {}: {:032x} at depth {}, reached by\n",
            f.side, f.state, f.depth
        ));
        for (i, label) in f.labels.iter().enumerate() {
            text.push_str(&format!("  step {i}  {label}\n"));
        }
        text.push_str(&format!(
            "wrote its trace from {}'s own steps (model {}): {} — memtx-check replay {}\n",
            f.side,
            if f.side == 'A' { na } else { nb },
            path.display(),
            path.display()
        ));
    }
    let csv_path = set.add("states-diff.csv", csv.as_bytes())?;
    set.commit()?;
    text.push_str(&format!("wrote {}\n", csv_path.display()));
    print(&text)?;
    Ok(Verdict::violated_if(d.one_sided > 0))
}

/// How many pairs shown with their path and stores.
const PAIRS_SHOWN: usize = 3;

/// The one-sided states paired by (parent, action), the shallowest
/// [`PAIRS_SHOWN`] pairs in full.
fn pairs_text(d: &StateDiff) -> String {
    let mut text = format!(
        "{} of {} one-sided states pair up by (parent, action): {} actions from a state both dumps have lead elsewhere\n",
        count(d.paired),
        count(d.one_sided),
        count(d.pairs.len() as u64)
    );
    for (i, p) in d.pairs.iter().take(PAIRS_SHOWN).enumerate() {
        text.push_str(&format!(
            "pair {} at depth {}: from {:032x}, reached by {}\n",
            i + 1,
            p.depth,
            p.parent,
            if p.path.is_empty() {
                "nothing (the initial state)".to_owned()
            } else {
                p.path.join(" ; ")
            }
        ));
        text.push_str(&format!("  the action {}\n", p.action));
        for (verb, s) in [("used to lead to", &p.a), ("now leads to   ", &p.b)] {
            text.push_str(&format!(
                "  {verb} {:032x}  records: {}  transactions: {}\n",
                s.state,
                or_none(&s.records),
                or_none(&s.transactions)
            ));
        }
        if p.a.records == p.b.records && p.a.transactions == p.b.transactions {
            text.push_str(
                "  the two read the same in records and transactions: they differ in what those columns leave out (links, monitor)\n",
            );
        }
        for (column, x, y) in [
            ("records", &p.a.records, &p.b.records),
            ("transactions", &p.a.transactions, &p.b.transactions),
        ] {
            let (gone, new) = Pair::differing(x, y);
            if gone.is_empty() && new.is_empty() {
                continue;
            }
            let mut line = format!("  {column} differ:");
            for g in gone {
                line.push_str(&format!(" -{g}"));
            }
            for n in new {
                line.push_str(&format!(" +{n}"));
            }
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

fn or_none(text: &str) -> &str {
    if text.is_empty() {
        "(none)"
    } else {
        text
    }
}

/// `diff --behaviour MODEL --before-exe EXE | --before-rev REV`: this
/// build's protocol against another build's, driven over the driver
/// protocol ([`crate::diff::builds`]).
fn run_builds(
    plan: &DiffPlan,
    model: &Path,
    other: &OtherSide,
    depth: Option<usize>,
    jobs: usize,
    step_timeout: std::time::Duration,
) -> Result<Verdict, CliError> {
    let config = load_model(model)?;
    let depth = depth.unwrap_or(config.bounds.depth.capped(BUILDS_DEFAULT_DEPTH));
    let other = match other {
        OtherSide::Exe(exe) => OtherBuild {
            program: exe.display().to_string(),
            args: vec!["driver".to_owned()],
            shown: exe.display().to_string(),
        },
        OtherSide::Rev(rev) => {
            let built =
                build_revision(rev, &|line| eprintln!("memtx-check: {line}")).map_err(CliError)?;
            OtherBuild {
                program: built.exe.display().to_string(),
                args: vec!["driver".to_owned()],
                shown: format!(
                    "{rev} ({}, built at {})",
                    crate::build_info::prefix(&built.commit, 10),
                    built.exe.display()
                ),
            }
        }
    };
    let report = builds::run(
        &config,
        &other,
        BuildsOptions {
            depth,
            jobs,
            step_timeout,
            max_memory: crate::engine::default_max_memory(),
            observer: progress::observer(),
            warn: Box::new(|w| eprintln!("memtx-check: warning: {w}")),
        },
    )
    .map_err(|e| CliError(format!("{}: {e}", other.shown)))?;
    let before_name = report
        .other_build
        .as_ref()
        .and_then(BuildInfo::of_implementation)
        .map_or_else(|| "driver".to_owned(), |b| b.short());
    let pair = format!("{before_name}-vs-{}", report.this_build.short());
    let trace = report
        .parting
        .as_ref()
        .map(|p| Trace::new(config.clone(), p.steps.clone(), None));
    write_behaviour(
        plan,
        &format!("{}-{pair}", config.name),
        trace.as_ref(),
        |path| builds_json(&report, path),
        |path| builds::render(&report, path),
    )?;
    Ok(if report.parting.is_some() {
        Verdict::Violated
    } else if report.stopped.is_some() {
        Verdict::Inconclusive
    } else {
        Verdict::Holds
    })
}

/// The smaller of the two models' depth bounds (`full` is the larger).
fn smaller(a: &ModelConfig, b: &ModelConfig) -> Depth {
    match (a.bounds.depth, b.bounds.depth) {
        (Depth::Bounded(x), Depth::Bounded(y)) => Depth::Bounded(x.min(y)),
        (Depth::Bounded(x), Depth::Full) | (Depth::Full, Depth::Bounded(x)) => Depth::Bounded(x),
        (Depth::Full, Depth::Full) => Depth::Full,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::parse_args;

    fn plan(line: &[&str]) -> Result<DiffPlan, String> {
        DiffPlan::from_args(&parse_args::<DiffArgs>("diff", line)?).map_err(|e| e.0)
    }

    #[test]
    fn each_mode_takes_its_own_flags() {
        let p = plan(&["a.json", "b.json", "--depth", "4", "--threads", "2"]).unwrap();
        assert_eq!(
            p.mode,
            DiffMode::Results(Sides {
                before: "a.json".into(),
                after: "b.json".into(),
                depth: Some(Depth::Bounded(4)),
                threads: 2
            })
        );
        let p = plan(&["a.json", "b.json", "--behaviour", "--depth", "full"]).unwrap();
        assert!(matches!(
            p.mode,
            DiffMode::Behaviour(Sides {
                depth: Some(Depth::Full),
                ..
            })
        ));
        let p = plan(&[
            "m.json",
            "--behaviour",
            "--before-exe",
            "old",
            "--jobs",
            "3",
        ])
        .unwrap();
        assert!(matches!(
            p.mode,
            DiffMode::Builds {
                other: OtherSide::Exe(_),
                depth: None,
                jobs: 3,
                ..
            }
        ));
    }

    #[test]
    fn a_flag_the_mode_would_ignore_is_refused_naming_it() {
        for (line, named) in [
            (&["a", "b", "--jobs", "2"][..], "--jobs"),
            (&["a", "b", "--step-timeout", "3"], "--step-timeout"),
            (&["m", "--before-rev", "HEAD"], "--behaviour"),
            (
                &["m", "x", "--behaviour", "--before-rev", "HEAD"],
                "one too many",
            ),
            (
                &["m", "--behaviour", "--before-exe", "e", "--threads", "2"],
                "--threads",
            ),
            (
                &["m", "--behaviour", "--before-exe", "e", "--depth", "full"],
                "--depth full",
            ),
            (&["a"], "two results"),
            (&["a", "b", "--depth", "x"], "--depth"),
        ] {
            let e = plan(line).unwrap_err();
            assert!(e.contains(named), "{line:?}: {e}");
        }
    }

    #[test]
    fn two_dumps_are_compared_as_written() {
        let dir = std::env::temp_dir().join(format!("memtx-diff-plan-{}", std::process::id()));
        for side in ["a", "b"] {
            std::fs::create_dir_all(dir.join(side)).unwrap();
            std::fs::write(dir.join(side).join("states.csv"), "").unwrap();
        }
        let (a, b) = (dir.join("a"), dir.join("b"));
        let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
        let p = plan(&[a, b]);
        let refused = plan(&[a, b, "--depth", "3"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(p.unwrap().mode, DiffMode::Dumps { .. }));
        assert!(refused.unwrap_err().contains("as they were written"));
    }
}
