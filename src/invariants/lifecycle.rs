//! Lifecycle (ours, a transition property; card §3.1): every record's
//! state change across every transition is a move the card's lifecycle
//! allows. The table is written out here once more (DESIGN.md "Lifecycle
//! moves allowed"), not asked of the protocol's own state machine: a wrong
//! entry there must not pass because the checker read the same entry.
//!
//! One operation may change a record by more than one move: commit takes
//! a tentative record through validated to committed (and action_safe in
//! an external_action transaction) and may then supersede it, when a
//! candidate staged after it wins its slot; an executed call creates a
//! tool action committed. A change is therefore judged allowed when it is
//! a path of allowed moves of this shape: forward along the promotion
//! chain raw → tentative → validated → committed → action_safe (each step
//! an allowed move), then at most one more allowed move. Any other path
//! (through quarantined back to tentative, say) is no operation's and is
//! refused, so that a record that jumps from committed to tentative is
//! caught although quarantine and revalidation would connect the two. A
//! new record is judged as a change from raw.
//!
//! A record's parents are fixed when it is staged, but for one move: a
//! rebuild (card §3.4) narrows a held-back view's parents to its
//! surviving sources.
//!
//! Clauses (docs/properties.md): `move`, `birth` (a new record), `vanished`,
//! `provenance` and `rebuilt_from_survivors`, the last two read from the
//! records' `derived_from` and states before and after the step, and the
//! operation's name and record.

use super::fields::where_state;
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::Lifecycle::{self, *};
use crate::protocol::{Op, RecordId, RecordSet, StoreView};

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

const STATES: usize = Lifecycle::ALL.len();

/// Per state, the states one allowed move reaches, as a bit set by
/// `Lifecycle as u8` (the table above, folded at compile time).
const ONE_MOVE: [u8; STATES] = {
    let mut table = [0u8; STATES];
    let mut i = 0;
    while i < ALLOWED.len() {
        let (from, to) = ALLOWED[i];
        table[from as usize] |= 1 << to as u8;
        i += 1;
    }
    table
};

/// Per state, the states one operation may leave it in: a promotion along
/// the chain (possibly none), then at most one allowed move.
const ONE_OPERATION: [u8; STATES] = {
    let mut table = [0u8; STATES];
    let mut from = 0;
    while from < STATES {
        // The states a promotion reaches: `from` itself, and every later
        // link of the chain when `from` is on it.
        let mut promoted = 1u8 << from;
        let mut on_chain = false;
        let mut k = 0;
        while k < CHAIN.len() {
            if on_chain {
                promoted |= 1 << CHAIN[k] as u8;
            }
            if CHAIN[k] as usize == from {
                on_chain = true;
            }
            k += 1;
        }
        let mut reach = promoted;
        let mut via = 0;
        while via < STATES {
            if promoted & 1 << via != 0 {
                reach |= ONE_MOVE[via];
            }
            via += 1;
        }
        table[from] = reach & !(1 << from);
        from += 1;
    }
    table
};

/// Whether `from → to` is one allowed move of the table.
pub fn allowed_move(from: Lifecycle, to: Lifecycle) -> bool {
    ONE_MOVE[from as usize] & 1 << to as u8 != 0
}

/// Whether one operation may take a record from `from` to `to` (`from ≠
/// to`): a promotion along the chain, then at most one allowed move.
pub fn allowed_within_one_operation(from: Lifecycle, to: Lifecycle) -> bool {
    ONE_OPERATION[from as usize] & 1 << to as u8 != 0
}

/// Whether the lifecycle allows quarantine from `state` (cascade repair
/// revokes a view it may not quarantine, card pitfall).
pub fn quarantine_allowed_from(state: Lifecycle) -> bool {
    allowed_move(state, Quarantined)
}

pub fn check(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
    states(before, after).or_else(|| parents(before, op, after))
}

