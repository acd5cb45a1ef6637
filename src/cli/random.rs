//! `memtx-check random [MODEL]`: the flags ([`RandomPlan`]; `--steps`
//! replaces the depth, the bounds are overridable as for `check`) and the
//! run: the walks, their report set (`outputs::ReportSet`) and summary.
//! What it writes and exits with is docs/random.md's.

use super::args::{overrides, BoundArgs, PropertiesArg, ThreadsArg};
use super::exit::{CliError, Verdict};
use super::files::{
    prepare_report_dir, report_dir, report_set, retire_traces, write_counterexamples,
};
use super::model::load_model;
use super::output::print;
use crate::check::summary::coverage_csv;
use crate::config::limits::{MAX_STEPS, MAX_TRACES};
use crate::config::BoundOverrides;
use crate::input::flag::whole_number;
use crate::invariants::Invariant;
use crate::random::report::{csv_bytes, human_summary, summary_json};
use crate::random::{self, Failure, RandomOptions};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

/// Numbers are taken as text and checked by `input::flag::whole_number`, so that a
/// bad value gets the one-line error every bad input gets.
#[derive(Debug, Args)]
pub struct RandomArgs {
    /// The model configuration.
    #[arg(default_value = "models/default.json")]
    pub model: PathBuf,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = format!("Random walks to run, 1..={MAX_TRACES} (default {DEFAULT_WALKS})"))]
    pub walks: Option<String>,
    #[arg(long, value_name = "N", default_value = "20", allow_hyphen_values = true,
          help = format!("Steps per walk at most, 1..={MAX_STEPS} \
                          (a walk stops early when no action is enabled)"))]
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
    #[command(flatten)]
    pub bounds: BoundArgs,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub properties: PropertiesArg,
    /// Where random.csv, random-coverage.csv and random-summary.json go
    /// (default: runs/NAME).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Exit 0 unless the walks violate an invariant the model's `expect`
    /// block expects to hold (by name, or by not naming it); an expected
    /// violation the walks miss is no failure, as walks are incomplete.
    #[arg(long)]
    pub expect: bool,
    /// Where the traces of violating walks go (default: runs/traces). A
    /// value of digits alone is the old `--traces N`, a count of walks
    /// (now --walks), and warns; a folder named by digits is written ./N.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// The old spelling of --traces DIR.
    #[arg(long, value_name = "DIR", hide = true)]
    pub traces_dir: Option<PathBuf>,
}

/// Walks run unless told.
const DEFAULT_WALKS: u64 = 10_000;

/// Where the traces go unless told.
const DEFAULT_TRACES: &str = "runs/traces";

