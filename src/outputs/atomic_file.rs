//! Atomic file output: a report or trace is written to a temporary file in
//! the destination's directory and renamed over the destination, so a
//! reader never sees a half-written file and an interrupted run leaves the
//! previous version intact. A rename replaces only a regular file (or
//! creates a new name): a destination that is a character device, a FIFO
//! or a socket (`--junit /dev/stdout`, a pipe a reader waits on) is
//! written through, never replaced; a symlink is followed to what it
//! names, and that is judged the same way; a directory is an error.

use super::scratch;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary files of one process writing concurrently.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically, creating missing parent
/// directories. The temporary file lives in the same directory, so the
/// final rename never crosses a file system.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let resolved;
    let path = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            resolved = fs::canonicalize(path)?;
            resolved.as_path()
        }
        _ => path,
    };
    match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is a directory, not a file",
            ))
        }
        Ok(meta) if !meta.is_file() => return write_through(path, bytes),
        _ => {}
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no file"))?;
    let tmp = dir.join(format!(
        ".{}.tmp.{}.{}",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    // Registered, so that a signal before the rename removes it.
    scratch::track_file(&tmp);
    let result = write_then_rename(&tmp, path, bytes);
    if result.is_err() {
        // Best effort: the temporary file is useless after a failure.
        let _ = fs::remove_file(&tmp);
        scratch::forget(&tmp);
    }
    result
}

/// Writes `bytes` into the existing non-regular file `path` (a device, a
/// FIFO, a socket) as it is, without a rename or a sync (neither applies).
fn write_through(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

fn write_then_rename(tmp: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    scratch::renamed(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("memtx-atomic-{}-{}", std::process::id(), name));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn creates_parents_and_replaces_whole_file() {
        let dir = scratch("replace");
        let path = dir.join("a/b/out.json");
        write_atomic(&path, b"first version, long").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_device_behind_a_symlink_is_written_through_not_replaced() {
        let dir = scratch("device");
        fs::create_dir_all(&dir).unwrap();
        let link = dir.join("junit.xml");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        write_atomic(&link, b"<testsuites/>").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temporary left");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_symlink_to_a_regular_file_replaces_the_file_it_names() {
        let dir = scratch("link");
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("real.json");
        fs::write(&target, b"old").unwrap();
        let link = dir.join("alias.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_written_through_to_its_reader() {
        let dir = scratch("fifo");
        fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: no mkfifo here");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_atomic(&fifo, b"through").unwrap();
        assert_eq!(reader.join().unwrap(), b"through");
        assert!(!fs::metadata(&fifo).unwrap().is_file(), "still a FIFO");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_is_an_error() {
        let dir = scratch("dir");
        fs::create_dir_all(dir.join("report.json")).unwrap();
        assert!(write_atomic(&dir.join("report.json"), b"x").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_without_a_file_name_is_an_error() {
        assert!(write_atomic(Path::new("/"), b"x").is_err());
    }
}
