//! Phase 2 of a batch, deduplication: the 64 shards are claimed
//! dynamically by the threads. Shard `s` consumes bucket `s` of every chunk
//! *in chunk order*, inserting each candidate's fingerprint into its table
//! of the visited set (a table small enough to stay in cache while the
//! shard is processed); a new one's held successor moves into the shard's
//! part of the next level (a byte copy with a codec) with its link, a
//! duplicate is dropped. Chunk order is frontier order, which is
//! fingerprint order, so the first discoverer of a state — the one that
//! stays its parent — is the one with the smallest (parent fingerprint,
//! action index). When the next level is the last one the bound allows,
//! only fingerprints are kept, and for each property the new state
//! deciding it with the smallest fingerprint is noted, with its link.

use super::chunk::ChunkSlot;
use super::fp::Fp;
use super::links::Link;
use super::parallel::{for_each_dynamic, threads_for};
use super::part::Part;
use super::table::FpTable;
use super::visited::Visited;

/// How many candidates ahead of its insert phase 2 prefetches a
/// candidate's home slot (see [`FpTable::touch`]).
const TOUCH_AHEAD: usize = 16;

/// Per property: the deciding state with the smallest fingerprint so far.
pub(crate) type LeafHits<W> = Vec<Option<(W, Link)>>;

/// Phase 2 on the output of a batch's chunks (`slots`), on up to
/// `threads` threads: each shard's new states go to its table and its
/// part of `next`; at the last level (`leaf`), `leaf_hits[s]` keeps shard
/// `s`'s smallest new deciding state per property (one entry per shard,
/// else `leaf_hits` is empty).
pub(super) fn absorb_batch<S, W>(
    slots: &[ChunkSlot<S, W>],
    leaf: bool,
    threads: usize,
    visited: &mut Visited<W>,
    next: &mut [Part<S, W>],
    leaf_hits: &mut [LeafHits<W>],
) where
    S: Clone + Send + Sync,
    W: Fp,
{
    let candidates: usize = slots
        .iter()
        .flat_map(|s| s.buckets.iter())
        .map(Vec::len)
        .sum();
    let mut hits: Vec<Option<&mut LeafHits<W>>> = if leaf {
        leaf_hits.iter_mut().map(Some).collect()
    } else {
        next.iter().map(|_| None).collect()
    };
    let shards: Vec<_> = visited
        .shards_mut()
        .iter_mut()
        .zip(next.iter_mut())
        .zip(hits.drain(..))
        .enumerate()
        .collect();
    for_each_dynamic(threads_for(candidates, threads), shards, &|(
        s,
        ((table, part), hits),
    )| {
        absorb(s, table, slots, part, hits)
    });
}

/// Phase 2 for shard `s` (see the module docs).
fn absorb<S: Clone, W: Fp>(
    s: usize,
    table: &mut FpTable<W>,
    slots: &[ChunkSlot<S, W>],
    part: &mut Part<S, W>,
    mut leaf: Option<&mut LeafHits<W>>,
) {
    // The candidates TOUCH_AHEAD places ahead, across the end of one
    // chunk's bucket into the next: a bucket holds about a hundred
    // candidates at the last level, and looking ahead within it alone
    // left its first sixteen unfetched.
    let mut ahead = slots
        .iter()
        .flat_map(|slot| slot.buckets[s].iter())
        .skip(TOUCH_AHEAD);
    for slot in slots {
        let held = &slot.held[s];
        let bucket = &slot.buckets[s];
        let mut cursor = 0;
        for (i, c) in bucket.iter().enumerate() {
            if let Some(ahead) = ahead.next() {
                table.touch(ahead.fp);
            }
            let new = table.insert(c.fp);
            match leaf.as_deref_mut() {
                Some(best) if new => keep_smallest(best, c.hits, c.fp, c.link),
                Some(_) => {}
                None => {
                    if new {
                        part.push_from(held, i, cursor, c.fp, c.link);
                    }
                    cursor = held.skip(cursor);
                }
            }
        }
    }
}

/// Keeps, for each property in `hits`, the smaller of `best` and `fp`.
pub(super) fn keep_smallest<W: Fp>(best: &mut LeafHits<W>, hits: u64, fp: W, link: Link) {
    let mut bits = hits;
    while bits != 0 {
        let p = bits.trailing_zeros() as usize;
        if best[p].is_none_or(|(b, _)| fp < b) {
            best[p] = Some((fp, link));
        }
        bits &= bits - 1;
    }
}
