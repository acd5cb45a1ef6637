//! Scratch directories for the end-to-end tests: one per name under
//! cargo's per-target scratch space (`target/tmp`), removed first, so that
//! a rerun replaces the last run's files, an interrupted run leaves one
//! directory per test rather than one per process, and no test writes
//! outside `target/`. Names must be unique across the test binaries,
//! which run at the same time: each test file prefixes its own.

use std::path::{Path, PathBuf};

/// `target/tmp/NAME`, removed if it was there: for a directory the binary
/// under test must create.
#[allow(dead_code)] // each test binary uses one or both
pub fn absent(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `target/tmp/NAME`, present and empty.
#[allow(dead_code)]
pub fn fresh(name: &str) -> PathBuf {
    let dir = absent(name);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Copies the directory `from` (files and subdirectories) to `to`.
#[allow(dead_code)]
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a copy's directory");
    for entry in std::fs::read_dir(from).expect("read a directory to copy") {
        let path = entry.expect("a directory entry").path();
        let dest = to.join(path.file_name().expect("an entry has a name"));
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).expect("copy a file");
        }
    }
}
