//! Unit tests of the engine: toy models (`models`, `two_phase`), an
//! independent naive BFS oracle (`oracle`), and the pinned expectations;
//! labels and observers have their own files.

use super::stateright_mapping::stateright_bfs_counts;
use super::*;
use stateright::{Model, Property};
use std::fmt::Debug;
use std::hash::Hash;

pub(super) mod labels;
pub(crate) mod models;
mod observer;
mod oracle;
mod run_control;
mod symmetry;
mod two_phase;

use models::*;
use oracle::{assert_parent_rule, naive_bfs};
use two_phase::TwoPhase;

impl<S, A> EngineReport<S, A> {
    /// The levels without timings, for comparing runs (the model's tests
    /// use it too).
    pub(crate) fn level_counts(&self) -> Vec<(usize, u64, u64, u64, u64)> {
        self.levels.iter().map(LevelStats::counts).collect()
    }
}

fn run<M>(model: &M, max_depth: Option<usize>, threads: usize) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    Engine::new(model)
        .options(&EngineOptions::new(max_depth, threads))
        .run()
}

/// The deciding depth of each property in a report.
fn decided_depths<S, A>(r: &EngineReport<S, A>) -> Vec<Option<usize>> {
    r.properties
        .iter()
        .map(|p| match &p.verdict {
            Verdict::Violated { depth, .. } | Verdict::Reached { depth, .. } => Some(*depth),
            _ => None,
        })
        .collect()
}

/// Checks that a trace is a real path of the model from an initial state.
fn assert_valid_trace<M>(model: &M, trace: &Trace<M::State, M::Action>)
where
    M: Model,
    M::State: PartialEq + Debug,
    M::Action: Clone + Debug,
{
    assert!(model.init_states().contains(&trace[0].0));
    for w in trace.windows(2) {
        let a = w[0].1.clone().expect("inner step without action");
        assert_eq!(model.next_state(&w[0].0, a).as_ref(), Some(&w[1].0));
    }
    assert!(trace.last().unwrap().1.is_none());
}

/// Engine (threads 1, 2, 3) == oracle, for each bound; reports identical
/// across thread counts.
fn check_against_oracle<M>(model: &M, bounds: &[Option<usize>])
where
    M: Model + Sync,
    M::State: Hash + Eq + Clone + Send + Sync + Debug,
    M::Action: Clone + PartialEq + Debug,
{
    for &bound in bounds {
        let oracle::Oracle { levels, first, .. } = naive_bfs(model, bound);
        let r1 = run(model, bound, 1);
        assert_eq!(r1.level_counts(), levels, "bound {bound:?}");
        assert_eq!(decided_depths(&r1), first, "bound {bound:?}");
        assert_eq!(r1.unique_states, levels.last().unwrap().2);
        assert_eq!(r1.complete, levels.last().unwrap().1 == 0);
        assert!(r1.labels.is_empty(), "a plain model has no labels");
        for p in &r1.properties {
            if let Verdict::Violated { depth, trace } | Verdict::Reached { depth, trace } =
                &p.verdict
            {
                assert_eq!(trace.len(), depth + 1);
                assert_valid_trace(model, trace);
            }
        }
        for threads in [2, 3] {
            let r = run(model, bound, threads);
            assert_eq!(r.level_counts(), r1.level_counts(), "threads {threads}");
            assert_eq!(r.properties, r1.properties, "threads {threads}");
            assert_eq!(r.complete, r1.complete);
            let codec = TableCodec {
                table: Default::default(),
            };
            let opts = EngineOptions::new(bound, threads);
            let r = crate::engine::Engine::new(model)
                .options(&opts)
                .codec(&codec)
                .run();
            assert_eq!(
                r.level_counts(),
                r1.level_counts(),
                "codec, threads {threads}"
            );
            assert_eq!(r.properties, r1.properties, "codec, threads {threads}");
            assert_eq!(r.complete, r1.complete);
        }
    }
}

/// A codec that keeps states in a side table and encodes their index with
/// a variable number of bytes, so level storage through a codec (arena,
/// boundaries, decoding at a position) is exercised on any model.
pub(super) struct TableCodec<S> {
    pub(super) table: std::sync::Mutex<Vec<S>>,
}

impl<S: Clone + Send> crate::engine::StateCodec<S> for TableCodec<S> {
    fn encode(&self, state: &S, out: &mut Vec<u8>) {
        let mut table = self.table.lock().unwrap();
        let index = table.len() as u64;
        table.push(state.clone());
        let bytes = index.to_le_bytes();
        let used = 8 - (index.leading_zeros() / 8) as usize;
        out.push(used as u8);
        out.extend_from_slice(&bytes[..used]);
    }

