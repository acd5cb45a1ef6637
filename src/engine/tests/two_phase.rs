//! Two-phase commit (Gray & Lamport's TLA+ `TwoPhase`) with `n` resource
//! managers: the one copy of this test model, used by the engine's unit
//! tests (`engine::tests`, compiled only under `cfg(test)`) and by
//! `benches/engine_bfs.rs`, which includes this file with `#[path]`. It is
//! not part of the library's API; keeping it a plain file shared by both
//! keeps the bench's figures measured on exactly the model the tests pin.

use stateright::{Model, Property};

/// Resource managers a state has room for.
pub const MAX_RMS: usize = 12;

/// Two-phase commit (Gray & Lamport's TLA+ `TwoPhase`) with `n` resource
/// managers; messages are a set (bits), as in the TLA+ spec.
#[derive(Clone)]
pub struct TwoPhase {
    pub n: usize,
}

/// 0 working, 1 prepared, 2 committed, 3 aborted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub rm: [u8; MAX_RMS],
    /// 0 init, 1 committed, 2 aborted.
    pub tm: u8,
    pub tm_prepared: u16,
    /// Bit i: "prepared" sent by rm i; bit 30: "commit"; bit 31: "abort".
    pub msgs: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    TmRcvPrepared(u8),
    TmCommit,
    TmAbort,
    RmPrepare(u8),
    RmChooseToAbort(u8),
    RmRcvCommit(u8),
    RmRcvAbort(u8),
}

const COMMIT: u32 = 1 << 30;
const ABORT: u32 = 1 << 31;

impl Model for TwoPhase {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![State {
            rm: [0; MAX_RMS],
            tm: 0,
            tm_prepared: 0,
            msgs: 0,
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        let all = (1u16 << self.n) - 1;
        if s.tm == 0 && s.tm_prepared == all {
            actions.push(Action::TmCommit);
        }
        if s.tm == 0 {
            actions.push(Action::TmAbort);
        }
        for i in 0..self.n {
            let r = i as u8;
            if s.tm == 0 && s.msgs & (1 << i) != 0 {
                actions.push(Action::TmRcvPrepared(r));
            }
            if s.rm[i] == 0 {
                actions.push(Action::RmPrepare(r));
                actions.push(Action::RmChooseToAbort(r));
            }
            if s.msgs & COMMIT != 0 {
                actions.push(Action::RmRcvCommit(r));
            }
            if s.msgs & ABORT != 0 {
                actions.push(Action::RmRcvAbort(r));
            }
        }
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        let mut s = s.clone();
        match a {
            Action::TmRcvPrepared(i) => s.tm_prepared |= 1 << i,
            Action::TmCommit => {
                s.tm = 1;
                s.msgs |= COMMIT;
            }
            Action::TmAbort => {
                s.tm = 2;
                s.msgs |= ABORT;
            }
            Action::RmPrepare(i) => {
                s.rm[i as usize] = 1;
                s.msgs |= 1 << i;
            }
            Action::RmChooseToAbort(i) | Action::RmRcvAbort(i) => s.rm[i as usize] = 3,
            Action::RmRcvCommit(i) => s.rm[i as usize] = 2,
        }
        Some(s)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        // Holds, so stateright cannot stop early and explores everything.
        vec![Property::always("consistent", |_, s: &State| {
            !(s.rm.contains(&2) && s.rm.contains(&3))
        })]
    }
}
