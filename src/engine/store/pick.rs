//! Which level store a run has: in memory, or a `--disk` run's folder,
//! from its options or from what its checkpoint holds (the one place
//! that asks).

use super::memory::{self, MemoryLevels};
use super::Store;
/// What a store put into a checkpoint level (for the checkpoint's meta).
pub(in crate::engine) use super::Stored;
use crate::engine::disk::DiskLevels;
use crate::engine::fp::{Fp, SHARDS};
use crate::engine::options::EngineOptions;
use crate::engine::part::Part;
use crate::engine::state_check::StateCheck;
use std::path::Path;

/// A resumed run's store and frontier.
type Resumed<'a, S, W> = (Store<'a, S, W>, Vec<Part<S, W>>);

/// The folder a run with `opts` keeps its levels' files in (checkpoints
/// and parent links), if it keeps them in one.
pub(in crate::engine) fn run_folder(opts: &EngineOptions) -> Option<&Path> {
    opts.disk.as_deref().or(opts.checkpoint.as_deref())
}

/// The store of a fresh run with `opts`.
pub(in crate::engine) fn open<'a, S, W>(opts: &'a EngineOptions) -> Store<'a, S, W>
where
    S: Clone + Send + Sync + 'a,
    W: Fp,
{
    match &opts.disk {
        Some(dir) => Box::new(DiskLevels::<W>::new(dir, opts.max_memory)),
        None => Box::new(MemoryLevels::new(opts)),
    }
}

/// Whether a checkpoint's meta (`meta_on_disk`: it names a `--disk`
/// run's files) may be continued by a run with `opts`: `Err` in one line
/// saying how to continue it.
pub(in crate::engine) fn check_kind(
    dir: &Path,
    meta_on_disk: bool,
    opts: &EngineOptions,
) -> Result<(), String> {
    match (meta_on_disk, opts.disk.is_some()) {
        (true, false) => Err(format!(
            "{}: the checkpoint is a --disk run's folder: continue it with --disk {0} --resume {0}",
            dir.display()
        )),
        (false, true) => Err(format!(
            "{}: the checkpoint is not a --disk run's: continue it without --disk",
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// Reads the files a checkpoint level of `dir` (in `level`) holds back
/// against what its meta records of them (`stored`) and its counts
/// (`total` states, `last` in the frontier), each state of the frontier
/// judged by `states`: see `checkpoint::check_resumable`.
pub(in crate::engine) fn check_files<W: Fp>(
    stored: &Stored,
    dir: &Path,
    level: &Path,
    (total, last): (u64, u64),
    states: Option<&StateCheck>,
) -> Result<(), String> {
    match stored {
        Stored::Disk(disk) => DiskLevels::<W>::check_files(dir, level, disk, (total, last), states),
        Stored::Files { visited, frontier } => {
            memory::check_files::<W>(level, (*visited, *frontier), (total, last), states)
        }
    }
}

/// The store and the frontier of a run resumed from level `meta` of
/// `dir` (in `level`), its files read back whole.
pub(in crate::engine) fn resumed<'a, S, W>(
    opts: &'a EngineOptions,
    dir: &Path,
    level: &Path,
    stored: &Stored,
    counts: (u64, u64),
) -> Result<Resumed<'a, S, W>, String>
where
    S: Clone + Send + Sync + 'a,
    W: Fp,
{
    match stored {
        Stored::Disk(disk) => {
            check_files::<W>(stored, dir, level, counts, None)?;
            let disk = DiskLevels::<W>::resumed(dir, opts.max_memory, disk);
            disk.clear_unsealed();
            let frontier = (0..SHARDS).map(|_| Part::new()).collect();
            Ok((Box::new(disk), frontier))
        }
        Stored::Files { visited, frontier } => {
            let (memory, frontier) =
                MemoryLevels::resumed(opts, level, (*visited, *frontier), counts)?;
            Ok((Box::new(memory), frontier))
        }
    }
}
