//! Unit tests of the engine: toy models, an independent naive BFS oracle
//! (full states in a `HashSet`), and the pinned expectations.

use super::stateright_mapping::stateright_bfs_counts;
use super::*;
use stateright::Property;
use std::collections::HashSet;
use std::fmt::Debug;

/// Toy models shared by the engine tests and the stateright-mapping tests.
pub(crate) mod models {
    use stateright::{Model, Property};

    /// A `w × h` grid walk from (0, 0). `Stay` never changes the state
    /// (`next_state` is `None`). Optional boundary `x ≤ max_x`.
    #[derive(Clone, Debug)]
    pub struct Grid {
        pub w: u8,
        pub h: u8,
        pub four_way: bool,
        pub max_x: Option<u8>,
        /// `Always` "sum below" is violated at x + y == `limit`.
        pub limit: u8,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Move {
        Stay,
        Right,
        Up,
        Left,
        Down,
    }

    impl Model for Grid {
        type State = (u8, u8);
        type Action = Move;
        fn init_states(&self) -> Vec<(u8, u8)> {
            vec![(0, 0)]
        }
        fn actions(&self, _: &(u8, u8), actions: &mut Vec<Move>) {
            actions.extend([Move::Stay, Move::Right, Move::Up]);
            if self.four_way {
                actions.extend([Move::Left, Move::Down]);
            }
        }
        fn next_state(&self, &(x, y): &(u8, u8), m: Move) -> Option<(u8, u8)> {
            match m {
                Move::Stay => None,
                Move::Right if x + 1 < self.w => Some((x + 1, y)),
                Move::Up if y + 1 < self.h => Some((x, y + 1)),
                Move::Left if x > 0 => Some((x - 1, y)),
                Move::Down if y > 0 => Some((x, y - 1)),
                _ => None,
            }
        }
        fn within_boundary(&self, &(x, _): &(u8, u8)) -> bool {
            self.max_x.is_none_or(|m| x <= m)
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![
                Property::always("sum below", |m: &Grid, s: &(u8, u8)| s.0 + s.1 < m.limit),
                Property::sometimes("at (3, 2)", |_, s| *s == (3, 2)),
                Property::eventually("eventually corner", |m: &Grid, s: &(u8, u8)| {
                    *s == (m.w - 1, m.h - 1)
                }),
            ]
        }
    }

    /// A chain 0 → 1 → … → n with a shortcut `Jump` from 0 to 5 (a DAG in
    /// which 5, 6, … are reachable by a long and a short path).
    #[derive(Clone, Debug)]
    pub struct Shortcut {
        pub n: u8,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Hop {
        Step,
        Jump,
    }

    impl Model for Shortcut {
        type State = u8;
        type Action = Hop;
        fn init_states(&self) -> Vec<u8> {
            vec![0, 0] // a duplicated initial state is counted once
        }
        fn actions(&self, &s: &u8, actions: &mut Vec<Hop>) {
            if s < self.n {
                actions.push(Hop::Step);
            }
            if s == 0 {
                actions.push(Hop::Jump);
            }
        }
        fn next_state(&self, &s: &u8, a: Hop) -> Option<u8> {
            Some(match a {
                Hop::Step => s + 1,
                Hop::Jump => 5,
            })
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![Property::always("below 7", |_, &s| s < 7)]
        }
    }

    /// Integers modulo `m` from 1 under +1, ×2 and ×3: many DAG joins and
    /// cycles, wide levels.
    #[derive(Clone, Debug)]
    pub struct Counter {
        pub m: u32,
        pub bad: u32,
    }

    impl Model for Counter {
        type State = u32;
        type Action = u8;
        fn init_states(&self) -> Vec<u32> {
            vec![1, 2]
        }
        fn actions(&self, _: &u32, actions: &mut Vec<u8>) {
            actions.extend([1, 2, 3]);
        }
        fn next_state(&self, &s: &u32, a: u8) -> Option<u32> {
            let m = self.m as u64;
            let s = s as u64;
            Some(match a {
                1 => (s + 1) % m,
                2 => (s * 2) % m,
                _ => (s * 3) % m,
            } as u32)
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![
                Property::always("not bad", |m: &Counter, &s| s % 1000 != m.bad),
                Property::sometimes("square hit", |m: &Counter, &s| {
                    s > 10 && (s as u64 * s as u64) % m.m as u64 == 1
                }),
            ]
        }
    }

