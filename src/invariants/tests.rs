//! The checkers against the protocol on generated operation sequences
//! ([`crate::protocol::generate`]): every refused operation is refused by
//! the rule `refusals` finds, and every accepted operation keeps every
//! invariant on its transition and its state, except where the correct
//! protocol itself breaks one (its findings, each shown below by a
//! scenario of its own, docs/findings.md): G3 under the `snapshot` tool
//! basis, as DESIGN.md expects; scope, and one value per slot (the first
//! rival decides).

use super::context::Context;
use super::invariant::Invariant;
use super::monitor::Monitor;
use super::violation::Violation;
use crate::protocol::generate::{config, scenario};
use crate::protocol::{
    Hundredths, Kind, LaunderingParents, Op, Proposal, Protocol, RecordSet, Scope, Store, Symbols,
    Tier, Variant, Window,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_sequences_keep_every_invariant_but_the_findings((setup, ops) in scenario()) {
        let ctx = Context::new(&setup.tools(&mut Symbols::new()), setup.clock, &setup.variant());
        let mut findings = vec![Invariant::Scope, Invariant::OneValuePerSlot];
        if setup.basis_snapshot {
            findings.push(Invariant::G3);
        }
        let mut monitor = Monitor::default();
        for s in setup.run(&ops).0.iter() {
            let (before, op, after) = (s.before.view(), &s.op, s.after.view());
            match &s.result {
                Ok(outcome) => {
                    for v in monitor.judge(&ctx, before, op, outcome, after) {
                        prop_assert!(findings.contains(&v.invariant), "after {:?}: {}", op, v);
                    }
                }
                // Every refusal is the one the refusal rules give.
                Err(error) => {
                    let v = monitor.judge_refusal(&ctx, before, op, error);
                    prop_assert!(v.is_none(), "{:?} refused: {:?}", op, v);
                }
            }
        }
    }
}

/// Runs `ops` under `variant` and returns every violation, each with the
/// index of its step; every operation must be accepted.
fn judged(variant: Variant, ops: &[Op]) -> Vec<(usize, Violation)> {
    let protocol = Protocol::new(Vec::new(), None, variant);
    let ctx = Context::new(&[], None, &variant);
    let (mut store, mut monitor, mut found) = (Store::new(), Monitor::default(), Vec::new());
    for (i, op) in ops.iter().enumerate() {
        let before = store.clone();
        let outcome = protocol
            .apply(&mut store, op)
            .expect("the scenario's steps are accepted");
        for v in monitor.judge(&ctx, before.view(), op, &outcome, store.view()) {
            found.push((i, v));
        }
    }
    found
}

/// A lookup belief on order841's refund eligibility.
pub(super) fn belief(syms: &mut Symbols, value: &str, scope: Scope, window: Window) -> Proposal {
    Proposal {
        kind: Kind::Belief,
        entity: syms.intern("order841"),
        attribute: syms.intern("refund_eligible"),
        value: syms.intern(value),
        source: Some(syms.intern("lookup")),
        authority: Hundredths(70),
        confidence: Hundredths(80),
        owner: None,
        scope,
        derived_from: RecordSet::EMPTY,
        window,
    }
}

fn summary_of(syms: &mut Symbols, parent: u8) -> Proposal {
    Proposal {
        kind: Kind::Summary,
        attribute: syms.intern("summary"),
        value: syms.intern("eligible"),
        derived_from: RecordSet::single(parent),
        ..belief(syms, "eligible", Scope::Shared, Window::default())
    }
}

const OPEN: Op = Op::Open {
    agent: 0,
    tier: Tier::Low,
};

fn stage(tx: u8, proposal: Proposal) -> Op {
    Op::Stage { tx, proposal }
}

/// Finding: the first rival decides (card §3.2 `conflict_verdict` returns
/// on the first rival; docs/findings.md). A candidate whose first rival
/// holds its own value commits, although a later rival, in another window
/// that also overlaps the candidate's, holds another value: two values
/// then stand for one slot at one time. The two rivals stood together
/// because their own windows do not overlap. Views are held to the same
/// rules as beliefs (every kind but tool_action has a slot), and show the
/// same.
#[test]
fn finding_the_first_rival_lets_a_value_commit_beside_a_contradiction() {
    let w = |from, to| Window { from, to };
    for kind in [Kind::Belief, Kind::Summary] {
        let mut s = Symbols::new();
        let mut of = |value: &str, window| Proposal {
            kind,
            ..belief(&mut s, value, Scope::Shared, window)
        };
        let early_yes = of("yes", w(None, Some(2)));
        let late_no = of("no", w(Some(5), None));
        let always_yes = of("yes", w(None, None));
        let found = judged(
            Variant::default(),
            &[
                OPEN,
                stage(0, early_yes),
                stage(0, late_no),
                Op::Commit { tx: 0 },
                OPEN,
                stage(1, always_yes),
                Op::Commit { tx: 1 },
            ],
        );
        let v: Vec<_> = found
            .iter()
            .map(|(i, v)| (*i, v.invariant, v.clause))
            .collect();
        assert_eq!(
            v,
            [(6, Invariant::OneValuePerSlot, "two_values")],
            "{kind:?}: {found:?}"
        );
        assert_eq!(found[0].1.records, [1, 2].into_iter().collect());
    }
}

/// Finding: the authors' code looks only at active parents for
/// laundering (card "Paper vs code"), so a shared summary of a private
/// note still in flight elsewhere commits.
#[test]
fn finding_the_codes_laundering_check_misses_a_parent_in_flight() {
    let mut s = Symbols::new();
    let note = belief(&mut s, "no", Scope::Private, Window::default());
    let summary = summary_of(&mut s, 0);
    let ops = [
        OPEN,
        stage(0, note),
        OPEN,
        stage(1, summary),
        Op::Commit { tx: 1 },
    ];
    let found = judged(Variant::default(), &ops);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1.invariant), (4, Invariant::Scope));
    let mut paper = Variant::default();
    paper.laundering_parents = LaunderingParents::Any;
    assert!(
        judged(paper, &ops).is_empty(),
        "the paper's reading refuses it"
    );
}

/// Finding: under either reading the laundering check looks at direct
/// parents only. A shared summary of the private note is quarantined for
/// laundering; a shared summary of that summary has no private parent and
/// commits, carrying the note's content to every reader.
#[test]
fn finding_laundering_through_a_quarantined_summary_under_either_reading() {
    let mut s = Symbols::new();
    let note = belief(&mut s, "no", Scope::Private, Window::default());
    let first = summary_of(&mut s, 0);
    let second = summary_of(&mut s, 1);
    let ops = [
        OPEN,
        stage(0, note),
        stage(0, first),
        stage(0, second),
        Op::Commit { tx: 0 },
    ];
    let mut paper = Variant::default();
    paper.laundering_parents = LaunderingParents::Any;
    for variant in [Variant::default(), paper] {
        let found = judged(variant, &ops);
        assert_eq!(found.len(), 1, "{found:?}");
        let (at, v) = &found[0];
        assert_eq!(
            (*at, v.invariant, v.clause),
            (4, Invariant::Scope, "laundered")
        );
        assert_eq!(v.records, [0, 2].into_iter().collect(), "{v}");
    }
}
