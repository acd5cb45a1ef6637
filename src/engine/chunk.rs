//! The chunk slots: what phase 1 produced for one chunk (a run of
//! consecutive frontier states), waiting for phase 2. A batch of a level
//! uses one slot per chunk; slots are reused from batch to batch so their
//! buffers stay allocated.

use super::fp::SHARDS;
use super::links::Link;
use super::part::Part;

/// Chunks per thread in a batch (so slots per run).
pub(super) const CHUNKS_PER_THREAD: usize = 16;

/// A successor awaiting deduplication: its fingerprint and link. Below
/// the last level the successor itself waits in the chunk's [`Part`] for
/// the same shard, in the same order.
#[derive(Clone, Copy)]
pub(super) struct Candidate<W> {
    pub(super) fp: W,
    pub(super) link: Link,
    /// At the last level: the properties this successor decides (bit `p`
    /// for property `p`), evaluated when it was generated, so that it need
    /// not be held at all. (Holding last-level successors until phase 2
    /// and checking only the new ones was tried: a third fewer checks, but
    /// the run took twice as long, its states' heap blocks cold in the
    /// cache and freed in bulk.)
    pub(super) hits: u64,
}

/// The first state of a chunk deciding a property: its position in the
/// level and its fingerprint.
pub(crate) type Hit<W> = Option<(u64, W)>;

/// The output of one chunk.
pub(crate) struct ChunkSlot<S, W> {
    /// Candidates per shard, in (frontier position, action index) order.
    pub(super) buckets: Vec<Vec<Candidate<W>>>,
    /// The candidates' states per shard (encoded when there is a codec).
    pub(super) held: Vec<Part<S, W>>,
    /// Transitions generated from the chunk.
    pub(super) transitions: u64,
    /// Per property: the chunk's first state deciding it.
    pub(super) hits: Vec<Hit<W>>,
    /// Per label of a labelled model: the chunk's transitions carrying it
    /// (empty for a plain model).
    pub(super) labels: Vec<u64>,
}

impl<S: Clone, W: Copy + Ord> ChunkSlot<S, W> {
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

/// A successor as a batch's slot holds it, its parent named by
/// fingerprint: its fingerprint, its link (its parent's fingerprint and
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

impl<S: Clone, W: Copy + Ord> ChunkSlot<S, W> {
    /// Calls `f` on each successor of the chunk this slot holds, shard by
    /// shard: the chunk is of the part whose fingerprints are `parents`
    /// and whose first state is at position `base` of the level.
    pub(crate) fn for_each_successor(
        &self,
        parents: &[W],
        base: u64,
        mut f: impl FnMut(Successor<'_, W>),
    ) {
        for (bucket, held) in self.buckets.iter().zip(&self.held) {
            let mut encodings = held.encodings().map(|(_, encoding)| encoding);
            for c in bucket {
                f(Successor {
                    fp: c.fp,
                    parent: parents[(u64::from(c.link.parent) - base) as usize],
                    action: c.link.action,
                    decides: c.hits,
                    encoding: encodings.next().unwrap_or_default(),
                });
            }
        }
    }
}
