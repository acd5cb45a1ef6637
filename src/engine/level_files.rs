//! The files of a checkpoint, shared by the single-process engine
//! (`checkpoint`) and the distributed one (`distributed::checkpoint`): a
//! level's directory `level-DDDD/` is written under a temporary name,
//! each file synced, and renamed when complete, so it is complete or
//! absent; the complete levels of a directory are the `level-*` names in
//! it. Also the binary pieces they hold (little-endian integers, fixed
//! width words) and a level's counts as one row.

use super::report::LevelStats;
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};

/// A checkpoint's I/O failed: nothing sensible can go on.
pub(crate) fn io<T>(what: &Path, r: std::io::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("checkpoint {}: {e}", what.display()))
}

/// The directory of level `depth` in `dir`.
pub(crate) fn level_dir(dir: &Path, depth: usize) -> PathBuf {
    dir.join(format!("level-{depth:04}"))
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

/// Writes level `depth`'s directory in `dir`: `write` fills a temporary
/// directory, which is then renamed, so the level is complete or absent.
/// The levels shallower than `keep_from` are removed afterwards.
pub(crate) fn save_level(dir: &Path, depth: usize, keep_from: usize, write: impl FnOnce(&Path)) {
    let tmp = dir.join(format!(".level-{depth:04}.tmp"));
    let _ = fs::remove_dir_all(&tmp);
    io(&tmp, fs::create_dir_all(&tmp));
    write(&tmp);
    let done = level_dir(dir, depth);
    // A level redone after a resume from an earlier one replaces its old
    // copy.
    let _ = fs::remove_dir_all(&done);
    io(&done, fs::rename(&tmp, &done));
    for old in complete_levels(dir) {
        if old < keep_from {
            let _ = fs::remove_dir_all(level_dir(dir, old));
        }
    }
}

/// Writes the file `path` with `body`, then syncs it.
pub(crate) fn write_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) {
    let mut out = BufWriter::new(io(path, File::create(path)));
    io(path, body(&mut out));
    let file = io(path, out.into_inner().map_err(|e| e.into_error()));
    io(path, file.sync_all());
}

/// Opens `path` for the `read_*` functions.
pub(crate) fn open(path: &Path) -> BufReader<File> {
    BufReader::new(io(path, File::open(path)))
}

pub(crate) fn read_u64(path: &Path, input: &mut impl Read) -> u64 {
    let mut b = [0; 8];
    io(path, input.read_exact(&mut b));
    u64::from_le_bytes(b)
}

/// The next `n` bytes of `input`.
pub(crate) fn read_bytes(path: &Path, input: &mut impl Read, n: usize) -> Vec<u8> {
    let mut bytes = vec![0; n];
    io(path, input.read_exact(&mut bytes));
    bytes
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

pub(crate) fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("a hex fingerprint"))
        .collect()
}
