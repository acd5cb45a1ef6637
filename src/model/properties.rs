//! The model's properties, declared once. [`PROPERTIES`] is the one table
//! of them: each entry says what the property stands for (an invariant or
//! a non-vacuity companion), and so its name and whether it must hold
//! always or be reached sometimes, and carries its predicate on a state.
//! Everything that needs a property reads it here: stateright's
//! `Model::properties` (and through it the engine and the explorer's
//! checker), `check` (the kind of each verdict), `random` (which
//! predicates a walk evaluates) and the explorer's panels.
//!
//! Every invariant, the paper's I1, I2, G3 and our twelve, is read the same
//! way ([`crate::invariants::holds`]): no transition on the way broke it
//! (the monitor's bit, for the transition properties; for `refusals` also
//! a refused attempt, which the model makes a transition to the same store
//! when the refusal is misjudged) and the state does not. The companions
//! are those of [`crate::invariants::companions`], plus "an irreversible
//! call is blocked", which only the model can say.
//! A run may judge only some invariants (`--properties`, the context's
//! [`Selection`]): [`selected`] gives those and the companions that guard
//! them. Names are stable: reports, traces and tests refer to them.
//!
//! The predicates are generic over the model type they are handed, so that
//! a wrapper that delegates to [`MemtxModel`] (the explorer's) gets the
//! same table as stateright properties of its own type ([`table`]).

use super::action::Action;
use super::state::{MemtxModel, ModelState};
use crate::invariants::companions::Companion;
use crate::invariants::{self, Invariant, Selection};
use crate::protocol::{GateOutcome, Outcome};
use stateright::{Expectation, Model, Property};

/// What a property of the model stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyKind {
    Invariant(Invariant),
    Companion(Companion),
}

impl PropertyKind {
    /// `invariant` or `companion`, as reports spell it.
    pub fn label(self) -> &'static str {
        match self {
            PropertyKind::Invariant(_) => "invariant",
            PropertyKind::Companion(_) => "companion",
        }
    }

    /// The property's name, as reports, traces and stateright show it.
    pub fn name(self) -> &'static str {
        match self {
            PropertyKind::Invariant(i) => i.name(),
            PropertyKind::Companion(c) => c.name(),
        }
    }

    /// The invariant it is, or the one a companion guards.
    pub fn concerns(self) -> Invariant {
        match self {
            PropertyKind::Invariant(i) => i,
            PropertyKind::Companion(c) => c.guards(),
        }
    }

    /// An invariant must hold on every state; a companion must be reached
    /// on some state, which shows the invariants were exercised.
    pub fn expectation(self) -> Expectation {
        match self {
            PropertyKind::Invariant(_) => Expectation::Always,
            PropertyKind::Companion(_) => Expectation::Sometimes,
        }
    }
}

/// A predicate on one state of the model `M`: for an invariant, that it
/// holds there; for a companion, that it is reached there. `M` is
/// [`MemtxModel`] or a model that delegates to one.
pub type Predicate<M = MemtxModel> = fn(&M, &ModelState) -> bool;

/// One property of the model: what it stands for and its predicate.
pub struct ModelProperty<M = MemtxModel> {
    pub kind: PropertyKind,
    pub holds: Predicate<M>,
}

// By hand: a derive would ask `M: Clone`, which a fn pointer does not need.
impl<M> Clone for ModelProperty<M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M> Copy for ModelProperty<M> {}

impl<M> std::fmt::Debug for ModelProperty<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelProperty")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl<M> ModelProperty<M> {
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    pub fn expectation(&self) -> Expectation {
        self.kind.expectation()
    }

    /// The invariant this property is, if it is one.
    pub fn invariant(&self) -> Option<Invariant> {
        match self.kind {
            PropertyKind::Invariant(i) => Some(i),
            PropertyKind::Companion(_) => None,
        }
    }

    /// The invariant it is or guards.
    pub fn concerns(&self) -> Invariant {
        self.kind.concerns()
    }

    /// The same property as stateright holds it.
    pub fn stateright(&self) -> Property<M>
    where
        M: Model<State = ModelState>,
    {
        Property {
            expectation: self.expectation(),
            name: self.name(),
            condition: self.holds,
        }
    }
}

/// How many properties the model has.
pub const COUNT: usize = Invariant::ALL.len() + Companion::ALL.len();

/// What the property at `index` in the table stands for: the invariants
/// in [`Invariant::ALL`] order, then the companions in [`Companion::ALL`]
/// order.
const fn kind(index: usize) -> PropertyKind {
    if index < Invariant::ALL.len() {
        PropertyKind::Invariant(Invariant::ALL[index])
    } else {
        PropertyKind::Companion(Companion::ALL[index - Invariant::ALL.len()])
    }
}

/// The property at `P` in the table, its kind known when it is compiled.
struct At<const P: usize>;

impl<const P: usize> At<P> {
    const KIND: PropertyKind = kind(P);
}

