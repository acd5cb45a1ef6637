//! Ancestors and descendants recomputed from the records' own
//! `derived_from` fields, by graph search over an explicit child index. It
//! deliberately shares no code with the protocol's dependency walks, so a
//! bug in one is not hidden by the same bug in the other.

use crate::protocol::{RecordId, RecordSet, Store};

/// The derivation graph of one store, with edges both ways.
pub struct Graph {
    parents: Vec<RecordSet>,
    children: Vec<RecordSet>,
}

impl Graph {
    pub fn of(store: &Store) -> Graph {
        let n = store.records().len();
        let parents: Vec<RecordSet> = store.records().iter().map(|r| r.derived_from()).collect();
        let mut children = vec![RecordSet::EMPTY; n];
        for (child, ps) in parents.iter().enumerate() {
            for p in ps.iter() {
                if let Some(c) = children.get_mut(p as usize) {
                    c.insert(child as RecordId);
                }
            }
        }
        Graph { parents, children }
    }

    /// Every record reachable from `id` along `derived_from` edges.
    pub fn ancestors(&self, id: RecordId) -> RecordSet {
        search(id, &self.parents)
    }

    /// Every record from which `id` is reachable along `derived_from`.
    pub fn descendants(&self, id: RecordId) -> RecordSet {
        search(id, &self.children)
    }
}

/// Depth-first search from `start` (excluded unless on a cycle) over `edges`.
fn search(start: RecordId, edges: &[RecordSet]) -> RecordSet {
    let mut seen = RecordSet::EMPTY;
    let mut stack: Vec<RecordId> = edges
        .get(start as usize)
        .map(|e| e.iter().collect())
        .unwrap_or_default();
    while let Some(id) = stack.pop() {
        if seen.contains(id) {
            continue;
        }
        seen.insert(id);
        if let Some(next) = edges.get(id as usize) {
            stack.extend(next.difference(seen).iter());
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        Hundredths, Kind, Op, Proposal, Protocol, Scope, Symbols, Tier, Variant, Window,
    };

    /// Stores whose derivation graphs are pseudo-random DAGs over up to 20
    /// records (parents always exist, so ids give a topological order).
    fn random_dags() -> Vec<Store> {
        let mut syms = Symbols::new();
        let slot = syms.intern("s");
        let protocol = Protocol::new(Vec::new(), None, Variant::default());
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        (0..200)
            .map(|_| {
                let mut store = Store::new();
                protocol
                    .apply(
                        &mut store,
                        &Op::Open {
                            agent: 0,
                            tier: Tier::Low,
                        },
                    )
                    .unwrap();
                let n = 1 + next() % 20;
                for i in 0..n {
                    let parents: RecordSet = (0..i)
                        .filter(|_| next() % 4 == 0)
                        .map(|p| p as RecordId)
                        .collect();
                    let proposal = Proposal {
                        kind: Kind::Belief,
                        entity: slot,
                        attribute: slot,
                        value: slot,
                        source: None,
                        authority: Hundredths(50),
                        confidence: Hundredths(50),
                        owner: None,
                        scope: Scope::Shared,
                        derived_from: parents,
                        window: Window::default(),
                    };
                    protocol
                        .apply(&mut store, &Op::Stage { tx: 0, proposal })
                        .unwrap();
                }
                store
            })
            .collect()
    }

    #[test]
    fn recomputed_ancestry_equals_the_protocols_own_walks() {
        for store in random_dags() {
            let graph = Graph::of(&store);
            for id in store.ids().iter() {
                assert_eq!(
                    graph.ancestors(id),
                    store.ancestors_for_tests(id),
                    "ancestors of r{id}"
                );
                assert_eq!(
                    graph.descendants(id),
                    store.descendants_for_tests(RecordSet::single(id)),
                    "descendants of r{id}"
                );
            }
        }
    }

    #[test]
    fn a_diamond() {
        // r0 <- r1, r0 <- r2, {r1, r2} <- r3
        let parents = vec![
            RecordSet::EMPTY,
            RecordSet::single(0),
            RecordSet::single(0),
            [1, 2].into_iter().collect(),
        ];
        let children = vec![
            [1, 2].into_iter().collect(),
            RecordSet::single(3),
            RecordSet::single(3),
            RecordSet::EMPTY,
        ];
        let g = Graph { parents, children };
        assert_eq!(g.ancestors(3), [0, 1, 2].into_iter().collect());
        assert_eq!(g.descendants(0), [1, 2, 3].into_iter().collect());
        assert_eq!(g.descendants(3), RecordSet::EMPTY);
    }
}
