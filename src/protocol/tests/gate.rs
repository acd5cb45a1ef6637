//! The action gate (card §3.3): it blocks an irreversible call while a
//! tentative record outside the snapshot exists, the caller's own staging
//! included, then when an external_action snapshot holds no action_safe
//! record; reversible calls pass; and the gate ablation.

use super::*;

#[test]
fn gate_blocks_while_a_tentative_record_outside_the_snapshot_exists() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (r0, _) = w.commit_one(0, Tier::Low, p);
    let caller = w.open(1, Tier::Low);
    let other = w.open(0, Tier::Low);
    let p = w.slot("x", "x");
    let pending = w.stage(other, p);
    let g = w.call(caller, REFUND, &[r0]);
    assert_eq!(
        (g.allowed, g.reason, g.record),
        (false, Some(Refusal::TentativeInFlight), None)
    );
    let g = w.call(caller, NOTE, &[r0]);
    assert!(g.allowed, "reversible tools are not gated");
    w.commit(other);
    assert_eq!(w.state(pending), Lifecycle::Committed);
    let g = w.call(caller, REFUND, &[r0]);
    assert!(g.allowed);
    let id = g.record.unwrap();
    let r = w.store.record(id).unwrap();
    assert_eq!(
        (r.kind(), r.state(), r.derived_from(), r.tool()),
        (
            Kind::ToolAction,
            Lifecycle::Committed,
            set(&[r0]),
            Some(REFUND)
        )
    );
}

#[test]
fn gate_counts_the_callers_own_staging() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let p = w.belief("yes");
    w.stage(tx, p);
    let g = w.call(tx, REFUND, &[]);
    assert_eq!(g.reason, Some(Refusal::TentativeInFlight));
    w.commit(tx);
    assert!(w.call(tx, REFUND, &[]).allowed, "commit, then retry");
}

#[test]
fn external_action_needs_an_action_safe_record_in_the_snapshot() {
    let mut w = World::new();
    let bare = w.open(0, Tier::ExternalAction);
    let g = w.call(bare, REFUND, &[]);
    assert_eq!(g.reason, Some(Refusal::NoActionSafeSupport));
    let p = w.belief("yes");
    let (safe, _) = w.commit_one(0, Tier::ExternalAction, p);
    assert_eq!(
        w.call(bare, REFUND, &[]).reason,
        Some(Refusal::NoActionSafeSupport),
        "the snapshot is fixed at open"
    );
    let tx = w.open(1, Tier::ExternalAction);
    assert!(w.call(tx, REFUND, &[safe]).allowed);
    // The support must still be action_safe now.
    w.retracted(Op::Revoke { record: safe });
    assert_eq!(
        w.call(tx, REFUND, &[]).reason,
        Some(Refusal::NoActionSafeSupport)
    );
    // Other tiers need no action_safe support.
    let low = w.open(1, Tier::Low);
    assert!(w.call(low, REFUND, &[]).allowed);
}

#[test]
fn tentative_check_comes_before_action_safe_support_unless_the_gate_is_ablated() {
    for (variant, expected) in [
        (
            Variant::default(),
            (false, Some(Refusal::TentativeInFlight)),
        ),
        // Every irreversible call executes.
        (without(Mechanism::Gate), (true, None)),
    ] {
        let mut w = World::with(None, variant);
        let tx = w.open(0, Tier::ExternalAction);
        let p = w.belief("yes");
        w.stage(tx, p);
        let g = w.call(tx, REFUND, &[]);
        assert_eq!((g.allowed, g.reason), expected, "{variant:?}");
        assert_eq!(g.record.is_some(), g.allowed, "{variant:?}");
    }
}
