//! Checkpoints of a distributed run: after each completed level every
//! worker writes its own part into `DIR/process-I/worker-J/` (what and
//! why: docs/distributed.md, "Checkpoints"), with the single-process
//! engine's level directories (`engine::level_files`) and in-memory run's
//! files (`engine::save_memory_level`); what is the worker's own is the
//! meta.
//!
//! A level's checkpoint is complete when every worker's part of it is.
//! A worker keeps its last two levels: when it writes level N, every
//! worker has written level N − 1 (the rounds of level N, which the
//! timely frontier closes only once every worker has sent in them, come
//! after each worker's write of N − 1), so at any moment the deepest
//! level every worker holds is one each of them still has. A resumed run
//! agrees on that level first (`worker`) and goes on from it.
//!
//! `meta.json` names the run and also the layout (processes, threads per
//! process), and seals the part's files as the engine's does;
//! [`check_resumable`] reads them back before any process connects
//! (docs/checkpoints.md).

use super::word::Word;
use crate::engine::level_files::{
    cannot_write, complete_levels, level_dir, links_file, read_meta, write_meta, RunIdentity,
};
use crate::engine::seal::{check_file, damaged, Seal};
use crate::engine::{check_memory_level, read_memory_level, save_memory_level};
use crate::engine::{LevelRecord, Restored, StateCheck, Visited};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// The format of a part that this build writes and reads: 3, the
/// single-process engine's `visited.bin` and `frontier.bin`, and its
/// record of decisions. Format 2 recorded decisions of its own; older
/// builds wrote files of their own and recorded no format.
const FILES: u32 = 3;

/// What a checkpoint is of: every part names it, and a resume must name
/// the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// The model, its bounds and properties as the caller names them, the
    /// depth bound and the fingerprints: the engine's record.
    #[serde(flatten)]
    pub(crate) run: RunIdentity,
    pub(crate) processes: usize,
    pub(crate) threads: usize,
}

/// What `meta.json` holds: the layout, and the engine's record of the
/// level.
#[derive(Serialize, Deserialize)]
struct Meta {
    layout: Layout,
    #[serde(flatten)]
    record: LevelRecord,
    /// The process and worker whose part this is (absent in older
    /// checkpoints): a part moved to another's folder is refused.
    #[serde(default)]
    part: Option<[usize; 2]>,
    /// [`FILES`] (absent in older checkpoints, whose files this build
    /// does not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    files: Option<u32>,
}

/// The folder of process `process`'s part in `dir` (a checkpoint, or the
/// spill folder `OUT/links`).
pub fn part_dir(dir: &Path, process: usize) -> PathBuf {
    dir.join(format!("process-{process}"))
}

/// The folder of worker `thread` in the part folder `part`.
pub fn worker_of(part: &Path, thread: usize) -> PathBuf {
    part.join(format!("worker-{thread}"))
}

/// The directory of worker `thread` of process `process` in `dir`.
pub(crate) fn worker_dir(dir: &Path, process: usize, thread: usize) -> PathBuf {
    worker_of(&part_dir(dir, process), thread)
}

/// Whether level `depth` of the worker folder `worker` is a part of a
/// run of `layout` (for a fresh run to replace it): `Err` saying why not.
pub(super) fn same_run(worker: &Path, depth: usize, layout: &Layout) -> Result<(), String> {
    let meta: Meta = read_meta(&level_dir(worker, depth))?;
    match mismatch(worker, &meta.layout, layout, &[]) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// A worker's part of a completed level, as [`load`] reads it: the run
/// to continue, the fingerprints the worker owns, and the seals of its
/// links files (checked before the run, `check_resumable`, and read as
/// needed).
pub(crate) struct SavedPart<S, W> {
    pub(crate) restored: Restored<S, W>,
    pub(crate) visited: Visited<W>,
    pub(crate) link_seals: Vec<Seal>,
}

/// Writes the worker's part of a level into its directory `dir`: what
/// the run knows, `record`, its states of the level, `frontier`, and its
/// visited set; its links files are there already (sealed as `record`
/// says). A failed write is `Err`, one line naming the file and the
/// cause, and leaves the level absent.
pub(crate) fn save<S: Clone, W: Word>(
    dir: &Path,
    part_of: [usize; 2],
    layout: &Layout,
    mut record: LevelRecord,
    frontier: &[crate::engine::Part<S, W>],
    visited: &Visited<W>,
) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
    let at = (record.depth, record.depth.saturating_sub(1));
    save_memory_level(dir, at, visited, frontier, |tmp, visited, frontier| {
        (record.seals.visited, record.seals.frontier) = (visited, frontier);
        let meta = Meta {
            layout: layout.clone(),
            record,
            part: Some(part_of),
            files: Some(FILES),
        };
        write_meta(tmp, &meta).map(drop)
    })
}

