//! The chunk slots: what phase 1 produced for one chunk (a run of
//! consecutive frontier states), waiting for phase 2. A batch of a level
//! uses one slot per chunk; slots are reused from batch to batch so their
//! buffers stay allocated.

use super::fingerprint::SHARDS;
use super::part::Part;

/// Frontier states per chunk.
pub(super) const CHUNK_STATES: usize = if cfg!(test) { 4 } else { 1024 };
/// Chunks per thread in a batch (so slots per run).
pub(super) const CHUNKS_PER_THREAD: usize = 16;

/// A successor awaiting deduplication: its fingerprint and the frontier
/// position of its parent. The successor itself waits in the chunk's
/// [`Part`] for the same shard, at the same index.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    pub(super) fp: u64,
    pub(super) parent: u32,
    /// At the last level: the properties this successor decides (bit `p`
    /// for property `p`), evaluated when it was generated, so that it need
    /// not be held at all.
    pub(super) hits: u64,
}

/// The output of one chunk.
pub(super) struct ChunkSlot<S> {
    /// Candidates per shard, in (frontier position, action index) order.
    pub(super) buckets: Vec<Vec<Candidate>>,
    /// The candidates' states per shard (encoded when there is a codec).
    pub(super) held: Vec<Part<S>>,
    /// Transitions generated from the chunk.
    pub(super) transitions: u64,
    /// Per property: frontier position of the first state in the chunk that
    /// decides it.
    pub(super) hits: Vec<Option<usize>>,
    /// Per label of a labelled model: the chunk's transitions carrying it
    /// (empty for a plain model).
    pub(super) labels: Vec<u64>,
}

impl<S: Clone> ChunkSlot<S> {
    pub(super) fn new(properties: usize, labels: usize) -> Self {
        ChunkSlot {
            buckets: (0..SHARDS).map(|_| Vec::new()).collect(),
            held: (0..SHARDS).map(|_| Part::new()).collect(),
            transitions: 0,
            hits: vec![None; properties],
            labels: vec![0; labels],
        }
    }

    pub(super) fn reset(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        self.held.iter_mut().for_each(Part::clear);
        self.transitions = 0;
        self.hits.iter_mut().for_each(|h| *h = None);
        self.labels.iter_mut().for_each(|n| *n = 0);
    }
}
