//! `check --hosts FILE --process I` and `check --local-processes N`: the
//! exhaustive check as one process of several, on timely dataflow (see
//! `distributed`; what each process writes, prints and exits with is
//! docs/distributed.md's). A resume of another layout, model or bounds is
//! refused here, before connecting.

use super::exit::{CliError, Verdict};
use super::files::take_folder;
use super::interrupt;
use super::progress::Lines;
use crate::check::{self, CheckReport};
use crate::config::ModelConfig;
use crate::distributed::{self, Cluster, Hosts, Layout};
use crate::engine::{self, EngineOptions, FingerprintWidth, Labelled, Reduced, StateCheck};
use crate::invariants::Selection;
use crate::model::{MemtxModel, ModelCodec, ModelSpec};
use crate::outputs::{refuse_planted, scratch, FolderLock, LINKS};
use std::ffi::OsString;
use std::net::TcpListener;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A distributed check's options, from the plan (`super::check_plan`).
pub(super) struct HostsRun {
    pub(super) properties: Selection,
    pub(super) threads: usize,
    pub(super) fingerprint: FingerprintWidth,
    /// Where to checkpoint (the `--resume` directory too).
    pub(super) checkpoint: Option<PathBuf>,
    pub(super) resume: bool,
    pub(super) max_levels: Option<usize>,
    /// `--max-memory`, for this process.
    pub(super) max_memory: Option<u64>,
    /// Where the workers write their parent links (under `--out`).
    pub(super) spill_dir: Option<PathBuf>,
}

impl HostsRun {
    fn options(&self, config: &ModelConfig) -> EngineOptions {
        let dir = |resume: bool| self.checkpoint.clone().filter(|_| self.resume == resume);
        EngineOptions {
            max_depth: config.bounds.depth.bound(),
            fingerprint: self.fingerprint,
            observer: Box::new(Lines),
            checkpoint: dir(false),
            resume: dir(true),
            max_levels: self.max_levels,
            max_memory: self.max_memory,
            spill_dir: self.spill_dir.clone(),
            ..EngineOptions::default()
        }
    }

    fn cluster(&self, config: &ModelConfig, addresses: Vec<String>, process: usize) -> Cluster {
        Cluster {
            addresses,
            process,
            threads: self.threads,
            connect_timeout: Duration::ZERO,
            identity: check::identity(config, self.properties),
        }
    }

    /// Takes processes `processes`' folders on this machine for a run on
    /// `addresses` (docs/distributed.md, "Checkpoints"): each process's
    /// part of the checkpoint (`C/process-I`) or, without one, of the
    /// parent links spilled under `out` (`OUT/links/process-I`), judged as
    /// a plain run's folder is (`distributed::parts`: a fresh checkpoint
    /// over one of this run cleared by name, a resumed one read back, no
    /// symlink followed, no user's file taken) and locked, so that a
    /// second run into the same parts is refused while this one runs.
    /// The locks, to keep until the run's last file is written.
    pub(super) fn take_parts(
        &self,
        config: &ModelConfig,
        addresses: Vec<String>,
        processes: Range<usize>,
        out: &Path,
    ) -> Result<Vec<FolderLock>, CliError> {
        let threads = self.threads.max(1);
        // Nothing is made through a link planted under --out.
        refuse_planted(out, "--out")?;
        let Some(dir) = &self.checkpoint else {
            let links = out.join(LINKS);
            return processes
                .map(|p| {
                    let lock = take_folder(&distributed::part_folder(&links, p)?, "--out", true)?;
                    distributed::prepare_spill(&links, p)?;
                    Ok(lock)
                })
                .collect();
        };
        let flag = if self.resume {
            "--resume"
        } else {
            "--checkpoint"
        };
        distributed::refuse_foreign(dir, !self.resume)?;
        let locks = processes
            .clone()
            .map(|p| take_folder(&distributed::part_folder(dir, p)?, flag, true))
            .collect::<Result<Vec<_>, _>>()?;
        let n = addresses.len();
        let layout = Layout::of(&self.cluster(config, addresses, 0), &self.options(config));
        if !self.resume {
            for process in processes {
                distributed::prepare_part(dir, process, &layout)?;
            }
            return Ok(locks);
        }
        let near = check::near_identities(config, self.properties);
        let codec = ModelCodec::new(&ModelSpec::from_config(config));
        let states = StateCheck::new(&codec, self.fingerprint);
        for process in processes {
            distributed::refuse_in_the_way_of_resume(dir, process)?;
            distributed::check_resumable(dir, process, &layout, &near, Some(&states))?;
        }
        distributed::common_level(dir, n, threads)?;
        Ok(locks)
    }
}

