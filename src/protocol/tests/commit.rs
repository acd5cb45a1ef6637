//! What a commit returns and where its records end (DESIGN.md "Commit
//! outcome"): committed, or action_safe in an external_action transaction;
//! the overall status; and a staged record a cascade reached before the
//! commit, which the commit skips.

use super::*;

#[test]
fn external_action_commits_are_action_safe() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (id, c) = w.commit_one(0, Tier::ExternalAction, p);
    assert_eq!(verdict(&c, id).0, CommitResult::ActionSafe);
    assert_eq!(w.state(id), Lifecycle::ActionSafe);
    for tier in [Tier::Low, Tier::Medium, Tier::High] {
        let p = w.slot("yes", tier.name());
        let (id, _) = w.commit_one(0, tier, p);
        assert_eq!(w.state(id), Lifecycle::Committed);
    }
}

#[test]
fn commit_status_committed_partial_aborted() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    assert_eq!(
        w.commit(tx).status,
        CommitStatus::Committed,
        "an empty commit is committed"
    );
    let tx = w.open(0, Tier::Low);
    let p = Proposal {
        confidence: Hundredths(0),
        ..w.belief("yes")
    };
    w.stage(tx, p);
    assert_eq!(w.commit(tx).status, CommitStatus::Aborted);
    let tx = w.open(0, Tier::Low);
    let p = Proposal {
        confidence: Hundredths(0),
        ..w.slot("yes", "a")
    };
    w.stage(tx, p);
    let p = w.slot("yes", "b");
    w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(c.status, CommitStatus::Partial);
    assert_eq!(c.verifier_calls, 1);
}

#[test]
fn a_staged_view_a_cascade_quarantined_is_skipped_at_commit() {
    let mut w = World::new();
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(0, Tier::Low);
    let p = Proposal {
        kind: Kind::Summary,
        derived_from: set(&[private]),
        ..w.slot("s", "summary")
    };
    let child = w.stage(tx, p);
    w.retracted(Op::Revoke { record: private });
    // The cascade quarantined the staged (tentative) summary already.
    assert_eq!(w.state(child), Lifecycle::Quarantined);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, child), (CommitResult::Quarantined, None));
    assert_eq!(
        w.store.record(child).unwrap().reason(),
        None,
        "the record and its verdict agree"
    );
    assert_eq!(
        c.verifier_calls, 0,
        "a record repaired before commit does not reach check 3"
    );
}
