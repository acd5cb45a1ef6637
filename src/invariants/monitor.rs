//! [`Monitor`]: what the model keeps beside the store so that the checkers
//! judge the protocol against the actions taken, not against what the
//! protocol wrote down about them (issue 9 item 4). It is updated by
//! [`Monitor::after`] from each accepted operation and the states before
//! and after it, and holds:
//!
//! - one bit per transition property (I1 and our transition properties),
//!   set by the first transition that breaks it and kept, so that a state
//!   property of the model can report it;
//! - the retracted roots and, for each, how many records existed when it
//!   was retracted: an abort retracts the records its transaction had
//!   staged that were not already revoked, a revoke its record (DESIGN.md
//!   "Abort retracts every record the transaction staged"). I2 and log
//!   completeness read these, not the rollback log's root flags;
//! - the records that moved to revoked from a state the lifecycle allows
//!   no quarantine from (I2: a view is revoked only where it could not be
//!   quarantined, card pitfall).
//!
//! In a correct protocol every part is a function of the store (its
//! rollback log says the same), so the monitor adds no state: the model's
//! codec stores only where it departs from the log.
//!
//! It is inline and `Copy`: every state carries one.

use super::lifecycle::quarantine_allowed_from;
use super::{Context, Invariant};
use crate::protocol::{Lifecycle, Op, RecordId, RecordSet, StoreView, MAX_RECORDS};

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Monitor {
    /// One bit per transition property ([`Invariant::bit`]).
    pub(crate) breached: u16,
    /// Every record an abort or a revoke retracted.
    pub(crate) retracted: RecordSet,
    /// Per retracted record, the record count when it was retracted; zero
    /// for every other record.
    pub(crate) horizon: [u8; MAX_RECORDS],
    /// Records moved to revoked from a state that allows no quarantine.
    pub(crate) revoked_unquarantinable: RecordSet,
}

impl Default for Monitor {
    fn default() -> Self {
        Monitor {
            breached: 0,
            retracted: RecordSet::EMPTY,
            horizon: [0; MAX_RECORDS],
            revoked_unquarantinable: RecordSet::EMPTY,
        }
    }
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

    /// How many records existed when `root` was retracted: its cascade
    /// covers exactly the descendants with smaller ids. Zero if it was not
    /// retracted.
    pub fn horizon(&self, root: RecordId) -> u8 {
        self.horizon.get(root as usize).copied().unwrap_or(0)
    }

    /// Records that were revoked from a state that allows no quarantine.
    pub fn revoked_unquarantinable(&self) -> RecordSet {
        self.revoked_unquarantinable
    }

    /// The monitor after the accepted operation `op` took `before` to
    /// `after`: the transition properties the context selects are judged
    /// on the transition, and the retraction it performs is recorded.
    pub fn after(
        &self,
        ctx: &Context,
        before: StoreView<'_>,
        op: &Op,
        after: StoreView<'_>,
    ) -> Monitor {
        let mut next = *self;
        next.breached |= super::transition_breaches(ctx, before, op, after);
        let roots = match *op {
            Op::Abort { tx } => before.transaction(tx).map_or(RecordSet::EMPTY, |t| {
                t.staged()
                    .difference(super::fields::where_state(before, |s| {
                        s == Lifecycle::Revoked
                    }))
            }),
            Op::Revoke { record } => RecordSet::single(record),
            _ => RecordSet::EMPTY,
        };
        let count = before.records().len() as u8;
        for root in roots.iter() {
            next.retracted.insert(root);
            next.horizon[root as usize] = count;
        }
        for (id, was) in before.records().iter().enumerate() {
            let now = after.record(id as RecordId).map(|r| r.state());
            if now == Some(Lifecycle::Revoked)
                && was.state() != Lifecycle::Revoked
                && !quarantine_allowed_from(was.state())
            {
                next.revoked_unquarantinable.insert(id as RecordId);
            }
        }
        next
    }
}

impl Monitor {
    /// One accepted step of a run judged whole: the monitor moves on past
    /// it, then every property is checked, the transition properties on
    /// the step and the state properties on the state it leads to.
    /// Replay and the property-based tests judge runs this way.
    pub fn judge(
        &mut self,
        ctx: &Context,
        before: StoreView<'_>,
        op: &Op,
        after: StoreView<'_>,
    ) -> Vec<super::Violation> {
        *self = self.after(ctx, before, op, after);
        let mut found = super::check_transition(ctx, before, op, after);
        found.extend(super::check_state(ctx, after, self));
        found
    }
}

/// Compact: only what is set (the array of horizons is mostly zeros).
impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let horizons: Vec<(RecordId, u8)> = self
            .retracted
            .iter()
            .map(|r| (r, self.horizon(r)))
            .collect();
        f.debug_struct("Monitor")
            .field("breached", &format_args!("{:#06x}", self.breached))
            .field("retracted", &horizons)
            .field("revoked_unquarantinable", &self.revoked_unquarantinable)
            .finish()
    }
}

/// Hashes what is set: the breached bits and the two sets in one word
/// each, then one word per retracted record's horizon (the others are
/// zero by construction).
impl std::hash::Hash for Monitor {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(u64::from(self.breached));
        h.write_u64(self.retracted.bits());
        h.write_u64(self.revoked_unquarantinable.bits());
        for r in self.retracted.iter() {
            h.write_u8(self.horizon[r as usize]);
        }
    }
}