    fn decode(&self, bytes: &[u8]) -> S {
        let mut word = [0u8; 8];
        let used = bytes[0] as usize;
        assert_eq!(bytes.len(), used + 1, "decode gets exactly one encoding");
        word[..used].copy_from_slice(&bytes[1..]);
        self.table.lock().unwrap()[u64::from_le_bytes(word) as usize].clone()
    }
}

fn grid(limit: u8) -> Grid {
    Grid {
        w: 12,
        h: 9,
        four_way: true,
        max_x: None,
        limit,
    }
}

#[test]
fn grid_counts_by_hand() {
    // Three-way walk (right/up/stay) on 3 × 2: depth d holds the cells with
    // x + y == d.
    let m = Grid {
        w: 3,
        h: 2,
        four_way: false,
        max_x: None,
        limit: 100,
    };
    let r = run(&m, None, 1);
    assert_eq!(
        r.level_counts(),
        // (depth, new, total, transitions, total transitions)
        vec![
            (0, 1, 1, 0, 0),
            (1, 2, 3, 2, 2),
            (2, 2, 5, 3, 5),
            (3, 1, 6, 2, 7),
            (4, 0, 6, 0, 7),
        ]
    );
    assert!(r.complete);
    assert_eq!(r.unique_states, 6);
    assert_eq!(r.transitions, 7);
    // A bound at the last non-empty level: not known to be complete.
    let r3 = run(&m, Some(3), 1);
    assert_eq!(r3.levels.len(), 4);
    assert!(!r3.complete);
    // A bound past the fixpoint.
    assert!(run(&m, Some(9), 1).complete);
}

#[test]
fn grid_matches_oracle() {
    check_against_oracle(&grid(13), &[Some(0), Some(1), Some(4), Some(7), None]);
}

#[test]
fn boundary_states_are_neither_counted_nor_expanded() {
    let m = Grid {
        max_x: Some(3),
        ..grid(100)
    };
    check_against_oracle(&m, &[Some(3), None]);
    let r = run(&m, None, 2);
    assert_eq!(r.unique_states, 4 * 9);
}

#[test]
fn property_at_exactly_the_bound_is_checked() {
    // "sum below 6" fails first at depth 6.
    let m = grid(6);
    let at = run(&m, Some(6), 2);
    match at.property("sum below").unwrap() {
        Verdict::Violated { depth, trace } => {
            assert_eq!(*depth, 6);
            assert_eq!(trace.len(), 7);
            let last = trace.last().unwrap().0;
            assert_eq!(last.0 + last.1, 6);
        }
        v => panic!("expected a violation, got {v:?}"),
    }
    let before = run(&m, Some(5), 2);
    assert_eq!(before.property("sum below"), Some(&Verdict::Holds));
    // Depth-6 states were discovered but never expanded.
    assert_eq!(at.levels.len(), 7);
    assert_eq!(at.max_depth(), 6);
}

#[test]
fn sometimes_and_eventually() {
    let r = run(&grid(100), None, 3);
    match r.property("at (3, 2)").unwrap() {
        Verdict::Reached { depth, trace } => {
            assert_eq!(*depth, 5);
            assert_eq!(trace.last().unwrap().0, (3, 2));
        }
        v => panic!("expected an example, got {v:?}"),
    }
    assert_eq!(r.property("eventually corner"), Some(&Verdict::Unsupported));
    assert_eq!(
        run(&grid(100), Some(4), 1).property("at (3, 2)"),
        Some(&Verdict::NotReached)
    );
}

#[test]
fn shortest_path_through_a_dag() {
    let m = Shortcut { n: 10 };
    let r = run(&m, None, 2);
    // Depths: 0 | 1, 5 | 2, 6 | 3, 7 | 4, 8 | 9 | 10 | fixpoint.
    assert_eq!(
        r.levels.iter().map(|l| l.new_states).collect::<Vec<_>>(),
        vec![1, 2, 2, 2, 2, 1, 1, 0]
    );
    match r.property("below 7").unwrap() {
        Verdict::Violated { depth, trace } => {
            assert_eq!(*depth, 3);
            let states: Vec<u8> = trace.iter().map(|s| s.0).collect();
            assert_eq!(states, vec![0, 5, 6, 7]);
            assert_eq!(trace[0].1, Some(Hop::Jump));
            assert_eq!(trace[1].1, Some(Hop::Step));
        }
        v => panic!("expected a violation, got {v:?}"),
    }
    check_against_oracle(&m, &[Some(2), None]);
}

