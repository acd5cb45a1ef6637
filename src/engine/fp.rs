//! The fingerprint word the engine stores for each visited state: 64 or
//! 128 bits ([`FingerprintWidth`]), one type parameter of the run so that a
//! 64-bit run pays nothing for the wider option.
//!
//! A word's top six bits select its visited-set shard, so "shard by shard,
//! then by value within the shard" is plain ascending order: a level sorted
//! by fingerprint is in the canonical order the parent rule needs (see
//! docs/architecture.md, "The engine's semantics"). The bits below the shard bits place the word in
//! its shard's table ([`Fp::key`]).

use super::fingerprint::{fingerprint, narrow_writes, StableHasher};
use std::fmt::Debug;
use std::hash::{Hash, Hasher};

/// Number of visited-set shards: the top [`SHARD_BITS`] bits of a
/// fingerprint. Fixed (independent of the thread count) so that nothing
/// depends on the thread count.
pub(crate) const SHARDS: usize = 64;
const SHARD_BITS: u32 = 6;

/// How wide the stored fingerprints are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FingerprintWidth {
    /// 8 bytes a state; the collision probability grows as n²/2⁶⁵.
    #[default]
    Bits64,
    /// 16 bytes a state; negligible collision probability at any size this
    /// engine can reach.
    Bits128,
}

impl FingerprintWidth {
    pub fn bits(self) -> u32 {
        match self {
            FingerprintWidth::Bits64 => 64,
            FingerprintWidth::Bits128 => 128,
        }
    }

    /// The width of `bits` (64 or 128).
    pub fn from_bits(bits: u32) -> Option<Self> {
        match bits {
            64 => Some(FingerprintWidth::Bits64),
            128 => Some(FingerprintWidth::Bits128),
            _ => None,
        }
    }
}

/// A stored fingerprint: never zero (zero marks an empty table slot).
pub(crate) trait Fp: Copy + Ord + Default + Hash + Debug + Send + Sync + 'static {
    /// The empty slot.
    const ZERO: Self;
    /// Bytes in the checkpoint and link files.
    const BYTES: usize;
    fn of<T: Hash + ?Sized>(value: &T) -> Self;
    /// The shard owning this fingerprint (its top bits).
    fn shard(self) -> usize;
    /// 64 well-mixed bits, most significant first from just below the
    /// shard bits: a table places words by their key, and orders them by
    /// (key, value), which among the words of one shard is value order.
    fn key(self) -> u64;
    /// The table's order: by key, then by value.
    fn precedes(self, other: Self) -> bool;
    fn write(self, out: &mut Vec<u8>);
    fn read(bytes: &[u8]) -> Self;
}

impl Fp for u64 {
    const ZERO: u64 = 0;
    const BYTES: usize = 8;
    #[inline]
    fn of<T: Hash + ?Sized>(value: &T) -> u64 {
        fingerprint(value)
    }
    #[inline(always)]
    fn shard(self) -> usize {
        (self >> (64 - SHARD_BITS)) as usize
    }
    #[inline(always)]
    fn key(self) -> u64 {
        self.rotate_left(SHARD_BITS)
    }
    #[inline(always)]
    fn precedes(self, other: u64) -> bool {
        // The key is a rotation of the value: keys never tie.
        self.key() < other.key()
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(bytes: &[u8]) -> u64 {
        u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
    }
}

impl Fp for u128 {
    const ZERO: u128 = 0;
    const BYTES: usize = 16;
    #[inline]
    fn of<T: Hash + ?Sized>(value: &T) -> u128 {
        fingerprint128(value)
    }
    #[inline(always)]
    fn shard(self) -> usize {
        (self >> (128 - SHARD_BITS)) as usize
    }
    #[inline(always)]
    fn key(self) -> u64 {
        (self >> (64 - SHARD_BITS)) as u64
    }
    #[inline(always)]
    fn precedes(self, other: u128) -> bool {
        (self.key(), self) < (other.key(), other)
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read(bytes: &[u8]) -> u128 {
        u128::from_le_bytes(bytes[..16].try_into().expect("16 bytes"))
    }
}

/// Two independent [`StableHasher`] lanes: the second sees every word
/// the first sees, rotated, after a different seed, so the halves are
/// independent functions of the state.
struct Wide {
    lo: StableHasher,
    hi: StableHasher,
}

impl Wide {
    fn new() -> Self {
        let mut hi = StableHasher::default();
        // Digits of e: a second, unrelated starting point.
        hi.write_u64(0xb7e1_5162_8aed_2a6a);
        Wide {
            lo: StableHasher::default(),
            hi,
        }
    }
}

impl Hasher for Wide {
    narrow_writes!();
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.lo.write(bytes);
        self.hi.write(bytes);
        self.hi.write_u64(bytes.len() as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.lo.write_u64(i);
        self.hi.write_u64(i.rotate_left(29));
    }
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.lo.write_u128(i);
        self.hi.write_u128(i.rotate_left(29));
    }
    fn finish(&self) -> u64 {
        self.lo.finish()
    }
}

/// The 128-bit fingerprint of a value (never 0).
pub fn fingerprint128<T: Hash + ?Sized>(value: &T) -> u128 {
    let mut h = Wide::new();
    value.hash(&mut h);
    match (h.hi.finish() as u128) << 64 | h.lo.finish() as u128 {
        0 => 1,
        fp => fp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_the_top_bits_so_shard_order_is_value_order() {
        let mut fps: Vec<u64> = (0u32..10_000).map(|i| u64::of(&i)).collect();
        fps.sort_unstable();
        assert!(fps.windows(2).all(|w| w[0].shard() <= w[1].shard()));
        let mut wide: Vec<u128> = (0u32..10_000).map(|i| u128::of(&i)).collect();
        wide.sort_unstable();
        assert!(wide.windows(2).all(|w| w[0].shard() <= w[1].shard()));
        assert!(wide
            .windows(2)
            .all(|w| w[0].key() <= w[1].key() || w[0].shard() < w[1].shard()));
    }

    #[test]
    fn wide_fingerprints_are_stable_and_discriminating() {
        assert_eq!(fingerprint128(&7u32), fingerprint128(&7u32));
        assert_ne!(fingerprint128(&(1u8, 2u8)), fingerprint128(&(2u8, 1u8)));
        let set: std::collections::HashSet<u128> =
            (0u32..100_000).map(|i| fingerprint128(&i)).collect();
        assert_eq!(set.len(), 100_000);
        let mut counts = [0usize; SHARDS];
        for i in 0u32..64_000 {
            counts[u128::of(&i).shard()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
