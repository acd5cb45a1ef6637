//! [`Invariant`]: every property the checkers judge, the paper's three
//! (I1, I2, G3, card §3.5) first and ours after them, each with a stable
//! name, a title, the clauses a violation names, and whether it is judged
//! on states, on transitions, or both; and [`Selection`], a set of them.

use crate::protocol::enumerated;
use serde::Serialize;
use std::fmt;

enumerated! {
    /// Every invariant. The paper's keep their names; ours are named for the
    /// mechanism they guard (DESIGN.md "Invariants").
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    pub enum Invariant {
        I1 = "I1",
        I2 = "I2",
        G3 = "G3",
        Evidence = "evidence",
        Validity = "validity",
        OneValuePerSlot = "one-value-per-slot",
        Scope = "scope",
        Lifecycle = "lifecycle",
        LogCompleteness = "log-completeness",
        StaleWrite = "stale-write",
        TxHygiene = "tx-hygiene",
        Snapshot = "snapshot",
        Admission = "admission",
        HonestOutcome = "honest-outcome",
        Refusals = "refusals",
    }
}

/// Where an invariant is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// On every state.
    State,
    /// On every transition: (state before, operation, state after).
    Transition,
    /// A clause of each.
    Both,
}

impl Invariant {
    /// Its bit in a set of invariants ([`Selection`], a monitor's breached
    /// bits).
    pub fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// The invariant called `name`.
    pub fn named(name: &str) -> Option<Invariant> {
        Invariant::ALL.into_iter().find(|i| i.name() == name)
    }

    pub fn title(self) -> &'static str {
        match self {
            Invariant::I1 => "action-safety gating",
            Invariant::I2 => "cascade-repair completeness",
            Invariant::G3 => "no active record with a revoked ancestor",
            Invariant::Evidence => "nothing settled on weak evidence",
            Invariant::Validity => "nothing settled outside its window",
            Invariant::OneValuePerSlot => "one settled value per slot and time",
            Invariant::Scope => "nothing active wider than a private ancestor",
            Invariant::Lifecycle => "every state change an allowed move",
            Invariant::LogCompleteness => "every retraction in the rollback log",
            Invariant::StaleWrite => "no stale late write wins",
            Invariant::TxHygiene => "transactions leave nothing half-done",
            Invariant::Snapshot => "each snapshot is what its tier saw at open",
            Invariant::Admission => "every commit verdict the four checks decide",
            Invariant::HonestOutcome => "every outcome reports what happened",
            Invariant::Refusals => "refused exactly when a refusal rule applies",
        }
    }

    /// The clauses a violation of it names, in the order they are checked.
    pub fn clauses(self) -> &'static [&'static str] {
        match self {
            Invariant::I1 => &["in_flight", "unsupported", "blocked"],
            Invariant::I2 => &["belief", "view", "tool_action", "log", "unreached"],
            Invariant::G3 => &["revoked_ancestor"],
            Invariant::Evidence => &["low_evidence"],
            Invariant::Validity => &["outside_window"],
            Invariant::OneValuePerSlot => &["two_values"],
            Invariant::Scope => &["laundered"],
            Invariant::Lifecycle => &[
                "move",
                "birth",
                "vanished",
                "provenance",
                "rebuilt_from_survivors",
            ],
            Invariant::LogCompleteness => &[
                "root_entry",
                "tool_action_entry",
                "repair_entry",
                "stray_entry",
            ],
            Invariant::StaleWrite => &["stale_win"],
            Invariant::TxHygiene => &[
                "orphan_tentative",
                "not_action_safe",
                "unearned_action_safe",
            ],
            Invariant::Snapshot => &["at_open", "changed"],
            Invariant::Admission => &[
                "evidence",
                "validity",
                "conflict",
                "dependency",
                "order",
                "committed",
                "supersede",
                "rival_kept",
            ],
            Invariant::HonestOutcome => &[
                "verdict",
                "status",
                "repair",
                "gate",
                "report",
                "unreported",
            ],
            Invariant::Refusals => &["admitted", "refused", "named"],
        }
    }

    /// The clause of this invariant called `name`, as the static string
    /// violations carry.
    pub fn clause(self, name: &str) -> Option<&'static str> {
        self.clauses().iter().copied().find(|c| *c == name)
    }

    pub fn timing(self) -> Timing {
        match self {
            Invariant::I1
            | Invariant::Lifecycle
            | Invariant::StaleWrite
            | Invariant::Snapshot
            | Invariant::Admission
            | Invariant::HonestOutcome
            | Invariant::Refusals => Timing::Transition,
            Invariant::TxHygiene => Timing::Both,
            _ => Timing::State,
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of invariants: which a run judges (`--properties`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Selection(u16);

impl Default for Selection {
    fn default() -> Self {
        Selection::ALL
    }
}

impl Selection {
    pub const ALL: Selection = Selection((1 << Invariant::ALL.len()) - 1);

    /// The invariants listed.
    pub fn of(invariants: &[Invariant]) -> Selection {
        Selection(invariants.iter().fold(0, |bits, i| bits | i.bit()))
    }

    /// Those of the set judged on transitions (wholly or in part).
    pub fn on_transitions(self) -> Selection {
        let mut bits = 0;
        for inv in Invariant::ALL {
            if inv.timing() != Timing::State {
                bits |= inv.bit();
            }
        }
        Selection(self.0 & bits)
    }

    pub fn contains(self, inv: Invariant) -> bool {
        self.0 & inv.bit() != 0
    }

    pub fn bits(self) -> u16 {
        self.0
    }

    pub fn iter(self) -> impl Iterator<Item = Invariant> {
        Invariant::ALL
            .into_iter()
            .filter(move |i| self.contains(*i))
    }

    /// A comma-separated list of names (`I1,G3,scope`); an unknown or
    /// repeated name, or an empty list, is the error's text.
    pub fn parse(list: &str) -> Result<Selection, String> {
        let mut bits = 0;
        for name in list.split(',').map(str::trim) {
            let inv = Invariant::named(name).ok_or_else(|| {
                let known: Vec<_> = Invariant::ALL.iter().map(|i| i.name()).collect();
                format!("\"{name}\" is not a property (one of {})", known.join(", "))
            })?;
            if bits & inv.bit() != 0 {
                return Err(format!("\"{name}\" is listed twice"));
            }
            bits |= inv.bit();
        }
        Ok(Selection(bits))
    }

    /// The names, comma-separated, in report order.
    pub fn names(self) -> String {
        self.iter().map(|i| i.name()).collect::<Vec<_>>().join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_clauses_and_bits_are_distinct() {
        let mut bits = 0;
        for inv in Invariant::ALL {
            assert_eq!(Invariant::named(inv.name()), Some(inv));
            assert_eq!(bits & inv.bit(), 0);
            bits |= inv.bit();
            assert!(!inv.clauses().is_empty());
            for c in inv.clauses() {
                assert_eq!(inv.clause(c), Some(*c));
            }
        }
        assert_eq!(Selection::ALL.iter().count(), Invariant::ALL.len());
    }

    #[test]
    fn a_selection_parses_known_names_once_each() {
        let s = Selection::parse("G3, I1,scope").unwrap();
        assert_eq!(s.names(), "I1,G3,scope");
        assert!(Selection::parse("I1,I9")
            .unwrap_err()
            .contains("\"I9\" is not a property"));
        assert!(Selection::parse("I1,I1").unwrap_err().contains("twice"));
        assert!(Selection::parse("").is_err());
    }
}
