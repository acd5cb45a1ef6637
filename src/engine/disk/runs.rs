//! The record files a `--disk` run streams: visited runs (fingerprints,
//! ascending, nothing else) and candidate runs (per record a fingerprint,
//! then below the last level its link and the state's length-prefixed
//! encoding, at the last level a byte saying whether it decides a
//! property and, if it does, which and its link), each written and read
//! sequentially through a buffer of its own; and the k-way merges that
//! read several runs of one kind as one ascending stream.

use crate::engine::fp::Fp;
use crate::engine::level_files::{cannot_write, create_new};
use crate::engine::links::Link;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// Bytes of each reader's buffer.
pub(super) const READ_BUFFER: usize = 1 << 16;

/// A file read from start to end: `Ok(false)` at its clean end, `Err`
/// (one line naming the file) when it ends inside a record or cannot be
/// read.
pub(super) struct Records {
    path: PathBuf,
    input: BufReader<File>,
    /// Bytes read so far.
    read: u64,
}

impl Records {
    pub(super) fn open(path: &Path) -> Result<Self, String> {
        let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(Records {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(READ_BUFFER, file),
            read: 0,
        })
    }

    /// Fills `buf`; `first` says whether a clean end of file may come here.
    fn fill(&mut self, buf: &mut [u8], first: bool) -> Result<bool, String> {
        let mut got = 0;
        while got < buf.len() {
            match self.input.read(&mut buf[got..]) {
                Ok(0) if got == 0 && first => return Ok(false),
                Ok(0) => {
                    return Err(format!(
                        "cannot read {}: it ends inside a record (changed while the run used it?)",
                        self.path.display()
                    ))
                }
                Ok(n) => {
                    got += n;
                    self.read += n as u64;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("cannot read {}: {e}", self.path.display())),
            }
        }
        Ok(true)
    }
}

/// A visited run read back, one fingerprint at a time.
pub(super) struct FpReader<W> {
    records: Records,
    word: Vec<u8>,
    marker: PhantomData<W>,
}

impl<W: Fp> FpReader<W> {
    pub(super) fn open(path: &Path) -> Result<Self, String> {
        Ok(FpReader {
            records: Records::open(path)?,
            word: vec![0; W::BYTES],
            marker: PhantomData,
        })
    }

    pub(super) fn next(&mut self) -> Result<Option<W>, String> {
        let mut word = std::mem::take(&mut self.word);
        let more = self.records.fill(&mut word, true);
        let fp = W::read(&word);
        self.word = word;
        Ok(more?.then_some(fp))
    }
}

/// The visited runs of one shard as one ascending stream.
pub(super) struct FpMerge<W> {
    readers: Vec<FpReader<W>>,
    heap: BinaryHeap<Reverse<(W, usize)>>,
}

impl<W: Fp> FpMerge<W> {
    pub(super) fn open(paths: &[PathBuf]) -> Result<Self, String> {
        let mut merge = FpMerge {
            readers: Vec::with_capacity(paths.len()),
            heap: BinaryHeap::with_capacity(paths.len()),
        };
        for (i, path) in paths.iter().enumerate() {
            let mut reader = FpReader::open(path)?;
            if let Some(fp) = reader.next()? {
                merge.heap.push(Reverse((fp, i)));
            }
            merge.readers.push(reader);
        }
        Ok(merge)
    }

    /// Bytes read from the runs so far.
    pub(super) fn bytes_read(&self) -> u64 {
        self.readers.iter().map(|r| r.records.read).sum()
    }

    pub(super) fn next(&mut self) -> Result<Option<W>, String> {
        let Some(Reverse((fp, i))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.readers[i].next()? {
            self.heap.push(Reverse((next, i)));
        }
        Ok(Some(fp))
    }
}

/// One candidate as a run holds it.
#[derive(Clone, Default)]
pub(super) struct Candidate<W> {
    pub(super) fp: W,
    pub(super) link: Link,
    /// At the last level: the properties it decides (see `chunk`).
    pub(super) hits: u64,
    /// Below it: the state's length-prefixed encoding.
    pub(super) encoding: Vec<u8>,
}

/// Writes candidate runs: `leaf` says which of the two payloads follows
/// each fingerprint and link.
pub(super) struct CandidateWriter {
    path: PathBuf,
    out: BufWriter<File>,
    leaf: bool,
    pub(super) bytes: u64,
}

impl CandidateWriter {
    pub(super) fn create(path: &Path, leaf: bool) -> Result<Self, String> {
        let file = create_new(path)?;
        Ok(CandidateWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 16, file),
            leaf,
            bytes: 0,
        })
    }

    pub(super) fn push<W: Fp>(
        &mut self,
        fp: W,
        link: Link,
        hits: u64,
        encoding: &[u8],
    ) -> Result<(), String> {
        let mut head = Vec::with_capacity(W::BYTES + 17);
        fp.write(&mut head);
        if self.leaf {
            // Most last-level candidates decide nothing: a fingerprint and
            // a zero byte; a deciding one carries its properties and link.
            if hits == 0 {
                head.push(0);
            } else {
                head.push(1);
                head.extend_from_slice(&hits.to_le_bytes());
                head.extend_from_slice(&link.to_bytes());
            }
        } else {
            head.extend_from_slice(&link.to_bytes());
            head.extend_from_slice(&(encoding.len() as u32).to_le_bytes());
        }
        let written = self.out.write_all(&head).and_then(|()| {
            if self.leaf {
                Ok(())
            } else {
                self.out.write_all(encoding)
            }
        });
        self.bytes += (head.len() + if self.leaf { 0 } else { encoding.len() }) as u64;
        written.map_err(|e| cannot_write(&self.path, e))
    }

    pub(super) fn finish(self) -> Result<u64, String> {
        let CandidateWriter {
            path, out, bytes, ..
        } = self;
        out.into_inner()
            .map_err(|e| cannot_write(&path, e.error()))?;
        Ok(bytes)
    }
}

