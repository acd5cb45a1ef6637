//! Ancestors and descendants recomputed from the records' own
//! `derived_from` fields, as a transitive closure over bitsets iterated to
//! a fixpoint. It deliberately shares no code with the protocol's
//! dependency walks (and does not assume, as they do, that parents have
//! smaller ids), so a bug in one is not hidden by the same bug in the
//! other. Every state is judged by several checkers, so nothing here
//! allocates: a closure is an array of at most [`MAX_RECORDS`] words.

use crate::protocol::{RecordId, RecordSet, StoreView, MAX_RECORDS};

/// Every transitive ancestor of `id`: the parents, their parents, and so
/// on until nothing new is added.
pub fn ancestors(store: StoreView<'_>, id: RecordId) -> RecordSet {
    let parents = |r: RecordId| {
        store
            .record(r)
            .map_or(RecordSet::EMPTY, |rec| rec.derived_from())
    };
    let mut reached = parents(id);
    loop {
        let mut next = reached;
        for p in reached.iter() {
            next = next.union(parents(p));
        }
        if next == reached {
            return reached;
        }
        reached = next;
    }
}

/// The derivation graph of one store, closed: every record's transitive
/// ancestors, from which descendants are read off.
pub struct Graph {
    ancestors: [RecordSet; MAX_RECORDS],
    len: usize,
}

impl Graph {
    pub fn of(store: StoreView<'_>) -> Graph {
        let records = store.records();
        let len = records.len().min(MAX_RECORDS);
        let mut ancestors = [RecordSet::EMPTY; MAX_RECORDS];
        for (a, r) in ancestors.iter_mut().zip(records) {
            *a = r.derived_from();
        }
        // Each pass adds the ancestors' ancestors; one pass closes a graph
        // whose parents precede their children, a second confirms it.
        loop {
            let mut changed = false;
            for id in 0..len {
                let mut closed = ancestors[id];
                for p in ancestors[id].iter() {
                    if let Some(&more) = ancestors.get(p as usize) {
                        closed = closed.union(more);
                    }
                }
                if closed != ancestors[id] {
                    ancestors[id] = closed;
                    changed = true;
                }
            }
            if !changed {
                return Graph { ancestors, len };
            }
        }
    }

    /// Every record reachable from `id` along `derived_from` edges.
    pub fn ancestors(&self, id: RecordId) -> RecordSet {
        self.ancestors
            .get(id as usize)
            .copied()
            .unwrap_or(RecordSet::EMPTY)
    }

    /// Every record from which `id` is reachable along `derived_from`.
    pub fn descendants(&self, id: RecordId) -> RecordSet {
        self.descendants_of_any(RecordSet::single(id))
    }

    /// Every record with an ancestor in `set`.
    pub fn descendants_of_any(&self, set: RecordSet) -> RecordSet {
        let mut found = RecordSet::EMPTY;
        for (child, anc) in self.ancestors[..self.len].iter().enumerate() {
            if anc.intersects(set) {
                found.insert(child as RecordId);
            }
        }
        found
    }
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
