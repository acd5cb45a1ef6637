//! The files of a checkpoint, shared by the single-process engine
//! (`checkpoint`) and the distributed one (`distributed::checkpoint`): a
//! level's directory `level-DDDD/` is written under a temporary name,
//! each file synced, and renamed when complete, so it is complete or
//! absent; the complete levels of a directory are the `level-*` names in
//! it. Also the binary pieces they hold (little-endian integers, fixed
//! width words) and a level's counts as one row.

use super::fingerprint::{scheme_mismatch, unnumbered_scheme, FINGERPRINT_SCHEME};
use super::labels::TallyCounts;
use super::parallel::map_dynamic;
use super::report::LevelStats;
use super::seal::{damaged, seal_of, Seal, SealingWriter};
use crate::outputs::scratch;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A write of the engine's files failed: one line naming the file and
/// the cause (a full disk is the usual one), for the run to stop on.
pub(crate) fn cannot_write(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write {}: {e}", path.display())
}

/// The directory of level `depth` in `dir`.
pub(crate) fn level_dir(dir: &Path, depth: usize) -> PathBuf {
    dir.join(format!("level-{depth:04}"))
}

/// The file of level `depth`'s parent links in `dir` (each engine writes
/// its own records into it: `links`, `distributed::links`).
pub(crate) fn links_file(dir: &Path, depth: usize) -> PathBuf {
    dir.join(format!("links-{depth:04}.bin"))
}

/// The complete levels checkpointed in `dir`, shallowest first (none if
/// `dir` is missing).
pub(crate) fn complete_levels(dir: &Path) -> Vec<usize> {
    let mut levels: Vec<usize> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_prefix("level-")?.parse().ok()
        })
        .collect();
    levels.sort_unstable();
    levels
}

/// Removes from the checkpoint folder `dir` the links files of levels
/// deeper than its deepest complete one, by name, never through a
/// symlink: a level whose checkpoint was not written whole (a full disk,
/// a signal, a lost peer) leaves no links file behind it. Whether it
/// removed one.
pub(crate) fn remove_unsealed_links(dir: &Path) -> bool {
    let sealed = complete_levels(dir).last().copied().unwrap_or(0);
    let mut removed = false;
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let depth = name
            .strip_prefix("links-")
            .and_then(|d| d.strip_suffix(".bin"))
            .filter(|d| d.len() == 4)
            .and_then(|d| d.parse::<usize>().ok());
        let file = e.file_type().is_ok_and(|t| t.is_file());
        if file && depth.is_some_and(|d| d > sealed) {
            removed |= fs::remove_file(e.path()).is_ok();
        }
    }
    removed
}

/// The temporary directory level `depth` of `dir` is written in.
pub(crate) fn tmp_level_dir(dir: &Path, depth: usize) -> PathBuf {
    dir.join(format!(".level-{depth:04}.tmp"))
}

/// Writes level `depth`'s directory in `dir`: `write` fills a temporary
/// directory, which is then renamed ([`seal_level`]).
pub(crate) fn save_level(
    dir: &Path,
    depth: usize,
    keep_from: usize,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let tmp = tmp_level_dir(dir, depth);
    let _ = fs::remove_dir_all(&tmp);
    clear_discarded(dir, remove_all);
    let written = fs::create_dir_all(&tmp)
        .map_err(|e| cannot_write(&tmp, e))
        .and_then(|()| write(&tmp));
    seal_level(dir, depth, keep_from, written, remove_all)
}

/// Renames level `depth`'s temporary directory in `dir`, once `written`
/// says its files are, to the level's name, so the level is complete or
/// absent. The levels shallower than `keep_from` are removed afterwards
/// with `remove`, and only then: a level that fails to be written (`Err`,
/// one line naming the file and the cause) leaves no temporary directory
/// and the levels before it as they were, so the run can be resumed from
/// the last one.
pub(crate) fn seal_level(
    dir: &Path,
    depth: usize,
    keep_from: usize,
    written: Result<(), String>,
    remove: impl Fn(&Path),
) -> Result<(), String> {
    let (tmp, done) = (tmp_level_dir(dir, depth), level_dir(dir, depth));
    let sealed = written.and_then(|()| {
        // A level redone after a resume from an earlier one replaces its
        // old copy.
        discard_level(&done, &remove);
        // Wholly before or after a signal's cleanup, which removes the
        // links files past the last level sealed.
        scratch::creating(|| fs::rename(&tmp, &done)).map_err(|e| cannot_write(&done, e))
    });
    if sealed.is_err() {
        remove(&tmp);
        return sealed;
    }
    for old in complete_levels(dir) {
        if old < keep_from {
            discard_level(&level_dir(dir, old), &remove);
        }
    }
    Ok(())
}

