//! A worker's receiving side: its share of the visited set (the
//! fingerprints it owns) and the part of the next level it is building.
//! Packets are taken in the round (timestamp) they were sent in: one that
//! arrives early, from a worker already a round ahead, waits until this
//! worker starts that round.
//!
//! Candidates are absorbed as they arrive, in whatever order: a new
//! fingerprint joins the visited set and the next level with its link; a
//! repeat within the level keeps the smaller (parent fingerprint, action
//! index) — the engine's parent rule, which does not depend on arrival
//! order. At the last level a new state is checked at once and only its
//! fingerprint kept; per property the deciding state with the smallest
//! fingerprint is remembered, with its smallest link.

use super::wire::{Packet, Reader, CANDIDATES};
use super::word::{FpMap, Key, Word};
use crate::engine::{StateCodec, Visited};
use stateright::{Expectation, Model, Property};
use std::sync::Arc;

/// A state new at the level being built, its bytes in the arena.
pub(crate) struct NewState<W> {
    pub(crate) fp: W,
    pub(crate) parent: W,
    pub(crate) action: u32,
    pub(crate) start: usize,
    pub(crate) len: u32,
}

/// A link: the parent's fingerprint and the action's index in its list.
pub(crate) type Link<W> = (W, u32);

pub(crate) struct Shard<M: Model, W> {
    model: Arc<M>,
    codec: Arc<dyn StateCodec<M::State> + Send + Sync>,
    properties: Vec<Property<M>>,
    /// The round being received.
    round: u64,
    /// Packets of later rounds, received early.
    pending: Vec<(u64, Packet)>,
    /// The packets of this round that are not candidates.
    pub(crate) inbox: Vec<Packet>,
    visited: Visited<W>,
    /// The level being built: its states and their place in `next`.
    index: FpMap<W, usize>,
    pub(crate) next: Vec<NewState<W>>,
    pub(crate) arena: Vec<u8>,
    /// The level being built is the last: checked, not held.
    pub(crate) leaf: bool,
    /// Which properties are still undecided.
    pub(crate) undecided: Vec<bool>,
    /// New states at the last level.
    pub(crate) leaf_new: u64,
    /// Per property: the smallest new deciding state at the last level.
    pub(crate) leaf_best: Vec<Option<(W, Link<W>)>>,
}

impl<M: Model, W: Word> Shard<M, W> {
    pub(crate) fn new(model: Arc<M>, codec: Arc<dyn StateCodec<M::State> + Send + Sync>) -> Self {
        let properties = model.properties();
        Shard {
            undecided: vec![true; properties.len()],
            leaf_best: vec![None; properties.len()],
            properties,
            model,
            codec,
            round: 0,
            pending: Vec::new(),
            inbox: Vec::new(),
            visited: Visited::new(),
            index: FpMap::default(),
            next: Vec::new(),
            arena: Vec::new(),
            leaf: false,
            leaf_new: 0,
        }
    }

    /// Marks a state visited (of level 0, or of a checkpoint).
    pub(crate) fn visit(&mut self, fp: W) {
        self.visited.insert(fp);
    }

    /// Sizes the visited set for `expected_new` more fingerprints (the
    /// engine's tables, near 90% load at the end of the level).
    pub(crate) fn prepare(&mut self, expected_new: u64) {
        self.visited.prepare(expected_new, 1);
    }

    /// The heap bytes of the visited set, now and once sized for
    /// `expected_new` more fingerprints.
    pub(crate) fn visited_bytes(&self, expected_new: u64) -> (u64, u64) {
        (self.visited.bytes(), self.visited.bytes_after(expected_new))
    }