/// A candidate run read back.
pub(super) struct CandidateReader<W> {
    records: Records,
    leaf: bool,
    marker: PhantomData<W>,
}

impl<W: Fp> CandidateReader<W> {
    pub(super) fn open(path: &Path, leaf: bool) -> Result<Self, String> {
        Ok(CandidateReader {
            records: Records::open(path)?,
            leaf,
            marker: PhantomData,
        })
    }

    /// Reads the next candidate into `into`; false at the end.
    pub(super) fn next(&mut self, into: &mut Candidate<W>) -> Result<bool, String> {
        let mut head = [0u8; 32];
        let head = &mut head[..W::BYTES + if self.leaf { 1 } else { 12 }];
        if !self.records.fill(head, true)? {
            return Ok(false);
        }
        into.fp = W::read(&head[..W::BYTES]);
        let rest = &head[W::BYTES..];
        if self.leaf {
            into.hits = 0;
            into.link = Link::default();
            if rest[0] != 0 {
                let mut tail = [0u8; 16];
                self.records.fill(&mut tail, false)?;
                into.hits = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
                into.link = Link::from_bytes(&tail[8..]);
            }
        } else {
            into.link = Link::from_bytes(&rest[..8]);
            let len = u32::from_le_bytes(rest[8..].try_into().expect("4 bytes")) as usize;
            into.encoding.resize(len, 0);
            self.records.fill(&mut into.encoding, false)?;
        }
        Ok(true)
    }
}

/// Where a shard's candidates of a level come from, earliest first: the
/// runs flushed to files, then what is still in memory, sorted.
pub(super) trait CandidateSource<W> {
    /// The next candidate in ascending fingerprint order; false at the end.
    fn next(&mut self, into: &mut Candidate<W>) -> Result<bool, String>;

    /// Bytes read from a file so far (none from memory).
    fn bytes_read(&self) -> u64 {
        0
    }
}

impl<W: Fp> CandidateSource<W> for CandidateReader<W> {
    fn next(&mut self, into: &mut Candidate<W>) -> Result<bool, String> {
        CandidateReader::next(self, into)
    }

    fn bytes_read(&self) -> u64 {
        self.records.read
    }
}

/// The candidate runs of one shard as one ascending stream of distinct
/// fingerprints: of several candidates with one fingerprint, the one of
/// the earliest run is kept (the runs are in discovery order, and a run
/// keeps the first of its own duplicates), so the first discoverer stays
/// the parent, as in the in-memory engine.
pub(super) struct CandidateMerge<'a, W> {
    sources: Vec<Box<dyn CandidateSource<W> + 'a>>,
    heads: Vec<Candidate<W>>,
    heap: BinaryHeap<Reverse<(W, usize)>>,
}

impl<'a, W: Fp> CandidateMerge<'a, W> {
    pub(super) fn new(mut sources: Vec<Box<dyn CandidateSource<W> + 'a>>) -> Result<Self, String> {
        let mut heads = Vec::with_capacity(sources.len());
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, source) in sources.iter_mut().enumerate() {
            let mut head = Candidate::default();
            if source.next(&mut head)? {
                heap.push(Reverse((head.fp, i)));
            }
            heads.push(head);
        }
        Ok(CandidateMerge {
            sources,
            heads,
            heap,
        })
    }

    /// The next distinct candidate, swapped into `into`; false at the end.
    pub(super) fn next(&mut self, into: &mut Candidate<W>) -> Result<bool, String> {
        let Some(Reverse((fp, i))) = self.heap.pop() else {
            return Ok(false);
        };
        std::mem::swap(into, &mut self.heads[i]);
        self.advance(i)?;
        // Later runs' copies of the same state are dropped.
        while let Some(&Reverse((next, j))) = self.heap.peek() {
            if next != fp {
                break;
            }
            self.heap.pop();
            self.advance(j)?;
        }
        Ok(true)
    }

    /// Bytes read from files so far.
    pub(super) fn bytes_read(&self) -> u64 {
        self.sources.iter().map(|s| s.bytes_read()).sum()
    }

    fn advance(&mut self, i: usize) -> Result<(), String> {
        if self.sources[i].next(&mut self.heads[i])? {
            self.heap.push(Reverse((self.heads[i].fp, i)));
        }
        Ok(())
    }
}