/// Removes the level directory `level` so that it is whole or gone by
/// its name at every moment, as a level is written: it is renamed to
/// `.level-DDDD.old` (no level's name) first, and only then emptied by
/// `remove` and removed. Removed in place, a run killed half-way left a
/// `level-DDDD/` without its `meta.json` that a resume then read as a
/// damaged level. A `.old` left by such a kill is cleared by the next
/// write of a level ([`clear_discarded`]).
pub(crate) fn discard_level(level: &Path, remove: impl Fn(&Path)) {
    let Some(retired) = discarded_name(level) else {
        return remove(level);
    };
    remove(&retired);
    match fs::rename(level, &retired) {
        Ok(()) => remove(&retired),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        // (a `.old` that could not be cleared): in place, as before.
        Err(_) => remove(level),
    }
}

/// The name [`discard_level`] gives `level` while it removes it.
fn discarded_name(level: &Path) -> Option<PathBuf> {
    let name = level.file_name()?.to_str()?;
    Some(level.with_file_name(format!(".{name}.old")))
}

/// Whether `name` is one [`discard_level`] gives a level it removes.
pub(crate) fn is_discarded_name(name: &str) -> bool {
    name.strip_prefix(".level-")
        .and_then(|d| d.strip_suffix(".old"))
        .is_some_and(|d| d.len() == 4 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Removes with `remove` the levels of `dir` whose removal a kill
/// interrupted ([`discard_level`]).
pub(crate) fn clear_discarded(dir: &Path, remove: impl Fn(&Path)) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && entry.file_name().to_str().is_some_and(is_discarded_name) {
            remove(&entry.path());
        }
    }
}

/// A level directory's removal, with everything in it (the engines'
/// own folders: the distributed worker's, the checkpoint's levels).
fn remove_all(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
}

/// Where a checkpoint file is written: its seal is taken on the way.
pub(crate) type SealedFile = SealingWriter<BufWriter<File>>;

/// Writes the file `path` with `body`, syncs it and returns its seal. A
/// file or link already at `path` is removed first and the file created
/// anew, so a link planted in a checkpoint directory is never written
/// through. A failed write (`Err`, one line naming the file and the
/// cause) removes what it wrote.
pub(crate) fn write_file(
    path: &Path,
    body: impl FnOnce(&mut SealedFile) -> std::io::Result<()>,
) -> Result<Seal, String> {
    write_created(path, create_new(path)?, body)
}

/// [`write_file`] into `file`, which the caller created anew at `path`.
pub(crate) fn write_created(
    path: &Path,
    file: File,
    body: impl FnOnce(&mut SealedFile) -> std::io::Result<()>,
) -> Result<Seal, String> {
    let written = fill(file, body);
    if written.is_err() {
        let _ = fs::remove_file(path);
    }
    written.map_err(|e| cannot_write(path, e))
}

/// [`write_file`]'s body, flush and sync on the file it created.
fn fill(
    file: File,
    body: impl FnOnce(&mut SealedFile) -> std::io::Result<()>,
) -> std::io::Result<Seal> {
    let mut out = SealingWriter::new(BufWriter::with_capacity(1 << 16, file));
    body(&mut out)?;
    seal_and_sync(out)
}

/// Flushes and syncs a sealed file, returning its seal.
fn seal_and_sync(out: SealedFile) -> std::io::Result<Seal> {
    let (seal, file) = flush(out)?;
    file.sync_all()?;
    Ok(seal)
}

/// Flushes a sealed file: its seal, and the file.
fn flush(out: SealedFile) -> std::io::Result<(Seal, File)> {
    #[cfg(test)]
    inject::fault()?;
    let seal = out.seal();
    let file = out.into_inner().into_inner().map_err(|e| e.into_error())?;
    Ok((seal, file))
}

/// A file written piece by piece, as [`write_file`] writes one in a
/// closure: created anew (never through a link), sealed as it is
/// written, and removed if dropped unfinished or if a write fails; the
/// caller syncs it ([`sync_files`]).
pub(crate) struct SealedOut {
    path: PathBuf,
    out: Option<SealedFile>,
    /// Small writes gather here, sealed and written 64 KiB at a time.
    pending: Vec<u8>,
}

