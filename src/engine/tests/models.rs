//! Toy models shared by the engine tests and the stateright-mapping tests.

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
