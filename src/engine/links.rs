//! Parent links: for each state of each level but the last, the position
//! of its parent in the previous level and the index of the action taken
//! (in the parent's `actions` list). Levels are in fingerprint order, so a
//! position names a state; a trace is rebuilt by following positions back
//! to level 0 and replaying the actions forward (see `path`).
//!
//! Links are held per level in memory, or spilled to one file per level
//! in a directory (`links-DDDD.bin`, 8 bytes a state), written once when
//! the level is complete and read only to rebuild traces: a run's memory
//! then holds no link at all.
//!
//! The store holds any fixed-width [`Record`]: the distributed engine
//! keeps its workers' links in it too, each a (fingerprint, parent
//! fingerprint, action) record in fingerprint order, found by
//! [`LinkStore::find_by`] (`distributed::links`).

use super::level_files::{cannot_write, create_new, links_file, write_created, SealedFile};
use super::seal::Seal;
use crate::outputs::scratch;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A record of a level's links as a [`LinkStore`] holds it: `BYTES`
/// bytes each, written and read back little-endian.
pub(crate) trait Record: Copy {
    const BYTES: usize;
    fn put(self, out: &mut Vec<u8>);
    fn take(bytes: &[u8]) -> Self;
}

/// How a state was first reached (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Link {
    /// Position of the parent in the previous level.
    pub(crate) parent: u32,
    /// Index of the action in the parent's `actions` list.
    pub(crate) action: u32,
}

impl Link {
    pub(super) const BYTES: usize = 8;

    pub(super) fn to_bytes(self) -> [u8; 8] {
        let mut b = [0; 8];
        b[..4].copy_from_slice(&self.parent.to_le_bytes());
        b[4..].copy_from_slice(&self.action.to_le_bytes());
        b
    }

    pub(super) fn from_bytes(b: &[u8]) -> Link {
        Link {
            parent: u32::from_le_bytes(b[..4].try_into().expect("4 bytes")),
            action: u32::from_le_bytes(b[4..8].try_into().expect("4 bytes")),
        }
    }
}

impl Record for Link {
    const BYTES: usize = Link::BYTES;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bytes());
    }
    fn take(bytes: &[u8]) -> Link {
        Link::from_bytes(bytes)
    }
}

/// Writes the file `path` of a level's links in `dir` (made if missing),
/// as [`write_created`] does; the folder and the file are made where a
/// signal's removal of the run's temporaries comes wholly before or
/// wholly after ([`scratch::creating`]), so none outlives a signal.
fn write_level(
    dir: &Path,
    path: &Path,
    body: impl FnOnce(&mut SealedFile) -> std::io::Result<()>,
) -> Result<Seal, String> {
    let file = scratch::creating(|| {
        fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
        create_new(path)
    })?;
    write_created(path, file, body)
}

/// The links of levels 1, 2, …, in memory or in files (with each file's
/// seal, for a checkpoint to record).
pub(crate) enum LinkStore<R = Link> {
    Memory(Vec<Vec<R>>),
    Files { dir: PathBuf, seals: Vec<Seal> },
}

impl<R: Record> LinkStore<R> {
    /// Links spilled to `dir` (created when the first level is stored),
    /// holding the files of levels `1..=seals.len()` already (a resumed
    /// run's), sealed so.
    pub(crate) fn in_dir(dir: &Path, seals: Vec<Seal>) -> Self {
        LinkStore::Files {
            dir: dir.to_path_buf(),
            seals,
        }
    }

    /// The seals of the files, level 1 first (none in memory).
    pub(crate) fn seals(&self) -> &[Seal] {
        match self {
            LinkStore::Memory(_) => &[],
            LinkStore::Files { seals, .. } => seals,
        }
    }