/// Whether this process was started by `--local-processes`, whose parent
/// holds the run's folders for it.
pub(super) fn started_by_parent() -> bool {
    std::env::var_os(interrupt::PARENT_PIPE_ENV).is_some()
}

/// Runs this process's part of the check of `config` on the hosts of
/// `hosts`; process 0 gets the report, the others `None`.
pub(super) fn check_on_hosts(
    run: &HostsRun,
    hosts: &Path,
    process: usize,
    connect_timeout: Duration,
    config: &ModelConfig,
) -> Result<Option<CheckReport>, CliError> {
    let hosts = Hosts::read(hosts, process)?;
    if (0..hosts.addresses.len()).any(|i| !hosts.is_loopback(i)) {
        eprintln!(
            "memtx-check: warning: the links between processes are unauthenticated and unencrypted (timely's TCP): use them on a trusted network only"
        );
    }
    let started = Instant::now();
    let mut spec = ModelSpec::from_config(config);
    spec.select(run.properties);
    let model = Arc::new(MemtxModel::new(spec));
    let codec = Arc::new(ModelCodec::new(&model.spec));
    let cluster = Cluster {
        connect_timeout,
        ..run.cluster(config, hosts.addresses, process)
    };
    let mut opts = run.options(config);
    if opts.max_memory.is_none() {
        opts.max_memory = default_share(&cluster.addresses, process);
    }
    let workers = cluster.addresses.len() * run.threads;
    track_part(run, process);
    distributed::install_failure_hook(process);
    let shared = Arc::clone(&model);
    let report = if config.symmetry {
        // The workers store representatives, as the single-process check
        // does (`model::symmetry`).
        distributed::enumerate::<_, Reduced<Labelled>>(shared, codec, &cluster, opts)
    } else {
        distributed::enumerate::<_, Labelled>(shared, codec, &cluster, opts)
    }?;
    Ok(report.map(|report| {
        let model = Arc::try_unwrap(model).unwrap_or_else(|shared| (*shared).clone());
        check::assemble(config, model, &report, None, workers, started)
    }))
}

/// Registers what process `process` leaves tidy however it ends but
/// `kill -9` (a signal, a lost peer: `scratch`): the parent links its
/// workers spill under `--out`, or the links files past its part's last
/// sealed level.
fn track_part(run: &HostsRun, process: usize) {
    let (dir, spill) = match (&run.checkpoint, &run.spill_dir) {
        (Some(dir), _) => (dir, false),
        (None, Some(links)) => (links, true),
        (None, None) => return,
    };
    let part = distributed::part_dir(dir, process);
    for thread in 0..run.threads.max(1) {
        let worker = distributed::worker_of(&part, thread);
        if spill {
            scratch::track_spill(&worker);
        } else {
            scratch::track_tidy(&worker, engine::level_files::remove_unsealed_links);
        }
    }
    if spill {
        // Then the folders they leave empty.
        scratch::track_spill(&part);
        scratch::track_spill(dir);
    }
}

/// Without `--max-memory`: [`engine::default_max_memory`] (as a plain check),
/// shared evenly by the processes the hosts file puts on this process's
/// host.
fn default_share(addresses: &[String], process: usize) -> Option<u64> {
    let host = |a: &String| a.rsplit_once(':').map_or(a.clone(), |(h, _)| h.to_string());
    let mine = host(&addresses[process]);
    let here = addresses.iter().filter(|a| host(a) == mine).count() as u64;
    engine::default_max_memory().map(|bytes| bytes / here.max(1))
}

/// How long the others may take to end by themselves once one process
/// of a local run has failed, before they are stopped.
const GRACE: Duration = Duration::from_secs(10);

/// Starts `n` processes of this binary with this command's arguments on
/// free loopback ports, waits for them, and ends as process 0 ended
/// (or as the first process that failed).
pub(super) fn run_local(n: usize) -> Result<Verdict, CliError> {
    remove_dead_hosts_files();
    let hosts_file = std::env::temp_dir().join(format!(
        "{HOSTS_FILE_PREFIX}{}-{}.txt",
        std::process::id(),
        started_nanos()
    ));
    let ports = free_ports(n)?;
    let text: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    // Outside every folder the user chose: removed on a signal too, and
    // by the processes if they outlive this one.
    scratch::track_file(&hosts_file);
    if let Err(e) = std::fs::write(&hosts_file, text) {
        let _ = std::fs::remove_file(&hosts_file);
        scratch::forget(&hosts_file);
        return Err(CliError(format!(
            "{}: cannot write: {e}",
            hosts_file.display()
        )));
    }
    let result = spawn_and_wait(n, &hosts_file);
    let _ = std::fs::remove_file(&hosts_file);
    scratch::forget(&hosts_file);
    result
}

