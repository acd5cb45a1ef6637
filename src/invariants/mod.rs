//! Independent invariant checkers (card §3.5, DESIGN.md "Invariants").
//!
//! They read record fields only (lifecycle state, type, `derived_from`,
//! scope, confidence and authority, the validity window, the tool a
//! tool_action called), the transactions' tier, status, staging and
//! snapshot, and what the model's [`Monitor`] kept of the actions taken;
//! a mark the protocol wrote (a quarantine reason, the rollback log, an
//! operation's outcome) only where it is what they judge (admission the
//! reason a quarantine gives, honest-outcome an outcome against the
//! store, log completeness the log), never to decide what to expect of
//! something else; the one exception is a commit's report of what each
//! verdict did (its result, the rivals it superseded), which
//! honest-outcome holds to the store and admission and stale-write read
//! (docs/properties.md, "Both directions"). They recompute ancestry and
//! descendant sets themselves ([`ancestry`]) and read fields their own way
//! ([`fields`], [`lifecycle`]'s table). The protocol's revocation registry
//! and dependency walks are private to `crate::protocol`, so the compiler
//! keeps these checkers from leaning on them. From the configuration they
//! take which tools are irreversible, the logical clock and whether the
//! stale-write check applies on an empty snapshot ([`Context`]).
//!
//! The paper's three, I1 ([`i1`], a transition property), I2 ([`i2`]) and
//! G3 ([`g3`]), stay the headline. Ours guard the mechanisms those three do
//! not name, one file each (the table of docs/properties.md); `refusals`
//! is also judged on refused attempts ([`check_refusal`]). Every
//! violation names the clause that failed ([`Invariant::clauses`]).
//! [`companions`] are the "sometimes" properties that show each was not
//! vacuous.

pub mod admission;
pub mod ancestry;
pub mod companions;
mod context;
pub mod evidence;
pub mod fields;
pub mod g3;
pub mod honest_outcome;
pub mod hygiene;
pub mod i1;
pub mod i2;
mod invariant;
pub mod lifecycle;
pub mod log;
pub mod monitor;
pub mod refusals;
pub mod scope;
pub mod slot;
pub mod snapshot;
pub mod stale;
mod transition;
pub mod validity;

pub use context::Context;
pub use invariant::{Invariant, Selection, Timing};
pub use monitor::Monitor;
pub use transition::Transition;
pub use violation::Violation;

#[cfg(test)]
pub(crate) mod broken;
#[cfg(test)]
mod tests;
mod violation;

use crate::protocol::{Op, ProtocolError, StoreView};

/// `inv` on one accepted operation, if it is judged on transitions.
pub fn check_transition_of(inv: Invariant, ctx: &Context, t: Transition<'_>) -> Option<Violation> {
    let Transition {
        before,
        op,
        after,
        monitor,
        ..
    } = t;
    let found = match inv {
        Invariant::I1 => i1::check(ctx, t),
        Invariant::Lifecycle => lifecycle::check(before, op, after),
        Invariant::StaleWrite => stale::check(ctx, t),
        Invariant::TxHygiene => hygiene::check_transition(before, op, after),
        Invariant::Snapshot => snapshot::check(before, op, after),
        Invariant::Admission => admission::check(ctx, t),
        Invariant::HonestOutcome => honest_outcome::check(ctx, t),
        Invariant::Refusals => refusals::check_admitted(ctx, before, monitor, op),
        _ => None,
    };
    #[cfg(test)]
    let found = found.filter(|v| !ctx.mutes(v));
    found
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
    let found = match inv {
        Invariant::I2 => i2::check(ctx, store, monitor),
        Invariant::G3 => g3::check(store),
        Invariant::Evidence => evidence::check(store),
        Invariant::Validity => validity::check(ctx, store),
        Invariant::OneValuePerSlot => slot::check(store),
        Invariant::Scope => scope::check(store),
        Invariant::LogCompleteness => log::check(store, monitor),
        Invariant::TxHygiene => hygiene::check_state(store),
        _ => None,
    };
    #[cfg(test)]
    let found = found.filter(|v| !ctx.mutes(v));
    found
}

/// The selected transition properties `t` breaks, as [`Invariant::bit`]s.
/// Every transition asks, so only the properties an operation of its kind
/// can break are judged.
pub fn transition_breaches(ctx: &Context, t: Transition<'_>) -> u16 {
    let on = ctx.transition_selection();
    let mut bits = 0;
    let mut judge = |inv: Invariant| {
        if on.contains(inv) && check_transition_of(inv, ctx, t).is_some() {
            bits |= inv.bit();
        }
    };
    judge(Invariant::Lifecycle);
    judge(Invariant::Snapshot);
    judge(Invariant::HonestOutcome);
    judge(Invariant::Refusals);
    // Any operation could make a record action_safe.
    judge(Invariant::TxHygiene);
    match t.op {
        Op::ToolCall { .. } => judge(Invariant::I1),
        Op::Commit { .. } => {
            judge(Invariant::StaleWrite);
            judge(Invariant::Admission);
        }
        _ => {}
    }
    bits
}

/// `refusals` on one attempt the protocol refused with `error`, from a
/// state reached with `monitor`, if the run judges it: the refusal's violation when no rule refuses `op` on
/// `before`, or the first that does is another ([`refusals`]).
pub fn check_refusal(
    ctx: &Context,
    before: StoreView<'_>,
    monitor: &Monitor,
    op: &Op,
    error: &ProtocolError,
) -> Option<Violation> {
    if !ctx.transition_selection().contains(Invariant::Refusals) {
        return None;
    }
    let found = refusals::check_refused(ctx, before, monitor, op, error);
    #[cfg(test)]
    let found = found.filter(|v| !ctx.mutes(v));
    found
}

/// Every selected transition property on one accepted operation, in
/// report order.
pub fn check_transition(ctx: &Context, t: Transition<'_>) -> Vec<Violation> {
    ctx.selection()
        .iter()
        .filter_map(|inv| check_transition_of(inv, ctx, t))
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
