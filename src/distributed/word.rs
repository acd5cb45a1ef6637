//! The fingerprint word of a distributed run, 64 or 128 bits, computed by
//! the engine's own functions so that a state has the same fingerprint,
//! and so the same place in a level's order, as in the single-process
//! engine. Also which worker owns a fingerprint, and the hash maps keyed
//! by one.

use crate::engine::fingerprint::BuildIdentity;
use crate::engine::Fp;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A fingerprint word: the engine's stored word ([`Fp`]: its width in
/// bytes, `of` a value, its place in the engine's tables, its bytes
/// `write` and `read`), plus what a distributed run needs of it.
pub(crate) trait Word: Fp {
    /// The low 64 bits.
    fn low(self) -> u64;

    /// The worker (of `peers`) that owns this fingerprint: bits 16..48,
    /// scaled; the hash maps use the lowest and the top bits, so each
    /// worker's maps still see uniformly spread keys.
    fn owner(self, peers: usize) -> usize {
        ((((self.low() >> 16) & 0xffff_ffff) * peers as u64) >> 32) as usize
    }
}

impl Word for u64 {
    fn low(self) -> u64 {
        self
    }
}

impl Word for u128 {
    fn low(self) -> u64 {
        self as u64
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

pub(crate) type FpMap<W, V> = HashMap<Key<W>, V, BuildIdentity>;
