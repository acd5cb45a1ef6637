//! Label counting: by hand on a tiny ladder, against the oracle on a wide
//! model, the same for 1, 2 and 3 threads with and without a codec.

use super::models::Counter;
use super::oracle::naive_labelled_bfs;
use super::TableCodec;
use crate::engine::{Engine, EngineOptions, EngineReport, LabelCount, LabelledModel};
use stateright::{Model, Property};
use std::fmt::Debug;
use std::hash::Hash;

/// A chain 0 → 1 → … → 6 with a labelled shortcut, a self-loop, a back
/// edge, a transition leaving the boundary, and a refused attempt that is
/// labelled but no transition:
///
/// ```text
/// 0 -step-> 1 -step-> 2 -step-> 3 -step-> 4 -step-> 5 -step-> 6
/// 0 -jump+long-> 3     2 -outside-> 9 (out of bounds)
/// 4 -stay-> 4          5 -back-> 1
/// 1 -knock-> (refused) 3 -knock-> (refused)
/// ```
struct Ladder;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Rung {
    Step,
    Jump,
    Stay,
    Exit,
    Back,
    Knock,
}

const STEP: u128 = 1;
const JUMP: u128 = 1 << 1;
const LONG: u128 = 1 << 2;
const STAY: u128 = 1 << 3;
const OUTSIDE: u128 = 1 << 4;
const BACK: u128 = 1 << 5;
const KNOCK: u128 = 1 << 7;

impl Model for Ladder {
    type State = u8;
    type Action = Rung;
    fn init_states(&self) -> Vec<u8> {
        vec![0]
    }
    fn actions(&self, &s: &u8, actions: &mut Vec<Rung>) {
        let offered = [
            (Rung::Step, s < 6),
            (Rung::Jump, s == 0),
            (Rung::Stay, s == 4),
            (Rung::Exit, s == 2),
            (Rung::Back, s == 5),
            (Rung::Knock, s == 1 || s == 3),
        ];
        actions.extend(offered.iter().filter(|o| o.1).map(|o| o.0));
    }
    fn next_state(&self, s: &u8, a: Rung) -> Option<u8> {
        self.next_state_labelled(s, a).map(|(next, _)| next)
    }
    fn within_boundary(&self, &s: &u8) -> bool {
        s <= 6
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("below 5", |_, &s| s < 5)]
    }
}

impl LabelledModel for Ladder {
    fn next_state_labelled(&self, &s: &u8, a: Rung) -> Option<(u8, u128)> {
        Some(match a {
            Rung::Step => (s + 1, STEP),
            Rung::Jump => (3, JUMP | LONG),
            Rung::Stay => (4, STAY),
            Rung::Exit => (9, OUTSIDE),
            Rung::Back => (1, BACK),
            Rung::Knock => return None,
        })
    }
    fn attempt_labelled(&self, s: &u8, a: Rung) -> Result<(u8, u128), u128> {
        match a {
            Rung::Knock => Err(KNOCK),
            _ => self.next_state_labelled(s, a).ok_or(0),
        }
    }
    fn label_names(&self) -> Vec<&'static str> {
        vec![
            "step", "jump", "long", "stay", "outside", "back", "unused", "knock",
        ]
    }
}

/// Every run of `model` with `opts` (threads 1, 2, 3; with and without a
/// codec) gives the same report; returns it.
fn same_for_every_run<M>(
    model: &M,
    opts: impl Fn(usize) -> EngineOptions,
) -> EngineReport<M::State, M::Action>
where
    M: LabelledModel + Sync,
    M::State: Hash + Clone + Send + Sync + Debug + PartialEq,
    M::Action: Clone + Debug + PartialEq,
{
    let first = Engine::new(model).options(&opts(1)).labelled().run();
    for threads in [1, 2, 3] {
        let plain = Engine::new(model).options(&opts(threads)).labelled().run();
        let codec = TableCodec {
            table: Default::default(),
        };
        let packed = Engine::new(model)
            .options(&opts(threads))
            .codec(&codec)
            .labelled()
            .run();
        for r in [plain, packed] {
            assert_eq!(r.level_counts(), first.level_counts(), "threads {threads}");
            assert_eq!(r.properties, first.properties, "threads {threads}");
            assert_eq!(r.labels, first.labels, "threads {threads}");
        }
    }
    first
}

fn counts(r: &EngineReport<u8, Rung>) -> Vec<(&'static str, u64, Option<usize>)> {
    r.labels
        .iter()
        .map(|l| (l.name, l.transitions, l.first_depth))
        .collect()
}

