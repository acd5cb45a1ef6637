//! `check`'s command line: its clap arguments, and the one validated
//! plan they are made into, in one place (as
//! ripgrep turns its low-level arguments into high-level ones): every
//! flag is parsed here once, and every combination of flags judged here,
//! before a model is read or a folder made. `check`, its suite and its
//! cluster take the plan, never the clap struct. What depends on the
//! model (`--dump` with a model that asks for symmetry) is judged once
//! the model is read.

use super::args::{overrides, BoundArgs, DepthArg, PropertiesArg, ThreadsArg};
use super::exit::CliError;
use crate::config::{flags, BoundOverrides};
use crate::engine::{self, FingerprintWidth};
use crate::invariants::Selection;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the processes of a distributed run wait for each other
/// unless `--connect-timeout` says.
const DEFAULT_CONNECT_TIMEOUT: &str = "30";

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The model configuration, or a directory: every model file under it
    /// (recursively), checked in path order as a suite.
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
    /// Where growth.csv, coverage.csv and summary.json go (default:
    /// runs/NAME; for a suite, DIR/NAME, by default runs/NAME). Never a
    /// blessed baseline's folder (reports/NAME): only `ci --bless` writes
    /// those.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Where counterexample traces go.
    #[arg(long, value_name = "DIR", default_value = "runs/traces")]
    pub traces: PathBuf,
    /// Exit 0 when every invariant's verdict matches the model's `expect`
    /// (a broken variant that is caught passes) and every branch its
    /// `expect.coverage` names is reached, 1 otherwise; for a suite, when
    /// this holds for every model.
    #[arg(long)]
    pub expect: bool,
    /// Count one state per class of states equal up to a renaming of
    /// transaction ids (as `"symmetry": true` in the model): same verdicts,
    /// real counterexamples, fewer states (docs/symmetry.md).
    #[arg(long)]
    pub symmetry: bool,
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
    /// 3) if it would pass SIZE, e.g. 8G or 512M (default: the least of
    /// 90% of physical memory, 90% of the cgroup's memory limit and what
    /// `ulimit -v`/`-d` leave; with --hosts, per process, the default
    /// shared by the processes on one host).
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub max_memory: Option<String>,
    /// After each completed level, write what is needed to continue into
    /// DIR (parent links included); with --hosts, each process its own
    /// part, under DIR/process-I.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Continue from the last complete level checkpointed in DIR (same
    /// model and bounds), checkpointing on into DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "checkpoint")]
    pub resume: Option<PathBuf>,
    /// Keep the visited set and the levels in DIR instead of memory, so
    /// that a bound larger than memory is reached (memory then holds
    /// batches sized from --max-memory); DIR is also the run's
    /// checkpoint: --resume DIR continues it (docs/disk.md).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["checkpoint", "dump", "hosts", "local_processes"])]
    pub disk: Option<PathBuf>,
    /// Stream every state to DIR/states.csv and every transition to
    /// DIR/transitions.csv as the run goes (on one thread, so that rows
    /// and parents come in the engine's order), DIR/dump.json last
    /// (docs/dumps.md).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub dump: Option<PathBuf>,
    /// Stop after N levels, as an interruption would (for testing resume).
    #[arg(long, value_name = "N", hide = true)]
    pub max_levels: Option<usize>,
    /// Run as one of several processes (on timely dataflow): FILE lists
    /// one host:port a line, process I listening on line I; every process
    /// runs the same command with its own --process, and process 0 writes
    /// the reports. Results are those of a plain check.
    #[arg(long, value_name = "FILE", requires = "process")]
    pub hosts: Option<PathBuf>,
    /// This process's line in the --hosts file, counting from 0.
    #[arg(long, value_name = "I", requires = "hosts", allow_hyphen_values = true)]
    pub process: Option<String>,
    /// Start N processes of this program on free loopback ports, as
    /// --hosts would on N machines, and wait for them.
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          conflicts_with_all = ["hosts", "process"])]
    pub local_processes: Option<String>,
    /// With --hosts or --local-processes: end the run (exit 2) when a
    /// process has not connected within SECS seconds, and (exit 3) when
    /// a connected one has then sent no heartbeat for as long [default:
    /// 30].
    #[arg(long, value_name = "SECS", allow_hyphen_values = true)]
    pub connect_timeout: Option<String>,
}

/// Where a run keeps what it must keep besides memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// Memory only (parent links spill under `--out`).
    Memory,
    /// `--checkpoint DIR`: a fresh run, checkpointing into DIR.
    Checkpoint(PathBuf),
    /// `--resume DIR` of a checkpoint, checkpointing on into DIR.
    Resume(PathBuf),
    /// `--disk DIR`, or `--resume DIR` of a `--disk` folder (`resume`).
    Disk { dir: PathBuf, resume: bool },
}