    /// The fingerprints visited so far (for a checkpoint).
    pub(crate) fn visited(&self) -> impl Iterator<Item = W> + '_ {
        self.visited.iter()
    }

    /// Starts receiving round `round`, taking the packets that came early.
    pub(crate) fn start_round(&mut self, round: u64) {
        self.round = round;
        for (time, packet) in std::mem::take(&mut self.pending) {
            self.deliver(time, packet);
        }
    }

    /// A packet sent in round `time`.
    pub(crate) fn deliver(&mut self, time: u64, packet: Packet) {
        if time != self.round {
            self.pending.push((time, packet));
        } else if packet.kind() == CANDIDATES {
            self.absorb(&packet);
        } else {
            self.inbox.push(packet);
        }
    }

    /// Takes a packet of candidates (see `wire::CANDIDATES`). The visited
    /// set's slot of the candidate [`TOUCH_AHEAD`] places on is fetched
    /// while this one is taken, as the engine does, so that the cache
    /// misses of a set far larger than the cache overlap.
    fn absorb(&mut self, packet: &Packet) {
        let mut ahead = packet.body();
        for _ in 0..TOUCH_AHEAD {
            if ahead.is_empty() {
                break;
            }
            self.visited.touch(next_fp::<W>(&mut ahead));
        }
        let mut r = packet.body();
        while !r.is_empty() {
            if !ahead.is_empty() {
                self.visited.touch(next_fp::<W>(&mut ahead));
            }
            let fp: W = r.word();
            let link: Link<W> = (r.word(), r.u32());
            let len = r.u32();
            let bytes = r.take(len as usize);
            if self.leaf {
                self.absorb_leaf(fp, link, bytes);
            } else if let Some(&i) = self.index.get(&Key(fp)) {
                let known = &mut self.next[i];
                if link < (known.parent, known.action) {
                    (known.parent, known.action) = link;
                }
            } else if self.visited.insert(fp) {
                self.index.insert(Key(fp), self.next.len());
                self.next.push(NewState {
                    fp,
                    parent: link.0,
                    action: link.1,
                    start: self.arena.len(),
                    len,
                });
                self.arena.extend_from_slice(bytes);
            }
        }
    }

    /// A candidate of the last level.
    fn absorb_leaf(&mut self, fp: W, link: Link<W>, bytes: &[u8]) {
        if self.visited.insert(fp) {
            self.leaf_new += 1;
            let state = self.codec.decode(bytes);
            for (p, prop) in self.properties.iter().enumerate() {
                if !self.undecided[p] || !decides(prop, &self.model, &state) {
                    continue;
                }
                if self.leaf_best[p].is_none_or(|(best, _)| fp < best) {
                    self.leaf_best[p] = Some((fp, link));
                }
            }
            return;
        }
        // A repeat: only a remembered state's link matters.
        for (best, known) in self.leaf_best.iter_mut().flatten() {
            if *best == fp && link < *known {
                *known = link;
            }
        }
    }

    /// The level built, its states in fingerprint order, and the arena
    /// their bytes are in; the shard is ready for the next level.
    pub(crate) fn take_level(&mut self) -> (Vec<NewState<W>>, Vec<u8>) {
        self.index = FpMap::default();
        let mut next = std::mem::take(&mut self.next);
        next.sort_unstable_by_key(|s| s.fp);
        (next, std::mem::take(&mut self.arena))
    }
}

/// How many candidates ahead of the one taken `absorb` prefetches.
const TOUCH_AHEAD: usize = 16;

/// The fingerprint of the candidate `r` is at, moving `r` past it.
fn next_fp<W: Word>(r: &mut Reader<'_>) -> W {
    let fp = r.word();
    let _parent: W = r.word();
    let (_action, len) = (r.u32(), r.u32());
    r.take(len as usize);
    fp
}

/// Whether `state` decides `prop`: violates an `Always`, satisfies a
/// `Sometimes` (`Eventually` is not evaluated, as in the engine).
pub(crate) fn decides<M: Model>(prop: &Property<M>, model: &M, state: &M::State) -> bool {
    let holds = (prop.condition)(model, state);
    match prop.expectation {
        Expectation::Always => !holds,
        Expectation::Sometimes => holds,
        Expectation::Eventually => false,
    }
}
