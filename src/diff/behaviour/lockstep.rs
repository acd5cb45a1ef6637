//! The lockstep product of two models with one action alphabet, as a
//! `stateright::Model` of its own, so that the exact engine explores it:
//! a state is a pair of model states, an action is applied to both, and
//! the pair parts when the protocol answers the action differently on the
//! two sides (a different outcome, or an error on one side only, or two
//! different errors). A parted pair has no successor, and the one
//! property, "the two sides never part", is violated exactly there, so
//! the engine's shortest counterexample is the shortest action sequence
//! after which the two protocols' outcomes differ, found by a BFS over
//! pairs with the engine's exact levels and deterministic tie-break.

use crate::engine::StateCodec;
use crate::model::{Action, MemtxModel, ModelCodec, ModelState, StepRefusal};
use crate::protocol::{Outcome, ProtocolError};
use stateright::{Model, Property};

/// A pair of model states, side A and side B, and whether the action that
/// led here parted them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    pub a: ModelState,
    pub b: ModelState,
    pub parted: bool,
}

/// What one side's protocol said to an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Accepted, with this outcome; `next` is `None` when the successor
    /// lies beyond the model's record bound (a tool call that would
    /// create one record too many): the protocol's decision still counts.
    Accepted {
        outcome: Outcome,
        next: Option<ModelState>,
    },
    /// Refused with this error; the store is unchanged.
    Refused(ProtocolError),
    /// Not an action of this side in this state (an open that would give
    /// the transaction another id).
    NotOffered,
}

impl Answer {
    /// The protocol's response, without the successor: what is compared.
    fn response(&self) -> Result<&Outcome, Option<&ProtocolError>> {
        match self {
            Answer::Accepted { outcome, .. } => Ok(outcome),
            Answer::Refused(e) => Err(Some(e)),
            Answer::NotOffered => Err(None),
        }
    }
}

/// Runs `action` on one side.
pub fn answer(model: &MemtxModel, state: &ModelState, action: &Action) -> Answer {
    match model.step(state, action) {
        Ok((next, outcome)) => Answer::Accepted {
            outcome,
            next: Some(next),
        },
        Err(StepRefusal::Protocol(e)) => Answer::Refused(e),
        Err(StepRefusal::NotThisTransaction) => Answer::NotOffered,
        Err(StepRefusal::RecordBound) => {
            match model.spec.protocol().step(&state.store, &model.op(action)) {
                Ok((_, outcome)) => Answer::Accepted {
                    outcome,
                    next: None,
                },
                // The model refused past the protocol, so the protocol
                // accepted it; kept total all the same.
                Err(e) => Answer::Refused(e),
            }
        }
    }
}

/// Whether the two sides answer an action differently.
pub fn parts(a: &Answer, b: &Answer) -> bool {
    a.response() != b.response()
}

/// The product model; see the module docs.
pub struct Lockstep {
    pub a: MemtxModel,
    pub b: MemtxModel,
}

/// The name of the product's one property.
pub const SAME_OUTCOMES: &str = "same outcomes";

impl Model for Lockstep {
    type State = Pair;
    type Action = Action;

    fn init_states(&self) -> Vec<Pair> {
        vec![Pair {
            a: ModelState::default(),
            b: ModelState::default(),
            parted: false,
        }]
    }

    /// A's candidate actions in A's order, then B's that A does not
    /// offer, in B's order: an action one side does not even offer (a
    /// revoke of a record that side did not commit) is still asked of
    /// both, and the side's protocol refuses it.
    fn actions(&self, pair: &Pair, actions: &mut Vec<Action>) {
        if pair.parted {
            return;
        }
        self.a.actions(&pair.a, actions);
        let mut of_b = Vec::new();
        self.b.actions(&pair.b, &mut of_b);
        for action in of_b {
            if !actions.contains(&action) {
                actions.push(action);
            }
        }
    }

    fn next_state(&self, pair: &Pair, action: Action) -> Option<Pair> {
        let on_a = answer(&self.a, &pair.a, &action);
        let on_b = answer(&self.b, &pair.b, &action);
        if parts(&on_a, &on_b) {
            let keep = |answer: Answer, before: &ModelState| match answer {
                Answer::Accepted {
                    next: Some(next), ..
                } => next,
                _ => before.clone(),
            };
            return Some(Pair {
                a: keep(on_a, &pair.a),
                b: keep(on_b, &pair.b),
                parted: true,
            });
        }
        match (on_a, on_b) {
            (Answer::Accepted { next: Some(a), .. }, Answer::Accepted { next: Some(b), .. }) => {
                Some(Pair {
                    a,
                    b,
                    parted: false,
                })
            }
            // Refused alike, or beyond the bound on both sides.
            _ => None,
        }
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always(SAME_OUTCOMES, |_, pair: &Pair| {
            !pair.parted
        })]
    }
}

/// The pair held compactly in the engine's levels: the parted flag, A's
/// encoding's length (two bytes), A's encoding, B's.
pub struct PairCodec {
    pub a: ModelCodec,
    pub b: ModelCodec,
}

impl StateCodec<Pair> for PairCodec {
    fn encode(&self, pair: &Pair, out: &mut Vec<u8>) {
        out.push(u8::from(pair.parted));
        let at = out.len();
        out.extend_from_slice(&[0, 0]);
        self.a.encode(&pair.a, out);
        let len = out.len() - at - 2;
        let len = u16::try_from(len).expect("a packed store of at most 64 records fits 64 KiB");
        out[at..at + 2].copy_from_slice(&len.to_le_bytes());
        self.b.encode(&pair.b, out);
    }

    fn decode(&self, bytes: &[u8]) -> Pair {
        let len = usize::from(u16::from_le_bytes([bytes[1], bytes[2]]));
        Pair {
            parted: bytes[0] != 0,
            a: self.a.decode(&bytes[3..3 + len]),
            b: self.b.decode(&bytes[3 + len..]),
        }
    }
}
