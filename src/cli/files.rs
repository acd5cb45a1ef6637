//! Writing a command's files: each path built inside its chosen folder
//! ([`path_inside`]), a run's reports and traces committed together as a
//! [`ReportSet`], failures turned into one-line errors naming the file.

use super::exit::CliError;
use crate::check::summary::Written;
use crate::check::Counterexample;
use crate::config::{Compiled, ModelConfig};
use crate::invariants::Invariant;
use crate::outputs::{
    checksum, first_missing, path_inside, refuse_blessed, refuse_planted, scratch, FolderLock,
    ReportSet, LINKS,
};
use crate::protocol::Store;
use crate::trace::{to_itf, Trace};
use std::path::{Path, PathBuf};

/// `dir/name`, refused when `name` is not a plain file name.
pub fn inside(dir: &Path, name: &str) -> Result<PathBuf, CliError> {
    path_inside(dir, name).map_err(CliError)
}

/// Makes sure the run can write into `dir`, the folder `flag` chose (or
/// implies), and takes it for this run: creates it if missing, locks it
/// ([`FolderLock`]: a second run into it is refused at once, naming the
/// process that holds it), and probes it ([`ensure_writable`]); a report
/// folder (`--out`, `--baselines`) with a link or special file planted
/// where the run writes its manifest or parent links is refused first
/// ([`refuse_planted`]), and one the run made is removed again if the
/// run ends leaving it empty. Keep the lock until the run's last file is
/// written.
pub fn prepare_dir(dir: &Path, flag: &str) -> Result<FolderLock, CliError> {
    let report_folder = flag == "--out" || flag == "--baselines";
    if report_folder {
        refuse_planted(dir, flag).map_err(CliError)?;
    }
    // A run that ends without its report (refused after this point)
    // leaves no empty report folder behind.
    let lock = take_folder(dir, flag, report_folder)?;
    // Locked, so the temporaries it holds are of runs that were killed,
    // and so are the parent links spilled under a report folder.
    scratch::sweep_leftovers(dir, true);
    if report_folder {
        scratch::sweep_spill(&dir.join(LINKS));
    }
    Ok(lock)
}

/// Creates `dir` if missing, probes it ([`ensure_writable`]) and locks
/// it for this run ([`FolderLock`]); with `made_goes`, a folder the run
/// made is removed again if the run ends leaving it empty.
pub fn take_folder(dir: &Path, flag: &str, made_goes: bool) -> Result<FolderLock, CliError> {
    let made = first_missing(dir);
    ensure_writable(dir, flag)?;
    let mut lock = FolderLock::acquire(dir, flag).map_err(CliError)?;
    if made_goes {
        lock.remove_if_left_empty(made);
    }
    ensure_writable(dir, flag)?;
    Ok(lock)
}

