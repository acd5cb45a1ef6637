//! Stable 64-bit state fingerprints, the identity hasher for
//! fingerprint-keyed maps, and TLC-style fingerprint-collision estimates
//! for either stored width (the 128-bit fingerprint and the shards are in
//! `fp`).
//!
//! The fingerprint of a state is a pure function of the bytes its `Hash`
//! implementation feeds to the hasher: the hasher has fixed keys, no random
//! seed and no platform-dependent state, so fingerprints (and therefore the
//! engine's canonical orders) are identical on every run and every thread
//! count. It is *not* the same function as stateright's private
//! `fingerprint` (an `ahash` with fixed keys, which this crate does not
//! depend on directly).

use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Which fingerprint function this build computes: raised whenever the
/// fingerprint of some state changes (this hasher, or the `Hash` of a
/// state the engine stores), so that a checkpoint made by a build with
/// other fingerprints is refused instead of resumed into wrong counts.
/// Scheme 1 had no number (checkpoints without one are scheme 1); scheme
/// 2 takes a 128-bit word in one multiply and hashes a record as one.
pub const FINGERPRINT_SCHEME: u32 = 2;

/// The scheme of a checkpoint that names none.
pub fn unnumbered_scheme() -> u32 {
    1
}

/// Why a checkpoint in `dir` made with fingerprint scheme `made` cannot
/// be resumed by this build, in one line.
pub fn scheme_mismatch(dir: &std::path::Path, made: u32) -> String {
    format!(
        "{}: the checkpoint was made by a build with other state fingerprints (scheme {made}, this build {FINGERPRINT_SCHEME}): run the check afresh",
        dir.display()
    )
}

const SEED: u64 = 0x243f_6a88_85a3_08d3; // digits of pi
const MUL: u64 = 0x5851_f42d_4c95_7f2d; // PCG multiplier (odd)
const PAIR: u64 = 0x1319_8a2e_0370_7344; // more digits of pi
const FIN1: u64 = 0xff51_afd7_ed55_8ccd; // murmur3 fmix64 constants
const FIN2: u64 = 0xc4ce_b9fe_1a85_ec53;

/// 64×64→128-bit multiply folded back to 64 bits (the `ahash` fallback
/// mixing step).
#[inline(always)]
fn folded_mul(a: u64, b: u64) -> u64 {
    let r = (a as u128).wrapping_mul(b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

/// The writes of integers narrower than a word, each widened to one word
/// (`Hasher`'s own signed writes reinterpret as unsigned and come here).
macro_rules! narrow_writes {
    () => {
        narrow_writes!(write_u8: u8, write_u16: u16, write_u32: u32, write_usize: usize);
    };
    ($($name:ident: $ty:ty),*) => {
        $(
            #[inline]
            fn $name(&mut self, i: $ty) {
                self.write_u64(i as u64);
            }
        )*
    };
}
pub(super) use narrow_writes;

/// A fast, fixed-key, deterministic [`Hasher`] for fingerprinting states.
///
/// Every integer write is one folded multiply; byte slices are consumed
/// eight bytes at a time; `finish` applies the murmur3 finaliser so that
/// every output bit (in particular the shard bits) depends on every input.
#[derive(Clone, Debug)]
pub struct StableHasher {
    h: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher { h: SEED }
    }
}

impl Hasher for StableHasher {
    narrow_writes!();
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        // Mix the remainder together with its length so that trailing zero
        // bytes are distinguished.
        self.write_u64(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.h = folded_mul(self.h ^ i, MUL);
    }
    /// Two words in one multiply, each factor keyed by the state so far
    /// (a factor is zero only when a word equals a function of the
    /// pseudo-random state, probability 2⁻⁶⁴): a value that writes its
    /// fields in pairs (a record's digest, a transaction's two sets, a
    /// store's lengths and registry) is fingerprinted in half the
    /// multiplies.
    #[inline]
    fn write_u128(&mut self, i: u128) {
        let (lo, hi) = (i as u64, (i >> 64) as u64);
        self.h = folded_mul(lo ^ self.h, hi ^ self.h.rotate_left(32) ^ PAIR);
    }
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.h;
        z ^= z >> 33;
        z = z.wrapping_mul(FIN1);
        z ^= z >> 33;
        z = z.wrapping_mul(FIN2);
        z ^ (z >> 33)
    }
}

