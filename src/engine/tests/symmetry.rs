//! Symmetry reduction on two-phase commit with interchangeable resource
//! managers (as stateright's own 2PC example): counts are of classes
//! (checked against the unreduced space mapped to representatives),
//! verdicts agree with the unreduced run, and traces are real.

use super::oracle::naive_bfs;
use super::two_phase::{Action, State, TwoPhase};
use crate::engine::{Engine, EngineOptions, Symmetric, Verdict};
use stateright::{Model, Property};
use std::collections::HashSet;

/// The resource managers permuted so that their (state, prepared, sent)
/// triples are sorted: equal for states that differ by a renaming.
impl Symmetric for TwoPhase {
    fn representative(&self, s: &State) -> State {
        let mut rms: Vec<(u8, bool, bool)> = (0..self.n)
            .map(|i| (s.rm[i], s.tm_prepared >> i & 1 == 1, s.msgs >> i & 1 == 1))
            .collect();
        rms.sort_unstable();
        let mut out = s.clone();
        out.tm_prepared = 0;
        out.msgs &= !((1 << self.n) - 1);
        for (i, &(rm, prepared, sent)) in rms.iter().enumerate() {
            out.rm[i] = rm;
            out.tm_prepared |= u16::from(prepared) << i;
            out.msgs |= u32::from(sent) << i;
        }
        out
    }
}

/// 2PC with a `Sometimes` property that needs a particular manager to act,
/// so a real trace must rename the representative's managers back.
struct Watched(TwoPhase);

impl Model for Watched {
    type State = State;
    type Action = Action;
    fn init_states(&self) -> Vec<State> {
        self.0.init_states()
    }
    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        self.0.actions(s, actions)
    }
    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        self.0.next_state(s, a)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always("consistent", |_, s: &State| {
                !(s.rm.contains(&2) && s.rm.contains(&3))
            }),
            Property::sometimes("some manager aborted, or two committed", |_, s: &State| {
                s.rm.iter().filter(|&&r| r == 2).count() == 2 || s.rm.contains(&3)
            }),
        ]
    }
}

impl Symmetric for Watched {
    fn representative(&self, s: &State) -> State {
        self.0.representative(s)
    }
}

#[test]
fn counts_are_the_classes_of_the_unreduced_space() {
    for n in [2, 3, 4] {
        let m = TwoPhase { n };
        let full = Engine::new(&m).options(&EngineOptions::new(None, 2)).run();
        let reduced = Engine::new(&m)
            .options(&EngineOptions::new(None, 2))
            .symmetric()
            .run();
        // The unreduced reachable states, mapped to representatives.
        let mut all = HashSet::new();
        let mut frontier = m.init_states();
        while let Some(s) = frontier.pop() {
            if all.insert(s.clone()) {
                let mut actions = Vec::new();
                m.actions(&s, &mut actions);
                frontier.extend(actions.into_iter().filter_map(|a| m.next_state(&s, a)));
            }
        }
        let classes: HashSet<State> = all.iter().map(|s| m.representative(s)).collect();
        assert_eq!(full.unique_states as usize, all.len(), "n = {n}");
        assert_eq!(reduced.unique_states as usize, classes.len(), "n = {n}");
        assert!(reduced.unique_states < full.unique_states);
        assert!(reduced.complete);
        assert_eq!(reduced.property("consistent"), Some(&Verdict::Holds));
        assert_eq!(
            naive_bfs(&m, None).levels.last().unwrap().2,
            full.unique_states
        );
    }
}

#[test]
fn traces_under_symmetry_are_real_traces_of_the_unreduced_model() {
    let m = Watched(TwoPhase { n: 3 });
    for threads in [1, 2] {
        let full = Engine::new(&m)
            .options(&EngineOptions::new(None, threads))
            .run();
        let reduced = Engine::new(&m)
            .options(&EngineOptions::new(None, threads))
            .symmetric()
            .run();
        for (r, f) in reduced.properties.iter().zip(&full.properties) {
            match (&r.verdict, &f.verdict) {
                (Verdict::Reached { depth: a, trace }, Verdict::Reached { depth: b, .. }) => {
                    assert_eq!(a, b, "the same shortest depth");
                    super::assert_valid_trace(&m, trace);
                    assert!((m.properties()[1].condition)(&m, &trace.last().unwrap().0));
                }
                (r, f) => assert_eq!(r, f),
            }
        }
    }
}