#[test]
fn ladder_labels_by_hand() {
    let r = same_for_every_run(&Ladder, |threads| EngineOptions::new(None, threads));
    assert_eq!(
        r.level_counts(),
        vec![
            (0, 1, 1, 0, 0),
            (1, 2, 3, 2, 2),
            (2, 2, 5, 2, 4),
            (3, 1, 6, 3, 7),
            (4, 1, 7, 2, 9),
            (5, 0, 7, 0, 9),
        ]
    );
    // Duplicates (2 → 3, 5 → 1) and the self-loop (4 → 4) count; the
    // transition out of the boundary (2 → 9) does not. The refused knocks
    // from 1 and 3 (both at depth 1) count as attempts under depth 2, and
    // not as transitions (the levels above).
    assert_eq!(
        counts(&r),
        vec![
            ("step", 6, Some(1)),
            ("jump", 1, Some(1)),
            ("long", 1, Some(1)),
            ("stay", 1, Some(3)),
            ("outside", 0, None),
            ("back", 1, Some(4)),
            ("unused", 0, None),
            ("knock", 2, Some(2)),
        ]
    );
    assert_eq!(
        r.label("back"),
        Some(&LabelCount {
            name: "back",
            transitions: 1,
            first_depth: Some(4),
            by_depth: Some(vec![0, 0, 0, 0, 1, 0]),
        })
    );
    // Each label's counts by depth add up to its total.
    for label in &r.labels {
        let by_depth = label.by_depth.as_ref().expect("a fresh run keeps them");
        assert_eq!(
            by_depth.iter().sum::<u64>(),
            label.transitions,
            "{}",
            label.name
        );
        let first = by_depth.iter().position(|&n| n > 0);
        assert_eq!(first, label.first_depth, "{}", label.name);
    }
}

#[test]
fn labels_count_only_the_levels_counted() {
    // At the bound 3 and when stopped by the violation at depth 3 (state
    // 5), no transition out of level 3 is counted, so neither are labels.
    let bounded = same_for_every_run(&Ladder, |threads| EngineOptions::new(Some(3), threads));
    let stopped = same_for_every_run(&Ladder, |threads| EngineOptions {
        stop_on_violation: true,
        ..EngineOptions::new(None, threads)
    });
    for r in [&bounded, &stopped] {
        assert_eq!(r.max_depth(), 3);
        assert_eq!(r.transitions, 7);
        assert_eq!(
            counts(r),
            vec![
                ("step", 5, Some(1)),
                ("jump", 1, Some(1)),
                ("long", 1, Some(1)),
                ("stay", 1, Some(3)),
                ("outside", 0, None),
                ("back", 0, None),
                ("unused", 0, None),
                ("knock", 2, Some(2)),
            ]
        );
    }
}

/// [`Counter`] with its transitions labelled by action, by whether the
/// result wrapped around the modulus, and (bit 127) by reaching 0.
pub(super) struct LabelledCounter(pub(super) Counter);

impl Model for LabelledCounter {
    type State = u32;
    type Action = u8;
    fn init_states(&self) -> Vec<u32> {
        self.0.init_states()
    }
    fn actions(&self, s: &u32, actions: &mut Vec<u8>) {
        self.0.actions(s, actions)
    }
    fn next_state(&self, s: &u32, a: u8) -> Option<u32> {
        self.0.next_state(s, a)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("not bad", |m: &LabelledCounter, &s| {
            s % 1000 != m.0.bad
        })]
    }
}

impl LabelledModel for LabelledCounter {
    fn next_state_labelled(&self, &s: &u32, a: u8) -> Option<(u32, u128)> {
        let next = self.0.next_state(&s, a)?;
        let wrapped = (next < s) as u128;
        let zero = (next == 0) as u128;
        Some((next, 1 << (a - 1) | wrapped << 3 | zero << 127))
    }
    fn label_names(&self) -> Vec<&'static str> {
        let mut names = vec!["unused"; 128];
        names[..4].copy_from_slice(&["+1", "x2", "x3", "wraps"]);
        names[127] = "zero";
        names
    }
}

#[test]
fn counter_labels_match_the_oracle() {
    let m = LabelledCounter(Counter {
        m: 20_011,
        bad: 777,
    });
    for bound in [Some(3), Some(9), None] {
        let oracle = naive_labelled_bfs(&m, bound);
        let r = same_for_every_run(&m, |threads| EngineOptions::new(bound, threads));
        assert_eq!(r.level_counts(), oracle.levels, "bound {bound:?}");
        let ours: Vec<_> = r
            .labels
            .iter()
            .map(|l| (l.transitions, l.first_depth))
            .collect();
        assert_eq!(ours, oracle.labels, "bound {bound:?}");
        if bound.is_none() {
            assert!(r.label("zero").unwrap().transitions > 0, "bit 127 is used");
        }
    }
}

/// Names one label and sets another.
struct Unnamed;

impl Model for Unnamed {
    type State = u8;
    type Action = ();
    fn init_states(&self) -> Vec<u8> {
        vec![0]
    }
    fn actions(&self, _: &u8, actions: &mut Vec<()>) {
        actions.push(());
    }
    fn next_state(&self, &s: &u8, _: ()) -> Option<u8> {
        Some(s.saturating_add(1))
    }
}

impl LabelledModel for Unnamed {
    fn next_state_labelled(&self, s: &u8, a: ()) -> Option<(u8, u128)> {
        self.next_state(s, a).map(|n| (n, 1 << 3))
    }
    fn label_names(&self) -> Vec<&'static str> {
        vec!["only"]
    }
}

#[test]
#[should_panic(expected = "label bit 3, but the model names only 1 labels")]
fn a_label_without_a_name_is_refused() {
    Engine::new(&Unnamed)
        .options(&EngineOptions::new(Some(2), 1))
        .labelled()
        .run();
}
