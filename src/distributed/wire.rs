//! What travels between workers: packets of bytes, each routed to one
//! worker, its first byte saying what it holds. States cross as the
//! model's codec encodes them; fingerprints, links and counts as
//! little-endian integers. A packet serializes as one byte string (not a
//! sequence of `u8`s), so a megabyte of candidates is one copy on the wire.

use super::word::Word;
use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Candidates for the next level: (fingerprint, parent fingerprint,
/// action index, state length, state bytes), repeated.
pub(crate) const CANDIDATES: u8 = 0;
/// A worker's counts and hits for a level (see `totals`).
pub(crate) const STATS: u8 = 1;
/// Counterexample chains being walked back (see `chain`).
pub(crate) const CHAINS: u8 = 2;
/// What a process was asked to run (see `peers::Peers::agree`).
pub(crate) const IDENTITY: u8 = 3;
/// The levels a worker has checkpointed, as `u64`s (see
/// `peers::Peers::resume`).
pub(crate) const LEVELS: u8 = 4;
/// A worker's memory estimate for the level ahead and the batches its
/// part of it takes (see `guard`, `peers::Peers::agree_level`).
pub(crate) const GUARD: u8 = 5;
/// Candidates of the last level: (fingerprint, parent fingerprint,
/// action index, the undecided properties the state decides as a `u64`
/// of bits), repeated. The last level's states are checked, not held, so
/// the sender checks them (it has the state in hand) and sends no bytes
/// of the state.
pub(crate) const LEAF_CANDIDATES: u8 = 6;

/// A packet of bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Packet(pub(crate) Vec<u8>);

/// A packet and the worker it goes to.
pub(crate) type Message = (u32, Packet);

impl Packet {
    pub(crate) fn new(kind: u8) -> Packet {
        Packet(vec![kind])
    }

    pub(crate) fn kind(&self) -> u8 {
        self.0[0]
    }

    /// The bytes after the kind.
    pub(crate) fn body(&self) -> Reader<'_> {
        Reader {
            bytes: &self.0[1..],
        }
    }

    /// Bytes after the kind.
    pub(crate) fn len(&self) -> usize {
        self.0.len() - 1
    }

    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn word<W: Word>(&mut self, w: W) -> &mut Self {
        w.write(&mut self.0);
        self
    }

    /// An optional word: a flag byte, then the word if present.
    pub(crate) fn maybe<W: Word>(&mut self, w: Option<W>) -> &mut Self {
        self.0.push(u8::from(w.is_some()));
        if let Some(w) = w {
            w.write(&mut self.0);
        }
        self
    }

    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }

    /// Whether a body of `u64`s holds `v`.
    pub(crate) fn holds_u64(&self, v: u64) -> bool {
        let mut r = self.body();
        while !r.is_empty() {
            if r.u64() == v {
                return true;
            }
        }
        false
    }
}

/// Reads a packet's body front to back.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub(crate) fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        head
    }

    pub(crate) fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().expect("4 bytes"))
    }

    pub(crate) fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take(8).try_into().expect("8 bytes"))
    }

    pub(crate) fn word<W: Word>(&mut self) -> W {
        W::read(self.take(W::BYTES))
    }

    pub(crate) fn maybe<W: Word>(&mut self) -> Option<W> {
        (self.take(1)[0] == 1).then(|| self.word())
    }
}

impl Serialize for Packet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Packet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Packet, D::Error> {
        d.deserialize_byte_buf(PacketVisitor)
    }
}

struct PacketVisitor;

impl<'de> Visitor<'de> for PacketVisitor {
    type Value = Packet;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a packet of bytes")
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Packet, E> {
        Ok(Packet(v.to_vec()))
    }

    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Packet, E> {
        Ok(Packet(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Packet, A::Error> {
        let mut bytes = Vec::new();
        while let Some(b) = seq.next_element()? {
            bytes.push(b);
        }
        Ok(Packet(bytes))
    }
}
