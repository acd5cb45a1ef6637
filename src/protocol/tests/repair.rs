//! Retraction and typed cascading repair (card §3.4 `retract`): abort and
//! revoke end every retracted record revoked; descendants are repaired by
//! type (beliefs revoked, views quarantined or revoked where quarantine is
//! not allowed, tool actions compensated or leaked), each with a
//! rollback-log entry; and the cascade and typed-repair ablations.

use super::*;

#[test]
fn revoke_repairs_each_descendant_by_type() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (root, _) = w.commit_one(0, Tier::ExternalAction, p);
    let on = |w: &mut World, kind, attr: &str, parents: &[RecordId]| Proposal {
        kind,
        derived_from: set(parents),
        ..w.slot("v", attr)
    };
    let p = on(&mut w, Kind::Belief, "b", &[root]);
    let (belief, _) = w.commit_one(0, Tier::Low, p);
    let p = on(&mut w, Kind::Summary, "s", &[belief]);
    let (summary, _) = w.commit_one(0, Tier::Low, p);
    let p = on(&mut w, Kind::Profile, "p", &[root]);
    let (safe_profile, _) = w.commit_one(0, Tier::ExternalAction, p);
    let tx = w.open(1, Tier::ExternalAction);
    let refund = w.call(tx, REFUND, &[root]).record.unwrap();
    let note = w.call(tx, NOTE, &[root]).record.unwrap();
    let repairs = w.retracted(Op::Revoke { record: root });
    assert_eq!(
        repairs,
        vec![
            (root, Repair::Revoked),
            (belief, Repair::Revoked),
            (summary, Repair::Quarantined),
            (safe_profile, Repair::Revoked), // quarantine is not allowed from action_safe
            (refund, Repair::Leaked),
            (note, Repair::Compensated),
        ]
    );
    for (id, state) in [
        (root, Lifecycle::Revoked),
        (belief, Lifecycle::Revoked),
        (summary, Lifecycle::Quarantined),
        (safe_profile, Lifecycle::Revoked),
        (refund, Lifecycle::Revoked),
        (note, Lifecycle::Revoked),
    ] {
        assert_eq!(w.state(id), state, "r{id}");
    }
    assert_eq!(w.store.rollback_log().len(), 6);
    assert!(w.store.rollback_log()[0].root && !w.store.rollback_log()[1].root);
    assert_eq!(w.store.rollback_log()[3].from, Lifecycle::ActionSafe);
    assert_eq!(
        w.store.registry_for_tests(),
        set(&[root, belief, summary, safe_profile, refund, note])
    );
}

#[test]
fn every_view_kind_is_quarantined() {
    for kind in [
        Kind::Summary,
        Kind::Profile,
        Kind::IndexEntry,
        Kind::SharedCopy,
    ] {
        let mut w = World::new();
        let p = w.belief("yes");
        let (root, _) = w.commit_one(0, Tier::Low, p);
        let p = Proposal {
            kind,
            derived_from: set(&[root]),
            ..w.slot("v", "v")
        };
        let (view, _) = w.commit_one(0, Tier::Low, p);
        assert_eq!(
            w.retracted(Op::Revoke { record: root }),
            vec![(root, Repair::Revoked), (view, Repair::Quarantined)]
        );
    }
}

#[test]
fn abort_retracts_every_staged_record_and_repairs_descendants() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let p = w.belief("yes");
    let a = w.stage(tx, p);
    let p = Proposal {
        kind: Kind::Summary,
        ..w.slot("s", "s")
    };
    let own_view = w.stage(tx, p);
    let other = w.open(1, Tier::Low);
    let p = Proposal {
        derived_from: set(&[a]),
        ..w.slot("c", "c")
    };
    let child = w.stage(other, p);
    let repairs = w.retracted(Op::Abort { tx });
    assert_eq!(
        repairs,
        vec![
            (a, Repair::Revoked),
            (own_view, Repair::Revoked),
            (child, Repair::Revoked)
        ]
    );
    assert_eq!(
        w.state(own_view),
        Lifecycle::Revoked,
        "a retracted record ends revoked whatever its type"
    );
    assert_eq!(w.store.transaction(tx).unwrap().status(), TxStatus::Aborted);
    // The other transaction's commit skips the record the cascade revoked.
    let c = w.commit(other);
    assert_eq!(verdict(&c, child), (CommitResult::Revoked, None));
    assert_eq!(c.status, CommitStatus::Aborted);
}