impl Storage {
    /// The checkpoint folder of an in-memory run (fresh or resumed).
    pub fn checkpoint(&self) -> Option<&Path> {
        match self {
            Storage::Checkpoint(dir) | Storage::Resume(dir) => Some(dir),
            Storage::Memory | Storage::Disk { .. } => None,
        }
    }

    /// The folder resumed from, of either kind.
    pub fn resumed(&self) -> Option<&Path> {
        match self {
            Storage::Resume(dir) | Storage::Disk { dir, resume: true } => Some(dir),
            _ => None,
        }
    }

    /// The `--disk` folder.
    pub fn disk(&self) -> Option<&Path> {
        match self {
            Storage::Disk { dir, .. } => Some(dir),
            _ => None,
        }
    }

    /// The folder the engine writes as it runs, with the flag that named
    /// it (for messages).
    pub fn folder(&self) -> Option<(&Path, &'static str)> {
        match self {
            Storage::Memory => None,
            Storage::Checkpoint(dir) => Some((dir, "--checkpoint")),
            Storage::Resume(dir) | Storage::Disk { dir, resume: true } => Some((dir, "--resume")),
            Storage::Disk { dir, resume: false } => Some((dir, "--disk")),
        }
    }
}

/// How many processes run the check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// This process alone.
    Single,
    /// `--hosts FILE --process I`: one process of several.
    Hosts {
        file: PathBuf,
        process: usize,
        connect_timeout: Duration,
    },
    /// `--local-processes N`: N processes of this program on loopback
    /// ports, started and waited for by this one.
    Local {
        processes: usize,
        connect_timeout: Duration,
    },
}

/// A `check` run, every flag parsed and every combination judged.
#[derive(Clone, Debug)]
pub struct CheckPlan {
    /// The model file, or the folder of a suite.
    pub model: PathBuf,
    /// Whether `model` is a folder: every model file under it, a suite.
    pub suite: bool,
    pub bounds: BoundOverrides,
    pub threads: usize,
    pub properties: Selection,
    pub fingerprint: FingerprintWidth,
    /// `--max-memory`, as given (`None`: the default guard).
    pub max_memory: Option<u64>,
    pub out: Option<PathBuf>,
    pub traces: PathBuf,
    pub expect: bool,
    pub symmetry: bool,
    pub storage: Storage,
    pub dump: Option<PathBuf>,
    pub max_levels: Option<usize>,
    pub distribution: Distribution,
}

impl CheckPlan {
    /// The plan of `args`, or the one line that refuses them.
    pub fn from_args(args: &CheckArgs) -> Result<CheckPlan, CliError> {
        let bits = flags::fingerprint_bits(&args.fingerprint)?;
        let plan = CheckPlan {
            model: args.model.clone(),
            suite: args.model.is_dir(),
            bounds: overrides(Some(&args.bounds), Some(&args.depth))?,
            threads: args.threads.count()?,
            properties: args.properties.selection()?,
            fingerprint: FingerprintWidth::from_bits(bits).expect("64 or 128"),
            max_memory: args
                .max_memory
                .as_deref()
                .map(flags::memory_size)
                .transpose()?,
            out: args.out.clone(),
            traces: args.traces.clone(),
            expect: args.expect,
            symmetry: args.symmetry,
            storage: storage(args)?,
            dump: args.dump.clone(),
            max_levels: args.max_levels,
            distribution: distribution(args)?,
        };
        plan.refuse_combinations()?;
        Ok(plan)
    }

    /// Whether this process is one of a `--hosts` run.
    pub fn on_hosts(&self) -> bool {
        matches!(self.distribution, Distribution::Hosts { .. })
    }

    /// Flags that cannot go together, beyond what clap refuses.
    fn refuse_combinations(&self) -> Result<(), CliError> {
        let distributed = self.distribution != Distribution::Single;
        if self.suite && (self.storage != Storage::Memory || self.dump.is_some() || distributed) {
            return Err(CliError(format!(
                "{}: --checkpoint, --resume, --dump, --disk, --hosts and --local-processes take one model file, not a directory",
                self.model.display()
            )));
        }
        if distributed && self.dump.is_some() {
            return Err(CliError(format!(
                "{}: --hosts runs the undumped check: leave out --dump",
                self.model.display()
            )));
        }
        if let (true, Some(dir)) = (distributed, self.storage.disk()) {
            return Err(CliError(format!(
                "--resume {}: a --disk run's folder, which one process runs: leave out --hosts and --local-processes",
                dir.display()
            )));
        }
        Ok(())
    }
}

