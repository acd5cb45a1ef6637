//! The fingerprint word of a distributed run, 64 or 128 bits, computed by
//! the engine's own functions so that a state has the same fingerprint,
//! and so the same place in a level's order, as in the single-process
//! engine. Also which worker owns a fingerprint, and the hash maps keyed
//! by one.

use crate::engine::fingerprint::BuildIdentity;
use crate::engine::{fingerprint, fingerprint128};
use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::hash::{Hash, Hasher};

pub(crate) trait Word: Copy + Ord + Eq + Debug + Send + Sync + 'static {
    const BYTES: usize;
    /// The engine's fingerprint of `value` at this width.
    fn of<T: Hash + ?Sized>(value: &T) -> Self;
    /// The low 64 bits.
    fn low(self) -> u64;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;

    /// The worker (of `peers`) that owns this fingerprint: bits 16..48,
    /// scaled; the hash maps use the lowest and the top bits, so each
    /// worker's maps still see uniformly spread keys.
    fn owner(self, peers: usize) -> usize {
        ((((self.low() >> 16) & 0xffff_ffff) * peers as u64) >> 32) as usize
    }
}

impl Word for u64 {
    const BYTES: usize = 8;
    fn of<T: Hash + ?Sized>(value: &T) -> u64 {
        fingerprint(value)
    }
    fn low(self) -> u64 {
        self
    }
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> u64 {
        u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
    }
}

impl Word for u128 {
    const BYTES: usize = 16;
    fn of<T: Hash + ?Sized>(value: &T) -> u128 {
        fingerprint128(value)
    }
    fn low(self) -> u64 {
        self as u64
    }
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> u128 {
        u128::from_le_bytes(bytes[..16].try_into().expect("16 bytes"))
    }
}

/// A fingerprint as a hash-map key: it hashes as its low 64 bits, which
/// are uniformly spread already.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key<W>(pub(crate) W);

impl<W: Word> Hash for Key<W> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.low());
    }
}

pub(crate) type FpSet<W> = HashSet<Key<W>, BuildIdentity>;
pub(crate) type FpMap<W, V> = HashMap<Key<W>, V, BuildIdentity>;
