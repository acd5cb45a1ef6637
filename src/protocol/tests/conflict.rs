//! Commit check 3's same-slot rules (card §3.2, `conflict_verdict`): the
//! first active rival in id order whose window overlaps decides; same
//! value, stale late write (before authority), higher, lower, then equal
//! authority; the code's and the paper's readings of the ties and of the
//! empty snapshot; and the conflict ablation.

use super::*;

/// A committed `yes` from `lookup` (authority 0.7), then a second
/// transaction opened after it (so the rival is in its snapshot) stages
/// `candidate`.
fn contest(w: &mut World, candidate: Proposal) -> (RecordId, RecordId, CommitOutcome) {
    let p = w.belief("yes");
    let (old, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    let new = w.stage(tx, candidate);
    let c = w.commit(tx);
    (old, new, c)
}

#[test]
fn same_value_commits_alongside() {
    let mut w = World::new();
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 10);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn higher_authority_supersedes_the_old_value() {
    let mut w = World::new();
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 80);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(c.records[0].superseded, set(&[old]));
    assert_eq!(w.state(old), Lifecycle::Superseded);
}

#[test]
fn lower_authority_is_rejected_unless_conflict_is_ablated() {
    for (variant, expected) in [
        (
            Variant::default(),
            (CommitResult::Quarantined, Some(Reason::LowerAuthority)),
        ),
        // Contradictions coexist.
        (
            without(Mechanism::Conflict),
            (CommitResult::Committed, None),
        ),
    ] {
        let mut w = World::with(None, variant);
        let p = w.belief("no");
        let p = w.sourced(p, "crm", 69);
        let (old, new, c) = contest(&mut w, p);
        assert_eq!(verdict(&c, new), expected, "{variant:?}");
        assert_eq!(c.verifier_calls, 1, "the record reached check 3");
        assert_eq!(w.state(old), Lifecycle::Committed, "{variant:?}");
        assert_eq!(
            w.store.record(new).unwrap().reason(),
            expected.1,
            "{variant:?}"
        );
    }
}

#[test]
fn equal_authority_from_another_source_goes_to_review() {
    let mut w = World::new();
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 70);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(
        verdict(&c, new),
        (CommitResult::Quarantined, Some(Reason::NeedsReview))
    );
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn equal_authority_same_source_supersedes_in_the_code_and_goes_to_review_in_the_paper() {
    for (tie, expected, old_ends, superseded) in [
        (
            SameSourceTie::Supersede,
            (CommitResult::Committed, None),
            Lifecycle::Superseded,
            true,
        ),
        (
            SameSourceTie::Review,
            (CommitResult::Quarantined, Some(Reason::NeedsReview)),
            Lifecycle::Committed,
            false,
        ),
    ] {
        let mut w = World::with(
            None,
            Variant {
                same_source_tie: tie,
                ..Variant::default()
            },
        );
        let p = w.belief("no");
        let (old, new, c) = contest(&mut w, p);
        assert_eq!(verdict(&c, new), expected, "{tie:?}");
        assert_eq!(w.state(old), old_ends, "{tie:?}");
        assert_eq!(c.records[0].superseded.contains(old), superseded, "{tie:?}");
    }
}

#[test]
fn a_stale_write_loses_even_with_higher_authority() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (_, _) = w.commit_one(0, Tier::Low, p);
    // T1 opens on a snapshot holding r0 ...
    let t1 = w.open(1, Tier::Low);
    // ... then a correction r1 commits after T1's snapshot.
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 80);
    let (r1, _) = w.commit_one(0, Tier::Low, p);
    // T1's late write, with the highest authority, is stale against r1.
    let p = w.belief("maybe");
    let p = w.sourced(p, "oracle", 100);
    let late = w.stage(t1, p);
    let c = w.commit(t1);
    assert_eq!(
        verdict(&c, late),
        (CommitResult::Quarantined, Some(Reason::StaleWrite))
    );
    assert_eq!(w.state(r1), Lifecycle::Committed);
}

#[test]
fn stale_check_on_an_empty_snapshot_is_skipped_in_the_code_and_applied_in_the_paper() {
    for (switch, expected) in [
        (
            StaleCheckEmptySnapshot::Skip,
            (CommitResult::Committed, None),
        ),
        (
            StaleCheckEmptySnapshot::Apply,
            (CommitResult::Quarantined, Some(Reason::StaleWrite)),
        ),
    ] {
        let mut w = World::with(
            None,
            Variant {
                stale_check_empty_snapshot: switch,
                ..Variant::default()
            },
        );
        let t0 = w.open(0, Tier::Low); // empty snapshot
        let p = w.belief("yes");
        w.commit_one(1, Tier::Low, p);
        let p = w.belief("no");
        let p = w.sourced(p, "crm", 90);
        let late = w.stage(t0, p);
        let c = w.commit(t0);
        assert_eq!(verdict(&c, late), expected, "{switch:?}");
    }
}

#[test]
fn a_rival_committed_earlier_in_the_same_transaction_is_a_late_write() {
    let mut w = World::new();
    let p = w.slot("x", "other");
    w.commit_one(0, Tier::Low, p); // makes later snapshots non-empty
    let tx = w.open(0, Tier::Low);
    let p = w.belief("yes");
    let first = w.stage(tx, p);
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 90);
    let second = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, first).0, CommitResult::Committed);
    assert_eq!(
        verdict(&c, second),
        (CommitResult::Quarantined, Some(Reason::StaleWrite))
    );
    assert_eq!(c.status, CommitStatus::Partial);
}

#[test]
fn staging_order_matters_each_commit_is_active_for_the_next() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low); // empty snapshot: no stale check
    let p = w.belief("yes");
    let a = w.stage(tx, p);
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 50);
    let b = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, a).0, CommitResult::Committed);
    assert_eq!(
        verdict(&c, b),
        (CommitResult::Quarantined, Some(Reason::LowerAuthority))
    );
}

#[test]
fn values_in_non_overlapping_windows_coexist() {
    let mut w = World::new();
    let p = Proposal {
        window: Window {
            from: Some(0),
            to: Some(4),
        },
        ..w.belief("yes")
    };
    let (old, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    let p = Proposal {
        window: Window {
            from: Some(5),
            to: None,
        },
        ..w.belief("no")
    };
    let p = w.sourced(p, "crm", 10);
    let new = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn the_first_rival_in_id_order_decides() {
    let mut w = World::new();
    // r0 = yes (0.7), r1 = yes from crm (0.95) on the same slot.
    let p = w.belief("yes");
    w.commit_one(0, Tier::Low, p);
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 95);
    w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    // 0.8 beats r0 (the first rival) although r1 has more authority; both
    // differing rivals are superseded.
    let p = w.belief("no");
    let p = w.sourced(p, "desk", 80);
    let new = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(c.records[0].superseded, set(&[0, 1]));
}

#[test]
fn a_tool_action_is_never_a_conflict_rival() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let action = w.call(tx, NOTE, &[]).record.unwrap();
    let tool = w.syms.intern("send_note");
    let p = Proposal {
        entity: tool,
        attribute: tool,
        value: w.syms.intern("other"),
        ..w.belief("x")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id), (CommitResult::Committed, None));
    assert_eq!(w.state(action), Lifecycle::Committed);
}
