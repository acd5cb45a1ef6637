//! One shard's part of the visited set: the fingerprints alone, in an
//! ordered open-addressing table (Amble and Knuth's ordered hash table with
//! linear probing).
//!
//! A fingerprint's home slot is its [`Fp::key`] scaled to the capacity, so
//! homes grow with the value, and an insertion shifts the rest of its
//! cluster one slot to the right to keep every cluster sorted. The whole
//! table is then one sorted run with gaps, which buys three things at the
//! 90% load the engine keeps it at: a failed look-up stops at the first
//! larger value (as cheap as a successful one, where plain linear probing
//! would scan to the end of the cluster), a resize is one sequential merge
//! pass, and [`FpTable::iter`] yields the fingerprints in order (what a
//! checkpoint writes).

use super::fp::Fp;

/// Slots past the last home, so that a cluster never wraps around.
const TAIL: usize = 64;

pub(super) struct FpTable<W> {
    /// `capacity + TAIL` slots (more if a cluster runs past them); the
    /// last slot is always empty, which ends every scan.
    slots: Vec<W>,
    capacity: usize,
    len: usize,
}

impl<W: Fp> FpTable<W> {
    pub(super) fn new() -> Self {
        FpTable {
            slots: vec![W::ZERO; 1 + TAIL],
            capacity: 1,
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Heap bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<W>()
    }

    #[inline(always)]
    fn home(&self, fp: W) -> usize {
        home(fp, self.capacity)
    }

    /// The slot holding `fp`, or where it would go.
    #[inline]
    fn seek(&self, fp: W) -> usize {
        let mut i = self.home(fp);
        // The last slot is empty, so the scan ends inside the table.
        while self.slots[i] != W::ZERO && self.slots[i].precedes(fp) {
            i += 1;
        }
        i
    }

    /// Asks the processor to fetch the slot where `fp` would start its
    /// search. Phase 2 calls it on a candidate some places ahead of the one
    /// it inserts, so that the slot's cache miss, in a table far larger
    /// than the cache, overlaps with the inserts in between instead of
    /// every insert waiting for memory on its own (at default depth 9 that
    /// wait was three quarters of `insert`, a sixth of the run).
    ///
    /// On x86-64 this is a prefetch instruction, one of the crate's two
    /// `unsafe`s outside tests (the other is `allocator`'s `mallopt`):
    /// `_mm_prefetch` is a hint that never faults and has no effect on the
    /// program's state, whatever the address (it is `unsafe` only because
    /// it is a `target_feature` intrinsic; SSE is part of x86-64's
    /// baseline). A plain read of the slot, which is what other targets
    /// do, holds back the instructions after it until memory answers, so
    /// fewer misses overlap: the prefetch took about 10% less time on the
    /// whole run at default depth 9 (three paired runs on a noisy machine,
    /// so a rough figure).
    #[inline]
    pub(super) fn touch(&self, fp: W) {
        let slot = &self.slots[self.home(fp)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing the program sees and cannot
        // fault; `slot` is a valid reference besides.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>((slot as *const W).cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        std::hint::black_box(*slot == W::ZERO);
    }

    #[cfg(test)]
    pub(super) fn contains(&self, fp: W) -> bool {
        self.slots[self.seek(fp)] == fp
    }

    /// Adds `fp`; false if it was already there.
    #[inline]
    pub(super) fn insert(&mut self, fp: W) -> bool {
        let i = self.seek(fp);
        if self.slots[i] == fp {
            return false;
        }
        let mut end = i;
        while self.slots[end] != W::ZERO {
            end += 1;
        }
        if end + 1 == self.slots.len() {
            // Keep the last slot empty.
            self.slots.push(W::ZERO);
        }
        self.slots.copy_within(i..end, i + 1);
        self.slots[i] = fp;
        self.len += 1;
        if self.len * 20 > self.capacity * 19 {
            // Past 95%: the level outgrew its prediction.
            self.resize(self.len + self.len / 4);
        }
        true
    }

    /// The fingerprints in the table's order (ascending, for one shard's).
    pub(super) fn iter(&self) -> impl Iterator<Item = W> + '_ {
        self.slots.iter().copied().filter(|&w| w != W::ZERO)
    }

    /// Rebuilds the table with `capacity` home slots (at least `len`).
    pub(super) fn resize(&mut self, capacity: usize) {
        let capacity = capacity.max(self.len).max(1);
        let slots = layout(self.iter(), capacity);
        self.slots = slots;
        self.capacity = capacity;
    }

    /// A table of `len` fingerprints given in the table's order, with
    /// `capacity` homes.
    pub(super) fn from_sorted(fps: impl Iterator<Item = W>, len: usize, capacity: usize) -> Self {
        let capacity = capacity.max(len).max(1);
        FpTable {
            slots: layout(fps, capacity),
            capacity,
            len,
        }
    }
}

#[inline(always)]
fn home<W: Fp>(fp: W, capacity: usize) -> usize {
    ((fp.key() as u128 * capacity as u128) >> 64) as usize
}

/// Slots holding `fps` (in the table's order) with `capacity` homes: one pass, each
/// fingerprint at its home or just after its predecessor.
fn layout<W: Fp>(fps: impl Iterator<Item = W>, capacity: usize) -> Vec<W> {
    let mut slots = vec![W::ZERO; capacity + TAIL];
    let mut next = 0;
    for fp in fps {
        let at = home(fp, capacity).max(next);
        if at + 1 >= slots.len() {
            slots.resize(at + 2, W::ZERO);
        }
        slots[at] = fp;
        next = at + 1;
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_find_and_iterate_in_order_at_any_load() {
        let mut t = FpTable::<u64>::new();
        let fps: Vec<u64> = (0u32..20_000).map(|i| u64::of(&i)).collect();
        for (n, &fp) in fps.iter().enumerate() {
            assert!(t.insert(fp));
            assert!(!t.insert(fp));
            if n % 5_000 == 0 {
                t.resize(n + n / 9);
            }
        }
        assert_eq!(t.len(), fps.len());
        assert!(fps.iter().all(|&fp| t.contains(fp)));
        assert!((20_000u32..30_000).all(|i| !t.contains(u64::of(&i))));
        let mut sorted = fps.clone();
        sorted.sort_unstable_by_key(|&fp| (fp.key(), fp));
        assert_eq!(t.iter().collect::<Vec<_>>(), sorted);
        let back = FpTable::from_sorted(sorted.iter().copied(), sorted.len(), 21_000);
        assert!(fps.iter().all(|&fp| back.contains(fp)));
        assert_eq!(back.iter().count(), fps.len());
    }

    #[test]
    fn a_full_table_grows_by_itself() {
        let mut t = FpTable::<u128>::new();
        for i in 0u32..5_000 {
            t.insert(u128::of(&i));
        }
        assert!(t.capacity() >= 5_000);
        assert!((0u32..5_000).all(|i| t.contains(u128::of(&i))));
    }
}
