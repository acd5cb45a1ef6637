//! A distributed run's folders as a plain run's are kept (issue 51, items
//! 1, 2 and 12): each process keeps its part of a checkpoint in
//! `C/process-I/worker-J/` and, without a checkpoint, the parent links it
//! spills in `OUT/links/process-I/worker-J/`. Before the run, the folders
//! a process will write are judged here as the engine judges a plain
//! checkpoint's (`engine::survey`, `engine::refuse_in_the_way`): only
//! names a run gives, of the type it gives them, where it writes; no
//! symlink followed; a fresh checkpoint over one of the same run cleared
//! by name, and nothing else removed. The caller locks each process's
//! part folder first (docs/distributed.md, "Checkpoints").

use super::checkpoint::{part_dir, same_run, worker_of, Layout};
use crate::engine::level_files::complete_levels;
use crate::engine::{clear, refuse_in_the_way, survey};
use std::path::{Path, PathBuf};

/// The `NAME-N` folders of `dir` (none when it is missing), `N` a number:
/// `Err` in one line naming an entry under such a name that is a symlink
/// or no folder, or (`only`) any entry that is not such a folder.
fn numbered(dir: &Path, name: &str, only: bool) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut foreign = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let entry = e.file_name().to_string_lossy().into_owned();
        let ours = entry
            .strip_prefix(name)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let kind = e.file_type().ok();
        if ours && kind.is_some_and(|t| t.is_dir()) {
            found.push(e.path());
        } else if ours && kind.is_some_and(|t| t.is_symlink()) {
            return Err(format!(
                "{}: a symlink where a distributed run keeps its part; a run never follows it \
                 (remove it, or choose another folder)",
                e.path().display()
            ));
        } else if ours || only {
            foreign.push(entry);
        }
    }
    if let Some(first) = foreign.first() {
        return Err(format!(
            "{}: holds what no distributed run writes there ({first}{}): a distributed \
             checkpoint goes into an empty folder or over one of the same run",
            dir.display(),
            match foreign.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            }
        ));
    }
    found.sort();
    Ok(found)
}

/// Judges the checkpoint folder `dir` of a distributed run before any
/// process's part in it is taken: a `fresh` one holds only `process-N`
/// folders (a plain checkpoint refuses a folder of the user's files, and
/// so does this); a resumed one may hold other names, never followed.
pub fn refuse_foreign(dir: &Path, fresh: bool) -> Result<(), String> {
    numbered(dir, "process-", fresh).map(drop)
}

/// Makes process `process`'s part of the checkpoint in `dir` ready for a
/// fresh run of `layout`, or refuses it in one line: its folder holds
/// only `worker-N` folders, each empty or holding a checkpoint of this
/// same run (layout included), which is cleared by name once every one
/// was judged.
pub fn prepare_part(dir: &Path, process: usize, layout: &Layout) -> Result<(), String> {
    let mut ours = Vec::new();
    for worker in numbered(&part_dir(dir, process), "worker-", true)? {
        ours.extend(survey(&worker, &|depth| same_run(&worker, depth, layout))?);
    }
    clear(ours)
}

/// Judges the names of process `process`'s part of the checkpoint in
/// `dir` for a resume: no symlink, no entry of another type than a
/// checkpoint gives, under a name it will write (as a plain resume does).
pub fn refuse_in_the_way_of_resume(dir: &Path, process: usize) -> Result<(), String> {
    refuse_foreign(dir, false)?;
    for worker in numbered(&part_dir(dir, process), "worker-", false)? {
        refuse_in_the_way(&worker)?;
    }
    Ok(())
}

/// Process `process`'s part folder in `dir`, refused in one line if
/// something other than a folder is there (a symlink, which a run never
/// follows, or a file): to be judged before the folder is made or
/// locked, which would go through a link.
pub fn part_folder(dir: &Path, process: usize) -> Result<PathBuf, String> {
    let part = part_dir(dir, process);
    match std::fs::symlink_metadata(&part) {
        Ok(m) if !m.is_dir() => Err(format!(
            "{}: {} where a distributed run keeps its part; a run never follows it \
             (remove it, or choose another folder)",
            part.display(),
            if m.file_type().is_symlink() {
                "a symlink"
            } else {
                "not a folder"
            }
        )),
        _ => Ok(part),
    }
}

/// Makes process `process`'s folder of spilled parent links under
/// `links` (`OUT/links`), which the caller made and locked
/// ([`part_folder`] first), ready, or refuses it in one line: no
/// symlink or other type where the run writes (`worker-N`,
/// `links-DDDD.bin`); the links files a killed run left there are
/// removed (the lock proves it gone), nothing else.
pub fn prepare_spill(links: &Path, process: usize) -> Result<(), String> {
    let part = part_folder(links, process)?;
    for worker in numbered(&part, "worker-", false)? {
        refuse_in_the_way(&worker)?;
        for e in std::fs::read_dir(&worker).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let links = name.starts_with("links-") && name.ends_with(".bin");
            if links && e.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::remove_file(e.path())
                    .map_err(|err| format!("{}: cannot remove it: {err}", e.path().display()))?;
            }
        }
    }
    Ok(())
}

/// Whether the parts of the checkpoint in `dir` that this machine sees
/// (every `process-N` folder there, for a run of `processes` processes
/// of `threads` workers) have a complete level in common, as a resume
/// needs: `Err` in one line if not (parts of two runs), before any
/// process connects. A part on another machine is judged once connected.
pub fn common_level(dir: &Path, processes: usize, threads: usize) -> Result<(), String> {
    let mut common: Option<Vec<usize>> = None;
    for process in (0..processes)
        .map(|p| part_dir(dir, p))
        .filter(|p| p.is_dir())
    {
        for thread in 0..threads {
            let levels = complete_levels(&worker_of(&process, thread));
            common = Some(match common {
                None => levels,
                Some(c) => c.into_iter().filter(|d| levels.contains(d)).collect(),
            });
        }
    }
    match common {
        Some(c) if c.is_empty() => Err(no_common_level(dir)),
        _ => Ok(()),
    }
}

/// The refusal of parts with no complete level in common.
pub(crate) fn no_common_level(dir: &Path) -> String {
    format!(
        "{}: no level is checkpointed by every process (its process folders are of different \
         runs?): resume with the folder each process of one run wrote",
        dir.display()
    )
}
