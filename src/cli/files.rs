//! Writing a command's files: atomically (temporary file, then rename),
//! with write failures turned into one-line errors naming the file.

use super::CliError;
use crate::atomic_file::write_atomic;
use crate::check::summary::Written;
use crate::check::Counterexample;
use crate::config::Compiled;
use crate::trace::to_itf;
use std::path::Path;

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    write_atomic(path, bytes)
        .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))
}

/// Writes a counterexample as `DIR/STEM.json` (the replay format) and
/// `DIR/STEM.itf.json` (ITF).
pub fn write_counterexample(
    dir: &Path,
    stem: &str,
    c: &Counterexample,
    compiled: &Compiled,
) -> Result<Written, CliError> {
    let trace_path = dir.join(format!("{stem}.json"));
    let itf_path = dir.join(format!("{stem}.itf.json"));
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
