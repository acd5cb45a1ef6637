//! Scope (ours; card §3.2, the permission-laundering rule of check 3): no
//! active record is wider in scope than a private ancestor, ancestry
//! transitive and recomputed here ([`super::ancestry`]), whatever state
//! the ancestor is in. A shared or public record derived, at any distance,
//! from a private one republishes it: the laundering the card describes.
//!
//! Tool actions are left out: their scope is not a writer's choice but
//! DESIGN.md's fixed reading (shared), and they carry the tool's name, not
//! their basis's value; what derives from a tool action is judged, through
//! it, against the tool action's own ancestors.
//!
//! Clause: `laundered`.

use super::ancestry::ancestors;
use super::fields::active;
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Kind, RecordId, RecordSet, Scope, StoreView};

pub fn check(store: StoreView<'_>) -> Option<Violation> {
    let mut private = RecordSet::EMPTY;
    for (id, r) in store.records().iter().enumerate() {
        if r.scope() == Scope::Private {
            private.insert(id as RecordId);
        }
    }
    if private.is_empty() {
        return None;
    }
    for (id, r) in store.records().iter().enumerate() {
        let id = id as RecordId;
        let wider = r.scope() != Scope::Private && r.kind() != Kind::ToolAction;
        if !wider || !active(r.state()) || r.derived_from().is_empty() {
            continue;
        }
        let sources = ancestors(store, id).intersection(private);
        if let Some(p) = sources.iter().next() {
            return Some(Violation::new(
                Invariant::Scope,
                "laundered",
                sources.union(RecordSet::single(id)),
                format!(
                    "{} r{id} is {} but derives from private r{p}",
                    r.state(),
                    r.scope().name()
                ),
            ));
        }
    }
    None
}
