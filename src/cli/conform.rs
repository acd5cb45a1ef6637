//! `memtx-check conform MODEL --driver 'CMD ARGS…'`: the flags
//! ([`ConformPlan`]) and the run of an implementation, served by a driver
//! process, driven with the model's traces and compared after every step
//! ([`crate::conform`]). What it writes and exits with is
//! docs/conformance.md's.

use super::args::driver_flags;
use super::exit::{CliError, Verdict};
use super::files::{inside, prepare_report_dir, report_dir, report_set, write_trace};
use super::model::load_model;
use super::output::print;
use super::progress::TraceBar;
use crate::check::summary::Written;
use crate::ci::{junit, Case, Failure, ModelResult};
use crate::config::limits::{MAX_DEPTH, MAX_STEPS, MAX_TRACES};
use crate::config::{Depth, ModelConfig};
use crate::conform::endpoint::Process;
use crate::conform::render::{render, suite_line};
use crate::conform::wire::conform_json;
use crate::conform::{self, ConformOptions, ConformReport, Suite, MAX_SHRUNK};
use crate::driver::client::DriverFault;
use crate::input::flag::whole_number;
use crate::outputs::atomic_file::write_atomic;
use crate::outputs::ReportSet;
use crate::trace::Trace;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// The depths the suites walk to unless told (capped by the model's
/// own): the default model reaches every branch it has within seven
/// actions, and its transitions to depth four are about a thousand.
const BRANCHES_DEFAULT_DEPTH: usize = 7;
const TRANSITIONS_DEFAULT_DEPTH: usize = 4;

#[derive(Debug, Args)]
pub struct ConformArgs {
    /// The model configuration whose traces are sent.
    pub model: PathBuf,
    /// The driver's command line: a program and its arguments, split at
    /// spaces ('…' and "…" quote), e.g. 'memtx-check driver' or
    /// 'python3 examples/drivers/python/driver.py'.
    #[arg(long, value_name = "CMD ARGS…")]
    pub driver: String,
    /// Which traces: `branches` (per protocol branch, the shortest trace
    /// that takes it), `transitions` (every transition to --depth) or
    /// `random` (--walks random walks).
    #[arg(long, value_name = "SUITE", default_value = "branches")]
    pub suite: String,
    #[arg(long, value_name = "N|full", allow_hyphen_values = true,
          help = format!("The depth walked, 0..={MAX_DEPTH} (branches: default the smaller of the model's \
                          and {BRANCHES_DEFAULT_DEPTH}, `full` to the end; transitions: default the smaller of \
                          the model's and {TRANSITIONS_DEFAULT_DEPTH})"))]
    pub depth: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = format!("random: walks, 1..={MAX_TRACES} (default 100)"))]
    pub walks: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = format!("random: steps per walk at most, 1..={MAX_STEPS} (default 20)"))]
    pub steps: Option<String>,
    /// random: the seed (default 0); the same walks whatever --jobs.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub seed: Option<String>,
    /// Drivers run at once, each a process (default: one a core). The
    /// results do not depend on it.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub jobs: Option<String>,
    /// Seconds the driver may take to answer one request (default 10).
    #[arg(long, value_name = "SECS", allow_hyphen_values = true)]
    pub step_timeout: Option<String>,
    /// Where conform.json goes (default: runs/NAME).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where the shrunk traces go.
    #[arg(long, value_name = "DIR", default_value = "runs/traces")]
    pub traces: PathBuf,
    /// Write JUnit XML here: a testcase per branch (branches), per depth
    /// (transitions) or per walk (random).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// `text` split into words at spaces, `'…'` and `"…"` quoting.
fn words(text: &str) -> Result<Vec<String>, CliError> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if quote.is_some() {
        return Err(CliError(format!(
            "--driver: {text:?}: a quote is not closed"
        )));
    }
    out.extend(word);
    if out.is_empty() {
        return Err(CliError(
            "--driver: empty: give the driver's command line, e.g. 'memtx-check driver'".to_owned(),
        ));
    }
    Ok(out)
}

/// The suite the flags ask for, validated; the depth defaults wait for
/// the model ([`SuiteRequest::resolve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuiteRequest {
    /// `branches`, to a depth (`Some(Full)`: to the end) or the default.
    Branches { depth: Option<Depth> },
    /// `transitions`, to a bounded depth or the default.
    Transitions { depth: Option<usize> },
    /// `random`: the walks are fully given by the flags.
    Random { walks: u64, steps: usize, seed: u64 },
}

