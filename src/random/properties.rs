//! The model's own stateright properties, split the way a random walk uses
//! them: the "always" ones are the invariants (I1 through the model's
//! monitor bit, I2 and G3 read off the store), checked on every state; the
//! "sometimes" ones are the non-vacuity companions, each evaluated on a
//! walk's states until the walk reaches it.

use crate::invariants::Invariant;
use crate::model::{property_kind, MemtxModel, ModelState, PropertyKind};
use stateright::{Expectation, Model};

/// A state predicate, as stateright's properties hold them.
pub type Predicate = fn(&MemtxModel, &ModelState) -> bool;

/// The model's invariants and companions with their predicates, in the
/// model's order.
#[derive(Clone, Debug)]
pub struct Properties {
    pub invariants: Vec<(Invariant, Predicate)>,
    pub companions: Vec<(&'static str, Predicate)>,
}

impl Properties {
    pub fn of(model: &MemtxModel) -> Properties {
        let mut invariants = Vec::new();
        let mut companions = Vec::new();
        for p in model.properties() {
            match (p.expectation, property_kind(p.name)) {
                (Expectation::Always, Some(PropertyKind::Invariant(inv))) => {
                    invariants.push((inv, p.condition));
                }
                (Expectation::Sometimes, _) => companions.push((p.name, p.condition)),
                // Eventually-properties say nothing about one state; the
                // model has none.
                _ => {}
            }
        }
        Properties {
            invariants,
            companions,
        }
    }

    /// The predicate that holds while `invariant` does.
    pub fn invariant(&self, invariant: Invariant) -> Option<Predicate> {
        self.invariants
            .iter()
            .find(|(i, _)| *i == invariant)
            .map(|(_, p)| *p)
    }
}
