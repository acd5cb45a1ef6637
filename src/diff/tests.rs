//! What `compare` reports for each kind of change.

use super::*;

fn side(states: u64, i1: (&str, Option<usize>), companion: &str) -> Side {
    Side {
        origin: "x".into(),
        model: "m".into(),
        bounds: "records 4, transactions 3, depth 10".into(),
        variant: "{}".into(),
        states,
        transitions: states * 2,
        complete: false,
        levels: vec![
            (0, 1, 1, 0, 0),
            (1, states - 1, states, states * 2, states * 2),
        ],
        properties: vec![
            Verdict {
                name: "I1".into(),
                kind: "invariant".into(),
                verdict: i1.0.into(),
                depth: i1.1,
                clause: None,
            },
            Verdict {
                name: "leak logged".into(),
                kind: "companion".into(),
                verdict: companion.into(),
                depth: None,
                clause: None,
            },
        ],
        warnings: Vec::new(),
        build: None,
        coverage: None,
    }
}

#[test]
fn identical_sides_have_no_difference() {
    let a = side(10, ("holds", None), "reached");
    let d = compare(&a, &a.clone());
    assert!(d.is_empty());
    assert!(render(&a, &a, &d).contains("identical"));
}

#[test]
fn a_new_violation_a_lost_companion_and_a_changed_space_are_each_reported() {
    let a = side(10, ("holds", None), "reached");
    let b = side(12, ("violated", Some(4)), "not_reached");
    let d = compare(&a, &b);
    assert!(d.setup.is_empty());
    assert_eq!(d.state_space.len(), 3, "{:?}", d.state_space);
    assert!(d.state_space[0].contains("10 → 12 (+2)"));
    assert!(d.state_space[2].contains("depth 1"));
    assert_eq!(d.verdicts.len(), 2);
    assert!(
        d.verdicts[0].contains("holds → violated at depth 4")
            && d.verdicts[0].contains("NEW VIOLATION")
    );
    assert!(d.verdicts[1].contains("no longer reached"));
    let back = compare(&b, &a);
    assert!(back.verdicts[0].contains("violation lost"));
}

#[test]
fn same_verdicts_with_another_state_space_says_so() {
    let a = side(10, ("holds", None), "reached");
    let b = Side {
        variant: "{\"ablate\":[\"evidence\"]}".into(),
        ..side(11, ("holds", None), "reached")
    };
    let d = compare(&a, &b);
    assert!(d.verdicts.is_empty() && !d.state_space.is_empty());
    assert_eq!(d.setup.len(), 1);
    assert!(render(&a, &b, &d).contains("same verdicts; the state space changed"));
}
