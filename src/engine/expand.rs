//! Phase 1 of a batch, expansion: for each frontier state of a chunk, in
//! order, evaluate the undecided properties (remembering the first hit of
//! each in the chunk); then, below the depth bound, generate its
//! successors. An action that is no transition counts only its attempt's
//! labels. A successor outside the boundary is dropped; otherwise it is
//! a transition (its labels counted). Unless it is a self-loop, it becomes
//! a candidate (fingerprint, link) in the chunk's bucket for its shard, the
//! successor itself held beside it (encoded, when there is a codec).
//! Whether it is new is found in phase 2, where its shard's table is warm
//! in the cache: a look-up here, in a table of all shards, would wait for
//! memory more than encoding takes. When the next level is the last, the
//! successor is checked here instead and not held.

use super::chunk::{Candidate, ChunkSlot};
use super::fp::Fp;
use super::labels::{Labels, Transitions};
use super::level::{Chunk, Level};
use super::links::Link;
use super::parallel::{for_each_dynamic, threads_for};
use super::part::Part;
use stateright::Model;
use std::hash::Hash;

/// Properties a model may have (a successor's hits at the last level are a
/// 64-bit set).
pub(super) const MAX_PROPERTIES: usize = 64;

impl<M, T, W> Level<'_, M, T, W>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    /// Phase 1 on the chunks of `batch` of the frontier `parts`, chunk `k`
    /// into `slots[k]`, on the level's threads when the batch is large
    /// enough. Returns the number of states expanded.
    pub(super) fn expand_batch(
        &self,
        parts: &[Part<M::State, W>],
        slots: &mut [ChunkSlot<M::State, W>],
        batch: &[Chunk],
    ) -> u64 {
        let states: usize = batch.iter().map(|&(_, lo, hi)| hi - lo).sum();
        let work: Vec<_> = slots.iter_mut().zip(batch).collect();
        for_each_dynamic(threads_for(states, self.threads), work, &|(
            slot,
            &(s, lo, hi),
        )| {
            self.expand_chunk(&parts[s], self.offsets[s], slot, lo, hi)
        });
        states as u64
    }

    /// Phase 1 on states `lo..hi` of `part`, whose first state is at
    /// position `base` of the level.
    fn expand_chunk(
        &self,
        part: &Part<M::State, W>,
        base: u64,
        slot: &mut ChunkSlot<M::State, W>,
        lo: usize,
        hi: usize,
    ) {
        let mut actions = Vec::new();
        // Every successor is written into this one state (see
        // `Transitions::next_into`), then fingerprinted, checked or held.
        let mut successor: Option<M::State> = None;
        part.visit(lo, hi, self.codec, |k, state| {
            let (pos, state_fp) = (base + k as u64, part.fps[k]);
            let next = successor.get_or_insert_with(|| state.clone());
            self.expand_state(state, (pos, state_fp), slot, (&mut actions, next));
        });
    }

    /// Phase 1 on one frontier state, at position `pos` of the level with
    /// fingerprint `state_fp`; `actions` and `next` are reused buffers.
    fn expand_state(
        &self,
        state: &M::State,
        (pos, state_fp): (u64, W),
        slot: &mut ChunkSlot<M::State, W>,
        (actions, next): (&mut Vec<M::Action>, &mut M::State),
    ) {
        let model = self.model;
        self.check(state, &mut slot.hits, (pos, state_fp));
        if let Some(stream) = self.stream {
            stream.state(state);
        }
        if !self.expanding {
            return;
        }
        model.actions(state, actions);
        for (a, action) in actions.drain(..).enumerate() {
            let taken = self.stream.map(|_| action.clone());
            let label = match T::next_into(model, state, action, next) {
                Ok(label) => label,
                Err(attempt) => {
                    // Not a transition; a labelled attempt still counts.
                    attempt.count_into(&mut slot.labels);
                    continue;
                }
            };
            let next = &*next;
            if !model.within_boundary(next) {
                continue;
            }
            if let (Some(stream), Some(action)) = (self.stream, &taken) {
                stream.transition(state, action, next);
            }
            slot.transitions += 1;
            label.count_into(&mut slot.labels);
            let fp = W::of(next);
            // A self-loop (common: stuttering actions) is never new.
            if fp == state_fp {
                continue;
            }
            let link = Link {
                parent: pos as u32,
                action: a as u32,
            };
            let bucket = &mut slot.buckets[fp.shard()];
            if self.leaf {
                let hits = self.deciding(next);
                bucket.push(Candidate { fp, link, hits });
            } else {
                bucket.push(Candidate { fp, link, hits: 0 });
                slot.held[fp.shard()].push(next, fp, self.codec);
            }
        }
    }
}
