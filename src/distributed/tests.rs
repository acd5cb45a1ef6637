//! The distributed engine against the single-process one, in one process
//! with 1, 2 and 3 workers, on a toy model where most states have several
//! discoverers (so the parent rule decides the traces), with a boundary,
//! `None` successors, an `Always`, a `Sometimes` and an `Eventually`
//! property; bounded and to the fixpoint, at both fingerprint widths.
//! And a labelled model with a symmetry: its label counts, class counts
//! and real traces are the engine's.

use super::{enumerate, Cluster};
use crate::engine::{
    self, EngineOptions, EngineReport, FingerprintWidth, LabelledModel, StateCodec, Symmetric,
};
use stateright::{Model, Property};
use std::sync::Arc;
use std::time::Duration;

/// A 7 × 6 torus-free grid walk with four moves and a jump, from two
/// initial corners; states with x > 5 are outside the boundary.
struct Walk;

impl Model for Walk {
    type State = (u8, u8);
    type Action = u8;
    fn init_states(&self) -> Vec<(u8, u8)> {
        vec![(0, 0), (6, 5), (0, 0)]
    }
    fn actions(&self, _: &(u8, u8), actions: &mut Vec<u8>) {
        actions.extend(0..6);
    }
    fn next_state(&self, &(x, y): &(u8, u8), a: u8) -> Option<(u8, u8)> {
        match a {
            0 if x < 6 => Some((x + 1, y)),
            1 if y < 5 => Some((x, y + 1)),
            2 if x > 0 => Some((x - 1, y)),
            3 if y > 0 => Some((x, y - 1)),
            4 => Some(((x + 2) % 7, (y + 3) % 6)),
            5 => Some((x, y)),
            _ => None,
        }
    }
    fn within_boundary(&self, &(x, _): &(u8, u8)) -> bool {
        x <= 5
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("sum below 7", |_, s: &(u8, u8)| s.0 + s.1 < 7),
            Property::sometimes("at (4, 1)", |_, s: &(u8, u8)| *s == (4, 1)),
            Property::always("never (5, 5)", |_, s: &(u8, u8)| *s != (5, 5)),
            Property::eventually("eventually home", |_, s: &(u8, u8)| *s == (0, 0)),
        ]
    }
}

struct Bytes;

impl StateCodec<(u8, u8)> for Bytes {
    fn encode(&self, s: &(u8, u8), out: &mut Vec<u8>) {
        out.extend([s.0, s.1]);
    }
    fn decode(&self, b: &[u8]) -> (u8, u8) {
        (b[0], b[1])
    }
}

/// One process of `threads` workers on a loopback port of its own.
fn one_process(threads: usize, identity: &str) -> Cluster {
    Cluster {
        addresses: vec!["127.0.0.1:0".into()],
        process: 0,
        threads,
        connect_timeout: Duration::from_secs(5),
        identity: identity.into(),
    }
}

fn without_timing(mut r: EngineReport<(u8, u8), u8>) -> EngineReport<(u8, u8), u8> {
    r.levels.iter_mut().for_each(|l| l.elapsed_ms = 0);
    r
}

#[test]
fn every_worker_count_gives_the_engine_s_report() {
    for fingerprint in [FingerprintWidth::Bits64, FingerprintWidth::Bits128] {
        for max_depth in [None, Some(0), Some(1), Some(3), Some(6)] {
            let opts = EngineOptions {
                fingerprint,
                ..EngineOptions::new(max_depth, 1)
            };
            let expected = without_timing(
                engine::Engine::new(&Walk)
                    .options(&opts)
                    .codec(&Bytes)
                    .run(),
            );
            for threads in 1..=3 {
                let cluster = one_process(threads, "walk");
                let run = EngineOptions {
                    fingerprint,
                    ..EngineOptions::new(max_depth, 1)
                };
                let got = enumerate::<_, crate::engine::Unlabelled>(
                    Arc::new(Walk),
                    Arc::new(Bytes),
                    &cluster,
                    run,
                )
                .expect("one process connects to no one")
                .expect("process 0 reports");
                assert_eq!(
                    without_timing(got),
                    expected,
                    "{fingerprint:?}, depth {max_depth:?}, {threads} threads"
                );
            }
        }
    }
}

/// Two counters up to 4, each incremented or reset, from (0, 0); labels
/// say which counter moved and whether a reset was refused (an attempt);
/// the pair is symmetric (the representative is the sorted pair).
struct Pair;

impl Model for Pair {
    type State = (u8, u8);
    type Action = u8;
    fn init_states(&self) -> Vec<(u8, u8)> {
        vec![(0, 0)]
    }
    fn actions(&self, _: &(u8, u8), actions: &mut Vec<u8>) {
        actions.extend(0..4);
    }
    fn next_state(&self, s: &(u8, u8), a: u8) -> Option<(u8, u8)> {
        self.next_state_labelled(s, a).map(|(next, _)| next)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("sum below 6", |_, s: &(u8, u8)| s.0 + s.1 < 6),
            Property::sometimes("both 2", |_, s: &(u8, u8)| *s == (2, 2)),
        ]
    }
}

impl LabelledModel for Pair {
    fn next_state_labelled(&self, &(a, b): &(u8, u8), action: u8) -> Option<((u8, u8), u128)> {
        match action {
            0 if a < 4 => Some(((a + 1, b), 1)),
            1 if b < 4 => Some(((a, b + 1), 2)),
            2 if a > 0 => Some(((0, b), 1)),
            3 if b > 0 => Some(((a, 0), 2)),
            _ => None,
        }
    }
    fn attempt_labelled(&self, s: &(u8, u8), action: u8) -> Result<((u8, u8), u128), u128> {
        self.next_state_labelled(s, action)
            .ok_or(if action >= 2 { 4 } else { 0 })
    }
    fn label_names(&self) -> Vec<&'static str> {
        vec!["first", "second", "refused reset"]
    }
}

impl Symmetric for Pair {
    fn representative(&self, &(a, b): &(u8, u8)) -> (u8, u8) {
        (a.min(b), a.max(b))
    }
}

#[test]
fn labels_and_symmetry_are_the_engine_s() {
    for max_depth in [None, Some(2), Some(5)] {
        let opts = EngineOptions::new(max_depth, 1);
        let plain = engine::Engine::new(&Pair)
            .options(&opts)
            .codec(&Bytes)
            .labelled()
            .run();
        let reduced = engine::Engine::new(&Pair)
            .options(&opts)
            .codec(&Bytes)
            .labelled()
            .symmetric()
            .run();
        assert!(reduced.unique_states < plain.unique_states);
        for (symmetric, expected) in [(false, plain), (true, reduced)] {
            for threads in 1..=3 {
                let cluster = one_process(threads, "pair");
                let run = EngineOptions::new(max_depth, 1);
                let (model, codec) = (Arc::new(Pair), Arc::new(Bytes));
                let got = if symmetric {
                    enumerate::<_, crate::engine::Reduced<crate::engine::Labelled>>(
                        model, codec, &cluster, run,
                    )
                } else {
                    enumerate::<_, crate::engine::Labelled>(model, codec, &cluster, run)
                }
                .expect("one process connects to no one")
                .expect("process 0 reports");
                assert_eq!(
                    without_timing(got),
                    without_timing(expected.clone()),
                    "symmetric {symmetric}, depth {max_depth:?}, {threads} threads"
                );
            }
        }
    }
}
