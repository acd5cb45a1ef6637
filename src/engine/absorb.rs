//! Phase 2 of a batch, deduplication: the 64 shards are claimed
//! dynamically by the threads. Shard `s` consumes bucket `s` of every chunk
//! *in chunk order*, inserting each new fingerprint (with its parent's)
//! into its part of the visited set and moving the held successor into the
//! shard's part of the next level (a byte copy with a codec); duplicates
//! are dropped. A shard's visited table is small enough to stay in cache
//! while it is processed. When the next level is the last one the bound
//! allows, only the new states' fingerprints are kept, and the first new
//! state deciding each property is noted from the hits phase 1 evaluated.

use super::chunk::ChunkSlot;
use super::fingerprint::{ParentMap, SHARDS};
use super::level::Level;
use super::parallel::{for_each_dynamic, threads_for};
use super::part::Part;
use stateright::Model;
use std::collections::hash_map::Entry;

impl<M, T> Level<'_, M, T>
where
    M: Model + Sync,
    M::State: Clone + Send + Sync,
{
    /// Phase 2 on the output of a batch's chunks (`slots`): each shard's
    /// new states go to its visited set and its part of `next`; at the
    /// last level, `leaf_hits[s]` gets shard `s`'s first new state deciding
    /// each property (one entry per shard, else `leaf_hits` is empty).
    pub(super) fn absorb_batch(
        &self,
        slots: &[ChunkSlot<M::State>],
        visited: &mut [ParentMap],
        next: &mut [Part<M::State>],
        leaf_hits: &mut [Vec<Option<u64>>],
    ) {
        let candidates: usize = slots
            .iter()
            .flat_map(|s| s.buckets.iter())
            .map(Vec::len)
            .sum();
        let mut leaf_parts: Vec<Option<&mut [Option<u64>]>> = if self.leaf {
            leaf_hits
                .iter_mut()
                .map(|h| Some(h.as_mut_slice()))
                .collect()
        } else {
            (0..SHARDS).map(|_| None).collect()
        };
        let shards: Vec<_> = visited
            .iter_mut()
            .zip(next.iter_mut())
            .zip(leaf_parts.drain(..))
            .enumerate()
            .collect();
        for_each_dynamic(threads_for(candidates, self.threads), shards, &|(
            s,
            ((v, part), hits),
        )| {
            self.absorb(s, v, slots, part, hits)
        });
    }

    /// Phase 2 for shard `s`: consumes its buckets in chunk order, records
    /// each new fingerprint with its parent's, and moves the new states
    /// (as encoded, with a codec) into `part`; or, when the next level is
    /// the last (`leaf`), keeps only their fingerprints and records in
    /// `leaf` the fingerprint of the first new state deciding each
    /// property (from the hits evaluated in phase 1).
    fn absorb(
        &self,
        s: usize,
        visited: &mut ParentMap,
        slots: &[ChunkSlot<M::State>],
        part: &mut Part<M::State>,
        leaf: Option<&mut [Option<u64>]>,
    ) {
        let mut leaf = leaf;
        for slot in slots {
            let held = &slot.held[s];
            for (i, c) in slot.buckets[s].iter().enumerate() {
                let Entry::Vacant(e) = visited.entry(c.fp) else {
                    continue;
                };
                e.insert(self.fp_at(c.parent as usize));
                match leaf.as_deref_mut() {
                    Some(first) => {
                        for (p, slot) in first.iter_mut().enumerate() {
                            if slot.is_none() && c.hits & 1 << p != 0 {
                                *slot = Some(c.fp);
                            }
                        }
                        part.push_unheld();
                    }
                    None => part.push_from(held, i, c.fp, self.codec),
                }
            }
        }
    }
}
