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

use std::fs::{self, File};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// How a state was first reached (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Link {
    /// Position of the parent in the previous level.
    pub(super) parent: u32,
    /// Index of the action in the parent's `actions` list.
    pub(super) action: u32,
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

/// The links of levels 1, 2, …, in memory or in files.
pub(super) enum LinkStore {
    Memory(Vec<Vec<Link>>),
    Files { dir: PathBuf, levels: usize },
}

impl LinkStore {
    /// Links spilled to `dir` (created if missing), holding the files of
    /// levels `1..=levels` already (a resumed run's).
    pub(super) fn in_dir(dir: &Path, levels: usize) -> LinkStore {
        fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        LinkStore::Files {
            dir: dir.to_path_buf(),
            levels,
        }
    }

    fn file(dir: &Path, depth: usize) -> PathBuf {
        dir.join(format!("links-{depth:04}.bin"))
    }

    /// Adds the links of the next level, in its (fingerprint) order, one
    /// vector per part; each is dropped once stored.
    pub(super) fn push_level(&mut self, parts: Vec<Vec<Link>>) {
        match self {
            LinkStore::Memory(levels) => levels.push(parts.concat()),
            LinkStore::Files { dir, levels } => {
                *levels += 1;
                let path = Self::file(dir, *levels);
                let write = || -> std::io::Result<()> {
                    let mut out = BufWriter::new(File::create(&path)?);
                    for part in parts {
                        for link in part {
                            out.write_all(&link.to_bytes())?;
                        }
                    }
                    out.into_inner()?.sync_all()
                };
                write().unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            }
        }
    }

    /// The link of the state at `pos` in level `depth` (≥ 1).
    pub(super) fn get(&self, depth: usize, pos: u64) -> Link {
        match self {
            LinkStore::Memory(levels) => levels[depth - 1][pos as usize],
            LinkStore::Files { dir, .. } => {
                let path = Self::file(dir, depth);
                let read = || -> std::io::Result<Link> {
                    let mut file = File::open(&path)?;
                    file.seek(SeekFrom::Start(pos * Link::BYTES as u64))?;
                    let mut b = [0; Link::BYTES];
                    file.read_exact(&mut b)?;
                    Ok(Link::from_bytes(&b))
                };
                read().unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
            }
        }
    }

    /// Removes the files of a spilled store (a memory store has none).
    pub(super) fn remove(&self) {
        if let LinkStore::Files { dir, levels } = self {
            for depth in 1..=*levels {
                let _ = fs::remove_file(Self::file(dir, depth));
            }
            let _ = fs::remove_dir(dir);
        }
    }
}
