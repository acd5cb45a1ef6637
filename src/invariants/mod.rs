//! Independent invariant checkers (card §3.5, DESIGN.md "Invariants").
//!
//! They read record fields only (lifecycle state, type, `derived_from`,
//! scope, confidence and authority, the validity window, the quarantine
//! reason, the tool a tool_action called), the transactions' tier, status,
//! staging and snapshot, the rollback log, and what the model's
//! [`Monitor`] kept of the actions taken; they recompute ancestry and
//! descendant sets themselves ([`ancestry`]) and read fields their own way
//! ([`fields`], [`lifecycle`]'s table). The protocol's revocation registry
//! and dependency walks are private to `crate::protocol`, so the compiler
//! keeps these checkers from leaning on them. From the configuration they
//! take which tools are irreversible, the logical clock and whether the
//! stale-write check applies on an empty snapshot ([`Context`]).
//!
//! The paper's three, I1 ([`i1`], a transition property), I2 ([`i2`]) and
//! G3 ([`g3`]), stay the headline. Ours guard the mechanisms those three do
//! not name, one file each: [`evidence`], [`validity`], [`slot`] (one value
//! per slot), [`scope`], [`lifecycle`] (a transition property),
//! [`log`] (log completeness), [`stale`] (stale writes, a transition
//! property), [`hygiene`] (transaction hygiene, a state clause and a
//! transition clause) and [`snapshot`] (a transition property). Every
//! violation names the clause that failed ([`Invariant::clauses`]).
//! [`companions`] are the "sometimes" properties that show each was not
//! vacuous.

pub mod ancestry;
pub mod companions;
mod context;
pub mod evidence;
pub mod fields;
pub mod g3;
pub mod hygiene;
pub mod i1;
pub mod i2;
mod invariant;
pub mod lifecycle;
pub mod log;
pub mod monitor;
pub mod scope;
pub mod slot;
pub mod snapshot;
pub mod stale;
pub mod validity;

pub use context::Context;
pub use invariant::{Invariant, Selection, Timing};
pub use monitor::Monitor;
pub use violation::Violation;

#[cfg(test)]
pub(crate) mod broken;
#[cfg(test)]
mod tests;
mod violation;

use crate::protocol::{Op, StoreView};

/// `inv` on one accepted operation, if it is judged on transitions.
pub fn check_transition_of(
    inv: Invariant,
    ctx: &Context,
    before: StoreView<'_>,
    op: &Op,
    after: StoreView<'_>,
) -> Option<Violation> {
    match inv {
        Invariant::I1 => i1::check(ctx, before, op, after),
        Invariant::Lifecycle => lifecycle::check(before, after),
        Invariant::StaleWrite => stale::check(ctx, before, op, after),
        Invariant::TxHygiene => hygiene::check_commit(before, op, after),
        Invariant::Snapshot => snapshot::check(before, op, after),
        _ => None,
    }
}

/// `inv` on one state, if it is judged on states; `monitor` is what the
/// actions that led there left.
#[inline]
pub fn check_state_of(
    inv: Invariant,
    ctx: &Context,
    store: StoreView<'_>,
    monitor: &Monitor,
) -> Option<Violation> {
    match inv {
        Invariant::I2 => i2::check(ctx, store, monitor),
        Invariant::G3 => g3::check(store),
        Invariant::Evidence => evidence::check(store),
        Invariant::Validity => validity::check(ctx, store),
        Invariant::OneValuePerSlot => slot::check(store),
        Invariant::Scope => scope::check(store),
        Invariant::LogCompleteness => log::check(store, monitor),
        Invariant::TxHygiene => hygiene::check_state(store),
        _ => None,
    }
}

/// The selected transition properties `op` breaks, as [`Invariant::bit`]s.
/// Every transition asks, so only the properties an operation of its kind
/// can break are judged.
pub fn transition_breaches(
    ctx: &Context,
    before: StoreView<'_>,
    op: &Op,
    after: StoreView<'_>,
) -> u16 {
    let on = ctx.transition_selection();
    let mut bits = 0;
    if on.contains(Invariant::Lifecycle) && lifecycle::check(before, after).is_some() {
        bits |= Invariant::Lifecycle.bit();
    }
    if on.contains(Invariant::Snapshot) && snapshot::check(before, op, after).is_some() {
        bits |= Invariant::Snapshot.bit();
    }
    match op {
        Op::ToolCall { .. }
            if on.contains(Invariant::I1) && i1::check(ctx, before, op, after).is_some() =>
        {
            bits |= Invariant::I1.bit();
        }
        Op::Commit { .. } => {
            if on.contains(Invariant::StaleWrite) && stale::check(ctx, before, op, after).is_some()
            {
                bits |= Invariant::StaleWrite.bit();
            }
            if on.contains(Invariant::TxHygiene)
                && hygiene::check_commit(before, op, after).is_some()
            {
                bits |= Invariant::TxHygiene.bit();
            }
        }
        _ => {}
    }
    bits
}

/// Every selected transition property on one accepted operation, in
/// report order.
pub fn check_transition(
    ctx: &Context,
    before: StoreView<'_>,
    op: &Op,
    after: StoreView<'_>,
) -> Vec<Violation> {
    ctx.selection()
        .iter()
        .filter_map(|inv| check_transition_of(inv, ctx, before, op, after))
        .collect()
}

/// Every selected state property on one state, in report order.
pub fn check_state(ctx: &Context, store: StoreView<'_>, monitor: &Monitor) -> Vec<Violation> {
    ctx.selection()
        .iter()
        .filter_map(|inv| check_state_of(inv, ctx, store, monitor))
        .collect()
}

/// Whether `inv` holds at a state reached with `monitor`: no transition
/// on the way broke it, and the state does not.
#[inline]
pub fn holds(inv: Invariant, ctx: &Context, store: StoreView<'_>, monitor: &Monitor) -> bool {
    !monitor.breached(inv) && check_state_of(inv, ctx, store, monitor).is_none()
}
