//! Counterexamples across owners (PReach's approach): a state's link
//! lives with the worker that owns it, so a decided property's chain of
//! links is walked back level by level, each step taken by the owner of
//! the state reached, the chain travelling on to the owner of its parent
//! and, at level 0, to worker 0. One round per hop; every worker runs the
//! same number of rounds (the deepest chain's depth plus one).

use super::links::LinkLevels;
use super::net::Net;
use super::wire::{Packet, CHAINS};
use super::word::Word;
use crate::engine::{Decision, Decisions, Witness};
use timely::worker::Worker;

/// A property's chain: the state reached so far (at `depth`) and the
/// action indices taken to the decided state, last first.
#[derive(Clone, Debug)]
pub(crate) struct Chain<W> {
    pub(crate) property: u32,
    pub(crate) depth: u32,
    pub(crate) fp: W,
    pub(crate) actions: Vec<u32>,
}

impl<W: Word> Chain<W> {
    /// The chain of property `property`'s decision `d`; a state of the
    /// last level starts from its parent, `leaf_parent`.
    fn start(property: usize, d: &Decision<W>, leaf_parent: Option<W>) -> Self {
        let (depth, fp, actions) = match d.witness {
            Witness::At(_) => (d.depth, d.fp, Vec::new()),
            Witness::Via(link) => {
                let parent = leaf_parent.expect("a last-level decision has its parent");
                (d.depth - 1, parent, vec![link.action])
            }
        };
        Chain {
            property: property as u32,
            depth: depth as u32,
            fp,
            actions,
        }
    }

    /// Steps back while this worker owns the state reached.
    fn resolve(&mut self, links: &LinkLevels<W>, me: usize, peers: usize) {
        while self.depth > 0 && self.fp.owner(peers) == me {
            let (_, (parent, action)) = (links.find_by(self.depth as usize, self.fp, |(at, _)| at))
                .expect("a chain reaches a state its owner holds");
            self.actions.push(action);
            self.fp = parent;
            self.depth -= 1;
        }
    }

    fn write(&self, p: &mut Packet) {
        p.u32(self.property).u32(self.depth).word(self.fp);
        p.u32(self.actions.len() as u32);
        for &a in &self.actions {
            p.u32(a);
        }
    }

    fn read_all(packet: &Packet) -> Vec<Chain<W>> {
        let mut r = packet.body();
        let mut chains = Vec::new();
        while !r.is_empty() {
            let (property, depth, fp) = (r.u32(), r.u32(), r.word());
            let n = r.u32();
            let actions = (0..n).map(|_| r.u32()).collect();
            chains.push(Chain {
                property,
                depth,
                fp,
                actions,
            });
        }
        chains
    }
}

/// Walks every decided property's chain back to level 0 (a last-level
/// decision's from its parent in `leaf_parents`); worker 0 returns them,
/// one per property (`None` for undecided ones).
pub(crate) fn walk_chains<S: Clone + 'static, W: Word>(
    net: &mut Net<S, W>,
    worker: &mut Worker,
    links: &LinkLevels<W>,
    decisions: &Decisions<W>,
    leaf_parents: &[Option<W>],
    me: usize,
    peers: usize,
) -> Vec<Option<Chain<W>>> {
    let decisions = &decisions.0;
    let mut hand: Vec<Chain<W>> = Vec::new();
    if me == 0 {
        hand = decisions
            .iter()
            .enumerate()
            .filter_map(|(p, d)| d.as_ref().map(|d| Chain::start(p, d, leaf_parents[p])))
            .collect();
    }
    let deepest = decisions.iter().flatten().map(|d| d.depth).max();
    let mut done: Vec<Option<Chain<W>>> = vec![None; decisions.len()];
    for _ in 0..deepest.map_or(0, |d| d + 1) {
        net.begin();
        let mut out: Vec<Option<Packet>> = vec![None; peers];
        for mut chain in hand.drain(..) {
            chain.resolve(links, me, peers);
            if chain.depth == 0 && me == 0 {
                let p = chain.property as usize;
                done[p] = Some(chain);
                continue;
            }
            let dest = if chain.depth == 0 {
                0
            } else {
                chain.fp.owner(peers)
            };
            chain.write(out[dest].get_or_insert_with(|| Packet::new(CHAINS)));
        }
        for (dest, packet) in out.into_iter().enumerate() {
            if let Some(packet) = packet {
                net.send(worker, dest, packet);
            }
        }
        hand = net.end(worker).iter().flat_map(Chain::read_all).collect();
    }
    for mut chain in hand {
        chain.resolve(links, me, peers);
        assert!(
            me == 0 && chain.depth == 0,
            "every chain reaches level 0 in time"
        );
        let p = chain.property as usize;
        done[p] = Some(chain);
    }
    done
}
