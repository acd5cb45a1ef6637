//! Writing a command's files: each path built inside its chosen folder
//! ([`path_inside`]), a run's reports and traces committed together as a
//! [`ReportSet`], failures turned into one-line errors naming the file.

use super::exit::CliError;
use crate::check::summary::Written;
use crate::check::Counterexample;
use crate::config::{Compiled, ModelConfig};
use crate::invariants::Invariant;
use crate::outputs::{checksum, path_inside, refuse_blessed, scratch, FolderLock, ReportSet};
use crate::trace::to_itf;
use std::path::{Path, PathBuf};

/// `dir/name`, refused when `name` is not a plain file name.
pub fn inside(dir: &Path, name: &str) -> Result<PathBuf, CliError> {
    path_inside(dir, name).map_err(CliError)
}

/// Makes sure the run can write into `dir`, the folder `flag` chose (or
/// implies), and takes it for this run: creates it if missing, locks it
/// ([`FolderLock`]: a second run into it is refused at once, naming the
/// process that holds it), and probes it ([`ensure_writable`]). Keep the
/// lock until the run's last file is written.
pub fn prepare_dir(dir: &Path, flag: &str) -> Result<FolderLock, CliError> {
    ensure_writable(dir, flag)?;
    let lock = FolderLock::acquire(dir, flag).map_err(CliError)?;
    ensure_writable(dir, flag)?;
    // Locked, so the temporaries it holds are of runs that were killed,
    // and so are the parent links spilled under a report folder.
    scratch::sweep_leftovers(dir, true);
    if flag == "--out" || flag == "--baselines" {
        scratch::sweep_spill(&dir.join("links"));
    }
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

/// Adds a counterexample to `set`'s traces as `STEM.json` (the replay
/// format) and `STEM.itf.json` (ITF).
pub fn write_counterexample(
    set: &mut ReportSet,
    stem: &str,
    c: &Counterexample,
    compiled: &Compiled,
) -> Result<Written, CliError> {
    let trace_path = set.add_trace(&format!("{stem}.json"), c.trace.to_json_string().as_bytes())?;
    let itf_name = format!("{stem}.itf.json");
    let itf = to_itf(&c.stores, &c.trace.steps, compiled);
    let mut itf_bytes = serde_json::to_vec_pretty(&itf)
        .map_err(|e| CliError(format!("{itf_name}: cannot encode: {e}")))?;
    itf_bytes.push(b'\n');
    let itf_path = set.add_trace(&itf_name, &itf_bytes)?;
    Ok(Written {
        trace: trace_path.display().to_string(),
        itf: itf_path.display().to_string(),
    })
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
