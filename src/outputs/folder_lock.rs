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
    /// The highest folder this run made on the way to `path`, when it
    /// made it: removed when dropped if the run left it (and every folder
    /// down to `path`) empty.
    made: Option<PathBuf>,
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
                made: None,
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

    /// Tells the lock that this run made `made` (the folder or one above
    /// it, [`first_missing`] before the run made it): if the run ends
    /// leaving it empty (refused after the folder was made, say), the lock
    /// removes it when dropped, so a refusal leaves nothing behind. A
    /// folder that holds anything is never removed.
    pub fn remove_if_left_empty(&mut self, made: Option<PathBuf>) {
        self.made = made;
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        let Some(top) = &self.made else { return };
        let mut dir = self.path.as_path();
        // `remove_dir` removes only an empty folder.
        while std::fs::remove_dir(dir).is_ok() && dir != top {
            match dir.parent() {
                Some(parent) => dir = parent,
                None => return,
            }
        }
    }
}

/// The highest folder of `dir`'s path that is not there yet (`dir`
/// itself, or one above it), or `None` when `dir` is there.
pub fn first_missing(dir: &Path) -> Option<PathBuf> {
    let mut missing = None;
    let mut at = dir;
    while std::fs::symlink_metadata(at).is_err() {
        missing = Some(at.to_path_buf());
        match at.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => at = parent,
            _ => break,
        }
    }
    missing
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
    fn a_folder_made_for_a_run_that_wrote_nothing_is_removed_and_nothing_else() {
        let base = std::env::temp_dir().join(format!("memtx-folder-made-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        let dir = base.join("a/b");
        assert_eq!(first_missing(&dir), Some(base.join("a")));
        std::fs::create_dir_all(&dir).unwrap();
        let mut lock = FolderLock::acquire(&dir, "--out").unwrap();
        lock.remove_if_left_empty(Some(base.join("a")));
        drop(lock);
        assert!(!base.join("a").exists(), "both folders made are gone");
        assert!(base.exists(), "the folder that was there stays");
        // One that the run wrote into stays, whole.
        std::fs::create_dir_all(&dir).unwrap();
        let mut lock = FolderLock::acquire(&dir, "--out").unwrap();
        lock.remove_if_left_empty(first_missing(&dir));
        std::fs::write(dir.join("manifest.json"), "{}").unwrap();
        lock.remove_if_left_empty(Some(base.join("a")));
        drop(lock);
        assert!(dir.join("manifest.json").is_file());
        assert_eq!(first_missing(&dir), None);
        std::fs::remove_dir_all(&base).unwrap();
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