/// Creates the file `path` anew: a file or link already there is removed
/// first (never written through); `Err` in one line naming it.
pub(crate) fn create_new(path: &Path) -> Result<File, String> {
    let open = || {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = fs::remove_file(path);
            open()
        }
        opened => opened,
    }
    .map_err(|e| cannot_write(path, e))
}

/// Bytes a [`SealedOut`] gathers before it writes them.
const PENDING: usize = 1 << 16;

impl SealedOut {
    pub(crate) fn create(path: &Path) -> Result<Self, String> {
        let file = create_new(path)?;
        Ok(SealedOut {
            path: path.to_path_buf(),
            out: Some(SealingWriter::new(BufWriter::with_capacity(1 << 12, file))),
            pending: Vec::with_capacity(PENDING),
        })
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= PENDING {
            self.write_pending()?;
        }
        Ok(())
    }

    fn write_pending(&mut self) -> Result<(), String> {
        let out = self.out.as_mut().expect("written before it is finished");
        let written = out.write_all(&self.pending);
        self.pending.clear();
        written.map_err(|e| cannot_write(&self.path, e))
    }

    /// Flushes the file without syncing it (the caller syncs it later,
    /// with others at once: see [`sync_files`]): its seal, or `Err`.
    pub(crate) fn finish_unsynced(mut self) -> Result<Seal, String> {
        self.write_pending()?;
        let out = self.out.take().expect("finished once");
        flush(out).map(|(seal, _)| seal).map_err(|e| {
            let _ = fs::remove_file(&self.path);
            cannot_write(&self.path, e)
        })
    }
}

impl Drop for SealedOut {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Syncs `paths` (files, and the folders that name them) to the disk,
/// many at once: the file system then commits them together, where one
/// sync after another waits for a commit each (a `--disk` level has a
/// hundred and more files), as many as the memory guard leaves room for
/// (`thread_room`). `Err` names the first in `paths` that failed.
pub(crate) fn sync_files(paths: &[PathBuf]) -> Result<(), String> {
    const AT_ONCE: usize = 16;
    let at_once = super::guard::thread_room(AT_ONCE);
    let synced = map_dynamic(at_once, paths.iter().collect(), &|path| {
        File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(|e| cannot_write(path, e))
    });
    synced.into_iter().collect()
}

/// Test support: a full disk, injected into [`write_file`] on this thread.
#[cfg(test)]
pub(crate) mod inject {
    use std::cell::Cell;

