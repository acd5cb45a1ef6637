//! How the checkers read record fields: which states count as settled or
//! active, a view, a record's effective authority, and inclusive windows.
//! Written here from the card and DESIGN.md rather than asked of the
//! protocol's own methods, so that a wrong reading there is not repeated
//! by the checker that should catch it.

use crate::protocol::{Kind, Lifecycle, Record, RecordId, RecordSet, StoreView, Window};

/// Confidence check 1 asks for, in hundredths, inclusive (card §3.2).
pub const EVIDENCE_THRESHOLD: u8 = 60;
/// Authority at which check 1 waives confidence, inclusive (card §3.2).
pub const AUTHORITY_BYPASS: u8 = 90;
/// The authority of a record without a source (card pitfalls).
pub const MISSING_SOURCE_AUTHORITY: u8 = 50;

/// Committed or action_safe: what a committed read sees.
pub fn settled(state: Lifecycle) -> bool {
    matches!(state, Lifecycle::Committed | Lifecycle::ActionSafe)
}

/// Validated, committed or action_safe (DESIGN.md "Active").
pub fn active(state: Lifecycle) -> bool {
    matches!(
        state,
        Lifecycle::Validated | Lifecycle::Committed | Lifecycle::ActionSafe
    )
}

/// Summaries, profiles, index entries and shared copies (card §3.4).
pub fn is_view(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Summary | Kind::Profile | Kind::IndexEntry | Kind::SharedCopy
    )
}

/// The record's source authority, or 0.5 without a source, in hundredths.
pub fn effective_authority(record: &Record) -> u8 {
    match record.source() {
        Some(_) => record.authority().0,
        None => MISSING_SOURCE_AUTHORITY,
    }
}

/// Whether the inclusive window holds at `now`; an absent bound is open.
pub fn window_holds_at(window: Window, now: i32) -> bool {
    window.from.is_none_or(|from| from <= now) && window.to.is_none_or(|to| now <= to)
}

/// Whether two inclusive windows share an instant.
pub fn windows_overlap(a: Window, b: Window) -> bool {
    let starts_after_end =
        |x: Window, y: Window| matches!((x.from, y.to), (Some(f), Some(t)) if f > t);
    !starts_after_end(a, b) && !starts_after_end(b, a)
}

/// The ids of the records whose state satisfies `pred`.
pub fn where_state(store: StoreView<'_>, pred: impl Fn(Lifecycle) -> bool) -> RecordSet {
    let mut set = RecordSet::EMPTY;
    for (id, r) in store.records().iter().enumerate() {
        if pred(r.state()) {
            set.insert(id as RecordId);
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_inclusive_and_open_without_bounds() {
        let w = |from, to| Window { from, to };
        assert!(window_holds_at(w(Some(3), Some(5)), 3));
        assert!(window_holds_at(w(Some(3), Some(5)), 5));
        assert!(!window_holds_at(w(Some(3), Some(5)), 6));
        assert!(!window_holds_at(w(Some(3), None), 2));
        assert!(window_holds_at(w(None, None), i32::MIN));
        assert!(windows_overlap(w(Some(1), Some(3)), w(Some(3), Some(6))));
        assert!(!windows_overlap(w(Some(1), Some(3)), w(Some(4), None)));
        assert!(!windows_overlap(w(Some(4), None), w(None, Some(3))));
        assert!(windows_overlap(w(None, None), w(Some(9), Some(9))));
    }
}
