//! Input files to bytes and text. Every file an input names (a
//! model, a trace, a saved summary or growth.csv) is read by
//! [`read_bytes`], so a rule about what may be read is written once, here:
//! only a regular file, and at most [`MAX_INPUT_BYTES`] of it. A FIFO would
//! block until a writer comes, and `/dev/zero` never ends.

use super::InputError;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// The most an input file may hold: the largest shipped model or trace is
/// a few kilobytes, so 64 MiB is far beyond any honest input and still
/// small enough to hold in memory.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// A regular file's bytes, at most [`MAX_INPUT_BYTES`]; anything else (a
/// missing or unreadable file, a directory, a FIFO, a device, a larger
/// file) is a one-line error.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    // Judged before opening: opening a FIFO waits for a writer.
    let before = std::fs::metadata(path).map_err(|e| cannot_read(path, e))?;
    regular_and_small(path, &before)?;
    let file = File::open(path).map_err(|e| cannot_read(path, e))?;
    // Judged again on what was opened, had the path changed in between.
    let opened = file.metadata().map_err(|e| cannot_read(path, e))?;
    regular_and_small(path, &opened)?;
    let mut bytes = Vec::new();
    // A file that grows while it is read (or a /proc file, whose size says
    // 0) still stops one byte past the limit.
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot_read(path, e))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(path, "more"));
    }
    Ok(bytes)
}

/// A file's text, which must be UTF-8.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    // The words of `std::fs::read_to_string`, which read these files before.
    String::from_utf8(read_bytes(path)?)
        .map_err(|_| cannot_read(path, "stream did not contain valid UTF-8"))
}

fn regular_and_small(path: &Path, meta: &Metadata) -> Result<(), InputError> {
    if !meta.is_file() {
        return Err(cannot_read(
            path,
            format!(
                "{} is not a regular file (inputs are read from regular files only)",
                kind(meta)
            ),
        ));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_large(path, &meta.len().to_string()));
    }
    Ok(())
}

fn too_large(path: &Path, size: &str) -> InputError {
    cannot_read(
        path,
        format!(
            "{size} bytes is more than the {} MiB an input file may hold",
            MAX_INPUT_BYTES / (1024 * 1024)
        ),
    )
}

/// What a non-regular file is, in words.
fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

fn cannot_read(path: &Path, e: impl std::fmt::Display) -> InputError {
    InputError::new(format!("{}: cannot read: {e}", path.display()))
}

/// The file stem of `origin`, the default name of what it holds.
pub(crate) fn stem(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| origin.to_owned())
}
