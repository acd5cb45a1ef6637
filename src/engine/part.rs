//! One shard's part of a level: its states (as values or, with a codec,
//! as length-prefixed encodings back to back), their fingerprints and,
//! while the level is being built, their parent links. A level is its 64
//! parts in shard order; once built, each part is sorted by fingerprint,
//! so a state's *position* (its index in that concatenation) follows its
//! fingerprint.

use super::codec::StateCodec;
use super::fp::SHARDS;
use super::links::Link;

/// Frontier states per chunk.
pub(super) const CHUNK_STATES: usize = if cfg!(test) { 4 } else { 1024 };

pub(crate) struct Part<S, W> {
    /// The states themselves, when there is no codec.
    states: Vec<S>,
    /// With a codec: each state's encoding after its length (LEB128).
    bytes: Vec<u8>,
    /// With a codec, once sorted: the byte offset of every
    /// [`CHUNK_STATES`]-th state, where a chunk starts reading.
    marks: Vec<usize>,
    /// The states' fingerprints, in the same order.
    pub(crate) fps: Vec<W>,
    /// Each state's link, while the level is being built.
    pub(super) links: Vec<Link>,
}

impl<S: Clone, W: Copy + Ord> Part<S, W> {
    /// A level with nothing in it: one empty part per shard.
    pub(crate) fn empty_level() -> Vec<Self> {
        (0..SHARDS).map(|_| Part::new()).collect()
    }

    pub(crate) fn new() -> Self {
        Part {
            states: Vec::new(),
            bytes: Vec::new(),
            marks: Vec::new(),
            fps: Vec::new(),
            links: Vec::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.fps.len()
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.states.capacity() * std::mem::size_of::<S>()
            + self.bytes.capacity()
            + self.marks.capacity() * 8
            + self.fps.capacity() * std::mem::size_of::<W>()
            + self.links.capacity() * std::mem::size_of::<Link>()
    }

    /// Empties the part, keeping its buffers.
    pub(super) fn clear(&mut self) {
        self.states.clear();
        self.bytes.clear();
        self.marks.clear();
        self.fps.clear();
        self.links.clear();
    }

    /// Appends a state (its link is pushed by the caller when needed).
    pub(crate) fn push(&mut self, state: &S, fp: W, codec: Option<&dyn StateCodec<S>>) {
        match codec {
            None => self.states.push(state.clone()),
            Some(c) => self.encode(state, c),
        }
        self.fps.push(fp);
    }

    /// Appends the state of `from` whose encoding starts at `cursor`
    /// (with a codec, copied as it is) or at index `i` (without), with
    /// fingerprint `fp` and link `link`.
    pub(super) fn push_from(
        &mut self,
        from: &Part<S, W>,
        i: usize,
        cursor: usize,
        fp: W,
        link: Link,
    ) {
        if !from.states.is_empty() {
            self.states.push(from.states[i].clone());
        } else {
            let end = cursor + encoded_len(&from.bytes[cursor..]);
            self.bytes.extend_from_slice(&from.bytes[cursor..end]);
        }
        self.fps.push(fp);
        self.links.push(link);
    }

    /// The byte offset after the encoding starting at `cursor` (0 when the
    /// part holds values: a part holds either values or encodings).
    pub(super) fn skip(&self, cursor: usize) -> usize {
        if !self.states.is_empty() {
            0
        } else {
            cursor + encoded_len(&self.bytes[cursor..])
        }
    }

    /// With a codec: the length-prefixed encoding starting at byte
    /// `cursor` (as [`Part::skip`] steps from one to the next).
    pub(super) fn encoded_at(&self, cursor: usize) -> &[u8] {
        &self.bytes[cursor..cursor + encoded_len(&self.bytes[cursor..])]
    }

    /// With a codec: appends a state by its encoding `encoding` (without
    /// its length) and its fingerprint; the part is sorted once whole.
    pub(crate) fn push_encoded(&mut self, fp: W, encoding: &[u8]) {
        write_len(encoding.len(), &mut self.bytes);
        self.bytes.extend_from_slice(encoding);
        self.fps.push(fp);
    }

    /// With a codec: each state's fingerprint and encoding (without its
    /// length), in order.
    pub(crate) fn encodings(&self) -> impl Iterator<Item = (W, &[u8])> + '_ {
        let mut at = 0;
        self.fps.iter().map(move |&fp| {
            let (len, head) = read_len(&self.bytes[at..]);
            let encoding = &self.bytes[at + head..at + head + len];
            at += head + len;
            (fp, encoding)
        })
    }

    /// Appends the encoding of `state`, after its length.
    fn encode(&mut self, state: &S, codec: &dyn StateCodec<S>) {
        let at = self.bytes.len();
        self.bytes.push(0);
        codec.encode(state, &mut self.bytes);
        let len = self.bytes.len() - at - 1;
        if len >= 0x80 {
            let mut prefix = Vec::with_capacity(3);
            write_len(len, &mut prefix);
            self.bytes.splice(at..at + 1, prefix);
        } else {
            self.bytes[at] = len as u8;
        }
    }