/// `--checkpoint`, `--resume` and `--disk` as one choice: a `--resume`
/// of a folder a `--disk` run wrote continues it on disk; `--disk` beside
/// a `--resume` of another folder is refused.
fn storage(args: &CheckArgs) -> Result<Storage, CliError> {
    Ok(match (&args.checkpoint, &args.resume, &args.disk) {
        (_, Some(resume), Some(disk)) if disk != resume => {
            return Err(CliError(format!(
                "--disk {}: a --disk run's folder is its checkpoint: resume it with --resume {0}, not --resume {}",
                disk.display(),
                resume.display()
            )))
        }
        (_, Some(_), Some(disk)) => Storage::Disk {
            dir: disk.clone(),
            resume: true,
        },
        (_, None, Some(disk)) => Storage::Disk {
            dir: disk.clone(),
            resume: false,
        },
        (_, Some(resume), None) if engine::is_disk_folder(resume) => Storage::Disk {
            dir: resume.clone(),
            resume: true,
        },
        (_, Some(resume), None) => Storage::Resume(resume.clone()),
        (Some(checkpoint), None, None) => Storage::Checkpoint(checkpoint.clone()),
        (None, None, None) => Storage::Memory,
    })
}

/// `--hosts`/`--process`, `--local-processes` and `--connect-timeout`:
/// the timeout is read only where processes connect, and refused
/// elsewhere (where it would say nothing).
fn distribution(args: &CheckArgs) -> Result<Distribution, CliError> {
    let timeout = args.connect_timeout.as_deref();
    let connect_timeout = || flags::connect_timeout(timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT));
    Ok(match (&args.hosts, &args.local_processes) {
        (Some(file), _) => Distribution::Hosts {
            file: file.clone(),
            process: flags::process_index(args.process.as_deref().unwrap_or_default())?,
            connect_timeout: connect_timeout()?,
        },
        (None, Some(n)) => Distribution::Local {
            processes: flags::local_processes(n)?,
            connect_timeout: connect_timeout()?,
        },
        (None, None) => {
            if let Some(secs) = timeout {
                return Err(CliError(format!(
                    "--connect-timeout {secs}: only with --hosts or --local-processes, which connect processes"
                )));
            }
            Distribution::Single
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::parse_args;

    fn plan(line: &[&str]) -> Result<CheckPlan, String> {
        CheckPlan::from_args(&parse_args::<CheckArgs>("check", line)?).map_err(|e| e.0)
    }

    #[test]
    fn every_flag_is_parsed_once_into_the_plan() {
        let p = plan(&[
            "models/default.json",
            "--depth",
            "7",
            "--threads",
            "3",
            "--fingerprint",
            "128",
            "--max-memory",
            "2G",
            "--checkpoint",
            "target/tmp/plan-checkpoint",
        ])
        .expect("a valid command line");
        assert!(!p.suite);
        assert_eq!(p.threads, 3);
        assert_eq!(p.fingerprint, FingerprintWidth::Bits128);
        assert_eq!(p.max_memory, Some(2 << 30));
        assert_eq!(
            p.storage,
            Storage::Checkpoint("target/tmp/plan-checkpoint".into())
        );
        assert_eq!(p.distribution, Distribution::Single);
    }

    #[test]
    fn combinations_are_refused_in_one_line_before_anything_is_read() {
        let refused = |line: &[&str], says: &str| {
            let e = plan(line).expect_err("refused");
            assert!(e.contains(says), "{line:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        };
        refused(&["--connect-timeout", "5"], "only with --hosts");
        refused(&["--fingerprint", "96"], "96");
        refused(&["--max-memory", "lots"], "lots");
        refused(
            &["--disk", "target/tmp/a", "--resume", "target/tmp/b"],
            "resume it with --resume target/tmp/a",
        );
        refused(&["models/", "--dump", "target/tmp/d"], "not a directory");
        refused(
            &["--local-processes", "2", "--dump", "target/tmp/d"],
            "leave out --dump",
        );
        refused(&["--local-processes", "0"], "0");
    }

    #[test]
    fn a_distributed_run_carries_its_parsed_timeout() {
        let p = plan(&["--local-processes", "2", "--connect-timeout", "7"]).expect("valid");
        assert_eq!(
            p.distribution,
            Distribution::Local {
                processes: 2,
                connect_timeout: Duration::from_secs(7)
            }
        );
    }
}