    /// Adds the links of the next level, in its (fingerprint) order, one
    /// vector per part; each is dropped once stored. A file that cannot be
    /// written (a full disk) is `Err`, one line naming it and the cause,
    /// and is not left behind half-written; the store is as it was.
    pub(crate) fn push_level(&mut self, parts: Vec<Vec<R>>) -> Result<(), String> {
        match self {
            LinkStore::Memory(levels) => levels.push(parts.concat()),
            LinkStore::Files { dir, seals } => {
                let path = links_file(dir, seals.len() + 1);
                seals.push(write_level(dir, &path, |out| {
                    let mut bytes = Vec::with_capacity(R::BYTES);
                    for part in parts {
                        for record in part {
                            bytes.clear();
                            record.put(&mut bytes);
                            out.write_all(&bytes)?;
                        }
                    }
                    Ok(())
                })?);
            }
        }
        Ok(())
    }

    /// Adds the links of the next level from files, one per part in
    /// order (a `--disk` run's merge writes them shard by shard), copied
    /// into the level's file; the part files are left to the caller.
    /// Errors as [`LinkStore::push_level`]'s.
    pub(crate) fn push_level_files(&mut self, parts: &[PathBuf]) -> Result<(), String> {
        let LinkStore::Files { dir, seals } = self else {
            let mut levels = Vec::with_capacity(parts.len());
            for path in parts {
                let bytes =
                    fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                levels.push(bytes.chunks_exact(R::BYTES).map(R::take).collect());
            }
            return self.push_level(levels);
        };
        let path = links_file(dir, seals.len() + 1);
        let mut failed_read = None;
        let seal = write_level(dir, &path, |out| {
            for part in parts {
                match File::open(part) {
                    Ok(mut file) => {
                        std::io::copy(&mut file, out)?;
                    }
                    Err(e) => {
                        failed_read = Some(format!("cannot read {}: {e}", part.display()));
                        return Err(e);
                    }
                }
            }
            Ok(())
        })
        .map_err(|e| failed_read.take().unwrap_or(e))?;
        seals.push(seal);
        Ok(())
    }

    /// The record of the state at `pos` in level `depth` (≥ 1).
    pub(crate) fn get(&self, depth: usize, pos: u64) -> R {
        match self {
            LinkStore::Memory(levels) => levels[depth - 1][pos as usize],
            LinkStore::Files { dir, .. } => {
                let path = links_file(dir, depth);
                let read = || -> std::io::Result<R> {
                    let mut file = File::open(&path)?;
                    file.seek(SeekFrom::Start(pos * R::BYTES as u64))?;
                    let mut b = vec![0; R::BYTES];
                    file.read_exact(&mut b)?;
                    Ok(R::take(&b))
                };
                read().unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
            }
        }
    }

    /// The number of records of level `depth` (≥ 1).
    pub(crate) fn records(&self, depth: usize) -> u64 {
        match self {
            LinkStore::Memory(levels) => levels[depth - 1].len() as u64,
            LinkStore::Files { seals, .. } => seals[depth - 1].len / R::BYTES as u64,
        }
    }

    /// The record of level `depth` (≥ 1) whose `key_of` is `key`, if
    /// there is one: the level's records are in ascending order of it.
    pub(crate) fn find_by<K: Ord>(
        &self,
        depth: usize,
        key: K,
        key_of: impl Fn(R) -> K,
    ) -> Option<R> {
        let (mut lo, mut hi) = (0, self.records(depth));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let record = self.get(depth, mid);
            match key_of(record).cmp(&key) {
                std::cmp::Ordering::Equal => return Some(record),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    /// Whether the links are held in memory (no directory was given).
    pub(crate) fn held_in_memory(&self) -> bool {
        matches!(self, LinkStore::Memory(_))
    }

    /// Removes the files of a spilled store (a memory store has none).
    pub(crate) fn remove(&self) {
        if let LinkStore::Files { dir, seals } = self {
            for depth in 1..=seals.len() {
                let _ = fs::remove_file(links_file(dir, depth));
            }
            let _ = fs::remove_dir(dir);
        }
    }
}
