//! Commit check 4, dependency stability (card §3.2): no transitive ancestor
//! in the revocation registry; a parent a commit check quarantined is not
//! in it (card pitfall); superseding comes before the check; and the
//! dependency-stability ablation.

use super::*;

/// A record derived from a revoked one: check 3 quarantines it (revoked
/// parent), so it is not in the registry (card pitfall), while its own
/// parent is.
fn child_of_a_revoked_record(w: &mut World) -> RecordId {
    let p = w.slot("g", "g");
    let (grand, _) = w.commit_one(0, Tier::Low, p);
    w.retracted(Op::Revoke { record: grand });
    let p = Proposal {
        derived_from: set(&[grand]),
        ..w.slot("p", "p")
    };
    let (parent, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, parent).1, Some(Reason::RevokedParent));
    parent
}

/// A revoked grandparent reached through a parent that a commit check
/// quarantined, and that is therefore not in the registry (card pitfall).
fn quarantined_parent_scenario(w: &mut World) -> (RecordId, CommitOutcome) {
    let parent = child_of_a_revoked_record(w);
    let p = Proposal {
        derived_from: set(&[parent]),
        ..w.slot("c", "c")
    };
    w.commit_one(0, Tier::Low, p)
}

#[test]
fn a_revoked_transitive_ancestor_is_rejected_unless_dependency_stability_is_ablated() {
    for (variant, expected) in [
        (
            Variant::default(),
            (CommitResult::Quarantined, Some(Reason::UnstableDependency)),
        ),
        (
            without(Mechanism::DependencyStability),
            (CommitResult::Committed, None),
        ),
    ] {
        let mut w = World::with(None, variant);
        let (child, c) = quarantined_parent_scenario(&mut w);
        assert_eq!(verdict(&c, child), expected, "{variant:?}");
        assert_eq!(
            w.store.record(child).unwrap().reason(),
            expected.1,
            "the record and its verdict agree"
        );
    }
}

#[test]
fn a_parent_quarantined_by_a_check_does_not_block_its_children() {
    let mut w = World::new();
    let p = Proposal {
        confidence: Hundredths(0),
        ..w.slot("p", "p")
    };
    let (parent, _) = w.commit_one(0, Tier::Low, p);
    assert_eq!(w.state(parent), Lifecycle::Quarantined);
    let p = Proposal {
        derived_from: set(&[parent]),
        ..w.slot("c", "c")
    };
    let (child, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, child), (CommitResult::Committed, None));
}

#[test]
fn superseding_happens_before_check_4() {
    let mut w = World::new();
    let parent = child_of_a_revoked_record(&mut w);
    let p = w.belief("yes");
    let (rival, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(0, Tier::Low);
    let p = Proposal {
        derived_from: set(&[parent]),
        ..w.belief("no")
    };
    let p = w.sourced(p, "crm", 90);
    let cand = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(
        verdict(&c, cand),
        (CommitResult::Quarantined, Some(Reason::UnstableDependency))
    );
    assert_eq!(c.records[0].superseded, set(&[rival]));
    assert_eq!(w.state(rival), Lifecycle::Superseded);
}