/// Creates `dir` if missing and writes and removes a probe file, so that
/// a path that is a file, or a folder that cannot be written, is one line
/// before the run rather than a failure after it. Unlocked: for the
/// processes of one distributed run, which share their `--out`.
pub fn ensure_writable(dir: &Path, flag: &str) -> Result<(), CliError> {
    let fail = |e: std::io::Error| {
        CliError(format!(
            "{}: {flag}: cannot write into this directory: {e}",
            dir.display()
        ))
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let probe = dir.join(format!(".memtx-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(fail)?;
    std::fs::remove_file(&probe).map_err(fail)
}

/// Refuses, before anything is made, a `--traces` folder the run could
/// not write a trace into (issue 28.11: the run left an empty `--out`
/// behind when it failed on the traces after the check). A folder that
/// is not there is not made here, as a run without counterexamples
/// writes none, but the nearest folder above it is probed; a file where
/// it or a folder above it would be is refused.
pub fn probe_traces(dir: &Path) -> Result<(), CliError> {
    let mut existing = dir;
    while std::fs::symlink_metadata(existing).is_err() {
        match existing.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => existing = parent,
            _ => return Ok(()),
        }
    }
    if existing.is_dir() {
        // The folder, or the one it would be made in, must take a file (a
        // read-only mount would fail only after the run, an empty --out
        // left behind).
        return ensure_writable(existing, "--traces");
    }
    Err(CliError(format!(
        "{}: --traces: {} is not a folder, so no trace could be written there",
        dir.display(),
        existing.display()
    )))
}

/// `path` made absolute with its symlinks resolved as far as it exists
/// (the rest as written), so that two spellings of one folder compare
/// equal, whether or not it is made yet.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, n| p.join(n));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Refuses, before anything is made, a run whose folders overlap: each
/// of `owned` (the checkpoint or `--disk` folder, the dump: folders that
/// hold only what their flag writes) may neither be nor hold another of
/// the run's folders (`others`: the report folder, the traces), nor
/// overlap another of `owned`; a `--resume` folder only may not be one. One
/// folder given to two flags would have the run lock itself out of it,
/// or leave files there that the next run refuses.
pub fn refuse_overlap(owned: &[(&Path, &str)], others: &[(&Path, &str)]) -> Result<(), CliError> {
    for (i, (dir, flag)) in owned.iter().enumerate() {
        let own = resolved(dir);
        let owned_after = owned.iter().skip(i + 1).map(|o| (o, true));
        for ((other, other_flag), both_owned) in
            owned_after.chain(others.iter().map(|o| (o, false)))
        {
            let theirs = resolved(other);
            // A resumed folder is read, not made: only the same folder
            // twice is refused there.
            let inside = theirs.starts_with(&own) && *flag != "--resume";
            let nested = theirs == own || inside || (both_owned && own.starts_with(&theirs));
            if nested {
                let how = if theirs == own { "is" } else { "overlaps" };
                return Err(CliError(format!(
                    "{}: {other_flag}: {how} this run's {flag} folder {}, which holds only what \
                     {flag} writes; give each its own folder",
                    other.display(),
                    dir.display()
                )));
            }
        }
    }
    Ok(())
}

/// Where a run's reports go unless told: `runs/NAME/` (and its traces,
/// `runs/traces/`: the commands' `--traces` defaults). The committed
/// baselines `ci` compares against are in `reports/NAME/`, and only
/// `ci --bless` writes there ([`crate::outputs::refuse_blessed`]).
pub const RUNS: &str = "runs";

/// A model's report folder: `--out` as given, or `runs/NAME`.
pub fn report_dir(out: Option<&Path>, model_name: &str) -> Result<PathBuf, CliError> {
    match out {
        Some(dir) => Ok(dir.to_path_buf()),
        None => inside(Path::new(RUNS), model_name),
    }
}

/// [`prepare_dir`], after refusing a blessed baseline's folder: a plain
/// run never rewrites what `ci` compares against.
pub fn prepare_report_dir(dir: &Path, flag: &str) -> Result<FolderLock, CliError> {
    refuse_blessed(dir, flag).map_err(CliError)?;
    prepare_dir(dir, flag)
}

/// The report set of `command`'s run on `config` in `dir`, its traces in
/// `traces`. The model's digest covers its definition but not its bounds:
/// a check at another depth is of the same model, a check of an edited
/// model is not.
pub fn report_set(dir: &Path, traces: &Path, command: &str, config: &ModelConfig) -> ReportSet {
    let mut definition = config.to_json();
    if let Some(fields) = definition.as_object_mut() {
        fields.remove("bounds");
    }
    let digest = checksum(definition.to_string().as_bytes()).fnv1a64;
    ReportSet::new(dir, command, &config.name, &digest).with_traces(traces)
}

/// Adds `trace` to `set`'s traces as `STEM.json` (the replay format) and,
/// with the `stores` it passes through, `STEM.itf.json` (ITF).
pub fn write_trace(
    set: &mut ReportSet,
    stem: &str,
    trace: &Trace,
    stores: &[Store],
    compiled: &Compiled,
) -> Result<Written, CliError> {
    let trace_path = set.add_trace(&format!("{stem}.json"), trace.to_json_string().as_bytes())?;
    let itf_name = format!("{stem}.itf.json");
    let itf = to_itf(stores, &trace.steps, compiled);
    let mut itf_bytes = serde_json::to_vec_pretty(&itf)
        .map_err(|e| CliError(format!("{itf_name}: cannot encode: {e}")))?;
    itf_bytes.push(b'\n');
    let itf_path = set.add_trace(&itf_name, &itf_bytes)?;
    Ok(Written {
        trace: trace_path.display().to_string(),
        itf: itf_path.display().to_string(),
    })
}

/// Adds each of `counterexamples`, a stem and its counterexample, to
/// `set`'s traces ([`write_trace`]).
pub fn write_counterexamples<'a>(
    set: &mut ReportSet,
    compiled: &Compiled,
    counterexamples: impl Iterator<Item = (String, &'a Counterexample)>,
) -> Result<Vec<Written>, CliError> {
    counterexamples
        .map(|(stem, c)| write_trace(set, &stem, &c.trace, &c.stores, compiled))
        .collect()
}

/// Tells `set` which traces earlier runs may have left: one per
/// invariant, named by `stem`, with its ITF twin. Those this run does not
/// write are removed when it commits.
pub fn retire_traces(set: &mut ReportSet, stem: impl Fn(Invariant) -> String) {
    let names = Invariant::ALL.into_iter().flat_map(|inv| {
        [
            format!("{}.json", stem(inv)),
            format!("{}.itf.json", stem(inv)),
        ]
    });
    set.retire_traces(names);
}
