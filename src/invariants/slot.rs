//! One value per slot (ours; card §3.2, commit check 3's same-slot rules):
//! no two committed or action_safe beliefs on the same entity and
//! attribute, with overlapping validity windows, hold different values.
//! Values in windows that do not overlap may both stand (card §3.2).
//!
//! Clause: `two_values`.

use super::fields::{settled, windows_overlap};
use super::invariant::Invariant;
use super::violation::Violation;
use crate::protocol::{Kind, RecordId, RecordSet, StoreView};

pub fn check(store: StoreView<'_>) -> Option<Violation> {
    let records = store.records();
    let mut beliefs = RecordSet::EMPTY;
    for (id, r) in records.iter().enumerate() {
        if r.kind() == Kind::Belief && settled(r.state()) {
            beliefs.insert(id as RecordId);
        }
    }
    if beliefs.len() < 2 {
        return None;
    }
    for a in beliefs.iter() {
        let ra = &records[a as usize];
        for b in beliefs.iter().filter(|&b| b > a) {
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
