//! Independent invariant checkers (card §3.5, DESIGN.md "Invariants").
//!
//! They read record fields only (lifecycle state, type, `derived_from`,
//! scope, the quarantine reason, the tool a tool_action called), the
//! transactions' tier and snapshot, and the rollback log, and they
//! recompute ancestry and descendant sets themselves ([`ancestry`]). The
//! protocol's revocation registry and dependency walks are private to
//! `crate::protocol`, so the compiler keeps these checkers from leaning on
//! them. The only thing they take from the configuration is which tools are
//! irreversible.
//!
//! - I1 ([`i1`]) is a transition property: (state before, operation, state
//!   after).
//! - I2 ([`i2`]) and G3 ([`g3`]) are state properties.
//! - [`companions`] are the "sometimes" properties that show the three are
//!   not vacuous.

pub mod ancestry;
pub mod companions;
pub mod fields;
pub mod g3;
pub mod i1;
pub mod i2;
pub mod lifecycle;
pub mod monitor;

pub use monitor::Monitor;

#[cfg(test)]
pub(crate) mod broken;
#[cfg(test)]
mod tests;

use crate::protocol::{Op, RecordSet, StoreView, Tool};
use serde::Serialize;
use std::fmt;

/// The three invariants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Invariant {
    I1,
    I2,
    G3,
}

impl Invariant {
    pub const ALL: [Invariant; 3] = [Invariant::I1, Invariant::I2, Invariant::G3];

    /// Its bit in a set of invariants (a [`Monitor`]'s breached bits).
    pub fn bit(self) -> u16 {
        1 << (self as u16)
    }

    pub fn name(self) -> &'static str {
        match self {
            Invariant::I1 => "I1",
            Invariant::I2 => "I2",
            Invariant::G3 => "G3",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Invariant::I1 => "action-safety gating",
            Invariant::I2 => "cascade-repair completeness",
            Invariant::G3 => "no active record with a revoked ancestor",
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One broken invariant: which, the records it names, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: Invariant,
    pub records: RecordSet,
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} violated: {}", self.invariant, self.detail)
    }
}

/// What the checkers take from the configuration: which tools are
/// irreversible, by tool index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    irreversible: Vec<bool>,
}

impl Context {
    pub fn new(tools: &[Tool]) -> Self {
        Context {
            irreversible: tools.iter().map(|t| t.irreversible).collect(),
        }
    }

    /// Unknown tools count as irreversible: the cautious reading.
    pub fn is_irreversible(&self, tool: u8) -> bool {
        self.irreversible
            .get(tool as usize)
            .copied()
            .unwrap_or(true)
    }

    pub fn irreversible_tools(&self) -> impl Iterator<Item = u8> + '_ {
        self.irreversible
            .iter()
            .enumerate()
            .filter(|(_, &irr)| irr)
            .map(|(t, _)| t as u8)
    }
}

/// The transition properties `op` breaks, as [`Invariant::bit`]s.
pub fn transition_breaches(
    ctx: &Context,
    before: StoreView<'_>,
    op: &Op,
    after: StoreView<'_>,
) -> u16 {
    let mut bits = 0;
    if i1::check(ctx, before, op, after).is_some() {
        bits |= Invariant::I1.bit();
    }
    bits
}

/// The transition properties on one accepted operation: I1.
pub fn check_transition(
    ctx: &Context,
    before: StoreView<'_>,
    op: &Op,
    after: StoreView<'_>,
) -> Vec<Violation> {
    i1::check(ctx, before, op, after).into_iter().collect()
}

/// I2 and G3 on one state, in that order; `monitor` is what the actions
/// that led there left.
pub fn check_state(ctx: &Context, store: StoreView<'_>, monitor: &Monitor) -> Vec<Violation> {
    let mut found = Vec::new();
    found.extend(i2::check(ctx, store, monitor));
    found.extend(g3::check(store));
    found
}
