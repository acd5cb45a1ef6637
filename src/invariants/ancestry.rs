//! Ancestors and descendants recomputed from the records' own
//! `derived_from` fields, by graph search over an explicit child index. It
//! deliberately shares no code with the protocol's dependency walks, so a
//! bug in one is not hidden by the same bug in the other.

use crate::protocol::{RecordId, RecordSet, StoreView};

/// Every transitive ancestor of `id`, by depth-first search along the
/// records' own `derived_from` fields.
pub fn ancestors(store: StoreView<'_>, id: RecordId) -> RecordSet {
    search(id, |r| {
        store
            .record(r)
            .map_or(RecordSet::EMPTY, |rec| rec.derived_from())
    })
}

/// The derivation graph of one store with the child index that descendant
/// searches need (the reverse of `derived_from`).
pub struct Graph<'a> {
    store: StoreView<'a>,
    children: Vec<RecordSet>,
}

impl<'a> Graph<'a> {
    pub fn of(store: StoreView<'a>) -> Graph<'a> {
        let mut children = vec![RecordSet::EMPTY; store.records().len()];
        for (child, record) in store.records().iter().enumerate() {
            for p in record.derived_from().iter() {
                if let Some(c) = children.get_mut(p as usize) {
                    c.insert(child as RecordId);
                }
            }
        }
        Graph { store, children }
    }

    /// Every record reachable from `id` along `derived_from` edges.
    pub fn ancestors(&self, id: RecordId) -> RecordSet {
        ancestors(self.store, id)
    }

    /// Every record from which `id` is reachable along `derived_from`.
    pub fn descendants(&self, id: RecordId) -> RecordSet {
        search(id, |r| {
            self.children.get(r as usize).copied().unwrap_or_default()
        })
    }
}

/// Depth-first search from `start` (excluded unless on a cycle) along
/// `edges`.
fn search(start: RecordId, edges: impl Fn(RecordId) -> RecordSet) -> RecordSet {
    let mut seen = RecordSet::EMPTY;
    let mut stack: Vec<RecordId> = edges(start).iter().collect();
    while let Some(id) = stack.pop() {
        if seen.contains(id) {
            continue;
        }
        seen.insert(id);
        stack.extend(edges(id).difference(seen).iter());
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::generate::{config, scenario};
    use crate::protocol::{
        Hundredths, Kind, Op, Proposal, Protocol, Scope, Store, Symbols, Tier, Variant, Window,
    };
    use proptest::prelude::*;

    /// A store of one transaction that staged a record per entry of
    /// `parents`, derived from the ids listed there.
    fn staged(parents: &[&[RecordId]]) -> Store {
        let mut syms = Symbols::new();
        let slot = syms.intern("s");
        let protocol = Protocol::new(Vec::new(), None, Variant::default());
        let mut store = Store::new();
        let open = Op::Open {
            agent: 0,
            tier: Tier::Low,
        };
        protocol.apply(&mut store, &open).unwrap();
        for ps in parents {
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
                derived_from: ps.iter().copied().collect(),
                window: Window::default(),
            };
            protocol
                .apply(&mut store, &Op::Stage { tx: 0, proposal })
                .unwrap();
        }
        store
    }

    /// Stores whose derivation graphs are pseudo-random DAGs over up to 20
    /// records (parents always exist, so ids give a topological order).
    fn random_dags() -> Vec<Store> {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        (0..200)
            .map(|_| {
                let n = 1 + next() % 20;
                let parents: Vec<Vec<RecordId>> = (0..n)
                    .map(|i| {
                        (0..i)
                            .filter(|_| next() % 4 == 0)
                            .map(|p| p as RecordId)
                            .collect()
                    })
                    .collect();
                let lists: Vec<&[RecordId]> = parents.iter().map(Vec::as_slice).collect();
                staged(&lists)
            })
            .collect()
    }

    #[test]
    fn recomputed_ancestry_equals_the_protocols_own_walks() {
        for store in random_dags() {
            let graph = Graph::of(store.view());
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

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn recomputed_ancestry_on_generated_stores_equals_the_protocols_walks(
            (setup, ops) in scenario(),
            roots in any::<u64>(),
        ) {
            let store = setup.run(&ops).1;
            let graph = Graph::of(store.view());
            for id in store.ids().iter() {
                prop_assert_eq!(graph.ancestors(id), store.ancestors_for_tests(id), "ancestors of r{}", id);
                prop_assert_eq!(
                    graph.descendants(id),
                    store.descendants_for_tests(RecordSet::single(id)),
                    "descendants of r{}", id
                );
            }
            let roots = RecordSet::from_bits(roots).intersection(store.ids());
            let union = roots
                .iter()
                .fold(RecordSet::EMPTY, |acc, r| acc.union(graph.descendants(r)));
            prop_assert_eq!(union.difference(roots), store.descendants_for_tests(roots));
        }
    }

    #[test]
    fn a_diamond() {
        // r0 <- r1, r0 <- r2, {r1, r2} <- r3
        let store = staged(&[&[], &[0], &[0], &[1, 2]]);
        let g = Graph::of(store.view());
        assert_eq!(g.ancestors(3), [0, 1, 2].into_iter().collect());
        assert_eq!(ancestors(store.view(), 1), RecordSet::single(0));
        assert_eq!(g.descendants(0), [1, 2, 3].into_iter().collect());
        assert_eq!(g.descendants(3), RecordSet::EMPTY);
    }
}
