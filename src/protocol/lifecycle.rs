//! The eight-state record lifecycle and exactly its allowed moves
//! (card §3.1, DESIGN.md "Protocol: readings").

use super::enumerated::enumerated;
use serde::{Deserialize, Serialize};
use std::fmt;

enumerated! {
    /// A record's lifecycle state.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Lifecycle {
        Raw = "raw",
        Tentative = "tentative",
        Validated = "validated",
        Committed = "committed",
        ActionSafe = "action_safe",
        Quarantined = "quarantined",
        Superseded = "superseded",
        Revoked = "revoked",
    }
}

/// A lifecycle move the state machine refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    pub from: Lifecycle,
    pub to: Lifecycle,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal lifecycle move {} -> {}", self.from, self.to)
    }
}

impl Lifecycle {
    /// "Active" means validated, committed or action_safe (DESIGN.md).
    pub fn is_active(self) -> bool {
        matches!(
            self,
            Lifecycle::Validated | Lifecycle::Committed | Lifecycle::ActionSafe
        )
    }

    /// Committed or action_safe: what reads at committed isolation see.
    pub fn is_committed_or_safe(self) -> bool {
        matches!(self, Lifecycle::Committed | Lifecycle::ActionSafe)
    }

    /// Whether `self -> to` is one of the allowed moves. Revoked is terminal.
    pub fn may_move_to(self, to: Lifecycle) -> bool {
        use Lifecycle::*;
        matches!(
            (self, to),
            (Raw, Tentative)
                | (Tentative, Validated | Quarantined | Revoked)
                | (Validated, Committed | Quarantined | Revoked)
                | (Committed, ActionSafe | Superseded | Quarantined | Revoked)
                | (ActionSafe, Superseded | Revoked)
                | (Quarantined, Tentative | Revoked)
                | (Superseded, Revoked)
        )
    }

    /// The move `self -> to`, or the error the caller sees.
    pub fn move_to(self, to: Lifecycle) -> Result<Lifecycle, IllegalMove> {
        if self.may_move_to(to) {
            Ok(to)
        } else {
            Err(IllegalMove { from: self, to })
        }
    }
}

impl fmt::Display for Lifecycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::Lifecycle::{self, *};

    impl Lifecycle {
        /// The states reachable from `self` by zero or more allowed moves.
        pub(crate) fn reachable(self) -> Vec<Lifecycle> {
            let mut seen = vec![self];
            let mut i = 0;
            while i < seen.len() {
                for to in Lifecycle::ALL {
                    if seen[i].may_move_to(to) && !seen.contains(&to) {
                        seen.push(to);
                    }
                }
                i += 1;
            }
            seen
        }
    }

    /// The allowed moves, written out once more as a table so that a change
    /// to `may_move_to` must be made twice to pass.
    const ALLOWED: [(Lifecycle, Lifecycle); 16] = [
        (Raw, Tentative),
        (Tentative, Validated),
        (Tentative, Quarantined),
        (Tentative, Revoked),
        (Validated, Committed),
        (Validated, Quarantined),
        (Validated, Revoked),
        (Committed, ActionSafe),
        (Committed, Superseded),
        (Committed, Quarantined),
        (Committed, Revoked),
        (ActionSafe, Superseded),
        (ActionSafe, Revoked),
        (Quarantined, Tentative),
        (Quarantined, Revoked),
        (Superseded, Revoked),
    ];

    #[test]
    fn every_allowed_move_is_allowed_and_every_other_refused() {
        let mut refused = 0;
        for from in Lifecycle::ALL {
            for to in Lifecycle::ALL {
                let allowed = ALLOWED.contains(&(from, to));
                assert_eq!(from.may_move_to(to), allowed, "{from} -> {to}");
                match from.move_to(to) {
                    Ok(s) => assert_eq!(s, to),
                    Err(e) => {
                        assert!(!allowed);
                        assert_eq!((e.from, e.to), (from, to));
                        refused += 1;
                    }
                }
            }
        }
        assert_eq!(refused, 64 - 16);
    }

    #[test]
    fn revoked_is_terminal_and_nothing_returns_to_raw() {
        for to in Lifecycle::ALL {
            assert!(!Revoked.may_move_to(to));
            assert!(!to.may_move_to(Raw));
        }
    }

    #[test]
    fn active_states() {
        let active: Vec<_> = Lifecycle::ALL
            .into_iter()
            .filter(|s| s.is_active())
            .collect();
        assert_eq!(active, vec![Validated, Committed, ActionSafe]);
    }
}
