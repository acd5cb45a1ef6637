//! Validity (ours; card §3.2, commit check 2): with a logical clock, no
//! committed or action_safe record has a validity window that excludes the
//! logical now. Windows are inclusive and an absent bound is open
//! ([`super::fields`]); the clock is the configuration's, through the
//! [`Context`]. Without a clock the check is off, as check 2 is.
//!
//! Clause: `outside_window`.

use super::context::Context;
use super::fields::{settled, window_holds_at};
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{RecordId, RecordSet, StoreView};

pub fn check(ctx: &Context, store: StoreView<'_>) -> Option<Violation> {
    let now = ctx.clock()?;
    for (id, r) in store.records().iter().enumerate() {
        if settled(r.state()) && !window_holds_at(r.window(), now) {
            let bound = |b: Option<i32>| b.map_or_else(|| "open".to_owned(), |t| t.to_string());
            return Some(Violation::new(
                Invariant::Validity,
                "outside_window",
                RecordSet::single(id as RecordId),
                format!(
                    "{} r{id} is valid from {} to {}, which excludes the logical now {now}",
                    r.state(),
                    bound(r.window().from),
                    bound(r.window().to)
                ),
            ));
        }
    }
    None
}