/// A walk count as typed, with the flag that gave it.
type Typed = (&'static str, String);

/// The walk count as typed, with the flag that gave it, and the traces
/// folder, after the old spellings: `--traces N` (digits alone) was the
/// count and `--traces-dir DIR` the folder. A folder named by digits
/// alone would be ambiguous, so `--traces 100` keeps its old meaning and
/// `./100` names the folder; with `--walks` given too it is refused
/// rather than guessed.
fn vocabulary(args: &RandomArgs) -> Result<(Option<Typed>, PathBuf), CliError> {
    let old_count = args
        .traces
        .as_deref()
        .and_then(|t| t.to_str())
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
    let (walks, folder) = match old_count {
        Some(n) if args.walks.is_some() => {
            return Err(CliError(format!(
                "--traces {n}: a number here is the old count of walks, and --walks gives it; \
                 for a folder named {n}, write --traces ./{n}"
            )))
        }
        Some(n) => {
            super::renamed::warn("--traces N (a count of walks)", "--walks N");
            (Some(("--traces", n.to_owned())), None)
        }
        None => (
            args.walks.clone().map(|w| ("--walks", w)),
            args.traces.clone(),
        ),
    };
    let folder = super::renamed::either(
        ("--traces", folder),
        ("--traces-dir", args.traces_dir.clone()),
    )?;
    Ok((
        walks,
        folder.unwrap_or_else(|| PathBuf::from(DEFAULT_TRACES)),
    ))
}

/// `random`'s flags ([`RandomArgs`]), validated once: every number parsed
/// and the old spellings read before the model is.
#[derive(Debug)]
pub struct RandomPlan {
    pub model: PathBuf,
    /// Walks, steps, seed, threads and the properties judged.
    pub options: RandomOptions,
    /// The bounds that replace the model's own.
    pub bounds: BoundOverrides,
    /// `--out`, or `None` for runs/NAME.
    pub out: Option<PathBuf>,
    /// Where the traces of violating walks go, the old spellings read.
    pub traces: PathBuf,
    pub expect: bool,
}

impl RandomPlan {
    /// The plan `args` ask for, or the one-line error of the first flag
    /// that cannot be read.
    pub fn from_args(args: &RandomArgs) -> Result<RandomPlan, CliError> {
        let threads = args.threads.count()?;
        let (walks, traces) = vocabulary(args)?;
        let walks = match walks {
            Some((flag, text)) => whole_number(flag, &text, 1, MAX_TRACES)?,
            None => DEFAULT_WALKS,
        };
        let options = RandomOptions {
            walks,
            steps: whole_number("--steps", &args.steps, 1, MAX_STEPS)? as usize,
            seed: whole_number("--seed", &args.seed, 0, u64::MAX)?,
            threads,
            properties: args.properties.selection()?,
        };
        Ok(RandomPlan {
            model: args.model.clone(),
            options,
            bounds: overrides(Some(&args.bounds), None)?,
            out: args.out.clone(),
            traces,
            expect: args.expect,
        })
    }
}

pub fn run(plan: &RandomPlan) -> Result<Verdict, CliError> {
    let mut config = load_model(&plan.model)?;
    plan.bounds.apply(&mut config.bounds);
    let out = report_dir(plan.out.as_deref(), &config.name)?;
    // Held until the report set is written.
    let _lock = prepare_report_dir(&out, "--out")?;
    let started = Instant::now();
    let progress = move |done: u64, total: u64| {
        if started.elapsed().as_secs() >= 1 {
            eprintln!("  {done:>10} of {total} walks");
        }
    };
    let report = random::run(&config, &plan.options, Some(&progress));
    let mut set = report_set(&out, &plan.traces, "random", &config);
    let failures = report
        .failures
        .iter()
        .map(|f| (f.stem(), &f.counterexample));
    let written = write_counterexamples(&mut set, &report.model.spec.compiled, failures)?;
    retire_traces(&mut set, |inv| Failure::stem_for(&config.name, inv));
    let csv = csv_bytes(&report)
        .map_err(|e| CliError(format!("{}: {e}", out.join("random.csv").display())))?;
    let csv_path = set.add("random.csv", &csv)?;
    let coverage = coverage_csv(&report.coverage).map_err(|e| {
        CliError(format!(
            "{}: {e}",
            out.join("random-coverage.csv").display()
        ))
    })?;
    let coverage_path = set.add("random-coverage.csv", &coverage)?;
    let summary_path = set.add(
        "random-summary.json",
        summary_json(&report, &written).as_bytes(),
    )?;
    set.commit()?;
    let mut text = human_summary(&report, &written);
    for (f, w) in report.failures.iter().zip(&written) {
        let actions = &f.counterexample.actions;
        if let Some(hint) = crate::explore::hint(&report.model, actions, &w.trace) {
            text.push_str(&hint);
        }
    }
    text.push_str(&format!(
        "wrote {}, {} and {}\n",
        csv_path.display(),
        coverage_path.display(),
        summary_path.display()
    ));
    let unexpected = report.unexpected();
    if plan.expect {
        text.push_str(&expect_line(&unexpected));
    }
    print(&text)?;
    Ok(Verdict::violated_if(if plan.expect {
        !unexpected.is_empty()
    } else {
        report.violated()
    }))
}

/// What `--expect` concluded, one line.
fn expect_line(unexpected: &[Invariant]) -> String {
    if unexpected.is_empty() {
        return "expect: as expected (an expected violation the walks did not find is no failure)\n"
            .to_owned();
    }
    let names: Vec<&str> = unexpected.iter().map(|i| i.name()).collect();
    format!(
        "expect: UNEXPECTED: {} violated, expected to hold\n",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::parse_args;

    fn plan(line: &[&str]) -> Result<RandomPlan, String> {
        RandomPlan::from_args(&parse_args::<RandomArgs>("random", line)?).map_err(|e| e.0)
    }

    #[test]
    fn every_flag_is_parsed_once_into_the_plan() {
        let p = plan(&[
            "m.json",
            "--walks",
            "7",
            "--steps",
            "9",
            "--seed",
            "3",
            "--records",
            "2",
            "--threads",
            "1",
            "--traces",
            "tr",
            "--expect",
        ])
        .unwrap();
        assert_eq!(
            (
                p.options.walks,
                p.options.steps,
                p.options.seed,
                p.options.threads
            ),
            (7, 9, 3, 1)
        );
        assert_eq!(p.bounds.records, Some(2));
        assert_eq!(p.traces, PathBuf::from("tr"));
        assert!(p.expect && p.out.is_none());
        let defaults = plan(&[]).unwrap();
        assert_eq!(defaults.options.walks, DEFAULT_WALKS);
        assert_eq!(defaults.traces, PathBuf::from(DEFAULT_TRACES));
    }

    #[test]
    fn old_spellings_keep_their_meaning_and_bad_numbers_name_their_flag() {
        assert_eq!(plan(&["--traces", "12"]).unwrap().options.walks, 12);
        assert_eq!(
            plan(&["--traces-dir", "d"]).unwrap().traces,
            PathBuf::from("d")
        );
        let e = plan(&["--walks", "3", "--traces", "12"]).unwrap_err();
        assert!(e.contains("--traces ./12"), "{e}");
        for (flag, value) in [("--walks", "0"), ("--steps", "x"), ("--records", "99")] {
            let e = plan(&["no/such/model.json", flag, value]).unwrap_err();
            assert!(e.contains(flag), "{flag} {value}: {e}");
        }
    }
}
