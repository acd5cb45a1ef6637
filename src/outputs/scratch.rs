//! The temporaries of a run: what it has written and will rename or
//! remove itself (a report or trace file staged under a temporary name,
//! parent links spilled under `OUT/links/`, the hosts file of
//! `--local-processes`, the checkout of `--before-rev`), so that a signal
//! can remove them before the process exits (issue 28.6), and what runs
//! killed earlier left, which a later run into the same folder removes.
//!
//! Only what this process registered is removed on a signal, and a file
//! leaves the registry in the same critical section as its rename into
//! place ([`renamed`]), so a signal never removes a finished report; a
//! step of several renames that must not be cut short (a report set's
//! commit) runs [`whole`], and a signal waits for it.
//! Leftovers are recognised by the exact names this crate gives its
//! temporaries, which carry the process id: in a folder this run holds
//! locked ([`super::FolderLock`]) no other live run can be writing, so
//! every such name is a dead run's; in a folder it does not lock, only
//! names whose process is gone are removed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

/// A registered temporary.
#[derive(Debug, Clone)]
enum Entry {
    /// A file this run created.
    File(PathBuf),
    /// A folder of parent-link spills (`links-DDDD.bin`): those files,
    /// then the folder if it is then empty.
    Spill(PathBuf),
    /// A folder this run made for itself alone (a revision's checkout),
    /// removed with everything in it.
    Dir(PathBuf),
    /// A folder its owner tidies with a function of its own (a
    /// checkpoint: the links files past its last sealed level).
    Tidy(PathBuf, fn(&Path) -> bool),
}

static REGISTRY: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Held (shared) by every step that must finish or be undone before the
/// process exits ([`whole`]), and (exclusive, for good) by a signal's
/// removal before it begins.
static WHOLE: RwLock<()> = RwLock::new(());

/// Runs `step` (a report set's commit: its manifest marked incomplete,
/// its files renamed, the earlier set's removed, the manifest completed)
/// so that a signal comes wholly before or wholly after it: a signal that
/// arrives meanwhile waits for it to end before removing anything and
/// exiting (issue 51.3), and once a signal's removal has begun, `step`
/// never starts.
pub fn whole<T>(step: impl FnOnce() -> T) -> T {
    let _held = WHOLE.read().unwrap_or_else(|e| e.into_inner());
    step()
}

/// Registers the file `path`, which this run is about to create.
pub fn track_file(path: &Path) {
    registry().push(Entry::File(path.to_path_buf()));
}

/// Registers the parent-link spill folder `dir`.
pub fn track_spill(dir: &Path) {
    registry().push(Entry::Spill(dir.to_path_buf()));
}

/// Registers the folder `dir`, which this run is about to make for
/// itself alone: a signal removes it whole.
pub fn track_dir(dir: &Path) {
    registry().push(Entry::Dir(dir.to_path_buf()));
}

/// Registers the folder `dir`, which a signal (or the end of a process
/// that lost a peer) leaves tidied by `tidy`, a function of the layer
/// that knows its files (this one knows only names of its own).
pub fn track_tidy(dir: &Path, tidy: fn(&Path) -> bool) {
    registry().push(Entry::Tidy(dir.to_path_buf(), tidy));
}

/// Forgets the folder `dir` (removed by its maker).
pub fn forget_dir(dir: &Path) {
    registry().retain(|e| !matches!(e, Entry::Dir(d) if d == dir));
}

/// Forgets the file `path` (removed, or renamed, by its writer).
pub fn forget(path: &Path) {
    registry().retain(|e| !matches!(e, Entry::File(p) if p == path));
}

/// Renames the registered `tmp` onto `dest` and forgets it, with no
/// signal's removal in between.
pub fn renamed(tmp: &Path, dest: &Path) -> io::Result<()> {
    let mut entries = registry();
    fs::rename(tmp, dest)?;
    entries.retain(|e| !matches!(e, Entry::File(p) if p == tmp));
    Ok(())
}

/// Runs `create`, which makes a file or folder inside a registered
/// spill folder, so that a signal's removal ([`remove_all_and_hold`])
/// comes wholly before or wholly after it: once that removal has begun,
/// `create` never runs (the process exits first), and what it made before
/// is among what the removal finds.
pub fn creating<T>(create: impl FnOnce() -> T) -> T {
    let _held = registry();
    create()
}

/// Removes every registered temporary, and keeps the registry locked so
/// that no writer renames or registers anything after: for a process
/// about to exit on a signal. Returns how many entries it removed.
pub fn remove_all_and_hold() -> usize {
    // After any step under way ends, and before any other begins.
    std::mem::forget(WHOLE.write().unwrap_or_else(|e| e.into_inner()));
    let entries = registry();
    let mut removed = 0;
    for entry in entries.iter() {
        let gone = match entry {
            Entry::File(path) => fs::remove_file(path).is_ok(),
            Entry::Spill(dir) => remove_spill(dir),
            Entry::Dir(dir) => fs::remove_dir_all(dir).is_ok(),
            Entry::Tidy(dir, tidy) => tidy(dir),
        };
        removed += usize::from(gone);
    }
    std::mem::forget(entries);
    removed
}

