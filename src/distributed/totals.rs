//! A level's totals across workers: what each worker found at the level
//! (new states it owns, transitions out of its states and their labels,
//! per property its smallest deciding state), sent to every worker in
//! one round and combined the same way on each (sums, and the smallest
//! fingerprint per property), so that every worker adds the same totals,
//! decides the same properties and knows whether to go on.

use super::links::Link;
use super::net::Net;
use super::wire::{Packet, STATS};
use super::word::Word;
use crate::engine::Hit;
use timely::worker::Worker;

/// What a worker found at one level: new states it owns, transitions out
/// of its states (and per label those carrying it, attempts included),
/// and per property its smallest deciding state (at the level checked,
/// with its position in the worker's part, and at the last level built).
pub(crate) struct LevelReport<W> {
    pub(crate) new: u64,
    pub(crate) transitions: u64,
    pub(crate) hits: Vec<Hit<W>>,
    pub(crate) leaf: Vec<Option<(W, Link<W>)>>,
    pub(crate) labels: Vec<u64>,
}

impl<W: Word> LevelReport<W> {
    /// Nothing found yet, for a model of `properties` properties.
    fn empty(properties: usize) -> Self {
        LevelReport {
            new: 0,
            transitions: 0,
            hits: vec![None; properties],
            leaf: vec![None; properties],
            labels: Vec::new(),
        }
    }

    fn packet(&self) -> Packet {
        let mut p = Packet::new(STATS);
        p.u64(self.new).u64(self.transitions);
        for &hit in &self.hits {
            p.maybe(hit.map(|(_, fp)| fp));
            if let Some((position, _)) = hit {
                p.u64(position);
            }
        }
        for leaf in &self.leaf {
            p.maybe(leaf.map(|(fp, _)| fp));
            if let Some((_, (parent, action))) = leaf {
                p.word(*parent).u32(*action);
            }
        }
        // Last, so that their number is what is left.
        for &n in &self.labels {
            p.u64(n);
        }
        p
    }

    fn read(packet: &Packet, properties: usize) -> Self {
        let mut r = packet.body();
        let (new, transitions) = (r.u64(), r.u64());
        let hits = (0..properties)
            .map(|_| r.maybe().map(|fp| (r.u64(), fp)))
            .collect();
        let leaf = (0..properties)
            .map(|_| r.maybe().map(|fp| (fp, (r.word(), r.u32()))))
            .collect();
        let mut labels = Vec::new();
        while !r.is_empty() {
            labels.push(r.u64());
        }
        LevelReport {
            new,
            transitions,
            hits,
            leaf,
            labels,
        }
    }

    /// Sends this worker's report of the level to every worker and
    /// combines everyone's: the same totals on every worker.
    pub(crate) fn share<S: Clone + 'static>(
        &self,
        net: &mut Net<S, W>,
        worker: &mut Worker,
    ) -> LevelReport<W> {
        // A process that stopped early (it was given another bound) would
        // leave the totals short.
        let gone = "a process left the run early (were all given the same command?)";
        let properties = self.hits.len();
        let reports = net.round_with_all(worker, &self.packet(), gone);
        let reports = reports.iter().map(|p| LevelReport::read(p, properties));
        LevelReport::combine(reports, properties)
    }

    /// The sums and minima of every worker's report.
    fn combine(reports: impl Iterator<Item = LevelReport<W>>, properties: usize) -> Self {
        let mut all = LevelReport::empty(properties);
        for r in reports {
            add_counts(&mut all.labels, &r.labels);
            all.new += r.new;
            all.transitions += r.transitions;
            for (a, h) in all.hits.iter_mut().zip(r.hits) {
                *a = smallest(*a, h, |&(_, fp)| fp);
            }
            for (a, h) in all.leaf.iter_mut().zip(r.leaf) {
                *a = smallest(*a, h, |&(fp, link)| (fp, link));
            }
        }
        all
    }
}

/// Adds `counts` into `totals`, entry by entry, growing it as needed.
fn add_counts(totals: &mut Vec<u64>, counts: &[u64]) {
    totals.resize(counts.len().max(totals.len()), 0);
    for (total, n) in totals.iter_mut().zip(counts) {
        *total += n;
    }
}

/// The one of `a` and `b` with the smaller `key`, if either is.
fn smallest<T, K: Ord>(a: Option<T>, b: Option<T>, key: impl Fn(&T) -> K) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if key(&b) < key(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}
