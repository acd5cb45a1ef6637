//! One shard's candidates of the level being built, held in memory in
//! discovery order until the run's batch budget is spent: then they are
//! sorted by fingerprint, their duplicates dropped (the first discovered
//! kept) and written out as one candidate run. What is left at the end
//! of the level is read by the merge straight from memory, sorted the
//! same way, so a level that fits in the budget writes no candidate at
//! all.

use super::runs::{Candidate, CandidateSource, CandidateWriter};
use crate::engine::fp::Fp;
use crate::engine::links::Link;
use std::path::Path;

#[derive(Default)]
pub(super) struct ShardBuffer<W> {
    fps: Vec<W>,
    links: Vec<Link>,
    /// At the last level: what each candidate decides.
    hits: Vec<u64>,
    /// Below it: where each candidate's encoding starts in `bytes`.
    starts: Vec<usize>,
    bytes: Vec<u8>,
}

impl<W: Fp> ShardBuffer<W> {
    pub(super) fn len(&self) -> usize {
        self.fps.len()
    }

    /// Bytes the candidates held take. Not the vectors' capacity: a flush
    /// empties them but keeps their memory for the next batch (so the
    /// memory in use stays what the first batch took, at most twice the
    /// budget), and a capacity still above the budget would flush again
    /// after every batch (the unreduced r5 t4 run wrote 10,996 runs a
    /// shard so, and its merge ran out of file descriptors).
    pub(super) fn held_bytes(&self) -> usize {
        self.fps.len() * std::mem::size_of::<W>()
            + self.links.len() * std::mem::size_of::<Link>()
            + self.hits.len() * 8
            + self.starts.len() * std::mem::size_of::<usize>()
            + self.bytes.len()
    }

    /// A last-level candidate.
    pub(super) fn push_leaf(&mut self, fp: W, link: Link, hits: u64) {
        self.fps.push(fp);
        self.links.push(link);
        self.hits.push(hits);
    }

    /// A candidate below the last level, with its state's encoding.
    pub(super) fn push_state(&mut self, fp: W, link: Link, encoding: &[u8]) {
        self.fps.push(fp);
        self.links.push(link);
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(encoding);
    }

    /// The order in which the candidates are written: by fingerprint, and
    /// of equal ones the first discovered only.
    fn sorted(&self) -> Vec<u32> {
        let mut order: Vec<(W, u32)> = self.fps.iter().copied().zip(0u32..).collect();
        order.sort_unstable();
        order.dedup_by_key(|&mut (fp, _)| fp);
        order.into_iter().map(|(_, i)| i).collect()
    }

    fn encoding(&self, i: usize) -> &[u8] {
        match self.starts.get(i) {
            None => &[],
            Some(&start) => {
                let end = self.starts.get(i + 1).copied().unwrap_or(self.bytes.len());
                &self.bytes[start..end]
            }
        }
    }

    fn hits_of(&self, i: usize) -> u64 {
        self.hits.get(i).copied().unwrap_or(0)
    }

    /// Writes the candidates as one run at `path`, sorted and without
    /// duplicates, and empties the buffer (keeping its memory for the
    /// next batch): the bytes written.
    pub(super) fn flush(&mut self, path: &Path, leaf: bool) -> Result<u64, String> {
        let mut out = CandidateWriter::create(path, leaf)?;
        let written = self.sorted().into_iter().try_for_each(|i| {
            let i = i as usize;
            out.push(
                self.fps[i],
                self.links[i],
                self.hits_of(i),
                self.encoding(i),
            )
        });
        let bytes = written.and_then(|()| out.finish());
        if bytes.is_err() {
            let _ = std::fs::remove_file(path);
        }
        self.clear();
        bytes
    }

    pub(super) fn clear(&mut self) {
        self.fps.clear();
        self.links.clear();
        self.hits.clear();
        self.starts.clear();
        self.bytes.clear();
    }

    /// The buffer read as the last of the shard's runs.
    pub(super) fn source(&self) -> InMemory<'_, W> {
        InMemory {
            order: self.sorted(),
            at: 0,
            buffer: self,
        }
    }
}

/// What a buffer holds, read in run order (see [`ShardBuffer::source`]).
pub(super) struct InMemory<'a, W> {
    buffer: &'a ShardBuffer<W>,
    order: Vec<u32>,
    at: usize,
}

impl<W: Fp> CandidateSource<W> for InMemory<'_, W> {
    fn next(&mut self, into: &mut Candidate<W>) -> Result<bool, String> {
        let Some(&i) = self.order.get(self.at) else {
            return Ok(false);
        };
        self.at += 1;
        let (b, i) = (self.buffer, i as usize);
        into.fp = b.fps[i];
        into.link = b.links[i];
        into.hits = b.hits_of(i);
        into.encoding.clear();
        into.encoding.extend_from_slice(b.encoding(i));
        Ok(true)
    }
}