    /// Two-phase commit with `n` resource managers (after Gray & Lamport's
    /// TLA+ spec).
    #[derive(Clone, Debug)]
    pub struct TwoPhase {
        pub n: usize,
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    pub struct TpState {
        /// 0 working, 1 prepared, 2 committed, 3 aborted.
        pub rm: Vec<u8>,
        /// 0 init, 1 committed, 2 aborted.
        pub tm: u8,
        pub tm_prepared: Vec<bool>,
        /// Bit i: "prepared" from rm i; bit 30: commit; bit 31: abort.
        pub msgs: u32,
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum TpAction {
        TmRcvPrepared(usize),
        TmCommit,
        TmAbort,
        RmPrepare(usize),
        RmChooseToAbort(usize),
        RmRcvCommit(usize),
        RmRcvAbort(usize),
    }

    impl Model for TwoPhase {
        type State = TpState;
        type Action = TpAction;
        fn init_states(&self) -> Vec<TpState> {
            vec![TpState {
                rm: vec![0; self.n],
                tm: 0,
                tm_prepared: vec![false; self.n],
                msgs: 0,
            }]
        }
        fn actions(&self, s: &TpState, actions: &mut Vec<TpAction>) {
            if s.tm == 0 && s.tm_prepared.iter().all(|&p| p) {
                actions.push(TpAction::TmCommit);
            }
            if s.tm == 0 {
                actions.push(TpAction::TmAbort);
            }
            for i in 0..self.n {
                if s.tm == 0 && s.msgs & (1 << i) != 0 {
                    actions.push(TpAction::TmRcvPrepared(i));
                }
                if s.rm[i] == 0 {
                    actions.push(TpAction::RmPrepare(i));
                    actions.push(TpAction::RmChooseToAbort(i));
                }
                if s.msgs & (1 << 30) != 0 {
                    actions.push(TpAction::RmRcvCommit(i));
                }
                if s.msgs & (1 << 31) != 0 {
                    actions.push(TpAction::RmRcvAbort(i));
                }
            }
        }
        fn next_state(&self, s: &TpState, a: TpAction) -> Option<TpState> {
            let mut s = s.clone();
            match a {
                TpAction::TmRcvPrepared(i) => s.tm_prepared[i] = true,
                TpAction::TmCommit => {
                    s.tm = 1;
                    s.msgs |= 1 << 30;
                }
                TpAction::TmAbort => {
                    s.tm = 2;
                    s.msgs |= 1 << 31;
                }
                TpAction::RmPrepare(i) => {
                    s.rm[i] = 1;
                    s.msgs |= 1 << i;
                }
                TpAction::RmChooseToAbort(i) => s.rm[i] = 3,
                TpAction::RmRcvCommit(i) => s.rm[i] = 2,
                TpAction::RmRcvAbort(i) => s.rm[i] = 3,
            }
            Some(s)
        }
        fn properties(&self) -> Vec<Property<Self>> {
            vec![
                Property::always("consistent", |_, s: &TpState| {
                    !(s.rm.contains(&2) && s.rm.contains(&3))
                }),
                Property::sometimes("all committed", |_, s: &TpState| {
                    s.rm.iter().all(|&r| r == 2)
                }),
            ]
        }
    }
}

use models::*;

/// Per-level `(depth, new, total, transitions, total_transitions)` and per
/// property the shallowest deciding depth, by a naive BFS over full states.
type Oracle = (Vec<(usize, u64, u64, u64, u64)>, Vec<Option<usize>>);

fn naive_bfs<M>(model: &M, max_depth: Option<usize>) -> Oracle
where
    M: Model,
    M::State: Hash + Eq + Clone,
{
    let props = model.properties();
    let mut first: Vec<Option<usize>> = vec![None; props.len()];
    let mut seen = HashSet::new();
    let mut level: Vec<M::State> = model
        .init_states()
        .into_iter()
        .filter(|s| model.within_boundary(s) && seen.insert(s.clone()))
        .collect();
    let mut out = Vec::new();
    let (mut total, mut total_tr, mut tr) = (0u64, 0u64, 0u64);
    for depth in 0.. {
        total += level.len() as u64;
        total_tr += tr;
        out.push((depth, level.len() as u64, total, tr, total_tr));
        for s in &level {
            for (p, prop) in props.iter().enumerate() {
                let holds = (prop.condition)(model, s);
                let hit = match prop.expectation {
                    Expectation::Always => !holds,
                    Expectation::Sometimes => holds,
                    Expectation::Eventually => false,
                };
                if hit && first[p].is_none() {
                    first[p] = Some(depth);
                }
            }
        }
        if level.is_empty() || max_depth == Some(depth) {
            break;
        }
        tr = 0;
        let mut next = Vec::new();
        for s in &level {
            let mut actions = Vec::new();
            model.actions(s, &mut actions);
            for a in actions {
                if let Some(n) = model.next_state(s, a) {
                    if model.within_boundary(&n) {
                        tr += 1;
                        if seen.insert(n.clone()) {
                            next.push(n);
                        }
                    }
                }
            }
        }
        level = next;
    }
    (out, first)
}

fn run<M>(model: &M, max_depth: Option<usize>, threads: usize) -> EngineReport<M::State, M::Action>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
{
    enumerate(model, &EngineOptions::new(max_depth, threads))
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
        let (levels, first) = naive_bfs(model, bound);
        let r1 = run(model, bound, 1);
        assert_eq!(r1.level_counts(), levels, "bound {bound:?}");
        assert_eq!(decided_depths(&r1), first, "bound {bound:?}");
        assert_eq!(r1.unique_states, levels.last().unwrap().2);
        assert_eq!(r1.complete, levels.last().unwrap().1 == 0);
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
            let r = crate::engine::enumerate_with_codec(model, &codec, &opts);
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
struct TableCodec<S> {
    table: std::sync::Mutex<Vec<S>>,
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
    let r = enumerate(&m, &opts);
    assert!(!r.complete);
    assert_eq!(r.max_depth(), 6);
    assert_eq!(decided_depths(&r)[0], Some(6));
}

#[test]
fn progress_is_reported_per_level() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let opts = EngineOptions {
        progress: Some(Box::new(move |l: &LevelStats| {
            sink.lock().unwrap().push(l.depth)
        })),
        ..EngineOptions::new(Some(3), 1)
    };
    enumerate(&grid(100), &opts);
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2, 3]);
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
