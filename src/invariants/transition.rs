//! One accepted operation as the transition properties judge it.

use super::monitor::Monitor;
use crate::protocol::{Op, Outcome, StoreView};

/// One accepted operation as the transition properties judge it: the
/// store before and after, the operation, the outcome the protocol
/// reported, and the monitor of the state it left.
#[derive(Clone, Copy)]
pub struct Transition<'a> {
    pub before: StoreView<'a>,
    pub op: &'a Op,
    pub outcome: &'a Outcome,
    pub after: StoreView<'a>,
    /// What the actions before this one left (see [`Monitor`]).
    pub monitor: &'a Monitor,
}
