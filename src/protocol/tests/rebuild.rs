//! Rebuild (card §3.4): a view a cascade held back is rebuilt from its
//! surviving sources, and each refusal names why.

use super::*;

/// A summary of `parents`, on its own slot.
fn summary(w: &mut World, parents: &[RecordId]) -> Proposal {
    let p = w.slot("eligible", "summary");
    Proposal {
        kind: Kind::Summary,
        derived_from: set(parents),
        ..p
    }
}

/// T0 open, with a lookup (r0) and a crm note (r1) staged.
fn two_sources() -> (World, TxId) {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let lookup = w.belief("yes");
    w.stage(tx, lookup);
    let crm = w.slot("damaged", "refund_reason");
    w.stage(tx, crm);
    (w, tx)
}

/// T0 commits a lookup (r0), a crm note (r1) and a summary of both (r2);
/// revoking r0 holds r2 back. Returns the world.
fn held_back() -> World {
    let (mut w, tx) = two_sources();
    let view = summary(&mut w, &[0, 1]);
    w.stage(tx, view);
    w.commit(tx);
    assert_eq!(
        w.retracted(Op::Revoke { record: 0 }),
        vec![(0, Repair::Revoked), (2, Repair::Quarantined)]
    );
    w
}

#[test]
fn a_held_back_view_is_rebuilt_from_its_surviving_source_and_commits_again() {
    let mut w = held_back();
    let tx = w.open(0, Tier::Low);
    let log = w.store.rollback_log().len();
    assert_eq!(
        w.apply(Op::Rebuild { tx, record: 2 }),
        Outcome::Rebuilt {
            tx,
            record: 2,
            dropped: set(&[0]),
        }
    );
    let r = w.store.record(2).unwrap();
    assert_eq!(
        (r.state(), r.derived_from()),
        (Lifecycle::Tentative, set(&[1]))
    );
    assert!(w.store.transaction(tx).unwrap().staged().contains(2));
    assert_eq!(w.store.rollback_log().len(), log, "a rebuild logs nothing");
    let c = w.commit(tx);
    assert_eq!(verdict(&c, 2), (CommitResult::Committed, None));
    assert!(
        w.store.registry_for_tests().contains(2),
        "the registry only grows"
    );
}

#[test]
fn a_view_of_a_held_back_view_keeps_it_and_is_held_back_again_at_commit() {
    let (mut w, tx) = two_sources();
    let first = summary(&mut w, &[0, 1]);
    w.stage(tx, first);
    let second = summary(&mut w, &[1, 2]);
    let second = w.sourced(second, "digest", 70);
    w.stage(tx, second);
    w.commit(tx);
    w.retracted(Op::Revoke { record: 0 });
    assert_eq!(w.state(3), Lifecycle::Quarantined);
    let tx = w.open(0, Tier::Low);
    assert_eq!(
        w.apply(Op::Rebuild { tx, record: 3 }),
        Outcome::Rebuilt {
            tx,
            record: 3,
            dropped: RecordSet::EMPTY,
        },
        "a held-back parent is no revoked one: it survives"
    );
    let c = w.commit(tx);
    assert_eq!(
        verdict(&c, 3),
        (CommitResult::Quarantined, Some(Reason::RevokedParent)),
        "check 3 reads its held-back parent"
    );
}

#[test]
fn every_refusal_names_why_and_changes_nothing() {
    let mut w = held_back();
    let tx = w.open(0, Tier::Low);
    assert_eq!(
        w.refuse(Op::Rebuild { tx, record: 1 }),
        ProtocolError::NotAView {
            record: 1,
            kind: "belief"
        }
    );
    assert_eq!(
        w.refuse(Op::Rebuild { tx, record: 0 }),
        ProtocolError::NotAView {
            record: 0,
            kind: "belief"
        }
    );
    // A summary that cites the revoked r0: check 3 quarantines it.
    let cited = summary(&mut w, &[0, 1]);
    let t = w.open(0, Tier::Low);
    w.stage(t, cited);
    w.commit(t);
    let e = w.refuse(Op::Rebuild { tx, record: 3 });
    assert_eq!(
        e,
        ProtocolError::QuarantinedByCheck {
            record: 3,
            reason: "revoked_parent"
        }
    );
    assert!(e.to_string().contains("revalidate it instead"), "{e}");
    // r2 rebuilt by T-tx, then another transaction asks for it.
    w.apply(Op::Rebuild { tx, record: 2 });
    w.retracted(Op::Revoke { record: 1 });
    let other = w.open(0, Tier::Low);
    assert_eq!(
        w.refuse(Op::Rebuild {
            tx: other,
            record: 2
        }),
        ProtocolError::StagedElsewhere {
            op: "rebuild",
            record: 2,
            tx
        },
        "quarantined by r1's revocation while T{tx} stages it"
    );
    w.commit(tx);
    let e = w.refuse(Op::Rebuild {
        tx: other,
        record: 2,
    });
    assert_eq!(e, ProtocolError::NoSurvivingSource { record: 2 });
    assert!(e.to_string().contains("no source survives"), "{e}");
    let e = w.refuse(Op::Rebuild {
        tx: other,
        record: 1,
    });
    assert_eq!(
        e,
        ProtocolError::NotAView {
            record: 1,
            kind: "belief"
        }
    );
    w.commit(other);
    assert_eq!(
        w.refuse(Op::Rebuild {
            tx: other,
            record: 2
        }),
        ProtocolError::TransactionNotOpen {
            tx: other,
            op: "rebuild into"
        }
    );
}

#[test]
fn a_committed_view_is_not_rebuilt() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let lookup = w.belief("yes");
    w.stage(tx, lookup);
    let view = summary(&mut w, &[0]);
    w.stage(tx, view);
    w.commit(tx);
    let tx = w.open(0, Tier::Low);
    let e = w.refuse(Op::Rebuild { tx, record: 1 });
    assert_eq!(
        e,
        ProtocolError::NotQuarantined {
            op: "rebuild",
            record: 1,
            state: "committed"
        }
    );
    assert!(e.to_string().contains("can be rebuilt"), "{e}");
}

#[test]
fn a_cascade_that_holds_back_a_revalidated_view_clears_its_old_reason() {
    // A view check 3 quarantined, revalidated, then held back by a
    // cascade: the cascade's hold-back is what it is now, so a rebuild
    // (not another revalidation) takes it back.
    let (mut w, tx) = two_sources();
    w.commit(tx);
    let low = summary(&mut w, &[0, 1]);
    let low = Proposal {
        confidence: Hundredths(50),
        ..low
    };
    let (view, c) = w.commit_one(0, Tier::Low, low);
    assert_eq!(verdict(&c, view).1, Some(Reason::LowEvidence));
    let tx = w.open(0, Tier::Low);
    w.apply(Op::Revalidate { tx, record: view });
    assert_eq!(
        w.store.record(view).unwrap().reason(),
        Some(Reason::LowEvidence)
    );
    w.retracted(Op::Revoke { record: 0 });
    let r = w.store.record(view).unwrap();
    assert_eq!((r.state(), r.reason()), (Lifecycle::Quarantined, None));
    let other = w.open(0, Tier::Low);
    w.commit(tx);
    assert_eq!(
        w.apply(Op::Rebuild {
            tx: other,
            record: view
        }),
        Outcome::Rebuilt {
            tx: other,
            record: view,
            dropped: set(&[0]),
        }
    );
}