impl SuiteRequest {
    /// The request `args` make, or the one-line error of the first flag
    /// that does not fit the suite.
    fn from_args(args: &ConformArgs) -> Result<SuiteRequest, CliError> {
        let depth = match &args.depth {
            Some(text) if text == "full" => Some(Depth::Full),
            Some(text) => Some(Depth::Bounded(
                whole_number("--depth", text, 0, MAX_DEPTH as u64)? as usize,
            )),
            None => None,
        };
        let random_only = [
            ("--walks", args.walks.is_some()),
            ("--steps", args.steps.is_some()),
            ("--seed", args.seed.is_some()),
        ];
        let refuse_random_flags = |suite: &str| -> Result<(), CliError> {
            match random_only.iter().find(|(_, given)| *given) {
                Some((flag, _)) => Err(CliError(format!(
                    "{flag}: only the random suite takes it (this is --suite {suite})"
                ))),
                None => Ok(()),
            }
        };
        match args.suite.as_str() {
            "branches" => {
                refuse_random_flags("branches")?;
                Ok(SuiteRequest::Branches { depth })
            }
            "transitions" => {
                refuse_random_flags("transitions")?;
                Ok(SuiteRequest::Transitions {
                    depth: match depth {
                        Some(Depth::Full) => {
                            return Err(CliError(
                                "--depth full: the transitions suite walks to a bounded depth (its traces grow with the state space)".to_owned(),
                            ))
                        }
                        Some(Depth::Bounded(d)) => Some(d),
                        None => None,
                    },
                })
            }
            "random" => {
                if depth.is_some() {
                    return Err(CliError(
                        "--depth: the random suite takes --steps instead".to_owned(),
                    ));
                }
                let number = |flag: &str, v: &Option<String>, default: u64, min: u64, max: u64| {
                    v.as_deref()
                        .map_or(Ok(default), |text| whole_number(flag, text, min, max))
                };
                Ok(SuiteRequest::Random {
                    walks: number("--walks", &args.walks, 100, 1, MAX_TRACES)?,
                    steps: number("--steps", &args.steps, 20, 1, MAX_STEPS)? as usize,
                    seed: number("--seed", &args.seed, 0, 0, u64::MAX)?,
                })
            }
            other => Err(CliError(format!(
                "--suite: {other:?} is not one of branches, transitions, random"
            ))),
        }
    }

    /// The suite run on `config`: a depth not given is the suite's
    /// default, capped by the model's own bound.
    fn resolve(self, config: &ModelConfig) -> Suite {
        let capped = |default: usize| config.bounds.depth.capped(default);
        match self {
            SuiteRequest::Branches { depth } => Suite::Branches {
                depth: match depth {
                    Some(depth) => depth.bound(),
                    None => Some(capped(BRANCHES_DEFAULT_DEPTH)),
                },
            },
            SuiteRequest::Transitions { depth } => Suite::Transitions {
                depth: depth.unwrap_or_else(|| capped(TRANSITIONS_DEFAULT_DEPTH)),
            },
            SuiteRequest::Random { walks, steps, seed } => Suite::Random { walks, steps, seed },
        }
    }
}

/// `conform`'s flags ([`ConformArgs`]), validated once, before the model
/// is read or the driver started.
#[derive(Debug)]
pub struct ConformPlan {
    pub model: PathBuf,
    /// `--driver` as typed, for messages.
    pub driver_line: String,
    /// `--driver` split into words: the program, then its arguments.
    pub driver: Vec<String>,
    pub suite: SuiteRequest,
    pub jobs: usize,
    pub step_timeout: Duration,
    /// `--out`, or `None` for runs/NAME.
    pub out: Option<PathBuf>,
    pub traces: PathBuf,
    pub junit: Option<PathBuf>,
}

