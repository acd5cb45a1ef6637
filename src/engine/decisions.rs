//! What a run knows of each property: undecided, or decided at a depth by
//! the state with the smallest fingerprint among those deciding it at the
//! shallowest depth; and, at the end, the verdicts with their traces.

use super::absorb::LeafHits;
use super::chunk::Hit;
use super::fp::Fp;
use super::links::Link;
use super::report::{PropertyResult, Verdict};
use super::Trace;
use stateright::{Expectation, Model, Property};

/// Whether `state` decides `prop`: violates an `Always`, or is an
/// example of a `Sometimes` (`Eventually` is not evaluated).
#[inline]
pub(crate) fn decides<M: Model>(prop: &Property<M>, model: &M, state: &M::State) -> bool {
    let holds = (prop.condition)(model, state);
    match prop.expectation {
        Expectation::Always => !holds,
        Expectation::Sometimes => holds,
        Expectation::Eventually => false,
    }
}

/// Where the deciding state is: at a position of its level (a level that
/// was held), or reached by a link (a state of the last level, never held).
/// Across processes the position is in the part of the worker owning the
/// state, and a link's parent is another worker's, which the store names
/// by fingerprint (its way back, `LevelStore::ways_back`, goes by those).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Witness {
    At(u64),
    Via(Link),
}

/// The state that decided a property: its depth, its fingerprint, and
/// where it is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decision<W> {
    pub(crate) depth: usize,
    pub(crate) fp: W,
    pub(crate) witness: Witness,
}

/// Per property: the decision, if any.
pub(crate) struct Decisions<W>(pub(crate) Vec<Option<Decision<W>>>);

impl<W: Fp> Decisions<W> {
    pub(crate) fn new(properties: usize) -> Self {
        Decisions(vec![None; properties])
    }

    /// Which properties still need evaluating (`Eventually` never does: it
    /// is not evaluated by this engine).
    pub(crate) fn undecided<M: Model>(&self, properties: &[Property<M>]) -> Vec<bool> {
        properties
            .iter()
            .zip(&self.0)
            .map(|(p, d)| d.is_none() && p.expectation != Expectation::Eventually)
            .collect()
    }

    /// Records, for each property still undecided, its `hits` entry at
    /// `depth` (the deciding state's fingerprint and where it is found),
    /// if it has one: the caller gives the smallest fingerprint.
    fn record(&mut self, depth: usize, hits: impl IntoIterator<Item = Option<(W, Witness)>>) {
        for (slot, hit) in self.0.iter_mut().zip(hits) {
            if slot.is_none() {
                *slot = hit.map(|(fp, witness)| Decision { depth, fp, witness });
            }
        }
    }

    /// The verdicts, each decided one with the trace `trace_to` rebuilds
    /// for its decision (given the property's index).
    pub(crate) fn into_results<M: Model>(
        self,
        properties: &[Property<M>],
        mut trace_to: impl FnMut(usize, &Decision<W>) -> Trace<M::State, M::Action>,
    ) -> Vec<PropertyResult<M::State, M::Action>> {
        properties
            .iter()
            .zip(self.0)
            .enumerate()
            .map(|(i, (p, d))| {
                let verdict = match (&p.expectation, d) {
                    (Expectation::Eventually, _) => Verdict::Unsupported,
                    (Expectation::Always, None) => Verdict::Holds,
                    (Expectation::Sometimes, None) => Verdict::NotReached,
                    (e, Some(d)) => {
                        let trace = trace_to(i, &d);
                        debug_assert_eq!(trace.len(), d.depth + 1);
                        let depth = d.depth;
                        if *e == Expectation::Always {
                            Verdict::Violated { depth, trace }
                        } else {
                            Verdict::Reached { depth, trace }
                        }
                    }
                };
                PropertyResult {
                    name: p.name,
                    expectation: p.expectation.clone(),
                    verdict,
                }
            })
            .collect()
    }
}

impl<W: Fp> Decisions<W> {
    /// Some `Always` property is violated, by an earlier level or by a hit
    /// of the level being expanded (`level_hits`).
    pub(super) fn violated<M: Model>(
        &self,
        properties: &[Property<M>],
        level_hits: &[Hit<W>],
    ) -> bool {
        properties.iter().enumerate().any(|(p, prop)| {
            prop.expectation == Expectation::Always
                && (self.0[p].is_some() || level_hits[p].is_some())
        })
    }

    /// Records the expanded level's first hit of each undecided property:
    /// the level is in fingerprint order, so the first is the smallest.
    pub(crate) fn record_level(&mut self, depth: usize, hits: &[Hit<W>]) {
        self.record(
            depth,
            hits.iter()
                .map(|hit| hit.map(|(pos, fp)| (fp, Witness::At(pos)))),
        );
    }

    /// Records the last level's hits: per shard, per property, the new
    /// deciding state with the smallest fingerprint; the smallest of all
    /// shards wins.
    pub(crate) fn record_leaf(&mut self, depth: usize, leaf_hits: &[LeafHits<W>]) {
        let best: Vec<_> = (self.0.iter().enumerate())
            .map(|(p, slot)| {
                let hits = leaf_hits.iter().filter_map(|h| h[p]);
                let smallest = slot.is_none().then(|| hits.min_by_key(|&(fp, _)| fp));
                smallest
                    .flatten()
                    .map(|(fp, link)| (fp, Witness::Via(link)))
            })
            .collect();
        self.record(depth, best);
    }
}
