//! How stateright 0.31's own BFS (`CheckerBuilder::spawn_bfs`) relates to
//! this engine, and the helpers that cross-check the two. What it does —
//! its depths, counts, counterexamples, symmetry and threads against ours
//! — is docs/architecture.md's "Stateright's own BFS"; every statement
//! there but the multi-threaded one (observed, being non-deterministic)
//! is asserted by tests in this module and in `engine::tests`, with the
//! helpers below.

use stateright::{Checker, Model, Property};
use std::hash::Hash;

/// Wraps a model, replacing its properties by a single `Sometimes` property
/// that never holds, so stateright's checker cannot stop early (it stops as
/// soon as every property has a discovery — immediately if there are none).
pub struct EnumerateOnly<M>(pub M);

impl<M: Model> Model for EnumerateOnly<M> {
    type State = M::State;
    type Action = M::Action;

    fn init_states(&self) -> Vec<Self::State> {
        self.0.init_states()
    }
    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        self.0.actions(state, actions)
    }
    fn next_state(&self, state: &Self::State, action: Self::Action) -> Option<Self::State> {
        self.0.next_state(state, action)
    }
    fn within_boundary(&self, state: &Self::State) -> bool {
        self.0.within_boundary(state)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::sometimes("never", |_, _| false)]
    }
}

/// Counters of a finished stateright BFS run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaterightCounts {
    /// `Checker::unique_state_count`.
    pub unique_states: usize,
    /// `Checker::state_count` (stateright's "total states").
    pub state_count: usize,
    /// `Checker::max_depth`.
    pub max_depth: usize,
}

/// Runs stateright's `spawn_bfs` on `model` (wrapped in [`EnumerateOnly`])
/// with `target_max_depth(target_max_depth)` (0 = unbounded) and `threads`
/// threads, to completion.
pub fn stateright_bfs_counts<M>(
    model: M,
    target_max_depth: usize,
    threads: usize,
) -> StaterightCounts
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + PartialEq + Send + Sync + 'static,
    M::Action: Clone + PartialEq,
{
    let checker = EnumerateOnly(model)
        .checker()
        .threads(threads)
        .target_max_depth(target_max_depth)
        .spawn_bfs()
        .join();
    StaterightCounts {
        unique_states: checker.unique_state_count(),
        state_count: checker.state_count(),
        max_depth: checker.max_depth(),
    }
}

/// Stateright's single-threaded BFS `unique_state_count` with
/// `target_max_depth(target_max_depth)`.
pub fn stateright_bfs_unique_states<M>(model: M, target_max_depth: usize) -> usize
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + PartialEq + Send + Sync + 'static,
    M::Action: Clone + PartialEq,
{
    stateright_bfs_counts(model, target_max_depth, 1).unique_states
}

#[cfg(test)]
mod tests {
    use super::super::tests::models::{Grid, Move};
    use super::super::{Engine, EngineOptions, Verdict};
    use super::*;
    use stateright::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn grid(limit: u8) -> Grid {
        Grid {
            w: 6,
            h: 6,
            four_way: true,
            max_x: None,
            limit,
        }
    }

    #[test]
    fn stateright_checks_two_levels_short_of_its_target() {
        // "sum below 6" fails first at depth 6: we find it with max_depth 6,
        // stateright needs target_max_depth(8).
        let ours = Engine::new(&grid(6))
            .options(&EngineOptions::new(Some(6), 1))
            .run();
        assert!(matches!(
            ours.property("sum below"),
            Some(Verdict::Violated { depth: 6, .. })
        ));
        let sr = |d| {
            grid(6)
                .checker()
                .target_max_depth(d)
                .spawn_bfs()
                .join()
                .discovery("sum below")
        };
        assert!(sr(7).is_none());
        assert_eq!(sr(8).unwrap().into_actions().len(), 6);
    }

    #[test]
    fn stateright_overwrites_counterexamples_with_deeper_ones() {
        // Single-threaded, unbounded. The "eventually" property keeps the
        // checker running (no state is terminal), and every later violation
        // of "sum below" replaces the stored path.
        let ours = Engine::new(&grid(6))
            .options(&EngineOptions::new(None, 1))
            .run();
        assert!(matches!(
            ours.property("sum below"),
            Some(Verdict::Violated { depth: 6, .. })
        ));
        let sr = grid(6).checker().spawn_bfs().join();
        let path = sr.discovery("sum below").unwrap();
        // The last state checked: the far corner, 10 actions away.
        assert_eq!(path.last_state(), &(5, 5));
        assert_eq!(path.into_actions().len(), 10);
    }

    #[test]
    fn stateright_bfs_ignores_symmetry() {
        // (x, y) ~ (y, x) on a square grid: 21 classes out of 36 states.
        fn rep(s: &(u8, u8)) -> (u8, u8) {
            (s.0.min(s.1), s.0.max(s.1))
        }
        let bfs = |sym: bool| {
            let b = EnumerateOnly(grid(100)).checker();
            let b = if sym { b.symmetry_fn(rep) } else { b };
            b.spawn_bfs().join().unique_state_count()
        };
        assert_eq!(bfs(false), 36);
        assert_eq!(bfs(true), 36);
        let dfs = EnumerateOnly(grid(100))
            .checker()
            .symmetry_fn(rep)
            .spawn_dfs()
            .join();
        assert_eq!(dfs.unique_state_count(), 21);
    }

    /// Counts `next_state` calls.
    struct Counting(Grid, Arc<AtomicUsize>);

    impl Model for Counting {
        type State = (u8, u8);
        type Action = Move;
        fn init_states(&self) -> Vec<(u8, u8)> {
            self.0.init_states()
        }
        fn actions(&self, s: &(u8, u8), a: &mut Vec<Move>) {
            self.0.actions(s, a)
        }
        fn next_state(&self, s: &(u8, u8), a: Move) -> Option<(u8, u8)> {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.next_state(s, a)
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![Property::sometimes("never", |_, _| false)]
        }
    }

    #[test]
    fn stateright_visitor_replays_the_whole_path() {
        let calls = |visit: bool| {
            let n = Arc::new(AtomicUsize::new(0));
            let b = Counting(grid(100), n.clone()).checker();
            let b = if visit {
                b.visitor(|_: Path<(u8, u8), Move>| {})
            } else {
                b
            };
            let _ = b.spawn_bfs().join();
            n.load(Ordering::Relaxed)
        };
        // Each visit replays one next_state per action on the path, so the
        // visitor adds the sum of all depths.
        let r = Engine::new(&grid(100))
            .options(&EngineOptions::new(None, 1))
            .run();
        let depth_sum: u64 = r.levels.iter().map(|l| l.depth as u64 * l.new_states).sum();
        assert_eq!((calls(true) - calls(false)) as u64, depth_sum);
    }
}