    thread_local! {
        static FILES_LEFT: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// The next `files` files written on this thread succeed, and each one
    /// after fails once its body is written, as on a disk that filled up;
    /// `None`: no fault.
    pub(crate) fn fail_after(files: Option<usize>) {
        FILES_LEFT.with(|left| left.set(files));
    }

    pub(super) fn fault() -> std::io::Result<()> {
        FILES_LEFT.with(|left| match left.get() {
            Some(0) => Err(std::io::Error::from_raw_os_error(28)),
            Some(n) => {
                left.set(Some(n - 1));
                Ok(())
            }
            None => Ok(()),
        })
    }
}

/// Writes `meta.json` in `dir` as `{"sum": S, "meta": META}`, `S` the
/// checksum of `META` as serialised, which [`read_meta`] checks.
pub(crate) fn write_meta<T: Serialize>(dir: &Path, meta: &T) -> Result<Seal, String> {
    let text = serde_json::to_string(meta).expect("a checkpoint's meta serialises");
    let sum = seal_of(text.as_bytes()).sum;
    write_file(&dir.join("meta.json"), |out| {
        write!(out, "{{\"sum\":{sum},\"meta\":{text}}}")
    })
}

/// Reads the `meta.json` of the level directory `dir`, checking the
/// checksum [`write_meta`] put in it: `Err` in one line naming the file.
pub(crate) fn read_meta<T: Serialize + DeserializeOwned>(dir: &Path) -> Result<T, String> {
    #[derive(Deserialize)]
    struct Sealed {
        sum: u64,
        meta: serde_json::Value,
    }
    let path = dir.join("meta.json");
    let file = fs::metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !file.is_file() || file.len() > MAX_META_BYTES {
        return Err(damaged(&path, "not a regular file of at most 64 MiB"));
    }
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| damaged(&path, e))?;
    if value.get("sum").is_none() && value.get("identity").is_some() {
        return Err(format!(
            "{}: the checkpoint was made by an older build, which recorded no checksums: run the check afresh",
            path.display()
        ));
    }
    let sealed: Sealed = serde_json::from_value(value).map_err(|e| damaged(&path, e))?;
    let meta: T = serde_json::from_value(sealed.meta).map_err(|e| damaged(&path, e))?;
    let again = serde_json::to_string(&meta).expect("a checkpoint's meta serialises");
    if seal_of(again.as_bytes()).sum != sealed.sum {
        return Err(damaged(&path, "its checksum differs from the recorded one"));
    }
    Ok(meta)
}

/// A `meta.json` longer than this is not one this engine wrote (its
/// longest list has one row per depth).
const MAX_META_BYTES: u64 = 64 << 20;

/// What the meta of every checkpoint level records after its counts and
/// decisions, the engine's and each distributed worker's alike
/// (flattened into each meta, so its fields stay where they were): the
/// label counts, and the seals of the level's `visited.bin` and
/// `frontier.bin` (empty in a `--disk` run's) and of the links files of
/// levels 1 to its depth.
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct LevelSeals {
    label_transitions: Vec<u64>,
    label_first_depths: Vec<Option<usize>>,
    /// Each level's label counts, by depth (absent in older checkpoints).
    #[serde(default)]
    label_levels: Option<Vec<Vec<u64>>>,
    pub(crate) visited: Seal,
    pub(crate) frontier: Seal,
    pub(crate) links: Vec<Seal>,
}

impl LevelSeals {
    /// The record of a level with label counts `labels` and links files
    /// sealed `links`, before its two files are written.
    pub(crate) fn new(
        (label_transitions, label_first_depths, label_levels): TallyCounts,
        links: &[Seal],
    ) -> Self {
        let none = Seal { len: 0, sum: 0 };
        LevelSeals {
            label_transitions,
            label_first_depths,
            label_levels,
            visited: none,
            frontier: none,
            links: links.to_vec(),
        }
    }

    /// The label counts recorded.
    pub(crate) fn labels(&self) -> TallyCounts {
        (
            self.label_transitions.clone(),
            self.label_first_depths.clone(),
            self.label_levels.clone(),
        )
    }

    /// What does not fit a level at `depth`, if anything: a links file
    /// per level below it, a first depth per label.
    pub(crate) fn check(&self, depth: usize) -> Result<(), String> {
        if self.links.len() != depth {
            return Err(format!(
                "{} links files for depth {depth}",
                self.links.len()
            ));
        }
        if self.label_transitions.len() != self.label_first_depths.len() {
            return Err("the label counts do not match their first depths".into());
        }
        Ok(())
    }
}

/// What a checkpoint is of, as its meta names it (a single-process run's
/// and a distributed worker's part alike): the caller's identity of the
/// model and its bounds, the depth bound, the fingerprint width and the
/// build's fingerprint scheme. A resume must name the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunIdentity {
    pub(crate) identity: String,
    pub(crate) max_depth: Option<usize>,
    pub(crate) fingerprint_bits: u32,
    /// [`FINGERPRINT_SCHEME`] of the build that made it.
    #[serde(default = "unnumbered_scheme")]
    pub(crate) fingerprint_scheme: u32,
}

impl RunIdentity {
    /// A run of `identity` to `max_depth` with `fingerprint_bits`-bit
    /// fingerprints, by this build.
    pub(crate) fn new(identity: &str, max_depth: Option<usize>, fingerprint_bits: u32) -> Self {
        RunIdentity {
            identity: identity.to_owned(),
            max_depth,
            fingerprint_bits,
            fingerprint_scheme: FINGERPRINT_SCHEME,
        }
    }