#[test]
fn parents_and_deciding_states_follow_the_smallest_fingerprint_rule() {
    // Four-way grid: many states have several discoverers at their depth.
    let m = grid(7);
    let r = run(&m, None, 2);
    let Some(Verdict::Violated { trace, .. }) = r.property("sum below") else {
        panic!("the grid's limit is reached");
    };
    assert_parent_rule(&m, trace, |s| s.0 + s.1 >= 7);
    let Some(Verdict::Reached { trace, .. }) = r.property("at (3, 2)") else {
        panic!("(3, 2) is reached");
    };
    assert_parent_rule(&m, trace, |s| *s == (3, 2));
    // The same at the depth bound, where the last level is never held.
    let r = run(&m, Some(7), 3);
    let Some(Verdict::Violated { trace, .. }) = r.property("sum below") else {
        panic!("the grid's limit is reached at the bound");
    };
    assert_parent_rule(&m, trace, |s| s.0 + s.1 >= 7);
}

#[test]
fn counter_matches_oracle_and_is_thread_independent() {
    let m = Counter {
        m: 20_011,
        bad: 777,
    };
    check_against_oracle(&m, &[Some(3), Some(9), None]);
}

#[test]
fn two_phase_commit_matches_oracle() {
    for n in [2, 3, 4] {
        check_against_oracle(&TwoPhase { n }, &[Some(5), None]);
    }
    // The classic TLA+ figure for 3 resource managers.
    assert_eq!(run(&TwoPhase { n: 3 }, None, 2).unique_states, 288);
}

#[test]
fn stop_on_violation_finishes_the_level() {
    let m = grid(6);
    let opts = EngineOptions {
        stop_on_violation: true,
        ..EngineOptions::new(None, 2)
    };
    let r = Engine::new(&m).options(&opts).run();
    assert!(!r.complete);
    assert_eq!(r.max_depth(), 6);
    assert_eq!(decided_depths(&r)[0], Some(6));
}

#[test]
fn no_initial_states() {
    struct Empty;
    impl Model for Empty {
        type State = u8;
        type Action = u8;
        fn init_states(&self) -> Vec<u8> {
            Vec::new()
        }
        fn actions(&self, _: &u8, _: &mut Vec<u8>) {}
        fn next_state(&self, _: &u8, _: u8) -> Option<u8> {
            None
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![Property::always("any", |_, _| false)]
        }
    }
    let r = run(&Empty, None, 2);
    assert_eq!(r.level_counts(), vec![(0, 0, 0, 0, 0)]);
    assert!(r.complete);
    assert_eq!(r.property("any"), Some(&Verdict::Holds));
}

#[test]
fn stateright_unique_count_is_our_total_one_level_earlier() {
    // See `stateright_mapping`: unique_state_count(target_max_depth(d)) ==
    // our total_states at depth d − 1, and state_count == number of
    // (in-boundary) initial states + our total_transitions at depth d − 1.
    fn check<M>(model: M, depths: std::ops::RangeInclusive<usize>)
    where
        M: Model + Clone + Send + Sync + 'static,
        M::State: Hash + Clone + PartialEq + Send + Sync + 'static,
        M::Action: Clone + PartialEq,
    {
        let full = run(&model, None, 1);
        let inits: Vec<_> = model
            .init_states()
            .into_iter()
            .filter(|s| model.within_boundary(s))
            .collect();
        for d in depths {
            let sr = stateright_bfs_counts(model.clone(), d, 1);
            let ours = &full.levels[(d - 1).min(full.levels.len() - 1)];
            assert_eq!(sr.unique_states as u64, ours.total_states, "d={d}");
            // Stateright expands a duplicated initial state once per copy, so
            // its state_count is only comparable without duplicates.
            if inits.len() as u64 == full.levels[0].new_states {
                assert_eq!(
                    sr.state_count as u64,
                    inits.len() as u64 + ours.total_transitions,
                    "d={d}"
                );
            }
        }
        let unbounded = stateright_bfs_counts(model, 0, 1);
        assert_eq!(unbounded.unique_states as u64, full.unique_states);
    }
    check(grid(100), 1..=22);
    check(
        Grid {
            max_x: Some(4),
            ..grid(100)
        },
        1..=15,
    );
    check(Shortcut { n: 10 }, 1..=10);
    // Shortcut lists its initial state 0 twice: stateright counts both copies
    // and expands both (its 2 transitions out of 0 are counted twice).
    let full = run(&Shortcut { n: 10 }, None, 1);
    for d in 2..=8 {
        let sr = stateright_bfs_counts(Shortcut { n: 10 }, d, 1);
        assert_eq!(
            sr.state_count as u64,
            2 + full.levels[d - 1].total_transitions + 2,
            "d={d}"
        );
    }
    check(TwoPhase { n: 3 }, 1..=14);
    check(Counter { m: 5_003, bad: 1 }, 1..=12);
}