/// Reads level `depth` of the worker whose directory is `dir` (its links
/// stay in their files): `Err` in one line naming the file if one is not
/// what the level's meta recorded.
pub(crate) fn load<S: Clone, W: Word>(dir: &Path, depth: usize) -> Result<SavedPart<S, W>, String> {
    let level = level_dir(dir, depth);
    let meta: Meta = read_meta(&level)?;
    check_meta(&meta, &level, depth)?;
    let seals = &meta.record.seals;
    let (visited, frontier, _) = read_memory_level(&level, (seals.visited, seals.frontier))?;
    Ok(SavedPart {
        restored: meta.record.restored(frontier),
        visited,
        link_seals: meta.record.seals.links,
    })
}

/// Whether the meta of level `depth` (in directory `level`) is one of
/// that level with consistent counts and decisions (the engine's check).
fn check_meta(meta: &Meta, level: &Path, depth: usize) -> Result<(), String> {
    if meta.files != Some(FILES) {
        return Err(format!(
            "{}: written by an older build, in a format this one does not read: run the check afresh",
            level.display()
        ));
    }
    let bytes = meta.layout.run.fingerprint_bits as usize / 8;
    (meta.record.check(depth, bytes)).map_err(|what| damaged(&level.join("meta.json"), what))
}

/// Reads every file of level `depth` of the worker in `dir` back against
/// the seals its meta records, without keeping them, each state of its
/// frontier judged by `states`.
fn check_level(dir: &Path, depth: usize, states: Option<&StateCheck>) -> Result<Meta, String> {
    let level = level_dir(dir, depth);
    let meta: Meta = read_meta(&level)?;
    check_meta(&meta, &level, depth)?;
    let seals = (meta.record.seals.visited, meta.record.seals.frontier);
    match meta.layout.run.fingerprint_bits {
        128 => check_memory_level::<u128>(&level, seals, states)?,
        _ => check_memory_level::<u64>(&level, seals, states)?,
    };
    let links = (1..=depth)
        .map(|d| links_file(dir, d))
        .zip(meta.record.seals.links.iter().copied());
    for (path, seal) in links {
        check_file(&path, seal)?;
    }
    Ok(meta)
}

/// Whether process `process`'s part of the checkpoint in `dir` may be
/// resumed by a run of `layout`: `Err` with one line naming the first
/// difference. `near` names identities of runs near this one (the same
/// check with `--symmetry` turned, say) with the line a checkpoint of one
/// is refused with, where "another model or bounds" would not say how.
pub fn check_resumable(
    dir: &Path,
    process: usize,
    layout: &Layout,
    near: &[(String, String)],
    states: Option<&StateCheck>,
) -> Result<(), String> {
    for thread in 0..layout.threads {
        let worker = worker_dir(dir, process, thread);
        let Some(&depth) = complete_levels(&worker).last() else {
            return Err(match complete_levels(&worker_dir(dir, 0, 0)).last() {
                // Process 0 has a part: the layout must differ.
                Some(&d) => match read_meta::<Meta>(&level_dir(&worker_dir(dir, 0, 0), d)) {
                    Ok(meta) => mismatch(dir, &meta.layout, layout, near)
                        .unwrap_or_else(|| missing(dir, &worker)),
                    Err(e) => e,
                },
                None => missing(dir, &worker),
            });
        };
        let meta: Meta = read_meta(&level_dir(&worker, depth))?;
        if let Some(line) = mismatch(dir, &meta.layout, layout, near) {
            return Err(line);
        }
        for depth in complete_levels(&worker) {
            let meta = check_level(&worker, depth, states)?;
            if let Some([p, t]) = meta.part.filter(|&part| part != [process, thread]) {
                return Err(format!(
                    "{}: holds the part of process {p} worker {t} (its level-{depth:04}/meta.json says so), not of process {process} worker {thread}: were the process folders swapped or copied?",
                    worker.display()
                ));
            }
        }
    }
    Ok(())
}

