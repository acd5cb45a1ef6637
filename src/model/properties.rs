//! The model's stateright properties: I1 (through the monitor bit), I2 and
//! G3 as "always", and the non-vacuity companions as "sometimes". Names
//! are stable: reports, traces and tests refer to them.

use super::{Action, MemtxModel, ModelState};
use crate::invariants::companions::Companion;
use crate::invariants::{g3, i2, Invariant};
use crate::protocol::{GateOutcome, Outcome};
use stateright::Model;
use stateright::Property;

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
}

/// The property with this name.
pub fn property_kind(name: &str) -> Option<PropertyKind> {
    Invariant::ALL
        .into_iter()
        .find(|i| i.name() == name)
        .map(PropertyKind::Invariant)
        .or_else(|| {
            Companion::ALL
                .into_iter()
                .find(|c| c.name() == name)
                .map(PropertyKind::Companion)
        })
}

fn i1_holds(_: &MemtxModel, s: &ModelState) -> bool {
    !s.i1_breached
}
fn i2_holds(m: &MemtxModel, s: &ModelState) -> bool {
    i2::check(m.spec.context(), s.store.view()).is_none()
}
fn g3_holds(_: &MemtxModel, s: &ModelState) -> bool {
    g3::check(s.store.view()).is_none()
}

macro_rules! companion {
    ($fn:ident, $c:expr) => {
        fn $fn(m: &MemtxModel, s: &ModelState) -> bool {
            $c.holds(m.spec.context(), s.store.view())
        }
    };
}
companion!(executed, Companion::IrreversibleExecuted);

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
companion!(cascade_revokes, Companion::CascadeRevokedDescendant);
companion!(view_quarantined, Companion::ViewQuarantined);
companion!(leak_logged, Companion::LeakLogged);
companion!(superseded, Companion::Superseded);
companion!(user_review, Companion::UserReview);

/// A state predicate, as stateright's properties take them.
type Predicate = fn(&MemtxModel, &ModelState) -> bool;

pub fn all() -> Vec<Property<MemtxModel>> {
    let companions: [(Companion, Predicate); 7] = [
        (Companion::IrreversibleExecuted, executed),
        (Companion::IrreversibleBlocked, blocked),
        (Companion::CascadeRevokedDescendant, cascade_revokes),
        (Companion::ViewQuarantined, view_quarantined),
        (Companion::LeakLogged, leak_logged),
        (Companion::Superseded, superseded),
        (Companion::UserReview, user_review),
    ];
    let mut props = vec![
        Property::always("I1", i1_holds),
        Property::always("I2", i2_holds),
        Property::always("G3", g3_holds),
    ];
    props.extend(
        companions
            .into_iter()
            .map(|(c, f)| Property::sometimes(c.name(), f)),
    );
    props
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_property_name_maps_back() {
        for p in all() {
            assert!(property_kind(p.name).is_some(), "{}", p.name);
        }
        assert_eq!(all().len(), 10);
    }
}