#[test]
fn retracting_a_tool_action_logs_it() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let refund = w.call(tx, REFUND, &[]).record.unwrap();
    assert_eq!(
        w.retracted(Op::Revoke { record: refund }),
        vec![(refund, Repair::Leaked)]
    );
    assert_eq!(w.state(refund), Lifecycle::Revoked);
    let note = w.call(tx, NOTE, &[]).record.unwrap();
    assert_eq!(
        w.retracted(Op::Revoke { record: note }),
        vec![(note, Repair::Compensated)]
    );
}

#[test]
fn a_cascade_leaves_revoked_and_already_quarantined_records_as_they_are() {
    let mut w = World::new();
    let p = w.slot("a", "a");
    let (a, _) = w.commit_one(0, Tier::Low, p);
    let p = w.slot("b", "b");
    let (b, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        kind: Kind::Summary,
        derived_from: set(&[a, b]),
        ..w.slot("s", "s")
    };
    let (view, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        derived_from: set(&[a, b]),
        ..w.slot("c", "c")
    };
    let (child, _) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        w.retracted(Op::Revoke { record: a }),
        vec![
            (a, Repair::Revoked),
            (view, Repair::Quarantined),
            (child, Repair::Revoked)
        ]
    );
    assert_eq!(
        w.retracted(Op::Revoke { record: b }),
        vec![(b, Repair::Revoked)]
    );
}

#[test]
fn the_cascade_and_typed_repair_ablations_change_what_a_revoke_repairs() {
    use Lifecycle::{Committed, Quarantined, Revoked};
    // r0 a belief; r1 a belief, r2 a summary and r3 an irreversible tool
    // action, each derived from r0.
    let typed = [
        (Repair::Revoked, Revoked),
        (Repair::Quarantined, Quarantined),
        (Repair::Leaked, Revoked),
    ];
    let as_beliefs = [
        (Repair::Revoked, Revoked),
        (Repair::Revoked, Revoked),
        (Repair::Revoked, Revoked),
    ];
    for (variant, descendants) in [
        (Variant::default(), Some(typed)),
        // The retracted record only: every descendant stays as it was.
        (without(Mechanism::Cascade), None),
        // Every descendant is repaired as a belief.
        (without(Mechanism::TypedRepair), Some(as_beliefs)),
    ] {
        let mut w = World::with(None, variant);
        let p = w.belief("yes");
        let (root, _) = w.commit_one(0, Tier::Low, p);
        let p = Proposal {
            derived_from: set(&[root]),
            ..w.slot("c", "c")
        };
        let (child, _) = w.commit_one(0, Tier::Low, p);
        let p = Proposal {
            kind: Kind::Summary,
            derived_from: set(&[root]),
            ..w.slot("s", "s")
        };
        let (view, _) = w.commit_one(0, Tier::Low, p);
        let tx = w.open(0, Tier::Low);
        let refund = w.call(tx, REFUND, &[root]).record.unwrap();
        let mut expected = vec![(root, Repair::Revoked)];
        let ids = [child, view, refund];
        if let Some(repairs) = descendants {
            expected.extend(ids.iter().zip(repairs).map(|(&id, (r, _))| (id, r)));
        }
        assert_eq!(
            w.retracted(Op::Revoke { record: root }),
            expected,
            "{variant:?}"
        );
        assert_eq!(w.state(root), Revoked, "{variant:?}");
        for (i, id) in ids.into_iter().enumerate() {
            let state = descendants.map_or(Committed, |d| d[i].1);
            assert_eq!(w.state(id), state, "r{id} {variant:?}");
        }
    }
}
