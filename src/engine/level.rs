//! The level being expanded, read-only while both phases run on it: the
//! model and the properties still undecided, where each part of the
//! frontier starts, and how the frontier is cut into chunks. Phase 1 is in
//! `expand`, phase 2 in `absorb`.

use super::codec::StateCodec;
use super::decisions::decides;
use super::fp::SHARDS;
use super::observer::StateStream;
use super::part::CHUNK_STATES;
use stateright::{Model, Property};
use std::marker::PhantomData;

/// A chunk: part `s`, states `lo..hi` of it.
pub(crate) type Chunk = (usize, usize, usize);

/// Read-only context of a level. `T` says how a transition is taken (see
/// `labels::Transitions`), `W` is the fingerprint word.
pub(super) struct Level<'a, M: Model, T, W> {
    pub(super) model: &'a M,
    pub(super) properties: &'a [Property<M>],
    /// The indices of the properties still undecided, in order: only
    /// these are evaluated (most companions are decided within a few
    /// levels, and a loop over all of them on every state cost 4% of a
    /// run's instructions).
    pub(super) active: Vec<usize>,
    pub(super) codec: Option<&'a dyn StateCodec<M::State>>,
    /// The next level is the last: its states are checked when generated.
    pub(super) leaf: bool,
    /// Successors are generated (false at the bound, or once stopped by a
    /// violation).
    pub(super) expanding: bool,
    /// Threads for the phases.
    pub(super) threads: usize,
    /// Told of each state and transition (see [`StateStream`]).
    pub(super) stream: Option<&'a dyn StateStream<M>>,
    /// `offsets[s]` = position of the first state of part `s`; one more
    /// entry holding the level's size.
    pub(super) offsets: Vec<u64>,
    /// The level's chunks, in position order, never straddling parts.
    pub(super) chunks: Vec<Chunk>,
    marker: PhantomData<fn() -> (T, W)>,
}

impl<'a, M: Model, T, W> Level<'a, M, T, W> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        model: &'a M,
        properties: &'a [Property<M>],
        undecided: &'a [bool],
        sizes: &[u64],
        codec: Option<&'a dyn StateCodec<M::State>>,
        leaf: bool,
        threads: usize,
    ) -> Self {
        let mut offsets = Vec::with_capacity(SHARDS + 1);
        offsets.push(0);
        for &size in sizes {
            offsets.push(offsets.last().copied().unwrap_or(0) + size);
        }
        assert!(
            offsets[SHARDS] <= u32::MAX as u64,
            "a level of more than 2^32 states"
        );
        Level {
            model,
            properties,
            active: (0..properties.len()).filter(|&p| undecided[p]).collect(),
            codec,
            leaf,
            expanding: true,
            threads,
            stream: None,
            chunks: chunks_of(&offsets),
            offsets,
            marker: PhantomData,
        }
    }

    /// The number of states in the level.
    pub(super) fn size(&self) -> u64 {
        self.offsets[SHARDS]
    }
}

/// The chunks of a level whose parts start at `offsets`.
fn chunks_of(offsets: &[u64]) -> Vec<Chunk> {
    (0..SHARDS)
        .flat_map(|s| {
            let len = (offsets[s + 1] - offsets[s]) as usize;
            (0..len)
                .step_by(CHUNK_STATES)
                .map(move |lo| (s, lo, len.min(lo + CHUNK_STATES)))
        })
        .collect()
}

/// Judging states against the properties still undecided.
impl<M: Model, T, W> Level<'_, M, T, W> {
    /// The undecided properties that `state` decides, as a bit set.
    pub(super) fn deciding(&self, state: &M::State) -> u64 {
        self.active
            .iter()
            .filter(|&&p| self.decides(p, state))
            .fold(0, |bits, &p| bits | 1 << p)
    }

    /// The first undecided property (not yet hit in `hits`) that `state`
    /// decides, recorded at `at`.
    pub(super) fn check<A: Copy>(&self, state: &M::State, hits: &mut [Option<A>], at: A) {
        for &p in &self.active {
            if hits[p].is_none() && self.decides(p, state) {
                hits[p] = Some(at);
            }
        }
    }

    /// Whether `state` decides property `p`: violates an `Always`, or is an
    /// example of a `Sometimes`.
    pub(super) fn decides(&self, p: usize, state: &M::State) -> bool {
        decides(&self.properties[p], self.model, state)
    }
}
