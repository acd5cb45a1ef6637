//! A worker's parent links, level by level: each level's (fingerprint,
//! parent fingerprint, action) records, in fingerprint order, in the
//! engine's link store (`engine::links`): held in memory, or — when the
//! run gives the worker a directory (its checkpoint part, or a spill
//! folder under `--out`) — written to one file per level
//! (`links-DDDD.bin`, sealed, the checkpoint's format) as the level
//! completes and looked up there by binary search when a
//! counterexample's chain is walked: the worker then holds no link
//! between levels (in memory a record takes 24 bytes a state of every
//! level but the last, 48 with 128-bit fingerprints).

use super::word::Word;
use crate::engine::{LinkStore, Record};

/// A link: the parent's fingerprint and the action's index in its list.
pub(crate) type Link<W> = (W, u32);

/// One state's record: its fingerprint and its link.
pub(crate) type Linked<W> = (W, Link<W>);

/// A worker's links of levels 1, 2, … (see the module docs).
pub(crate) type LinkLevels<W> = LinkStore<Linked<W>>;

impl<W: Word> Record for Linked<W> {
    const BYTES: usize = 2 * W::BYTES + 4;
    fn put(self, out: &mut Vec<u8>) {
        let (fp, (parent, action)) = self;
        fp.write(out);
        parent.write(out);
        out.extend_from_slice(&action.to_le_bytes());
    }
    fn take(bytes: &[u8]) -> Self {
        let action = u32::from_le_bytes(bytes[2 * W::BYTES..][..4].try_into().expect("4 bytes"));
        (W::read(bytes), (W::read(&bytes[W::BYTES..]), action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The link of the state `fp` of level `depth`, if `links` hold it.
    fn find(links: &LinkLevels<u64>, depth: usize, fp: u64) -> Option<Link<u64>> {
        links.find_by(depth, fp, |(at, _)| at).map(|(_, link)| link)
    }

    fn level(n: u64) -> Vec<Linked<u64>> {
        (0..n).map(|i| (i * 7 + 3, (i, i as u32 % 5))).collect()
    }

    #[test]
    fn links_in_files_are_found_as_links_in_memory() {
        let dir = std::env::temp_dir().join(format!("memtx-links-{}", std::process::id()));
        let mut memory = LinkLevels::<u64>::Memory(Vec::new());
        let mut files = LinkLevels::<u64>::in_dir(&dir, Vec::new());
        for n in [1, 2, 1000] {
            memory.push_level(vec![level(n)]).unwrap();
            files.push_level(vec![level(n)]).unwrap();
        }
        assert_eq!(files.seals().len(), 3);
        assert!(memory.seals().is_empty());
        for depth in 1..=3 {
            for fp in 0..7010 {
                assert_eq!(
                    find(&files, depth, fp),
                    find(&memory, depth, fp),
                    "{depth} {fp}"
                );
            }
        }
        assert_eq!(find(&files, 3, 7 * 999 + 3), Some((999, 4)));
        let resumed = LinkLevels::<u64>::in_dir(&dir, files.seals().to_vec());
        assert_eq!(find(&resumed, 3, 7 * 500 + 3), Some((500, 0)));
        assert_eq!(find(&resumed, 2, 4), None);
        files.remove();
        assert!(!dir.exists());
    }
}
