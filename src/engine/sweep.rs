//! Phase 1 (`expand`) for a search that routes the successors itself: a
//! level held whole (one part per shard, in fingerprint order, encoded by
//! a codec) is expanded on the caller's thread a range of chunks at a
//! time, and each chunk's output — per property its first deciding
//! state, its transitions and label counts, its successors with their
//! parents' fingerprints — is handed to the caller before the next chunk
//! is expanded into the same slot. The rules (properties, labels,
//! boundary, self-loops, the last level checked as it is generated) are
//! the loop's own, in `expand`.

use super::chunk::ChunkSlot;
use super::codec::StateCodec;
use super::fp::Fp;
use super::labels::Transitions;
use super::level::{Chunk, Level};
use super::part::Part;
use stateright::{Model, Property};
use std::hash::Hash;
use std::ops::Range;

/// One level's expansion on one thread (see the module docs).
pub(crate) struct Sweep<'a, M: Model, T, W> {
    level: Level<'a, M, T, W>,
    chunks: Vec<Chunk>,
    slot: ChunkSlot<M::State, W>,
}

/// What one chunk gave.
pub(crate) struct Expanded<'a, S, W> {
    slot: &'a ChunkSlot<S, W>,
    /// The fingerprints of the part the chunk is of.
    parents: &'a [W],
    /// The position in the level of that part's first state.
    base: u64,
}

/// A successor: its fingerprint, its link (its parent's fingerprint and
/// the action's index in the parent's list) and its encoding; at the
/// last level no encoding (it is not kept) but the undecided properties
/// it decides, as bits.
pub(crate) struct Successor<'a, W> {
    pub(crate) fp: W,
    pub(crate) parent: W,
    pub(crate) action: u32,
    pub(crate) decides: u64,
    pub(crate) encoding: &'a [u8],
}

impl<'a, M, T, W> Sweep<'a, M, T, W>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    /// The expansion of `frontier`: its states checked against the
    /// `undecided` properties and, if `expanding`, their successors
    /// generated (checked, not kept, when they are of the last level,
    /// `leaf`).
    pub(crate) fn new(
        model: &'a M,
        properties: &'a [Property<M>],
        undecided: &'a [bool],
        codec: &'a dyn StateCodec<M::State>,
        frontier: &[Part<M::State, W>],
        (leaf, expanding): (bool, bool),
    ) -> Self {
        let sizes: Vec<u64> = frontier.iter().map(|p| p.len() as u64).collect();
        let mut level = Level::new(model, properties, undecided, &sizes, Some(codec), leaf, 1);
        level.expanding = expanding;
        Sweep {
            chunks: level.chunks(),
            slot: ChunkSlot::new(properties.len(), T::label_names(model).len()),
            level,
        }
    }

    /// The number of chunks of the level.
    pub(crate) fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Phase 1 on the chunks `range` of `frontier`, in order, each
    /// chunk's output handed to `take`.
    pub(crate) fn expand(
        &mut self,
        frontier: &[Part<M::State, W>],
        range: Range<usize>,
        mut take: impl FnMut(&Expanded<'_, M::State, W>),
    ) {
        for &chunk in &self.chunks[range] {
            let slot = std::slice::from_mut(&mut self.slot);
            self.level.expand_batch(frontier, slot, &[chunk]);
            let s = chunk.0;
            take(&Expanded {
                slot: &self.slot,
                parents: &frontier[s].fps,
                base: self.level.offsets[s],
            });
            self.slot.reset();
        }
    }
}

impl<S: Clone, W: Fp> Expanded<'_, S, W> {
    /// Per property: the chunk's first state deciding it.
    pub(crate) fn hits(&self) -> impl Iterator<Item = Option<W>> + '_ {
        self.slot.hits.iter().map(|hit| hit.map(|(_, fp)| fp))
    }

    pub(crate) fn transitions(&self) -> u64 {
        self.slot.transitions
    }

    /// Per label: the chunk's transitions (and attempts) carrying it.
    pub(crate) fn labels(&self) -> &[u64] {
        &self.slot.labels
    }

    /// Calls `f` on each successor, shard by shard.
    pub(crate) fn for_each_successor(&self, mut f: impl FnMut(Successor<'_, W>)) {
        for (bucket, held) in self.slot.buckets.iter().zip(&self.slot.held) {
            let mut encodings = held.encodings().map(|(_, encoding)| encoding);
            for c in bucket {
                let parent = self.parents[(u64::from(c.link.parent) - self.base) as usize];
                f(Successor {
                    fp: c.fp,
                    parent,
                    action: c.link.action,
                    decides: c.hits,
                    encoding: encodings.next().unwrap_or_default(),
                });
            }
        }
    }
}