/// The name of a `--local-processes` hosts file, before `PID-NANOS.txt`.
const HOSTS_FILE_PREFIX: &str = "memtx-check-hosts-";

/// Removes the hosts files that runs killed earlier left in the temporary
/// folder: those whose process (the `PID` of `PID-NANOS.txt`) is gone.
/// Where that cannot be known (no `/proc`), none.
fn remove_dead_hosts_files() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(HOSTS_FILE_PREFIX)
            .and_then(|rest| rest.strip_suffix(".txt"))
            .and_then(|rest| rest.split_once('-'))
            .filter(|(pid, nanos)| {
                [pid, nanos]
                    .iter()
                    .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            })
            .map(|(pid, _)| pid.to_owned());
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if let Some(pid) = pid {
            if regular && !Path::new("/proc").join(&pid).exists() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

fn started_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// `n` loopback ports free at the time of asking (all held at once, so
/// they differ, then released for the processes to bind).
fn free_ports(n: usize) -> Result<Vec<u16>, CliError> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError(format!("--local-processes: no free loopback port: {e}")))?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CliError(format!("--local-processes: no free loopback port: {e}")))
}

/// This command's arguments without `--local-processes`.
fn own_arguments() -> Vec<OsString> {
    let mut out = Vec::new();
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--local-processes" {
            args.next();
        } else if !arg.to_string_lossy().starts_with("--local-processes=") {
            out.push(arg);
        }
    }
    out
}

fn spawn_and_wait(n: usize, hosts_file: &PathBuf) -> Result<Verdict, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError(format!("--local-processes: cannot find this program: {e}")))?;
    let args = own_arguments();
    let mut children: Vec<Child> = Vec::with_capacity(n);
    for i in 0..n {
        let child = Command::new(&exe)
            .args(&args)
            .arg("--hosts")
            .arg(hosts_file)
            .arg("--process")
            .arg(i.to_string())
            // A pipe only this process holds: the child ends when it
            // closes, however this process ends (`interrupt`).
            .stdin(Stdio::piped())
            .env(interrupt::PARENT_PIPE_ENV, "1")
            .env(interrupt::PARENT_FILE_ENV, hosts_file)
            .spawn();
        match child {
            Ok(child) => children.push(child),
            Err(e) => {
                stop_all(&mut children);
                return Err(CliError(format!(
                    "--local-processes: cannot start process {i}: {e}"
                )));
            }
        }
    }
    let statuses = wait_all(&mut children);
    verdict_of(&statuses)
}

/// Waits for every child; once one has failed, gives the others
/// [`GRACE`] to end by themselves (they do, losing a peer), then stops
/// them.
fn wait_all(children: &mut [Child]) -> Vec<Option<ExitStatus>> {
    let mut statuses: Vec<Option<ExitStatus>> = vec![None; children.len()];
    let mut failed_at: Option<Instant> = None;
    while statuses.iter().any(Option::is_none) {
        for (child, status) in children.iter_mut().zip(statuses.iter_mut()) {
            if status.is_none() {
                if let Ok(Some(s)) = child.try_wait() {
                    if !s.success() && failed_at.is_none() {
                        failed_at = Some(Instant::now());
                    }
                    *status = Some(s);
                }
            }
        }
        if failed_at.is_some_and(|t| t.elapsed() > GRACE) {
            stop_all(children);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    statuses
}

/// Stops the children still running (each by its own handle).
fn stop_all(children: &mut [Child]) {
    for child in children.iter_mut() {
        if let Ok(None) = child.try_wait() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Process 0's verdict, unless another process failed first.
fn verdict_of(statuses: &[Option<ExitStatus>]) -> Result<Verdict, CliError> {
    for (i, status) in statuses.iter().enumerate().skip(1) {
        let status = status.expect("every child was waited for");
        if !status.success() {
            return failed(i, status);
        }
    }
    let status = statuses[0].expect("every child was waited for");
    match status.code() {
        Some(0) => Ok(Verdict::Holds),
        Some(1) => Ok(Verdict::Violated),
        Some(3) => Ok(Verdict::Inconclusive),
        _ => failed(0, status),
    }
}

/// The run failed in process `i`: its own line is on stderr already.
fn failed(i: usize, status: ExitStatus) -> Result<Verdict, CliError> {
    match status.code() {
        Some(2) => Err(CliError(format!(
            "process {i} of --local-processes failed (exit 2)"
        ))),
        Some(3) | Some(1) => Ok(Verdict::Inconclusive),
        _ => {
            eprintln!("memtx-check: process {i} of --local-processes ended abnormally ({status}); the run is abandoned");
            Ok(Verdict::Inconclusive)
        }
    }
}