fn missing(dir: &Path, worker: &Path) -> String {
    format!(
        "{}: no complete checkpoint to resume ({} holds none)",
        dir.display(),
        worker.display()
    )
}

/// The first way `made` differs from `asked`, in one line (an identity
/// of `near` by its own line).
fn mismatch(
    dir: &Path,
    made: &Layout,
    asked: &Layout,
    near: &[(String, String)],
) -> Option<String> {
    made.run.mismatch(dir, &asked.run, near).or_else(|| {
        ((made.processes, made.threads) != (asked.processes, asked.threads)).then(|| format!(
            "{}: the checkpoint was made by {} processes × {} threads, not {} × {}: resume on the same hosts file with the same --threads",
            dir.display(), made.processes, made.threads, asked.processes, asked.threads
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The meta's fields in a fixed order (its checksum is taken over
    /// them as serialised), its decisions the engine's record.
    #[test]
    fn the_meta_serialises_its_fields_in_order() {
        let text = concat!(
            r#"{"layout":{"identity":"m","max_depth":null,"fingerprint_bits":64,"fingerprint_scheme":2,"processes":2,"threads":1},"#,
            r#""depth":1,"levels":[[0,1,1,0,0,5],[1,2,3,4,4,9]],"decisions":[null,[[1,1,0,0],"ff00000000000000"]],"#,
            r#""label_transitions":[],"label_first_depths":[],"label_levels":null,"#,
            r#""visited":{"len":24,"sum":7},"frontier":{"len":40,"sum":8},"links":[{"len":40,"sum":9}],"part":[1,0],"files":3}"#
        );
        let meta: Meta = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&meta).unwrap(), text);
        assert!(check_meta(&meta, Path::new("l"), 1).is_ok());
        assert!(check_meta(&meta, Path::new("l"), 2).is_err());
        let restored = meta.record.restored::<(), u64>(Vec::new());
        assert_eq!(
            restored.decisions.0[1].map(|d| (d.depth, d.fp)),
            Some((1, 0xff))
        );
        // A 128-bit run's record names no state of 64 bits.
        let mut wide = meta;
        wide.layout.run.fingerprint_bits = 128;
        let refused = check_meta(&wide, Path::new("l"), 1).unwrap_err();
        assert!(
            refused.contains("the decision of property 1 names no state"),
            "{refused}"
        );
    }

    /// A part written by an older build (format 2, with its own record of
    /// decisions and a `widest` count; or older, with no format) is
    /// refused in one line.
    #[test]
    fn an_older_builds_part_is_refused_in_one_line() {
        for files in [r#","files":2"#, ""] {
            let text = format!(
                "{}{}{}{}}}",
                r#"{"layout":{"identity":"m","max_depth":null,"fingerprint_bits":64,"fingerprint_scheme":2,"processes":2,"threads":1},"#,
                r#""depth":1,"levels":[[0,1,1,0,0,5],[1,2,3,4,4,9]],"widest":2,"decisions":[null],"#,
                r#""label_transitions":[],"label_first_depths":[],"label_levels":null,"visited":{"len":24,"sum":7},"frontier":{"len":40,"sum":8},"links":[{"len":40,"sum":9}],"part":[1,0]"#,
                files
            );
            let meta: Meta = serde_json::from_str(&text).unwrap();
            let refused = check_meta(&meta, Path::new("l"), 1).unwrap_err();
            assert!(
                refused.starts_with("l: written by an older build") && !refused.contains('\n'),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_depth_mismatch_reads_as_the_command_line_says_depths() {
        let made = Layout {
            run: RunIdentity::new("m", Some(4), 64),
            processes: 2,
            threads: 1,
        };
        let asked = Layout {
            run: RunIdentity::new("m", None, 128),
            ..made.clone()
        };
        let line = mismatch(Path::new("c"), &made, &asked, &[]).expect("they differ");
        assert_eq!(
            line,
            "c: the checkpoint was made with depth 4 and 64-bit fingerprints, not depth full and 128"
        );
        // A near identity is refused by its own line.
        let other = Layout {
            run: RunIdentity::new("m turned", Some(4), 64),
            ..made.clone()
        };
        let near = [("m turned".to_owned(), "made with --symmetry".to_owned())];
        let line = mismatch(Path::new("c"), &other, &made, &near).expect("they differ");
        assert_eq!(line, "c: made with --symmetry");
    }
}