/// The 64-bit fingerprint of a value: [`StableHasher`] output, with the
/// (probability 2⁻⁶⁴) value 0 remapped to 1 so that 0 can mark an empty
/// slot of the visited set.
#[inline]
pub fn fingerprint<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = StableHasher::default();
    value.hash(&mut h);
    match h.finish() {
        0 => 1,
        fp => fp,
    }
}

/// A no-op [`Hasher`] for keys that already are uniformly distributed
/// fingerprints.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only reached for non-u64 keys; fold the bytes in anyway.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `BuildHasher` for fingerprint-keyed std maps and sets.
pub type BuildIdentity = BuildHasherDefault<IdentityHasher>;

/// TLC's "optimistic" fingerprint-collision estimate for a run that found
/// `states` distinct states while generating `transitions` successor states:
/// `states × (transitions − states) / 2⁶⁴`.
///
/// Rationale (TLC): each of the `transitions − states` successor computations
/// that hit an already-seen fingerprint could instead have been a new state
/// whose fingerprint collided with one of at most `states` stored ones, each
/// with probability 2⁻⁶⁴. Returns 0 when `transitions ≤ states`.
pub fn collision_probability(states: u64, transitions: u64) -> f64 {
    collision_probability_bits(64, states, transitions)
}

/// [`collision_probability`] for fingerprints of `bits` bits (64 or 128):
/// `states × (transitions − states) / 2^bits`.
pub fn collision_probability_bits(bits: u32, states: u64, transitions: u64) -> f64 {
    let dup = transitions.saturating_sub(states) as f64;
    states as f64 * dup / 2f64.powi(bits as i32)
}

/// Birthday bound on the probability that any two of `states` distinct
/// states share a fingerprint: `n(n−1)/2⁶⁵` (capped at 1).
pub fn collision_probability_birthday(states: u64) -> f64 {
    collision_probability_birthday_bits(64, states)
}

/// [`collision_probability_birthday`] for `bits`-bit fingerprints:
/// `n(n−1)/2^(bits+1)`.
pub fn collision_probability_birthday_bits(bits: u32, states: u64) -> f64 {
    let n = states as f64;
    (n * (n - 1.0).max(0.0) / 2f64.powi(bits as i32 + 1)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_stable_and_discriminating() {
        // Pinned values: a change here changes every canonical order.
        assert_eq!(fingerprint(&0u64), fingerprint(&0u64));
        assert_ne!(fingerprint(&(1u8, 2u8)), fingerprint(&(2u8, 1u8)));
        assert_ne!(fingerprint(&vec![0u8]), fingerprint(&vec![0u8, 0u8]));
        assert_ne!(fingerprint("a"), fingerprint("a\0"));
        let fps: std::collections::HashSet<u64> =
            (0u32..100_000).map(|i| fingerprint(&i)).collect();
        assert_eq!(fps.len(), 100_000);
    }

    #[test]
    fn collision_formulas() {
        assert_eq!(collision_probability(10, 5), 0.0);
        let p = collision_probability(1 << 20, 1 << 22);
        assert!((p - (2f64.powi(20) * 3.0 * 2f64.powi(20)) / 2f64.powi(64)).abs() < 1e-25);
        assert_eq!(collision_probability_birthday(1), 0.0);
        assert!((collision_probability_birthday(1 << 32) - 0.5).abs() < 1e-6);
        assert!((collision_probability_birthday_bits(128, 1 << 32) - 2f64.powi(-65)).abs() < 1e-25);
    }
}
