//! [`Context`]: what the checkers take from the configuration, as the
//! protocol's own tables are closed to them: which tools are irreversible,
//! the logical clock, whether the stale-write check applies on an empty
//! snapshot (the variant switch, card "Paper vs code"), and which
//! invariants a run judges.

#[cfg(test)]
use super::invariant::Invariant;
use super::invariant::Selection;
#[cfg(test)]
use super::violation::Violation;
use crate::protocol::{Mechanism, StaleCheckEmptySnapshot, Tool, Variant};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    irreversible: Vec<bool>,
    clock: Option<i32>,
    variant: Variant,
    selection: Selection,
    /// The selected ones judged on transitions, kept: every transition asks.
    on_transitions: Selection,
    /// Clauses switched off, to show what they alone catch (test builds
    /// only: `check::faults`).
    #[cfg(test)]
    muted: Vec<(Invariant, &'static str)>,
}

impl Context {
    pub fn new(tools: &[Tool], clock: Option<i32>, variant: &Variant) -> Self {
        Context {
            irreversible: tools.iter().map(|t| t.irreversible).collect(),
            clock,
            variant: *variant,
            selection: Selection::ALL,
            on_transitions: Selection::ALL.on_transitions(),
            #[cfg(test)]
            muted: Vec::new(),
        }
    }

    /// Unknown tools count as irreversible: the cautious reading.
    pub fn is_irreversible(&self, tool: u8) -> bool {
        self.irreversible
            .get(tool as usize)
            .copied()
            .unwrap_or(true)
    }

    /// How many tools the protocol knows.
    pub fn tools(&self) -> usize {
        self.irreversible.len()
    }

    pub fn irreversible_tools(&self) -> impl Iterator<Item = u8> + '_ {
        self.irreversible
            .iter()
            .enumerate()
            .filter(|(_, &irr)| irr)
            .map(|(t, _)| t as u8)
    }

    /// The logical now of the validity check; `None`: no clock.
    pub fn clock(&self) -> Option<i32> {
        self.clock
    }

    /// Whether a stale late write is refused even when the committing
    /// transaction's snapshot is empty (the paper's reading); otherwise
    /// only when it is not (the code's).
    pub fn stale_check_always(&self) -> bool {
        self.variant.stale_check_empty_snapshot == StaleCheckEmptySnapshot::Apply
    }

    /// The variant the protocol runs: its switches and the mechanisms
    /// in force are what the commit checks are, for [`super::admission`].
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Whether the variant keeps `mechanism` in force.
    pub fn has(&self, mechanism: Mechanism) -> bool {
        self.variant.has(mechanism)
    }

    /// The invariants judged.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// The selected invariants judged on transitions.
    pub fn transition_selection(&self) -> Selection {
        self.on_transitions
    }

    /// Judges only the invariants of `selection`.
    pub fn select(&mut self, selection: Selection) {
        self.selection = selection;
        self.on_transitions = selection.on_transitions();
    }

    /// Switches off `clause` of `inv` (beside any switched off before): a
    /// violation it names counts as none (a weakened checker, for the tests
    /// that show each clause catches a fault no other clause or property
    /// catches).
    #[cfg(test)]
    pub(crate) fn mute(&mut self, inv: Invariant, clause: &'static str) {
        self.muted.push((inv, clause));
    }

    /// Whether `v` names the muted clause.
    #[cfg(test)]
    pub(crate) fn mutes(&self, v: &Violation) -> bool {
        self.muted.contains(&(v.invariant, v.clause))
    }
}
