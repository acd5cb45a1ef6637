//! [`Monitor`]: what the model keeps beside the store so that the checkers
//! judge the protocol against the actions taken, not against what the
//! protocol wrote down about them (issue 9 item 4). It is updated by
//! [`Monitor::after`] from each accepted operation and the states before
//! and after it, and holds:
//!
//! - one bit per transition property (I1 and our transition properties),
//!   set by the first transition that breaks it and kept, so that a state
//!   property of the model can report it (`refusals` also by a refused
//!   attempt, [`Monitor::after_refusal`]);
//! - the retracted records and what their cascades had to cover: an
//!   abort retracts the records its transaction had staged that were not
//!   already revoked, a revoke its record (DESIGN.md "Abort retracts every
//!   record the transaction staged"), and each retraction covers the
//!   transitive descendants of what it retracts that exist at that moment
//!   (recomputed from `derived_from`; records created later are judged by
//!   commit, not by repair). I2 and log completeness read these, not the
//!   rollback log's root entries and horizons;
//! - the records a retraction moved to revoked from a state the lifecycle
//!   allows no quarantine from (I2: a view is revoked only where it could
//!   not be quarantined, card pitfall);
//! - the records a retraction *held back*: quarantined records whose move
//!   into quarantine a retraction made (not a commit check), for as long
//!   as they stay quarantined (`refusals`: a rebuild takes a view a
//!   cascade held back, never one a commit check quarantined);
//! - the records a retraction reached and left *unrepaired*: with the
//!   cascade in force, each record a retraction reached that it left
//!   neither quarantined nor revoked, until a later retraction repairs it
//!   (I2: a reached view found tentative again was held back and then
//!   restaged, unless it is here).
//!
//! None of it is read back from what the protocol wrote (a quarantine
//! reason, a log entry's flags): it is what the operations did to the
//! records' states. In a correct protocol every part is a function of
//! the store (its rollback log and its records say the same: a record is
//! held back exactly when it is quarantined without a commit check's
//! reason, and nothing is left unrepaired), so the monitor adds no state:
//! the model's codec, its fingerprint and the dumps' canonical text store
//! only where it departs from that.
//!
//! It is six words, inline and `Copy`: every state carries one.

use super::ancestry::Graph;
use super::context::Context;
use super::fields::where_state;
use super::invariant::Invariant;
use super::lifecycle::quarantine_allowed_from;
use crate::protocol::{
    Lifecycle, Mechanism, Op, Outcome, ProtocolError, RecordId, RecordSet, StoreView,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Monitor {
    /// One bit per transition property ([`Invariant::bit`]).
    pub(crate) breached: u16,
    /// Every record an abort or a revoke retracted.
    pub(crate) retracted: RecordSet,
    /// Every descendant of a retracted record that existed when it was
    /// retracted.
    pub(crate) covered: RecordSet,
    /// Records a retraction moved to revoked from a state that allows no
    /// quarantine.
    pub(crate) revoked_unquarantinable: RecordSet,
    /// Quarantined records whose move into quarantine a retraction made.
    pub(crate) held_back: RecordSet,
    /// Records a retraction reached and left neither quarantined nor
    /// revoked (tracked with the cascade in force).
    pub(crate) unrepaired: RecordSet,
}

impl Monitor {
    /// Whether some transition so far broke the transition property `inv`.
    pub fn breached(&self, inv: Invariant) -> bool {
        self.breached & inv.bit() != 0
    }

    /// Every record retracted so far, by the actions taken.
    pub fn retracted(&self) -> RecordSet {
        self.retracted
    }

    /// Every record a retraction's cascade had to repair: a descendant of
    /// a retracted record, existing when it was retracted.
    pub fn covered(&self) -> RecordSet {
        self.covered
    }

    /// Every record a retraction reached: the retracted records and what
    /// their cascades covered.
    pub fn reached(&self) -> RecordSet {
        self.retracted.union(self.covered)
    }

    /// Records a retraction revoked from a state that allows no
    /// quarantine.
    pub fn revoked_unquarantinable(&self) -> RecordSet {
        self.revoked_unquarantinable
    }

    /// Quarantined records a retraction held back: its cascade (or the
    /// retraction itself) moved them into quarantine, and they have not
    /// left it since. Every other quarantined record is one a commit
    /// check quarantined (card §3.2, §3.4).
    pub fn held_back(&self) -> RecordSet {
        self.held_back
    }

    /// Records a retraction reached and left neither quarantined nor
    /// revoked, the cascade being in force.
    pub fn unrepaired(&self) -> RecordSet {
        self.unrepaired
    }

    /// The monitor after the accepted operation `op` took `before` to
    /// `after`: the transition properties the context selects are judged
    /// on the transition, and the retraction it performs is recorded.
    pub fn after(
        &self,
        ctx: &Context,
        before: StoreView<'_>,
        op: &Op,
        outcome: &Outcome,
        after: StoreView<'_>,
    ) -> Monitor {
        let mut next = *self;
        next.breached |=
            super::transition_breaches(ctx, self.transition(before, op, outcome, after));
        let roots = retracted_by(before, op).filter(|roots| !roots.is_empty());
        if roots.is_some() || !self.held_back.is_empty() {
            next.held_back = held_back_after(self.held_back, before, after, roots.is_some());
        }
        let Some(roots) = roots else {
            return next;
        };
        let descendants = Graph::of(before).descendants_of_any(roots);
        next.retracted = next.retracted.union(roots);
        next.covered = next.covered.union(descendants);
        for (id, was) in before.records().iter().enumerate() {
            let now = after.record(id as RecordId).map(|r| r.state());
            if now == Some(Lifecycle::Revoked)
                && was.state() != Lifecycle::Revoked
                && !quarantine_allowed_from(was.state())
            {
                next.revoked_unquarantinable.insert(id as RecordId);
            }
        }
        if ctx.has(Mechanism::Cascade) {
            // Card §3.4: the retracted records end revoked, every
            // descendant revoked or held back; a record reached now and
            // repaired is no longer unrepaired, whatever an earlier
            // retraction left of it.
            for id in roots.union(descendants).iter() {
                let now = after.record(id).map(|r| r.state());
                if matches!(now, Some(Lifecycle::Quarantined | Lifecycle::Revoked)) {
                    next.unrepaired.remove(id);
                } else {
                    next.unrepaired.insert(id);
                }
            }
        }
        next
    }

    /// The monitor after an attempt the protocol refused with `error`:
    /// `None` when the refusal is the one the rules give (the attempt is
    /// no transition), otherwise this monitor with `refusals` breached,
    /// which the model makes a transition to the same store so that the
    /// engine reports it (docs/properties.md, "How attempts are counted").
    pub fn after_refusal(
        &self,
        ctx: &Context,
        before: StoreView<'_>,
        op: &Op,
        error: &ProtocolError,
    ) -> Option<Monitor> {
        let mut next = *self;
        next.judge_refusal(ctx, before, op, error)?;
        Some(next)
    }

    /// One refused step of a run judged whole ([`Monitor::judge`]'s
    /// counterpart): the violation of `refusals` it shows, if any, the
    /// monitor marking it.
    pub fn judge_refusal(
        &mut self,
        ctx: &Context,
        before: StoreView<'_>,
        op: &Op,
        error: &ProtocolError,
    ) -> Option<super::Violation> {
        let found = super::check_refusal(ctx, before, self, op, error)?;
        self.breached |= Invariant::Refusals.bit();
        Some(found)
    }

    /// One accepted step of a run judged whole: the monitor moves on past
    /// it, then every property is checked, the transition properties on
    /// the step and the state properties on the state it leads to.
    /// Replay and the property-based tests judge runs this way.
    pub fn judge(
        &mut self,
        ctx: &Context,
        before: StoreView<'_>,
        op: &Op,
        outcome: &Outcome,
        after: StoreView<'_>,
    ) -> Vec<super::Violation> {
        let mut found = super::check_transition(ctx, self.transition(before, op, outcome, after));
        *self = self.after(ctx, before, op, outcome, after);
        found.extend(super::check_state(ctx, after, self));
        found
    }

    /// The operation `op`, taken from a state this monitor belongs to, as
    /// the transition properties judge it.
    pub fn transition<'a>(
        &'a self,
        before: StoreView<'a>,
        op: &'a Op,
        outcome: &'a Outcome,
        after: StoreView<'a>,
    ) -> super::Transition<'a> {
        super::Transition {
            before,
            op,
            outcome,
            after,
            monitor: self,
        }
    }
}

