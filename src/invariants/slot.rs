//! One value per slot (ours; card §3.2, commit check 3's same-slot rules):
//! no two committed or action_safe records on the same entity and
//! attribute, with overlapping validity windows, hold different values.
//! Values in windows that do not overlap may both stand (card §3.2).
//!
//! Every kind that has a slot is read, views too: check 3 holds every
//! record but a tool action to the same-slot rules (its rivals are the
//! active records of every kind but tool_action, `protocol::conflict`),
//! so two views, or a view and a belief, holding different values for one
//! slot at one time are the same contradiction as two beliefs. Tool
//! actions are left out: they carry the tool's name, not a value of a
//! slot, and check 3 never judges them.
//!
//! The other direction, that a record is refused for a conflict only when
//! check 3's rules refuse it, is admission's (`conflict`, `order`).
//! Where the card's protocol itself lets two values stand (the first
//! rival decides), this property is violated: docs/findings.md.
//!
//! Clause: `two_values`.

use super::fields::{settled, windows_overlap};
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Kind, RecordId, RecordSet, StoreView};

pub fn check(store: StoreView<'_>) -> Option<Violation> {
    let records = store.records();
    let mut holders = RecordSet::EMPTY;
    for (id, r) in records.iter().enumerate() {
        if r.kind() != Kind::ToolAction && settled(r.state()) {
            holders.insert(id as RecordId);
        }
    }
    if holders.len() < 2 {
        return None;
    }
    for a in holders.iter() {
        let ra = &records[a as usize];
        for b in holders.iter().filter(|&b| b > a) {
            let rb = &records[b as usize];
            let clash = ra.entity() == rb.entity()
                && ra.attribute() == rb.attribute()
                && ra.value() != rb.value()
                && windows_overlap(ra.window(), rb.window());
            if clash {
                return Some(Violation::new(
                    Invariant::OneValuePerSlot,
                    "two_values",
                    [a, b].into_iter().collect::<RecordSet>(),
                    format!(
                        "{} r{a} and {} r{b} hold different values for one entity and attribute in overlapping windows",
                        ra.state(),
                        rb.state()
                    ),
                ));
            }
        }
    }
    None
}