    /// Calls `f(k, state)` on the states `k` in `lo..hi` (`lo` a multiple
    /// of [`CHUNK_STATES`]), in order. Encoded states are decoded into one
    /// state, reused from one to the next.
    pub(super) fn visit(
        &self,
        lo: usize,
        hi: usize,
        codec: Option<&dyn StateCodec<S>>,
        mut f: impl FnMut(usize, &S),
    ) {
        let Some(c) = codec else {
            (lo..hi).for_each(|k| f(k, &self.states[k]));
            return;
        };
        let mut at = self.marks.get(lo / CHUNK_STATES).copied().unwrap_or(0);
        let mut scratch: Option<S> = None;
        for k in lo..hi {
            let (len, head) = read_len(&self.bytes[at..]);
            let bytes = &self.bytes[at + head..at + head + len];
            at += head + len;
            f(k, c.decode_reusing(bytes, &mut scratch));
        }
    }

    /// Sorts the part by fingerprint (states, fingerprints and links
    /// alike) and marks where each chunk starts.
    pub(crate) fn sort(&mut self) {
        let mut order: Vec<(W, u32)> = self.fps.iter().copied().zip(0u32..).collect();
        order.sort_unstable();
        self.fps = order.iter().map(|&(fp, _)| fp).collect();
        if self.links.len() == order.len() {
            self.links = order.iter().map(|&(_, i)| self.links[i as usize]).collect();
        }
        if self.bytes.is_empty() {
            let mut old: Vec<Option<S>> = self.states.drain(..).map(Some).collect();
            self.states = order
                .iter()
                .map(|&(_, i)| old[i as usize].take().expect("a permutation"))
                .collect();
            return;
        }
        let mut starts = Vec::with_capacity(order.len());
        let mut at = 0;
        while at < self.bytes.len() {
            starts.push(at);
            at += encoded_len(&self.bytes[at..]);
        }
        let mut bytes = Vec::with_capacity(self.bytes.len());
        self.marks.clear();
        for (k, &(_, i)) in order.iter().enumerate() {
            if k % CHUNK_STATES == 0 {
                self.marks.push(bytes.len());
            }
            let start = starts[i as usize];
            bytes.extend_from_slice(&self.bytes[start..start + encoded_len(&self.bytes[start..])]);
        }
        self.bytes = bytes;
    }
}

impl<S, W> Part<S, W> {
    /// With a codec: the fingerprints and the encodings, as a checkpoint
    /// stores them.
    pub(super) fn encoded(&self) -> (&[W], &[u8]) {
        (&self.fps, &self.bytes)
    }

    /// A sorted part read back from [`Part::encoded`]'s output: `None`
    /// unless `bytes` is exactly one length-prefixed encoding per
    /// fingerprint.
    pub(super) fn from_encoded(fps: Vec<W>, bytes: Vec<u8>) -> Option<Self> {
        let mut marks = Vec::with_capacity(fps.len() / CHUNK_STATES + 1);
        let mut at = 0;
        for k in 0..fps.len() {
            if k % CHUNK_STATES == 0 {
                marks.push(at);
            }
            at += checked_encoded_len(&bytes[at..])?;
        }
        if at != bytes.len() {
            return None;
        }
        Some(Part {
            states: Vec::new(),
            bytes,
            marks,
            fps,
            links: Vec::new(),
        })
    }
}

/// [`encoded_len`] of bytes read back from a file: `None` unless `bytes`
/// starts with a whole length prefix and as many bytes as it says.
fn checked_encoded_len(bytes: &[u8]) -> Option<usize> {
    let mut len = 0usize;
    for (i, &b) in bytes.iter().enumerate().take(9) {
        len |= ((b & 0x7f) as usize) << (7 * i);
        if b < 0x80 {
            return Some(i + 1 + len).filter(|&n| n <= bytes.len());
        }
    }
    None
}

/// Bytes of the length prefix plus encoding that start `bytes`.
fn encoded_len(bytes: &[u8]) -> usize {
    let (len, head) = read_len(bytes);
    head + len
}

/// LEB128: seven bits a byte, low first.
fn write_len(mut len: usize, out: &mut Vec<u8>) {
    while len >= 0x80 {
        out.push(len as u8 | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
}

/// The length at the start of `bytes` and the bytes it took.
#[inline]
fn read_len(bytes: &[u8]) -> (usize, usize) {
    let (mut len, mut shift, mut i) = (0usize, 0, 0);
    loop {
        let b = bytes[i];
        len |= ((b & 0x7f) as usize) << shift;
        i += 1;
        if b < 0x80 {
            return (len, i);
        }
        shift += 7;
    }
}