/// The common case, nothing retracted or breached, is one word; any other
/// monitor writes its first four parts, and the unrepaired records when
/// there are any (never, in a correct protocol). The records held back
/// are a function of the store in a correct protocol, and the model's
/// state hashes only their departure from it (`model::ModelState`).
impl std::hash::Hash for Monitor {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        if *self == Monitor::default() {
            h.write_u64(0);
        } else {
            h.write_u64(u64::from(self.breached) | 1 << 63);
            h.write_u64(self.retracted.bits());
            h.write_u64(self.covered.bits());
            h.write_u64(self.revoked_unquarantinable.bits());
            if !self.unrepaired.is_empty() {
                h.write_u64(self.unrepaired.bits());
            }
        }
    }
}

/// The records held back after a step from `before` to `after` that
/// started with `held_back`: a record the step moved into quarantine
/// joins them when the step is a retraction and leaves them otherwise (a
/// commit check quarantined it); a record that left quarantine leaves
/// them.
fn held_back_after(
    mut held_back: RecordSet,
    before: StoreView<'_>,
    after: StoreView<'_>,
    retraction: bool,
) -> RecordSet {
    for (id, r) in after.records().iter().enumerate() {
        let id = id as RecordId;
        let was = before.record(id).map(|b| b.state());
        if r.state() != Lifecycle::Quarantined {
            held_back.remove(id);
        } else if was != Some(Lifecycle::Quarantined) {
            if retraction {
                held_back.insert(id);
            } else {
                held_back.remove(id);
            }
        }
    }
    held_back
}

/// The records `op` retracts, read from the store before it: an abort the
/// records its transaction staged that were not already revoked, a revoke
/// its record (DESIGN.md "Abort retracts every record the transaction
/// staged"); `None` for an operation that retracts nothing. The monitor
/// records these, and honest-outcome holds a retraction's reported roots
/// to them.
pub(super) fn retracted_by(before: StoreView<'_>, op: &Op) -> Option<RecordSet> {
    match *op {
        Op::Abort { tx } => Some(before.transaction(tx).map_or(RecordSet::EMPTY, |t| {
            t.staged()
                .difference(where_state(before, |s| s == Lifecycle::Revoked))
        })),
        Op::Revoke { record } => Some(RecordSet::single(record)),
        _ => None,
    }
}