    /// The first way the checkpoint in `dir`, of this run, differs from
    /// `asked`, in one line. `near` names identities of runs near the one
    /// asked (the same check with `--symmetry` turned, say) with the line
    /// a checkpoint of one is refused with, where "another model or
    /// bounds" would not say how.
    pub(crate) fn mismatch(
        &self,
        dir: &Path,
        asked: &RunIdentity,
        near: &[(String, String)],
    ) -> Option<String> {
        let shown = dir.display();
        if let Some((_, why)) = near.iter().find(|(i, _)| *i == self.identity) {
            return Some(format!("{shown}: {why}"));
        }
        if self.identity != asked.identity {
            return Some(format!(
                "{shown}: the checkpoint is of another model or bounds ({}), not {}",
                self.identity, asked.identity
            ));
        }
        if self.fingerprint_scheme != FINGERPRINT_SCHEME {
            return Some(scheme_mismatch(dir, self.fingerprint_scheme));
        }
        let depth = |d: Option<usize>| d.map_or("depth full".to_owned(), |d| format!("depth {d}"));
        (self.max_depth != asked.max_depth || self.fingerprint_bits != asked.fingerprint_bits).then(
            || {
                format!(
                    "{shown}: the checkpoint was made with {} and {}-bit fingerprints, not {} and {}",
                    depth(self.max_depth),
                    self.fingerprint_bits,
                    depth(asked.max_depth),
                    asked.fingerprint_bits
                )
            },
        )
    }
}

/// A level's counts as stored: depth, new, total, transitions, total
/// transitions, milliseconds.
pub(crate) fn level_row(l: &LevelStats) -> [u64; 6] {
    let (d, n, t, tr, ttr) = l.counts();
    [d as u64, n, t, tr, ttr, l.elapsed_ms]
}

/// The counts [`level_row`] stored.
pub(crate) fn level_stats(l: &[u64; 6]) -> LevelStats {
    LevelStats {
        depth: l[0] as usize,
        new_states: l[1],
        total_states: l[2],
        transitions: l[3],
        total_transitions: l[4],
        elapsed_ms: l[5],
    }
}

/// `bytes` as lowercase hex, and back.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `len` bytes `hex` spells, if it spells exactly that many.
pub(crate) fn unhex(hex: &str, len: usize) -> Option<Vec<u8>> {
    if hex.len() != 2 * len || !hex.is_ascii() {
        return None;
    }
    (0..len)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("memtx-level-files-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_failed_write_names_the_file_and_its_cause_and_removes_it() {
        let dir = scratch("file");
        let path = dir.join("links-0003.bin");
        let err = write_file(&path, |out| {
            out.write_all(&[7; 100_000])?;
            Err(std::io::Error::from_raw_os_error(28))
        })
        .unwrap_err();
        assert_eq!(
            err,
            format!(
                "cannot write {}: No space left on device (os error 28)",
                path.display()
            )
        );
        assert!(!path.exists(), "the half-written file is removed");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_level_that_fails_leaves_no_temporary_and_keeps_the_level_before() {
        let dir = scratch("level");
        let body =
            |tmp: &Path| write_file(&tmp.join("visited.bin"), |out| out.write_all(b"v")).map(drop);
        save_level(&dir, 1, 1, body).unwrap();
        inject::fail_after(Some(1));
        let err = save_level(&dir, 2, 2, |tmp| {
            body(tmp)?;
            write_file(&tmp.join("frontier.bin"), |out| out.write_all(b"f")).map(drop)
        })
        .unwrap_err();
        inject::fail_after(None);
        assert!(
            err.contains(".level-0002.tmp/frontier.bin: No space left"),
            "{err}"
        );
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            left,
            ["level-0001"],
            "no temporary, the last whole level kept"
        );
        assert_eq!(complete_levels(&dir), [1]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_level_whose_removal_is_cut_short_is_no_level_and_is_cleared_later() {
        let dir = scratch("discard");
        let body = |tmp: &Path| {
            for name in ["visited.bin", "frontier.bin", "meta.json"] {
                write_file(&tmp.join(name), |out| out.write_all(b"x"))?;
            }
            Ok(())
        };
        save_level(&dir, 3, 0, body).unwrap();
        // A kill after the first file is unlinked: the rest stays.
        discard_level(&level_dir(&dir, 3), |d| {
            let _ = fs::remove_file(d.join("meta.json"));
        });
        assert!(
            !level_dir(&dir, 3).exists() && complete_levels(&dir).is_empty(),
            "a half-removed level keeps no level's name"
        );
        assert!(dir.join(".level-0003.old/visited.bin").exists());
        save_level(&dir, 4, 0, body).unwrap();
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, ["level-0004"], "the next level clears it");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_the_names_discard_gives_are_discarded_names() {
        assert!(is_discarded_name(".level-0012.old"));
        for name in [
            "level-0012",
            ".level-0012.tmp",
            ".level-12.old",
            ".level-00a2.old",
        ] {
            assert!(!is_discarded_name(name), "{name}");
        }
    }
}
