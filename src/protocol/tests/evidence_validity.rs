//! Commit checks 1 and 2 (card §3.2): evidence (confidence ≥ 0.6 unless
//! authority ≥ 0.9, both inclusive; a missing source counts 0.5) and
//! validity (the window holds the logical now; no clock, no check), their
//! order, and their ablations.

use super::*;

#[test]
fn evidence_threshold_is_inclusive_on_both_sides() {
    for (confidence, authority, passes) in [
        (60, 50, true),
        (59, 50, false),
        (59, 89, false),
        (59, 90, true),
        (0, 100, true),
        (100, 0, true),
    ] {
        let mut w = World::new();
        let p = w.belief("yes");
        let p = w.sourced(
            Proposal {
                confidence: Hundredths(confidence),
                ..p
            },
            "lookup",
            authority,
        );
        let (id, c) = w.commit_one(0, Tier::Low, p);
        let expected = if passes {
            (CommitResult::Committed, None)
        } else {
            (CommitResult::Quarantined, Some(Reason::LowEvidence))
        };
        assert_eq!(
            verdict(&c, id),
            expected,
            "confidence {confidence} authority {authority}"
        );
        assert_eq!(
            c.verifier_calls,
            u32::from(passes),
            "only records reaching check 3 cost a call"
        );
    }
}

#[test]
fn a_missing_source_has_authority_one_half() {
    let mut w = World::new();
    let p = Proposal {
        source: None,
        authority: Hundredths(95),
        confidence: Hundredths(10),
        ..w.belief("yes")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, id),
        (CommitResult::Quarantined, Some(Reason::LowEvidence))
    );
}

/// The verdict of a commit check on one record.
type Verdict = (CommitResult, Option<Reason>);

/// Commits the record `proposal` builds, alone, under `clock` and each
/// variant; checks the verdict each should give, that the record agrees
/// with it, and that only a record reaching check 3 costs a verifier call.
fn alone_under(
    clock: Option<i32>,
    cases: [(Variant, Verdict); 2],
    proposal: impl Fn(&mut World) -> Proposal,
) {
    for (variant, expected) in cases {
        let mut w = World::with(clock, variant);
        let p = proposal(&mut w);
        let (id, c) = w.commit_one(0, Tier::Low, p);
        assert_eq!(verdict(&c, id), expected, "{variant:?}");
        let record = w.store.record(id).unwrap();
        assert_eq!(
            record.reason(),
            expected.1,
            "the record and its verdict agree"
        );
        let committed = expected.0 == CommitResult::Committed;
        assert_eq!(record.state() == Lifecycle::Committed, committed);
        assert_eq!(
            c.verifier_calls,
            u32::from(committed),
            "only records reaching check 3 cost a call"
        );
    }
}

#[test]
fn low_confidence_is_quarantined_unless_evidence_is_ablated() {
    let cases = [
        (
            Variant::default(),
            (CommitResult::Quarantined, Some(Reason::LowEvidence)),
        ),
        (
            without(Mechanism::Evidence),
            (CommitResult::Committed, None),
        ),
    ];
    alone_under(None, cases, |w| Proposal {
        confidence: Hundredths(10),
        ..w.belief("yes")
    });
}

#[test]
fn validity_runs_only_with_a_clock_and_is_inclusive() {
    for (clock, from, to, passes) in [
        (None, Some(10), Some(12), true),
        (Some(10), Some(10), Some(12), true),
        (Some(12), Some(10), Some(12), true),
        (Some(9), Some(10), Some(12), false),
        (Some(13), Some(10), Some(12), false),
        (Some(13), Some(10), None, true),
        (Some(-5), None, Some(0), true),
    ] {
        let mut w = World::with(clock, Variant::default());
        let p = Proposal {
            window: Window { from, to },
            ..w.belief("yes")
        };
        let (id, c) = w.commit_one(0, Tier::Low, p);
        let expected = if passes {
            (CommitResult::Committed, None)
        } else {
            (CommitResult::Quarantined, Some(Reason::OutsideValidity))
        };
        assert_eq!(
            verdict(&c, id),
            expected,
            "clock {clock:?} window {from:?}..{to:?}"
        );
    }
}

#[test]
fn evidence_is_checked_before_validity() {
    let mut w = World::with(Some(0), Variant::default());
    let p = Proposal {
        confidence: Hundredths(10),
        window: Window {
            from: Some(5),
            to: None,
        },
        ..w.belief("yes")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id).1, Some(Reason::LowEvidence));
}

#[test]
fn an_expired_record_is_quarantined_unless_validity_is_ablated() {
    let cases = [
        (
            Variant::default(),
            (CommitResult::Quarantined, Some(Reason::OutsideValidity)),
        ),
        (
            without(Mechanism::Validity),
            (CommitResult::Committed, None),
        ),
    ];
    alone_under(Some(20), cases, |w| Proposal {
        window: Window {
            from: None,
            to: Some(3),
        },
        ..w.belief("yes")
    });
}

#[test]
fn validity_is_checked_before_conflict_and_costs_no_verifier_call() {
    let mut w = World::with(Some(10), Variant::default());
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 95);
    w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        window: Window {
            from: None,
            to: Some(5),
        },
        ..w.belief("no")
    };
    let (cand, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, cand),
        (CommitResult::Quarantined, Some(Reason::OutsideValidity))
    );
    assert_eq!(c.verifier_calls, 0);
}
