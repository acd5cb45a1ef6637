//! One run per folder: a run holds an exclusive advisory lock on every
//! folder it writes into (`--out`, `--checkpoint`/`--resume`, `--dump`,
//! `ci --out`, the baselines it blesses) for its whole life, and a second
//! run that wants the same folder is refused at once, naming the folder
//! and the process that holds it. Two runs into one folder would read
//! each other's parent-link spills and checkpoint levels.
//!
//! The lock is `flock(2)` on the folder itself (std's [`File::try_lock`]
//! on the directory opened read-only), so it leaves no lock file behind
//! among the user's files, is released by the kernel when the process
//! dies however it dies, and is held per open file description: two
//! locks on one folder conflict even within one process. The holder is
//! read from `/proc/locks` where there is one (Linux); elsewhere the
//! refusal says "another process".

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// A held folder lock; released when dropped.
#[must_use = "the folder is locked only while this is kept"]
#[derive(Debug)]
pub struct FolderLock {
    _dir: File,
    path: PathBuf,
}

impl FolderLock {
    /// Locks the existing folder `dir`, which `flag` chose; `Err` with one
    /// line when another run holds it or it cannot be locked.
    pub fn acquire(dir: &Path, flag: &str) -> Result<FolderLock, String> {
        let fail = |what: String| format!("{}: {flag}: {what}", dir.display());
        let handle = File::open(dir).map_err(|e| fail(format!("cannot open the folder: {e}")))?;
        match handle.try_lock() {
            Ok(()) => Ok(FolderLock {
                _dir: handle,
                path: dir.to_path_buf(),
            }),
            Err(TryLockError::WouldBlock) => Err(fail(format!(
                "another memtx-check run is writing into this folder ({}); wait for it to end, or choose another folder",
                holder(&handle).map_or_else(
                    || "another process".to_owned(),
                    |pid| format!("process {pid}")
                )
            ))),
            Err(TryLockError::Error(e)) => Err(fail(format!("cannot lock the folder: {e}"))),
        }
    }

    /// The folder it locks.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The process holding a `flock` on `file`'s inode, from `/proc/locks`
/// (`1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`: the pid, then
/// `MAJOR:MINOR:INODE`).
fn holder(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let inode = file.metadata().ok()?.ino();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (kind, pid, id) = (fields.get(1)?, fields.get(4)?, fields.get(5)?);
        let lock_inode: u64 = id.rsplit(':').next()?.parse().ok()?;
        (*kind == "FLOCK" && lock_inode == inode)
            .then(|| pid.parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_folder_is_refused_naming_the_holder_until_the_first_goes() {
        let dir = std::env::temp_dir().join(format!("memtx-folder-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = FolderLock::acquire(&dir, "--out").unwrap();
        assert_eq!(first.path(), dir);
        let refused = FolderLock::acquire(&dir, "--out").unwrap_err();
        assert!(
            refused.starts_with(&format!(
                "{}: --out: another memtx-check run",
                dir.display()
            )),
            "{refused}"
        );
        if Path::new("/proc/locks").exists() {
            assert!(
                refused.contains(&format!("(process {})", std::process::id())),
                "{refused}"
            );
        }
        assert!(!refused.contains('\n'));
        drop(first);
        let again = FolderLock::acquire(&dir, "--out").unwrap();
        drop(again);
        // Nothing is left among the folder's files.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_folder_that_is_not_there_is_one_line() {
        let e = FolderLock::acquire(Path::new("/nonexistent/memtx"), "--checkpoint").unwrap_err();
        assert!(
            e.starts_with("/nonexistent/memtx: --checkpoint: cannot open the folder"),
            "{e}"
        );
    }
}
