//! `RecordSet`: a set of record ids as a 64-bit bitset.
//!
//! Snapshots, staging lists, `derived_from` edges and the revocation
//! registry are all sets of record ids. A store holds at most
//! [`MAX_RECORDS`] records, so one machine word is enough, and the model
//! checker's states stay cheap to hash and clone.

use std::fmt;

/// The most records one store can hold (one bit each in a [`RecordSet`]).
pub const MAX_RECORDS: usize = 64;

/// A record id: the position of the record in its store, in creation order.
pub type RecordId = u8;

/// A set of record ids; iteration is in increasing id order, which is also
/// creation order and, for a transaction's staging, staging order.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordSet(u64);

impl RecordSet {
    pub const EMPTY: RecordSet = RecordSet(0);

    /// # Panics
    /// In debug builds, for an id of [`MAX_RECORDS`] or more; callers turn
    /// outside ids into errors first (the protocol and trace loader do).
    pub fn single(id: RecordId) -> Self {
        debug_assert!((id as usize) < MAX_RECORDS);
        RecordSet(1u64 << id)
    }

    /// The ids `0..n`.
    pub fn below(n: usize) -> Self {
        if n >= MAX_RECORDS {
            RecordSet(u64::MAX)
        } else {
            RecordSet((1u64 << n) - 1)
        }
    }

    pub fn bits(self) -> u64 {
        self.0
    }

    pub fn from_bits(bits: u64) -> Self {
        RecordSet(bits)
    }

    pub fn contains(self, id: RecordId) -> bool {
        (id as usize) < MAX_RECORDS && self.0 & (1u64 << id) != 0
    }

    /// The id must be below [`MAX_RECORDS`], as for [`RecordSet::single`].
    pub fn insert(&mut self, id: RecordId) {
        debug_assert!((id as usize) < MAX_RECORDS);
        self.0 |= 1u64 << id;
    }

    pub fn remove(&mut self, id: RecordId) {
        self.0 &= !(1u64 << id);
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn union(self, other: RecordSet) -> RecordSet {
        RecordSet(self.0 | other.0)
    }

    pub fn intersection(self, other: RecordSet) -> RecordSet {
        RecordSet(self.0 & other.0)
    }

    pub fn difference(self, other: RecordSet) -> RecordSet {
        RecordSet(self.0 & !other.0)
    }

    pub fn intersects(self, other: RecordSet) -> bool {
        self.0 & other.0 != 0
    }

    pub fn iter(self) -> impl Iterator<Item = RecordId> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let id = bits.trailing_zeros() as RecordId;
                bits &= bits - 1;
                Some(id)
            }
        })
    }
}

impl FromIterator<RecordId> for RecordSet {
    fn from_iter<I: IntoIterator<Item = RecordId>>(iter: I) -> Self {
        let mut set = RecordSet::EMPTY;
        for id in iter {
            set.insert(id);
        }
        set
    }
}

impl fmt::Debug for RecordSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_id_order() {
        let set: RecordSet = [5, 0, 63, 7].into_iter().collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 5, 7, 63]);
        assert_eq!(set.len(), 4);
    }

    #[test]
    fn set_algebra() {
        let a: RecordSet = [1, 2, 3].into_iter().collect();
        let b: RecordSet = [3, 4].into_iter().collect();
        assert_eq!(a.union(b).iter().collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        assert_eq!(a.intersection(b).iter().collect::<Vec<_>>(), vec![3]);
        assert_eq!(a.difference(b).iter().collect::<Vec<_>>(), vec![1, 2]);
        assert!(a.intersects(b));
        assert!(!a.contains(4));
        assert_eq!(
            RecordSet::below(3).iter().collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert_eq!(RecordSet::below(64).len(), 64);
    }
}