impl ConformPlan {
    /// The plan `args` ask for, or the one-line error of the first flag
    /// that cannot be read.
    pub fn from_args(args: &ConformArgs) -> Result<ConformPlan, CliError> {
        let driver = words(&args.driver)?;
        let suite = SuiteRequest::from_args(args)?;
        let (jobs, step_timeout) =
            driver_flags(args.jobs.as_deref(), args.step_timeout.as_deref())?;
        Ok(ConformPlan {
            model: args.model.clone(),
            driver_line: args.driver.clone(),
            driver,
            suite,
            jobs,
            step_timeout,
            out: args.out.clone(),
            traces: args.traces.clone(),
            junit: args.junit.clone(),
        })
    }
}

pub fn run(plan: &ConformPlan) -> Result<Verdict, CliError> {
    let config = load_model(&plan.model)?;
    let suite = plan.suite.resolve(&config);
    let out = report_dir(plan.out.as_deref(), &config.name)?;
    for k in 1..=MAX_SHRUNK {
        inside(&plan.traces, &format!("{}.itf.json", stem(&config, k)))?;
    }
    // Held until the report set is written.
    let _lock = prepare_report_dir(&out, "--out")?;
    let driver = Process {
        program: plan.driver[0].clone(),
        args: plan.driver[1..].to_vec(),
        step_timeout: plan.step_timeout,
    };
    let bar = TraceBar::new(suite.name());
    let report = conform::run(
        &config,
        &driver,
        &ConformOptions {
            suite,
            jobs: plan.jobs,
            max_memory: crate::engine::default_max_memory(),
        },
        &bar,
    )
    .map_err(|f| match f {
        conform::Failed::Memory(m) => CliError(format!("{}: {m}", plan.model.display())),
        conform::Failed::Breach(b) => match &b.breach.fault {
            DriverFault::Start(_) => {
                CliError(format!("{}: {}", plan.model.display(), b.breach.fault))
            }
            _ => CliError(format!(
                "{}: the driver `{}` broke the driver protocol on {b}; it was stopped and killed",
                plan.model.display(),
                plan.driver_line
            )),
        },
    });
    drop(bar);
    let report = report?;
    let mut set = report_set(&out, &plan.traces, "conform", &config);
    let files = write_traces(&mut set, &report)?;
    set.retire_traces((1..=MAX_SHRUNK).flat_map(|k| {
        let s = stem(&config, k);
        [format!("{s}.json"), format!("{s}.itf.json")]
    }));
    let json_path = set.add("conform.json", conform_json(&report, &files).as_bytes())?;
    set.commit()?;
    if let Some(path) = &plan.junit {
        let xml = junit::render("memtx-check conform", &[junit_result(&report, &files)]);
        write_atomic(path, xml.as_bytes())
            .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))?;
    }
    let written: Vec<String> = files.iter().map(|f| f.trace.clone()).collect();
    let mut text = render(&report, &written);
    text.push_str(&format!("wrote {}\n", json_path.display()));
    print(&text)?;
    Ok(Verdict::violated_if(!report.agrees()))
}

/// The trace file stem of divergence `k` (1-based): `conform-NAME-K`.
fn stem(config: &ModelConfig, k: usize) -> String {
    format!("conform-{}-{k}", config.name)
}

/// Each divergence's shrunk trace, as a replayable trace and as ITF.
fn write_traces(set: &mut ReportSet, r: &ConformReport) -> Result<Vec<Written>, CliError> {
    let mut files = Vec::new();
    for (k, d) in r.divergences.iter().enumerate() {
        let stem = stem(&r.config, k + 1);
        let trace = Trace::new(r.config.clone(), d.steps.clone(), None);
        let replayed =
            crate::replay::replay(&trace).map_err(|e| CliError(format!("{stem}.json: {e}")))?;
        let written = write_trace(set, &stem, &trace, &replayed.stores, &replayed.compiled)?;
        files.push(written);
    }
    Ok(files)
}

