//! A worker's receiving side: its share of the visited set (the
//! fingerprints it owns) and the part of the next level it is building
//! (the engine's parts, one per shard, and their links).
//! Packets are taken in the round (timestamp) they were sent in: one that
//! arrives early, from a worker already a round ahead, waits until this
//! worker starts that round.
//!
//! Candidates are absorbed as they arrive, in whatever order: a new
//! fingerprint joins the visited set and the next level with its link; a
//! repeat within the level keeps the smaller (parent fingerprint, action
//! index) — the engine's parent rule, which does not depend on arrival
//! order. At the last level a candidate comes checked by its sender
//! (`wire::LEAF_CANDIDATES`) and only its fingerprint is kept; per
//! property the new deciding state with the smallest fingerprint is
//! remembered, with its smallest link.

use super::links::{Link, Linked};
use super::wire::{Packet, Reader, CANDIDATES, LEAF_CANDIDATES};
use super::word::{FpMap, Key, Word};
use crate::engine::{Part, Visited};

pub(crate) struct Shard<S, W> {
    /// The round being received.
    round: u64,
    /// Packets of later rounds, received early.
    pending: Vec<(u64, Packet)>,
    /// The packets of this round that are not candidates.
    pub(crate) inbox: Vec<Packet>,
    visited: Visited<W>,
    /// The level being built: its states, their links, and each state's
    /// place in `links`.
    next: Vec<Part<S, W>>,
    links: Vec<Linked<W>>,
    index: FpMap<W, usize>,
    /// New states at the last level.
    pub(crate) leaf_new: u64,
    /// Per property: the smallest new deciding state at the last level.
    pub(crate) leaf_best: Vec<Option<(W, Link<W>)>>,
}

impl<S: Clone, W: Word> Shard<S, W> {
    /// A shard for a model of `properties` properties.
    pub(crate) fn new(properties: usize) -> Self {
        Shard {
            leaf_best: vec![None; properties],
            round: 0,
            pending: Vec::new(),
            inbox: Vec::new(),
            visited: Visited::new(),
            next: Part::empty_level(),
            links: Vec::new(),
            index: FpMap::default(),
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

    /// The fingerprints visited so far (for a checkpoint).
    pub(crate) fn visited(&self) -> &Visited<W> {
        &self.visited
    }

    /// Takes the fingerprints a checkpoint visited.
    pub(crate) fn restore(&mut self, visited: Visited<W>) {
        self.visited = visited;
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
        } else if packet.kind() == LEAF_CANDIDATES {
            self.absorb_leaf(&packet);
        } else {
            self.inbox.push(packet);
        }
    }

    /// Takes a packet of candidates (see `wire::CANDIDATES`). The visited
    /// set's slot of the candidate [`TOUCH_AHEAD`] places on is fetched
    /// while this one is taken, as the engine does, so that the cache
    /// misses of a set far larger than the cache overlap.
    fn absorb(&mut self, packet: &Packet) {
        let mut ahead = Ahead::new(packet, skip_state, &self.visited);
        let mut r = packet.body();
        while !r.is_empty() {
            ahead.step(&self.visited);
            let fp: W = r.word();
            let link: Link<W> = (r.word(), r.u32());
            let len = r.u32();
            let bytes = r.take(len as usize);
            if let Some(&i) = self.index.get(&Key(fp)) {
                let known = &mut self.links[i].1;
                *known = link.min(*known);
            } else if self.visited.insert(fp) {
                self.index.insert(Key(fp), self.links.len());
                self.links.push((fp, link));
                self.next[fp.shard()].push_encoded(fp, bytes);
            }
        }
    }

    /// Takes a packet of candidates of the last level (see
    /// `wire::LEAF_CANDIDATES`), prefetching as [`Shard::absorb`] does.
    fn absorb_leaf(&mut self, packet: &Packet) {
        let mut ahead = Ahead::new(packet, skip_bits, &self.visited);
        let mut r = packet.body();
        while !r.is_empty() {
            ahead.step(&self.visited);
            let fp: W = r.word();
            let link: Link<W> = (r.word(), r.u32());
            let decided = r.u64();
            if self.visited.insert(fp) {
                self.leaf_new += 1;
                for (p, best) in self.leaf_best.iter_mut().enumerate() {
                    if decided >> p & 1 == 1 && best.is_none_or(|(best, _)| fp < best) {
                        *best = Some((fp, link));
                    }
                }
                continue;
            }
            // A repeat: only a remembered state's link matters.
            for (best, known) in self.leaf_best.iter_mut().flatten() {
                if *best == fp && link < *known {
                    *known = link;
                }
            }
        }
    }

    /// The new states of the level being built so far.
    pub(crate) fn held(&self) -> u64 {
        self.links.len() as u64
    }

    /// The level built, its parts and its links in fingerprint order;
    /// the shard is ready for the next level.
    pub(crate) fn take_level(&mut self) -> (Vec<Part<S, W>>, Vec<Linked<W>>) {
        self.index = FpMap::default();
        let mut next = std::mem::replace(&mut self.next, Part::empty_level());
        next.iter_mut().for_each(Part::sort);
        let mut links = std::mem::take(&mut self.links);
        links.sort_unstable_by_key(|&(fp, _)| fp);
        (next, links)
    }
}

/// How many candidates ahead of the one taken `absorb` prefetches.
const TOUCH_AHEAD: usize = 16;

/// A reader [`TOUCH_AHEAD`] candidates ahead in a packet, fetching each
/// one's visited-set slot as it passes it.
struct Ahead<'a, W> {
    r: Reader<'a>,
    skip: fn(&mut Reader<'a>),
    marker: std::marker::PhantomData<W>,
}

impl<'a, W: Word> Ahead<'a, W> {
    /// Fetches the slots of the first [`TOUCH_AHEAD`] candidates, each
    /// of which ends where `skip` says.
    fn new(packet: &'a Packet, skip: fn(&mut Reader<'a>), visited: &Visited<W>) -> Self {
        let mut ahead = Ahead {
            r: packet.body(),
            skip,
            marker: std::marker::PhantomData,
        };
        for _ in 0..TOUCH_AHEAD {
            ahead.step(visited);
        }
        ahead
    }

    /// Fetches the slot of the next candidate, if there is one.
    fn step(&mut self, visited: &Visited<W>) {
        if !self.r.is_empty() {
            visited.touch(self.r.word());
            let _parent: W = self.r.word();
            self.r.u32();
            (self.skip)(&mut self.r);
        }
    }
}

/// Past a candidate's state bytes (their length, then the bytes).
fn skip_state(r: &mut Reader<'_>) {
    let len = r.u32();
    r.take(len as usize);
}

/// Past a last-level candidate's decided properties.
fn skip_bits(r: &mut Reader<'_>) {
    r.u64();
}
