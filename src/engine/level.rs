//! The level being expanded, read-only while both phases run on it: the
//! model and the properties still undecided, the frontier's parts and the
//! positions of its states, and how it is cut into chunks. Phase 1 is in
//! `expand`, phase 2 in `absorb`.

use super::chunk::CHUNK_STATES;
use super::fingerprint::SHARDS;
use super::part::Part;
use super::StateCodec;
use stateright::{Model, Property};
use std::marker::PhantomData;

/// A chunk: part `s`, states `lo..hi` of it.
pub(super) type Chunk = (usize, usize, usize);

/// Read-only context of a level: the model and the frontier. `T` says how
/// a transition is taken (see `labels::Transitions`).
pub(super) struct Level<'a, M: Model, T> {
    pub(super) model: &'a M,
    pub(super) properties: &'a [Property<M>],
    /// Which properties still need evaluating.
    pub(super) undecided: &'a [bool],
    pub(super) parts: &'a [Part<M::State>],
    pub(super) codec: Option<&'a dyn StateCodec<M::State>>,
    /// The next level is the last: its states are checked when generated.
    pub(super) leaf: bool,
    /// Threads for the phases.
    pub(super) threads: usize,
    /// `offsets[s]` = position of the first state of part `s`; one more
    /// entry holding the level's size.
    pub(super) offsets: Vec<usize>,
    transitions: PhantomData<fn() -> T>,
}

impl<'a, M: Model, T> Level<'a, M, T> {
    pub(super) fn new(
        model: &'a M,
        properties: &'a [Property<M>],
        undecided: &'a [bool],
        parts: &'a [Part<M::State>],
        codec: Option<&'a dyn StateCodec<M::State>>,
        leaf: bool,
        threads: usize,
    ) -> Self
    where
        M::State: Clone,
    {
        let mut offsets = Vec::with_capacity(SHARDS + 1);
        offsets.push(0);
        for part in parts {
            offsets.push(offsets.last().copied().unwrap_or(0) + part.len());
        }
        assert!(
            offsets[SHARDS] <= u32::MAX as usize,
            "a level of more than 2^32 states"
        );
        Level {
            model,
            properties,
            undecided,
            parts,
            codec,
            leaf,
            threads,
            offsets,
            transitions: PhantomData,
        }
    }

    /// The number of states in the level.
    pub(super) fn size(&self) -> usize {
        self.offsets[SHARDS]
    }

    /// The level's chunks, in position order, never straddling parts.
    pub(super) fn chunks(&self) -> Vec<Chunk>
    where
        M::State: Clone,
    {
        (0..SHARDS)
            .flat_map(|s| {
                let len = self.parts[s].len();
                (0..len)
                    .step_by(CHUNK_STATES)
                    .map(move |lo| (s, lo, len.min(lo + CHUNK_STATES)))
            })
            .collect()
    }

    /// The fingerprint at a position.
    pub(super) fn fp_at(&self, pos: usize) -> u64 {
        let s = self.offsets.partition_point(|&o| o <= pos) - 1;
        self.parts[s].fps[pos - self.offsets[s]]
    }
}
