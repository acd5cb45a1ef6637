//! Isolation by tier (DESIGN.md "Visibility at open"): what each tier's
//! snapshot holds, a transaction seeing its own staging, and a snapshot
//! that never changes.

use super::*;

#[test]
fn snapshots_by_tier() {
    let mut w = World::new();
    let p = w.slot("a", "a");
    let (committed, _) = w.commit_one(0, Tier::Low, p);
    let p = w.slot("b", "b");
    let (safe, _) = w.commit_one(0, Tier::ExternalAction, p);
    // A committed child of a parent that is then quarantined by... a
    // parent that failed its check: committed but not causally stable.
    let p = Proposal {
        confidence: Hundredths(0),
        ..w.slot("q", "q")
    };
    let (weak, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        derived_from: set(&[weak]),
        ..w.slot("c", "c")
    };
    let (unstable, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(0, Tier::Low);
    let p = w.slot("t", "t");
    let tentative = w.stage(tx, p);
    let snap = |w: &mut World, tier| match w.apply(Op::Open { agent: 1, tier }) {
        Outcome::Opened { snapshot, .. } => snapshot,
        o => panic!("{o:?}"),
    };
    assert_eq!(snap(&mut w, Tier::Low), set(&[committed, safe, unstable]));
    assert_eq!(
        snap(&mut w, Tier::Medium),
        set(&[committed, safe, unstable])
    );
    assert_eq!(snap(&mut w, Tier::High), set(&[committed, safe]));
    assert_eq!(snap(&mut w, Tier::ExternalAction), set(&[safe]));
    assert!(!w
        .store
        .transaction(tx)
        .unwrap()
        .snapshot()
        .contains(tentative));
    assert!(
        w.store
            .transaction(tx)
            .unwrap()
            .visible()
            .contains(tentative),
        "a transaction sees its own staging"
    );
}

#[test]
fn a_snapshot_never_changes() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let p = w.belief("yes");
    w.commit_one(1, Tier::Low, p);
    assert!(w.store.transaction(tx).unwrap().snapshot().is_empty());
}
