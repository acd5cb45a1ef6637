//! What a run knows of each property: undecided, or decided at a depth by
//! a state (its fingerprint), the first in canonical order at the
//! shallowest depth; and, at the end, the verdicts with their traces.

use super::path;
use super::{PropertyResult, Verdict};
use stateright::{Expectation, Model, Property};
use std::hash::Hash;

/// Per property: (depth, fingerprint) of the state that decided it.
pub(super) struct Decisions(Vec<Option<(usize, u64)>>);

impl Decisions {
    pub(super) fn new(properties: usize) -> Self {
        Decisions(vec![None; properties])
    }

    /// Which properties still need evaluating (`Eventually` never does: it
    /// is not evaluated by this engine).
    pub(super) fn undecided<M: Model>(&self, properties: &[Property<M>]) -> Vec<bool> {
        properties
            .iter()
            .zip(&self.0)
            .map(|(p, d)| d.is_none() && p.expectation != Expectation::Eventually)
            .collect()
    }

    /// Some `Always` property is violated, by an earlier level or by a hit
    /// of the level being expanded (`level_hits`).
    pub(super) fn violated<M: Model>(
        &self,
        properties: &[Property<M>],
        level_hits: &[Option<usize>],
    ) -> bool {
        properties.iter().enumerate().any(|(p, prop)| {
            prop.expectation == Expectation::Always
                && (self.0[p].is_some() || level_hits[p].is_some())
        })
    }

    /// Records the expanded level's first hit of each undecided property:
    /// `hits[p]` is a position in the level at `depth`, whose fingerprint
    /// `fp_at` gives.
    pub(super) fn record_level(
        &mut self,
        depth: usize,
        hits: &[Option<usize>],
        fp_at: impl Fn(usize) -> u64,
    ) {
        for (slot, hit) in self.0.iter_mut().zip(hits) {
            if slot.is_none() {
                *slot = hit.map(|pos| (depth, fp_at(pos)));
            }
        }
    }

    /// Records the last level's first hits: per shard, per property, the
    /// fingerprint of the shard's first new state deciding it. The first in
    /// canonical order is the first shard's with a hit.
    pub(super) fn record_leaf(&mut self, depth: usize, leaf_hits: &[Vec<Option<u64>>]) {
        for (p, slot) in self.0.iter_mut().enumerate() {
            if slot.is_none() {
                *slot = leaf_hits.iter().find_map(|h| h[p]).map(|fp| (depth, fp));
            }
        }
    }

    /// The verdicts, each decided one with the shortest trace to the state
    /// that decided it, following the visited set's parent links.
    pub(super) fn into_results<M>(
        self,
        model: &M,
        properties: &[Property<M>],
        parent_of: impl Fn(u64) -> u64,
    ) -> Vec<PropertyResult<M::State, M::Action>>
    where
        M: Model,
        M::State: Hash,
        M::Action: Clone,
    {
        let parent_of = &parent_of;
        properties
            .iter()
            .zip(self.0)
            .map(|(p, d)| {
                let verdict = match (&p.expectation, d) {
                    (Expectation::Eventually, _) => Verdict::Unsupported,
                    (Expectation::Always, None) => Verdict::Holds,
                    (Expectation::Sometimes, None) => Verdict::NotReached,
                    (e, Some((depth, fp))) => {
                        let trace = path::reconstruct(model, fp, parent_of);
                        debug_assert_eq!(trace.len(), depth + 1);
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