/// The predicate of the property at `P`: each its own function, as a
/// stateright property's condition is a function pointer.
fn holds<M: AsRef<MemtxModel>, const P: usize>(m: &M, s: &ModelState) -> bool {
    let m = m.as_ref();
    let ctx = m.spec.context();
    match At::<P>::KIND {
        PropertyKind::Invariant(i) => invariants::holds(i, ctx, s.store.view(), &s.monitor),
        PropertyKind::Companion(Companion::IrreversibleBlocked) => blocked(m, s),
        PropertyKind::Companion(c) => c.holds(ctx, s.store.view(), &s.monitor),
    }
}

const fn at<M: AsRef<MemtxModel>, const P: usize>() -> ModelProperty<M> {
    ModelProperty {
        kind: kind(P),
        holds: holds::<M, P>,
    }
}

/// The table for a model type that delegates to [`MemtxModel`]: the
/// property at every index, in order.
pub const fn table<M: AsRef<MemtxModel>>() -> [ModelProperty<M>; COUNT] {
    [
        at::<M, 0>(),
        at::<M, 1>(),
        at::<M, 2>(),
        at::<M, 3>(),
        at::<M, 4>(),
        at::<M, 5>(),
        at::<M, 6>(),
        at::<M, 7>(),
        at::<M, 8>(),
        at::<M, 9>(),
        at::<M, 10>(),
        at::<M, 11>(),
        at::<M, 12>(),
        at::<M, 13>(),
        at::<M, 14>(),
        at::<M, 15>(),
        at::<M, 16>(),
        at::<M, 17>(),
        at::<M, 18>(),
        at::<M, 19>(),
        at::<M, 20>(),
        at::<M, 21>(),
        at::<M, 22>(),
        at::<M, 23>(),
        at::<M, 24>(),
        at::<M, 25>(),
        at::<M, 26>(),
        at::<M, 27>(),
        at::<M, 28>(),
        at::<M, 29>(),
        at::<M, 30>(),
        at::<M, 31>(),
    ]
}

/// Every property of [`MemtxModel`], in report order.
pub static PROPERTIES: [ModelProperty; COUNT] = table::<MemtxModel>();

/// The property with this name.
pub fn property(name: &str) -> Option<&'static ModelProperty> {
    PROPERTIES.iter().find(|p| p.name() == name)
}

/// The property that is `invariant` (every invariant is one; a test keeps
/// it so).
pub fn invariant_property(invariant: Invariant) -> &'static ModelProperty {
    PROPERTIES
        .iter()
        .find(|p| p.invariant() == Some(invariant))
        .expect("every invariant is a property of the model")
}

/// The properties a run with `selection` judges: the invariants it names
/// and the companions that guard them, in report order.
pub fn selected(selection: Selection) -> impl Iterator<Item = &'static ModelProperty> {
    PROPERTIES
        .iter()
        .filter(move |p| selection.contains(p.concerns()))
}

/// The invariants, in report order.
pub fn invariants() -> impl Iterator<Item = &'static ModelProperty> {
    PROPERTIES
        .iter()
        .filter(|p| matches!(p.kind, PropertyKind::Invariant(_)))
}

/// The companions, in report order.
pub fn companions() -> impl Iterator<Item = &'static ModelProperty> {
    PROPERTIES
        .iter()
        .filter(|p| matches!(p.kind, PropertyKind::Companion(_)))
}

/// "An irreversible call is blocked" is a transition, not a state: a
/// blocked call leaves the store as it was. It holds at a state where the
/// model offers an irreversible call that the gate refuses, which only the
/// model (knowing its actions) and the protocol (deciding) can say.
fn blocked(m: &MemtxModel, s: &ModelState) -> bool {
    let mut actions = Vec::new();
    m.actions(s, &mut actions);
    actions.iter().any(|a| match *a {
        Action::ToolCall { tool, .. } if m.spec.context().is_irreversible(tool) => matches!(
            m.step(s, a),
            Ok((_, Outcome::ToolCall(GateOutcome { allowed: false, .. })))
        ),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_map_back() {
        for p in &PROPERTIES {
            assert_eq!(property(p.name()).map(|q| q.kind), Some(p.kind));
        }
        assert_eq!(property("no such property").map(|p| p.kind), None);
    }

    #[test]
    fn every_invariant_and_companion_is_a_property_once() {
        for i in Invariant::ALL {
            assert_eq!(invariant_property(i).invariant(), Some(i));
            assert_eq!(invariant_property(i).expectation(), Expectation::Always);
        }
        for c in Companion::ALL {
            let p: Vec<_> = companions()
                .filter(|p| p.kind == PropertyKind::Companion(c))
                .collect();
            assert_eq!(p.len(), 1, "{}", c.name());
            assert_eq!(p[0].expectation(), Expectation::Sometimes);
        }
        assert_eq!(
            invariants().count() + companions().count(),
            PROPERTIES.len()
        );
    }

    #[test]
    fn stateright_sees_the_table_in_order() {
        let config = crate::config::ModelConfig::load(std::path::Path::new("models/default.json"))
            .expect("the default model loads");
        let props = MemtxModel::new(super::super::ModelSpec::from_config(&config)).properties();
        assert_eq!(props.len(), PROPERTIES.len());
        for (sr, p) in props.iter().zip(&PROPERTIES) {
            assert_eq!((sr.name, &sr.expectation), (p.name(), &p.expectation()));
        }
    }
}