/// The clauses on states: `move`, `birth`, `vanished`.
fn states(before: StoreView<'_>, after: StoreView<'_>) -> Option<Violation> {
    let (was, now) = (before.records(), after.records());
    if now.len() < was.len() {
        let gone = RecordSet::below(was.len()).difference(RecordSet::below(now.len()));
        return Some(Violation::new(
            Invariant::Lifecycle,
            "vanished",
            gone,
            format!("{} records before the step, {} after", was.len(), now.len()),
        ));
    }
    for (id, (b, a)) in was.iter().zip(now).enumerate() {
        let (from, to) = (b.state(), a.state());
        if from != to && !allowed_within_one_operation(from, to) {
            return Some(Violation::new(
                Invariant::Lifecycle,
                "move",
                RecordSet::single(id as RecordId),
                format!("r{id} moved {from} -> {to}, which the lifecycle does not allow"),
            ));
        }
    }
    for (id, a) in now.iter().enumerate().skip(was.len()) {
        if !allowed_within_one_operation(Raw, a.state()) {
            return Some(Violation::new(
                Invariant::Lifecycle,
                "birth",
                RecordSet::single(id as RecordId),
                format!(
                    "r{id} was created {}, which no path from raw reaches",
                    a.state()
                ),
            ));
        }
    }
    None
}

/// The clauses on parents: `provenance`, `rebuilt_from_survivors`. Every
/// transition compares each record's parents (one word each); the
/// revoked set is computed only for the record a rebuild names.
fn parents(before: StoreView<'_>, op: &Op, after: StoreView<'_>) -> Option<Violation> {
    let rebuilt = match *op {
        Op::Rebuild { record, .. } => Some(record),
        _ => None,
    };
    for (id, (b, a)) in before.records().iter().zip(after.records()).enumerate() {
        let id = id as RecordId;
        let (was, now) = (b.derived_from(), a.derived_from());
        if rebuilt != Some(id) {
            if was != now {
                return Some(provenance(id, was, now, "only a rebuild changes parents"));
            }
            continue;
        }
        if !now.difference(was).is_empty() {
            return Some(provenance(id, was, now, "a rebuild added parents"));
        }
        let revoked = where_state(before, |s| s == Revoked);
        if now != was.difference(revoked) {
            return Some(Violation::new(
                Invariant::Lifecycle,
                "rebuilt_from_survivors",
                RecordSet::single(id),
                format!(
                    "r{id} was rebuilt from {:?}, but of its parents {:?} the revoked ones were {:?}",
                    now.iter().collect::<Vec<_>>(),
                    was.iter().collect::<Vec<_>>(),
                    was.intersection(revoked).iter().collect::<Vec<_>>()
                ),
            ));
        }
    }
    None
}

fn provenance(id: RecordId, was: RecordSet, now: RecordSet, why: &str) -> Violation {
    Violation::new(
        Invariant::Lifecycle,
        "provenance",
        RecordSet::single(id),
        format!(
            "r{id} derived from {:?} before the step and from {:?} after it: {why}",
            was.iter().collect::<Vec<_>>(),
            now.iter().collect::<Vec<_>>()
        ),
    )
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

    /// The folded tables read as the definitions say, state by state.
    #[test]
    fn the_folded_tables_are_the_definitions() {
        let chain = |s: Lifecycle| CHAIN.iter().position(|&c| c == s);
        for from in Lifecycle::ALL {
            for to in Lifecycle::ALL {
                assert_eq!(allowed_move(from, to), ALLOWED.contains(&(from, to)));
                let promotes = |via: Lifecycle| {
                    via == from || matches!((chain(from), chain(via)), (Some(f), Some(v)) if f < v)
                };
                let path = Lifecycle::ALL
                    .into_iter()
                    .any(|via| promotes(via) && (via == to || ALLOWED.contains(&(via, to))));
                assert_eq!(
                    allowed_within_one_operation(from, to),
                    path && from != to,
                    "{from} -> {to}"
                );
            }
        }
    }

    #[test]
    fn composite_moves_promote_then_move_at_most_once() {
        assert!(allowed_within_one_operation(Tentative, Committed));
        assert!(allowed_within_one_operation(Tentative, ActionSafe));
        assert!(
            allowed_within_one_operation(Raw, Committed),
            "a tool action's birth"
        );
        assert!(allowed_within_one_operation(Committed, Revoked));
        assert!(
            allowed_within_one_operation(Tentative, Superseded),
            "committed, then superseded by a later candidate of the same commit"
        );
        assert!(!allowed_within_one_operation(Superseded, Committed));
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
