//! Input files to text and JSON values. Every file an input names (a
//! model, a trace, a saved summary or growth.csv) is read by
//! [`read_bytes`], so a rule about what may be read (its kind, its size)
//! is written once, here.

use super::InputError;
use std::path::Path;

/// A file's bytes; a missing or unreadable file is a one-line error.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|e| cannot_read(path, e))
}

/// A file's text, which must be UTF-8.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    // The words of `std::fs::read_to_string`, which read these files before.
    String::from_utf8(read_bytes(path)?)
        .map_err(|_| cannot_read(path, "stream did not contain valid UTF-8"))
}

fn cannot_read(path: &Path, e: impl std::fmt::Display) -> InputError {
    InputError(format!("{}: cannot read: {e}", path.display()))
}

/// JSON text to a value; malformed JSON names line and column.
pub(crate) fn parse_json(text: &str, origin: &str) -> Result<serde_json::Value, InputError> {
    serde_json::from_str(text).map_err(|e| InputError(format!("{origin}: malformed JSON: {e}")))
}

/// The file stem of `origin`, the default name of what it holds.
pub(crate) fn stem(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| origin.to_owned())
}
