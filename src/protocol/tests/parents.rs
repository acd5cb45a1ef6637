//! Commit check 3's rules on a candidate's parents (card §3.2), which come
//! before the same-slot rules: a parent in the revocation registry, then
//! permission laundering (a private parent republished wider), with the
//! code's and the paper's reading of which parents count, and the
//! permission-inheritance ablation.

use super::*;

/// A private record committed on `notes`, and a summary of it staged and
/// committed with `scope`; returns the parent, the summary and the commit.
fn summarise_a_private_parent(w: &mut World, scope: Scope) -> (RecordId, RecordId, CommitOutcome) {
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        kind: Kind::Summary,
        scope,
        derived_from: set(&[private]),
        ..w.slot("s", "summary")
    };
    let (summary, c) = w.commit_one(0, Tier::Low, p);
    (private, summary, c)
}

#[test]
fn a_revoked_parent_is_rejected_before_anything_else() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (parent, _) = w.commit_one(0, Tier::Low, p);
    w.retracted(Op::Revoke { record: parent });
    // Staging may cite it (parents need only exist); commit judges it.
    let p = Proposal {
        derived_from: set(&[parent]),
        scope: Scope::Public,
        ..w.belief("no")
    };
    let (id, c) = w.commit_one(1, Tier::Low, p);
    assert_eq!(
        verdict(&c, id),
        (CommitResult::Quarantined, Some(Reason::RevokedParent))
    );
    assert_eq!(c.verifier_calls, 1);
}

#[test]
fn permission_laundering_private_parent_into_wider_scope() {
    let laundered = (
        CommitResult::Quarantined,
        Some(Reason::PermissionLaundering),
    );
    for (variant, scope, expected) in [
        (Variant::default(), Scope::Shared, laundered),
        (Variant::default(), Scope::Public, laundered),
        (
            Variant::default(),
            Scope::Private,
            (CommitResult::Committed, None),
        ),
        // The ablation admits laundering.
        (
            without(Mechanism::PermissionInheritance),
            Scope::Public,
            (CommitResult::Committed, None),
        ),
    ] {
        let mut w = World::with(None, variant);
        let (private, id, c) = summarise_a_private_parent(&mut w, scope);
        assert_eq!(verdict(&c, id), expected, "{variant:?} {scope:?}");
        assert_eq!(
            w.store.record(id).unwrap().reason(),
            expected.1,
            "the record and its verdict agree"
        );
        assert_eq!(w.state(private), Lifecycle::Committed, "the parent stays");
    }
}

#[test]
fn laundering_checks_active_parents_in_the_code_and_any_parent_in_the_paper() {
    for (switch, expected) in [
        (LaunderingParents::Active, (CommitResult::Committed, None)),
        (
            LaunderingParents::Any,
            (
                CommitResult::Quarantined,
                Some(Reason::PermissionLaundering),
            ),
        ),
    ] {
        let mut w = World::with(
            None,
            Variant {
                laundering_parents: switch,
                ..Variant::default()
            },
        );
        let tx = w.open(0, Tier::Low);
        // A private parent staged in the same transaction is still tentative
        // when the shared child is checked.
        let p = Proposal {
            scope: Scope::Private,
            ..w.slot("secret", "notes")
        };
        let parent = w.stage(tx, p);
        let p = Proposal {
            kind: Kind::Summary,
            derived_from: set(&[parent]),
            ..w.slot("s", "summary")
        };
        // Make the parent fail its commit so it is not active when the
        // child is checked.
        w.store.records[parent as usize].fields.confidence = Hundredths(0);
        w.store.records[parent as usize] = w.store.records[parent as usize].rebuilt();
        let child = w.stage(tx, p);
        let c = w.commit(tx);
        assert_eq!(verdict(&c, parent).1, Some(Reason::LowEvidence));
        assert_eq!(verdict(&c, child), expected, "{switch:?}");
    }
}

#[test]
fn revoked_parent_is_checked_before_laundering() {
    // Under the paper's reading laundering looks at every parent, revoked
    // ones included, so both rules apply to this candidate: the revoked
    // parent decides, as in the card's order.
    let mut w = World::with(
        None,
        Variant {
            laundering_parents: LaunderingParents::Any,
            ..Variant::default()
        },
    );
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    w.retracted(Op::Revoke { record: private });
    let p = Proposal {
        kind: Kind::Summary,
        derived_from: set(&[private]),
        ..w.slot("s", "summary")
    };
    let (child, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, child),
        (CommitResult::Quarantined, Some(Reason::RevokedParent))
    );
}

#[test]
fn laundering_is_checked_before_the_same_slot_rules() {
    // The candidate would lose on authority to r1; laundering decides
    // first, and without the laundering rule it loses on authority.
    for (variant, expected) in [
        (
            Variant::default(),
            (
                CommitResult::Quarantined,
                Some(Reason::PermissionLaundering),
            ),
        ),
        (
            without(Mechanism::PermissionInheritance),
            (CommitResult::Quarantined, Some(Reason::LowerAuthority)),
        ),
    ] {
        let mut w = World::with(None, variant);
        let p = Proposal {
            scope: Scope::Private,
            ..w.slot("secret", "notes")
        };
        let (private, _) = w.commit_one(0, Tier::Low, p);
        let p = w.belief("yes");
        let p = w.sourced(p, "crm", 95);
        let (rival, _) = w.commit_one(0, Tier::Low, p);
        let p = Proposal {
            derived_from: set(&[private]),
            ..w.belief("no")
        };
        let (cand, c) = w.commit_one(0, Tier::Low, p);
        assert_eq!(verdict(&c, cand), expected, "{variant:?}");
        assert_eq!(w.state(rival), Lifecycle::Committed, "{variant:?}");
    }
}
