//! The card's record lifecycle written out once more, here, as the table
//! the checkers judge moves against (card §3.1, DESIGN.md "Lifecycle
//! moves allowed"). It deliberately does not ask the protocol's own
//! state machine: a wrong entry there must not pass because the checker
//! read the same entry.

use crate::protocol::Lifecycle::{self, *};

/// Every allowed single move (card §3.1; revalidation is quarantined →
/// tentative). Revoked is terminal.
pub const ALLOWED: [(Lifecycle, Lifecycle); 16] = [
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

/// The promotion chain a record walks forward within one operation:
/// staging (raw → tentative), commit (tentative → validated → committed,
/// → action_safe in an external_action transaction, card §3.2) and an
/// executed tool call (a tool_action is created committed, DESIGN.md).
const CHAIN: [Lifecycle; 5] = [Raw, Tentative, Validated, Committed, ActionSafe];

/// Whether `from → to` is one allowed move of the table.
pub fn allowed_move(from: Lifecycle, to: Lifecycle) -> bool {
    ALLOWED.contains(&(from, to))
}

fn chain_position(state: Lifecycle) -> Option<usize> {
    CHAIN.iter().position(|&s| s == state)
}

/// Whether one operation may take a record from `from` to `to` (`from ≠
/// to`): one allowed move, or a composite move forward along the
/// promotion chain, which is a path of allowed moves each of whose steps
/// the protocol takes inside a single operation. Any other composite (a
/// record quarantined and revalidated, superseded and revoked, in one
/// operation) is no operation's and is refused.
pub fn allowed_within_one_operation(from: Lifecycle, to: Lifecycle) -> bool {
    allowed_move(from, to)
        || matches!((chain_position(from), chain_position(to)), (Some(f), Some(t)) if f < t)
}

/// Whether the lifecycle allows quarantine from `state` (cascade repair
/// revokes a view it may not quarantine, card pitfall).
pub fn quarantine_allowed_from(state: Lifecycle) -> bool {
    allowed_move(state, Quarantined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_the_protocols_state_machine() {
        // Two tables written apart; they must say the same today.
        for from in Lifecycle::ALL {
            for to in Lifecycle::ALL {
                assert_eq!(
                    allowed_move(from, to),
                    from.may_move_to(to),
                    "{from} -> {to}"
                );
            }
        }
    }

    #[test]
    fn composite_moves_run_forward_along_the_promotion_chain_only() {
        assert!(allowed_within_one_operation(Tentative, Committed));
        assert!(allowed_within_one_operation(Tentative, ActionSafe));
        assert!(
            allowed_within_one_operation(Raw, Committed),
            "a tool action's birth"
        );
        assert!(allowed_within_one_operation(Committed, Revoked));
        assert!(
            !allowed_within_one_operation(Committed, Tentative),
            "via quarantined"
        );
        assert!(!allowed_within_one_operation(ActionSafe, Committed));
        assert!(!allowed_within_one_operation(ActionSafe, Quarantined));
        assert!(!allowed_within_one_operation(Quarantined, Committed));
        assert!(!allowed_within_one_operation(Revoked, Tentative));
    }
}
