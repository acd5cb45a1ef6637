//! Writing a command's files: atomically (temporary file, then rename),
//! each path built inside its chosen folder ([`path_inside`]), with
//! failures turned into one-line errors naming the file.

use super::CliError;
use crate::atomic_file::write_atomic;
use crate::check::summary::Written;
use crate::check::Counterexample;
use crate::config::Compiled;
use crate::outputs::path_inside;
use crate::trace::to_itf;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    write_atomic(path, bytes)
        .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))
}

/// `dir/name`, refused when `name` is not a plain file name.
pub fn inside(dir: &Path, name: &str) -> Result<PathBuf, CliError> {
    path_inside(dir, name).map_err(CliError)
}

/// A model's report folder: `--out` as given, or `reports/NAME`.
pub fn report_dir(out: Option<&Path>, model_name: &str) -> Result<PathBuf, CliError> {
    match out {
        Some(dir) => Ok(dir.to_path_buf()),
        None => inside(Path::new("reports"), model_name),
    }
}

/// Writes a counterexample as `DIR/STEM.json` (the replay format) and
/// `DIR/STEM.itf.json` (ITF).
pub fn write_counterexample(
    dir: &Path,
    stem: &str,
    c: &Counterexample,
    compiled: &Compiled,
) -> Result<Written, CliError> {
    let trace_path = inside(dir, &format!("{stem}.json"))?;
    let itf_path = inside(dir, &format!("{stem}.itf.json"))?;
    write(&trace_path, c.trace.to_json_string().as_bytes())?;
    let itf = to_itf(&c.stores, &c.trace.steps, compiled);
    let mut itf_bytes = serde_json::to_vec_pretty(&itf)
        .map_err(|e| CliError(format!("{}: {e}", itf_path.display())))?;
    itf_bytes.push(b'\n');
    write(&itf_path, &itf_bytes)?;
    Ok(Written {
        trace: trace_path.display().to_string(),
        itf: itf_path.display().to_string(),
    })
}
