//! The end of a level for one shard: its candidate runs, merged into one
//! ascending stream of distinct states (the first discoverer of each
//! kept), against the shard's visited runs in the same pass; what none of
//! them holds is new. Below the last level the new states become the
//! shard's part of the next level (fingerprints and encodings, in
//! fingerprint order, as the in-memory engine sorts its parts), with
//! their links, and a visited run of their own (or, when the shard has
//! too many runs, one run of everything, so that a level's merge opens a
//! bounded number of files); at the last level only the count and the
//! smallest new state deciding each property are kept.

use super::runs::{Candidate, CandidateMerge, CandidateSource, FpMerge};
use crate::engine::absorb::{keep_smallest, LeafHits};
use crate::engine::fp::Fp;
use crate::engine::level_files::SealedOut;
use crate::engine::seal::Seal;
use std::path::PathBuf;

/// A shard's visited runs past this many are merged into one.
pub(super) const MAX_RUNS: usize = 4;

/// Where a shard's merge writes, below the last level.
pub(super) struct Outputs {
    pub(super) fps: PathBuf,
    pub(super) encodings: PathBuf,
    pub(super) links: PathBuf,
    /// The shard's new visited run.
    pub(super) run: PathBuf,
    /// Write every visited fingerprint into `run`, not only the new ones.
    pub(super) compact: bool,
}

/// What a shard's merge found and wrote.
pub(super) struct Merged<W> {
    pub(super) new: u64,
    /// Below the last level: the seals of the part's two files, of the
    /// links file, and of the visited run with its count.
    pub(super) files: Option<(Seal, Seal, Seal, (Seal, u64))>,
    /// At the last level, per property: the smallest new deciding state.
    pub(super) leaf_hits: LeafHits<W>,
    /// Bytes read from candidate and visited runs.
    pub(super) read: u64,
}

/// The merge of one shard (see the module docs): `sources` its candidate
/// runs, earliest first; `visited` its visited runs; `outputs` where the
/// next level goes (`None` at the last level, with `properties` the
/// number of properties whose deciding states are kept).
pub(super) fn merge_shard<'a, W: Fp>(
    sources: Vec<Box<dyn CandidateSource<W> + 'a>>,
    visited: &[PathBuf],
    outputs: Option<&Outputs>,
    properties: usize,
) -> Result<Merged<W>, String> {
    let mut candidates = CandidateMerge::new(sources)?;
    let mut seen = FpMerge::<W>::open(visited)?;
    let mut files = match outputs {
        Some(o) => Some((
            SealedOut::create(&o.fps)?,
            SealedOut::create(&o.encodings)?,
            SealedOut::create(&o.links)?,
            SealedOut::create(&o.run)?,
        )),
        None => None,
    };
    let compact = outputs.is_some_and(|o| o.compact);
    let mut merged = Merged {
        new: 0,
        files: None,
        leaf_hits: if outputs.is_none() {
            vec![None; properties]
        } else {
            Vec::new()
        },
        read: 0,
    };
    let mut run_count = 0u64;
    let mut word = Vec::with_capacity(16);
    let mut next_seen = seen.next()?;
    let mut c = Candidate::<W>::default();
    while candidates.next(&mut c)? {
        // Fingerprints visited before this one are passed (and, when
        // compacting, copied into the new run).
        while let Some(v) = next_seen.filter(|&v| v < c.fp) {
            if let (true, Some(f)) = (compact, files.as_mut()) {
                write_word(&mut f.3, &mut word, v)?;
                run_count += 1;
            }
            next_seen = seen.next()?;
        }
        if next_seen == Some(c.fp) {
            continue;
        }
        merged.new += 1;
        match files.as_mut() {
            None => keep_smallest(&mut merged.leaf_hits, c.hits, c.fp, c.link),
            Some((fps, encodings, links, run)) => {
                write_word(fps, &mut word, c.fp)?;
                encodings.write(&c.encoding)?;
                links.write(&c.link.to_bytes())?;
                write_word(run, &mut word, c.fp)?;
                run_count += 1;
            }
        }
    }
    if let Some((fps, encodings, links, mut run)) = files {
        if compact {
            while let Some(v) = next_seen {
                write_word(&mut run, &mut word, v)?;
                run_count += 1;
                next_seen = seen.next()?;
            }
        }
        merged.files = Some((
            fps.finish_unsynced()?,
            encodings.finish_unsynced()?,
            links.finish_unsynced()?,
            (run.finish_unsynced()?, run_count),
        ));
    }
    merged.read = candidates.bytes_read() + seen.bytes_read();
    Ok(merged)
}

fn write_word<W: Fp>(out: &mut SealedOut, word: &mut Vec<u8>, fp: W) -> Result<(), String> {
    word.clear();
    fp.write(word);
    out.write(word)
}