/// The run as one JUnit testsuite: a case per branch (branches), per
/// depth of the transitions' last steps (transitions), or per walk
/// (random); a case fails when a trace of it departs at or before it.
fn junit_result(r: &ConformReport, files: &[Written]) -> ModelResult {
    let fail = |trace: usize| -> Option<Failure> {
        let (step, k) = r.departures[trace]?;
        let (message, detail) = match k.and_then(|k| r.divergences.get(k).map(|d| (k, d))) {
            Some((k, d)) => (
                format!(
                    "trace {trace} departs at step {step} ({}); divergence {}",
                    d.kind.op,
                    k + 1
                ),
                format!(
                    "differs in {}; shrunk to {} steps: {}",
                    d.kind.fields.iter().cloned().collect::<Vec<_>>().join(", "),
                    d.actions.len(),
                    files.get(k).map_or("not written", |f| f.trace.as_str())
                ),
            ),
            None => (
                format!("trace {trace} departs at step {step}"),
                String::new(),
            ),
        };
        Some(Failure {
            message,
            detail,
            changes: Vec::new(),
        })
    };
    let case = |name: String, failure: Option<Failure>| Case {
        name,
        failure,
        output: None,
    };
    let cases: Vec<Case> = match r.suite {
        Suite::Branches { .. } => r
            .traces
            .covers
            .iter()
            .map(|c| {
                let failure = if r.covered(c) { None } else { fail(c.trace) };
                case(c.branch.to_owned(), failure)
            })
            .collect(),
        Suite::Transitions { .. } => {
            let deepest = r.traces.traces.iter().map(Vec::len).max().unwrap_or(0);
            (1..=deepest)
                .map(|len| {
                    let failure = r
                        .traces
                        .traces
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| t.len() == len)
                        .find_map(|(i, _)| fail(i));
                    case(format!("transitions of depth {len}"), failure)
                })
                .collect()
        }
        Suite::Random { .. } => (0..r.traces.traces.len())
            .map(|i| case(format!("walk {i}"), fail(i)))
            .collect(),
    };
    ModelResult {
        model: r.config.name.clone(),
        file: r.config.source_or(""),
        states: r.traces.walked.map_or(0, |w| w.states),
        seconds: r.elapsed.as_secs_f64(),
        verdicts: suite_line(r),
        baseline: "none",
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::parse_args;

    fn plan(line: &[&str]) -> Result<ConformPlan, String> {
        let line: Vec<&str> = ["no/such/model.json", "--driver", "memtx-check driver"]
            .into_iter()
            .chain(line.iter().copied())
            .collect();
        ConformPlan::from_args(&parse_args::<ConformArgs>("conform", &line)?).map_err(|e| e.0)
    }

    #[test]
    fn the_suite_is_judged_before_the_model_is_read() {
        let p = plan(&["--suite", "random", "--walks", "5", "--jobs", "2"]).unwrap();
        assert_eq!(
            p.suite,
            SuiteRequest::Random {
                walks: 5,
                steps: 20,
                seed: 0
            }
        );
        assert_eq!((p.jobs, p.driver.len()), (2, 2));
        for (line, named) in [
            (&["--walks", "5"][..], "--walks"),
            (&["--suite", "random", "--depth", "3"], "--depth"),
            (
                &["--suite", "transitions", "--depth", "full"],
                "--depth full",
            ),
            (&["--suite", "every"], "--suite"),
            (&["--step-timeout", "0"], "--step-timeout"),
        ] {
            let e = plan(line).unwrap_err();
            assert!(e.contains(named), "{line:?}: {e}");
        }
    }

    #[test]
    fn a_depth_not_given_is_the_suites_default_capped_by_the_model() {
        let text = std::fs::read_to_string("models/default.json").unwrap();
        let mut config = ModelConfig::parse(&text, "models/default.json").unwrap();
        config.bounds.depth = Depth::Bounded(3);
        let request = SuiteRequest::Branches { depth: None };
        assert_eq!(request.resolve(&config), Suite::Branches { depth: Some(3) });
        config.bounds.depth = Depth::Full;
        assert_eq!(
            request.resolve(&config),
            Suite::Branches {
                depth: Some(BRANCHES_DEFAULT_DEPTH)
            }
        );
        let given = SuiteRequest::Transitions { depth: Some(9) };
        assert_eq!(given.resolve(&config), Suite::Transitions { depth: 9 });
    }

    #[test]
    fn a_driver_command_line_splits_at_spaces_and_quotes_hold_them() {
        assert_eq!(
            words("memtx-check driver").unwrap(),
            ["memtx-check", "driver"]
        );
        assert_eq!(
            words(r#"  python3 'my dir/d.py'  --x "a b" '' "#).unwrap(),
            ["python3", "my dir/d.py", "--x", "a b", ""]
        );
        assert!(words("  ").unwrap_err().0.contains("empty"));
        assert!(words("sh 'oops").unwrap_err().0.contains("not closed"));
    }
}
