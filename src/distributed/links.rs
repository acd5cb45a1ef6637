//! A worker's parent links, level by level: each level's (fingerprint,
//! parent fingerprint, action) records, in fingerprint order. Held in
//! memory, or — when the run gives the worker a directory (its checkpoint
//! part, or a spill folder under `--out`) — written to one file per level
//! (`links-DDDD.bin`, sealed, the checkpoint's format) as the level
//! completes and looked up there by binary search when a counterexample's
//! chain is walked: the worker then holds no link between levels (in
//! memory a record takes 24 bytes a state of every level but the last,
//! 48 with 128-bit fingerprints).

use super::shard::Link;
use super::word::Word;
use crate::engine::level_files::{cannot_write, links_file, write_file};
use crate::engine::seal::Seal;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One level's links.
enum Level<W> {
    Memory(Vec<(W, Link<W>)>),
    File { path: PathBuf, records: u64 },
}

/// A worker's links of levels 1, 2, … (see the module docs).
pub(crate) struct LinkLevels<W> {
    dir: Option<PathBuf>,
    levels: Vec<Level<W>>,
    seals: Vec<Seal>,
}

/// Bytes of one record: the fingerprint, the parent's, the action.
fn record<W: Word>() -> usize {
    2 * W::BYTES + 4
}

impl<W: Word> LinkLevels<W> {
    /// Links held in memory.
    pub(crate) fn memory() -> Self {
        LinkLevels {
            dir: None,
            levels: Vec::new(),
            seals: Vec::new(),
        }
    }

    /// Links written into `dir` (created when the first level is
    /// stored), which holds the files of levels `1..=seals.len()` already
    /// (a resumed run's), sealed so.
    pub(crate) fn in_dir(dir: PathBuf, seals: Vec<Seal>) -> Self {
        let levels = seals
            .iter()
            .enumerate()
            .map(|(i, seal)| Level::File {
                path: links_file(&dir, i + 1),
                records: seal.len / record::<W>() as u64,
            })
            .collect();
        LinkLevels {
            dir: Some(dir),
            levels,
            seals,
        }
    }

    /// Whether the links are held in memory (no directory was given).
    pub(crate) fn held_in_memory(&self) -> bool {
        self.dir.is_none()
    }

    /// The seals of the files, level 1 first (none in memory).
    pub(crate) fn seals(&self) -> &[Seal] {
        &self.seals
    }

    /// Adds the links of the next level, in fingerprint order. A file that
    /// cannot be written (a full disk) is `Err`, one line naming it and the
    /// cause, and is not left behind half-written.
    pub(crate) fn push(&mut self, links: Vec<(W, Link<W>)>) -> Result<(), String> {
        let Some(dir) = &self.dir else {
            self.levels.push(Level::Memory(links));
            return Ok(());
        };
        fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
        let path = links_file(dir, self.levels.len() + 1);
        let seal = write_file(&path, |out| {
            let mut buf = Vec::with_capacity((1 << 16) + record::<W>());
            for &(fp, (parent, action)) in &links {
                fp.put(&mut buf);
                parent.put(&mut buf);
                buf.extend_from_slice(&action.to_le_bytes());
                if buf.len() >= 1 << 16 {
                    out.write_all(&buf)?;
                    buf.clear();
                }
            }
            out.write_all(&buf)
        })?;
        self.seals.push(seal);
        self.levels.push(Level::File {
            path,
            records: links.len() as u64,
        });
        Ok(())
    }

    /// The link of the state `fp` of level `depth` (≥ 1), if this worker
    /// holds it.
    pub(crate) fn find(&self, depth: usize, fp: W) -> Option<Link<W>> {
        match &self.levels[depth - 1] {
            Level::Memory(level) => level
                .binary_search_by_key(&fp, |&(fp, _)| fp)
                .ok()
                .map(|at| level[at].1),
            Level::File { path, records } => find_in_file(path, *records, fp)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())),
        }
    }

    /// Removes the files and the directory, which was a spill folder
    /// (a checkpoint's are kept).
    pub(crate) fn remove(&self) {
        if let Some(dir) = &self.dir {
            for depth in 1..=self.levels.len() {
                let _ = fs::remove_file(links_file(dir, depth));
            }
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Binary search of a file of `records` records sorted by fingerprint.
fn find_in_file<W: Word>(path: &Path, records: u64, fp: W) -> std::io::Result<Option<Link<W>>> {
    let mut file = File::open(path)?;
    let size = record::<W>();
    let mut buf = vec![0; size];
    let (mut lo, mut hi) = (0, records);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        file.seek(SeekFrom::Start(mid * size as u64))?;
        file.read_exact(&mut buf)?;
        let at = W::get(&buf);
        if at == fp {
            let action = u32::from_le_bytes(buf[2 * W::BYTES..].try_into().expect("4 bytes"));
            return Ok(Some((W::get(&buf[W::BYTES..]), action)));
        }
        if at < fp {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(n: u64) -> Vec<(u64, Link<u64>)> {
        (0..n).map(|i| (i * 7 + 3, (i, i as u32 % 5))).collect()
    }

    #[test]
    fn links_in_files_are_found_as_links_in_memory() {
        let dir = std::env::temp_dir().join(format!("memtx-links-{}", std::process::id()));
        let mut memory = LinkLevels::<u64>::memory();
        let mut files = LinkLevels::<u64>::in_dir(dir.clone(), Vec::new());
        for n in [1, 2, 1000] {
            memory.push(level(n)).unwrap();
            files.push(level(n)).unwrap();
        }
        assert_eq!(files.seals().len(), 3);
        assert!(memory.seals().is_empty());
        for depth in 1..=3 {
            for fp in 0..7010 {
                assert_eq!(
                    files.find(depth, fp),
                    memory.find(depth, fp),
                    "{depth} {fp}"
                );
            }
        }
        assert_eq!(files.find(3, 7 * 999 + 3), Some((999, 4)));
        let resumed = LinkLevels::<u64>::in_dir(dir.clone(), files.seals().to_vec());
        assert_eq!(resumed.find(3, 7 * 500 + 3), Some((500, 0)));
        assert_eq!(resumed.find(2, 4), None);
        files.remove();
        assert!(!dir.exists());
    }
}