/// Removes the `links-DDDD.bin` files of `dir` and then `dir` if empty;
/// whether anything was removed.
fn remove_spill(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    let mut removed = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && is_links_file(&name.to_string_lossy()) {
            removed |= fs::remove_file(entry.path()).is_ok();
        }
    }
    removed | fs::remove_dir(dir).is_ok()
}

/// `links-DDDD.bin`, the name of a level's parent links.
fn is_links_file(name: &str) -> bool {
    name.strip_prefix("links-")
        .and_then(|n| n.strip_suffix(".bin"))
        .is_some_and(|d| d.len() == 4 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The process a temporary's name says wrote it, if it is one of ours:
/// `.NAME.MILLIS-PID-N.tmp` (a report set's staged file), `.NAME.tmp.PID.N`
/// (a file written whole), `.memtx-probe-PID` (a writability probe).
fn writer_of(name: &str) -> Option<u32> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let rest = name.strip_prefix('.')?;
    if let Some(pid) = rest.strip_prefix("memtx-probe-") {
        return digits(pid).then(|| pid.parse().ok()).flatten();
    }
    if let Some(stem) = rest.strip_suffix(".tmp") {
        let (file, run) = stem.rsplit_once('.')?;
        let parts: Vec<&str> = run.split('-').collect();
        if !file.is_empty() && parts.len() == 3 && parts.iter().all(|p| digits(p)) {
            return parts[1].parse().ok();
        }
    }
    let (stem, n) = rest.rsplit_once('.')?;
    let (stem, pid) = stem.rsplit_once('.')?;
    let file = stem.strip_suffix(".tmp")?;
    (!file.is_empty() && digits(n) && digits(pid))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether process `pid` is running (Linux: `/proc/PID`); `true` where
/// that cannot be known, so nothing is removed on a guess.
fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes from `dir` the temporaries of runs that were killed: every
/// one when `locked` (this run holds `dir`'s lock, so their writers are
/// gone), else those whose process is gone. Returns the names removed. Never follows a symlink: only regular files are
/// removed.
pub fn sweep_leftovers(dir: &Path, locked: bool) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = writer_of(&name) else {
            continue;
        };
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if regular
            && pid != std::process::id()
            && (locked || !alive(pid))
            && fs::remove_file(entry.path()).is_ok()
        {
            removed.push(name);
        }
    }
    removed
}

/// Removes the parent links a killed run spilled into `dir` (a report
/// folder's `links/`), for a run that holds the report folder's lock:
/// the `links-DDDD.bin` files, then `dir` if empty; never through a
/// symlink. Whether anything was removed.
pub fn sweep_spill(dir: &Path) -> bool {
    fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) && remove_spill(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_of_our_temporaries_are_read_as_ours() {
        assert_eq!(
            writer_of(".growth.csv.1700000000000-4242-0.tmp"),
            Some(4242)
        );
        assert_eq!(writer_of(".no-gate-I2.json.17-9-3.tmp"), Some(9));
        assert_eq!(writer_of(".manifest.json.tmp.4242.7"), Some(4242));
        assert_eq!(writer_of(".memtx-probe-4242"), Some(4242));
        for name in [
            "growth.csv",
            ".notes.tmp",
            ".growth.csv.17-x-0.tmp",
            ".growth.csv.17-42.tmp",
            "..17-42-0.tmp",
            ".manifest.json.tmp.42",
            ".manifest.json.tmp.a.1",
            ".memtx-probe-",
            "links-0001.bin",
        ] {
            assert_eq!(writer_of(name), None, "{name}");
        }
        assert!(is_links_file("links-0009.bin"));
        assert!(!is_links_file("links-9.bin") && !is_links_file("links-0009.bin.bak"));
    }

    #[test]
    fn a_sweep_removes_dead_runs_temporaries_and_nothing_of_the_users() {
        let dir = std::env::temp_dir().join(format!("memtx-scratch-sweep-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("links")).unwrap();
        // Process ids above the kernel's maximum (4194304) run nowhere.
        let dead = [
            ".growth.csv.1-99999999-0.tmp",
            ".summary.json.tmp.99999999.3",
        ];
        let mine = format!(".growth.csv.1-{}-0.tmp", std::process::id());
        let users = ["keep.txt", ".notes.tmp", "growth.csv"];
        for name in dead
            .iter()
            .chain(&users)
            .map(|s| s.to_string())
            .chain([mine.clone()])
        {
            fs::write(dir.join(name), b"x").unwrap();
        }
        fs::write(dir.join("links/links-0001.bin"), b"x").unwrap();
        let mut removed = sweep_leftovers(&dir, false);
        removed.sort();
        assert_eq!(
            removed,
            dead.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        );
        assert!(
            sweep_leftovers(&dir, true).is_empty(),
            "only ours were there"
        );
        assert!(dir.join("links/links-0001.bin").exists());
        assert!(sweep_spill(&dir.join("links")));
        assert!(!dir.join("links").exists());
        for name in users.iter().map(|s| s.to_string()).chain([mine]) {
            assert!(dir.join(&name).exists(), "{name} kept");
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_spill_keeps_what_is_not_a_links_file() {
        let dir = std::env::temp_dir().join(format!("memtx-scratch-spill-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("links-0001.bin"), b"x").unwrap();
        fs::write(dir.join("mine.txt"), b"x").unwrap();
        assert!(remove_spill(&dir));
        assert!(!dir.join("links-0001.bin").exists() && dir.join("mine.txt").exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
