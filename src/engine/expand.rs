//! Phase 1 of a batch, expansion: for each frontier state of a chunk, in
//! order, evaluate the undecided properties (remembering the first hit of
//! each in the chunk); then, below the depth bound, generate its
//! successors. An action that is no transition counts only its attempt's
//! labels. A successor outside the boundary is dropped; otherwise it is
//! a transition (its labels counted) and, unless it is a self-loop (same
//! fingerprint as its parent), becomes a candidate (fingerprint, parent
//! position) in the chunk's bucket for the fingerprint's shard, the
//! successor itself held beside it (encoded, when there is a codec). When
//! the next level is the last, the successor is checked here instead and
//! not held.

use super::chunk::{Candidate, ChunkSlot};
use super::fingerprint::{fingerprint, shard_of};
use super::labels::{Labels, Transitions};
use super::level::{Chunk, Level};
use super::parallel::{for_each_dynamic, threads_for};
use stateright::{Expectation, Model};
use std::hash::Hash;

/// Properties a model may have (a successor's hits at the last level are a
/// 64-bit set).
pub(super) const MAX_PROPERTIES: usize = 64;

impl<M, T> Level<'_, M, T>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    T: Transitions<M>,
{
    /// Phase 1 on the chunks of `batch`, chunk `k` into `slots[k]`, on the
    /// level's threads when the batch is large enough; generates successors
    /// only if `expand`. Returns the number of states expanded.
    pub(super) fn expand_batch(
        &self,
        slots: &mut [ChunkSlot<M::State>],
        batch: &[Chunk],
        expand: bool,
    ) -> u64 {
        let states: usize = batch.iter().map(|&(_, lo, hi)| hi - lo).sum();
        let work: Vec<_> = slots.iter_mut().zip(batch).collect();
        for_each_dynamic(threads_for(states, self.threads), work, &|(
            slot,
            &chunk,
        )| {
            self.expand_chunk(slot, chunk, expand)
        });
        states as u64
    }

    /// Phase 1 on states `lo..hi` of part `s`.
    fn expand_chunk(&self, slot: &mut ChunkSlot<M::State>, (s, lo, hi): Chunk, expand: bool) {
        let model = self.model;
        let mut actions = Vec::new();
        let part = &self.parts[s];
        for (i, k) in (self.offsets[s] + lo..).zip(lo..hi) {
            let state = part.get(k, self.codec);
            let state: &M::State = &state;
            let state_fp = part.fps[k];
            self.check(state, &mut slot.hits, i);
            if !expand {
                continue;
            }
            model.actions(state, &mut actions);
            for action in actions.drain(..) {
                let (next, label) = match T::next(model, state, action) {
                    Ok(transition) => transition,
                    Err(attempt) => {
                        // Not a transition; a labelled attempt still counts.
                        attempt.count_into(&mut slot.labels);
                        continue;
                    }
                };
                if !model.within_boundary(&next) {
                    continue;
                }
                slot.transitions += 1;
                label.count_into(&mut slot.labels);
                let fp = fingerprint(&next);
                if fp == state_fp {
                    // A self-loop (common: stuttering actions) is never new.
                    continue;
                }
                let shard = shard_of(fp);
                let parent = i as u32;
                if self.leaf {
                    let hits = self.deciding(&next);
                    slot.buckets[shard].push(Candidate { fp, parent, hits });
                } else {
                    slot.buckets[shard].push(Candidate {
                        fp,
                        parent,
                        hits: 0,
                    });
                    slot.held[shard].push(next, fp, self.codec);
                }
            }
        }
    }

    /// The undecided properties that `state` decides, as a bit set.
    fn deciding(&self, state: &M::State) -> u64 {
        let mut hits = [None; MAX_PROPERTIES];
        self.check(state, &mut hits[..self.properties.len()], ());
        hits.iter()
            .enumerate()
            .filter(|(_, h)| h.is_some())
            .fold(0, |bits, (p, _)| bits | 1 << p)
    }

    /// The first undecided property (not yet hit in `hits`) that `state`
    /// decides, recorded at `at`.
    fn check<A: Copy>(&self, state: &M::State, hits: &mut [Option<A>], at: A) {
        for (p, prop) in self.properties.iter().enumerate() {
            if !self.undecided[p] || hits[p].is_some() {
                continue;
            }
            let holds = (prop.condition)(self.model, state);
            let hit = match prop.expectation {
                Expectation::Always => !holds,
                Expectation::Sometimes => holds,
                Expectation::Eventually => false,
            };
            if hit {
                hits[p] = Some(at);
            }
        }
    }
}
