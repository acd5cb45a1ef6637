//! Stale writes (ours, a transition property judged at commit; card §3.2
//! check 3: "If a rival was committed after the transaction's snapshot,
//! the candidate counts as a stale late write and is rejected before
//! authority is compared").
//!
//! **Definition.** Let transaction T commit with snapshot S. The property
//! applies when S is non-empty (the code's reading, card "Paper vs code")
//! or, under `stale_check_empty_snapshot: apply` (the paper's), always;
//! the [`Context`] knows which. T's candidates are the records it staged
//! that were tentative before the commit, judged one at a time in staging
//! (id) order. Each is judged against A, the records active at its turn:
//! those active before the commit, plus T's earlier candidates that were
//! committed at their turn (they end committed or action_safe, or
//! superseded by a later candidate), minus the rivals an earlier candidate
//! superseded. A candidate c's rivals are the records of A other than c,
//! not tool actions, on c's entity and attribute, whose windows overlap
//! c's; its *deciding rival* d is the first of them in id order (the
//! card's rule: the first rival decides). c **wins over** d when d's value
//! differs from c's and c gets past check 3, as its effects show: it is
//! committed at its turn, or its turn displaced rivals (the card's
//! `supersede_old` runs before check 4, so a candidate that check 4 then
//! quarantines has won too). Which rivals a turn displaced is what the
//! commit's verdict for c reports, which honest-outcome holds to the
//! store; the quarantine reason the protocol wrote is never read, so a
//! stale write that displaced its rivals and was then refused "for
//! staleness" is still seen.
//! **No commit lets a candidate win over a deciding rival that S does not
//! hold** — committed after S was taken (T's own earlier candidates
//! included: DESIGN.md, "a rival committed earlier in the same transaction
//! counts as a late write whenever the snapshot is non-empty"), or not
//! visible at T's tier, exactly the card's test `rival.id not in
//! snapshot`.
//!
//! Why the deciding rival only: under the first-rival rule a candidate
//! whose first rival S holds supersedes every differing rival, stale ones
//! included, and one whose first rival has its own value commits beside
//! later rivals (which one value per slot judges). The card's protocol
//! allows both; staleness is only ever tested against the deciding rival.
//!
//! A is rebuilt from the states before and after the commit, with set
//! arithmetic and no protocol call: a candidate that won over a differing
//! deciding rival superseded (card `supersede_old`), and the rivals that
//! left A at its turn are its differing rivals that the commit left
//! superseded.
//!
//! Clause: `stale_win`.

use super::context::Context;
use super::fields::{active, settled, where_state, windows_overlap};
use super::invariant::Invariant;
use super::transition::Transition;
use super::violation::Violation;
use crate::protocol::{Kind, Lifecycle, Op, Outcome, Record, RecordSet};

/// Whether `r` is a same-slot rival of `c` (both read from one store).
fn same_slot(c: &Record, r: &Record) -> bool {
    r.kind() != Kind::ToolAction
        && r.entity() == c.entity()
        && r.attribute() == c.attribute()
        && windows_overlap(r.window(), c.window())
}

/// Whether a candidate, tentative before the commit, that ended as
/// `after` was committed at its turn: it ended committed or action_safe,
/// or superseded (by a candidate judged after it in the same commit).
fn committed_at_its_turn(after: &Record) -> bool {
    settled(after.state()) || after.state() == Lifecycle::Superseded
}

/// Whether a candidate that ended as `after` got past check 3: committed
/// at its turn, or its turn `displaced` rivals.
fn got_past_check_3(after: &Record, displaced: bool) -> bool {
    committed_at_its_turn(after) || displaced
}

pub fn check(ctx: &Context, t: Transition<'_>) -> Option<Violation> {
    let Transition { before, after, .. } = t;
    let (Op::Commit { tx }, Outcome::Committed(commit)) = (*t.op, t.outcome) else {
        return None;
    };
    let snapshot = before.transaction(tx)?.snapshot();
    if snapshot.is_empty() && !ctx.stale_check_always() {
        return None;
    }
    let superseded_now = where_state(after, |s| s == Lifecycle::Superseded)
        .difference(where_state(before, |s| s == Lifecycle::Superseded));
    let mut live = where_state(before, active);
    for c in before.transaction(tx)?.staged().iter() {
        let (Some(was), Some(rc)) = (before.record(c), after.record(c)) else {
            continue;
        };
        if was.state() != Lifecycle::Tentative {
            continue;
        }
        let displaced = commit
            .records
            .iter()
            .any(|v| v.id == c && !v.superseded.is_empty());
        if got_past_check_3(rc, displaced) {
            let mut rivals = RecordSet::EMPTY;
            let mut differing = RecordSet::EMPTY;
            for r in live.iter().filter(|&r| r != c) {
                let Some(rr) = after.record(r) else { continue };
                if same_slot(rc, rr) {
                    rivals.insert(r);
                    if rr.value() != rc.value() {
                        differing.insert(r);
                    }
                }
            }
            if let Some(d) = rivals.iter().next().filter(|&d| differing.contains(d)) {
                if !snapshot.contains(d) {
                    return Some(Violation::new(
                        Invariant::StaleWrite,
                        "stale_win",
                        [c, d].into_iter().collect(),
                        format!(
                            "T{tx}'s r{c} got past check 3 ({}) over its deciding rival r{d}, which holds another value and is not in T{tx}'s snapshot",
                            rc.state()
                        ),
                    ));
                }
                live = live.difference(differing.intersection(superseded_now));
            }
        }
        if committed_at_its_turn(rc) {
            live.insert(c);
        }
    }
    None
}
