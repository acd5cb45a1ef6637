//! The tool-call basis rule of the variant (DESIGN.md `tool_basis`): under
//! `active` a basis record must be visible to the transaction and active
//! now; under `snapshot`, the literal card, visible is enough, so a call
//! may rest on a belief revoked since open.

use super::*;

#[test]
fn tool_basis_active_refuses_inactive_or_invisible_records() {
    let mut w = World::new();
    let p = w.belief("yes");
    w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    let p = w.slot("own", "own");
    let own = w.stage(tx, p);
    assert!(
        matches!(
            w.refuse(Op::ToolCall {
                tx,
                tool: NOTE,
                basis: set(&[own])
            }),
            ProtocolError::BasisNotAllowed { .. }
        ),
        "own tentative staging is not active"
    );
    let other = w.open(0, Tier::Low);
    let p = w.slot("x", "x");
    let hidden = w.stage(other, p);
    w.commit(other);
    assert!(
        matches!(
            w.refuse(Op::ToolCall {
                tx,
                tool: NOTE,
                basis: set(&[hidden])
            }),
            ProtocolError::BasisNotAllowed { .. }
        ),
        "not in the snapshot"
    );
}

#[test]
fn a_basis_revoked_since_open_is_refused_under_active_and_accepted_under_snapshot() {
    for tool_basis in [ToolBasis::Active, ToolBasis::Snapshot] {
        let mut w = World::with(
            None,
            Variant {
                tool_basis,
                ..Variant::default()
            },
        );
        let p = w.belief("yes");
        let (r0, _) = w.commit_one(0, Tier::Low, p);
        let tx = w.open(1, Tier::Low);
        w.retracted(Op::Revoke { record: r0 });
        for tool in [NOTE, REFUND] {
            let call = Op::ToolCall {
                tx,
                tool,
                basis: set(&[r0]),
            };
            if tool_basis == ToolBasis::Active {
                assert!(
                    matches!(w.refuse(call), ProtocolError::BasisNotAllowed { .. }),
                    "revoked since open"
                );
                continue;
            }
            let g = w.call(tx, tool, &[r0]);
            assert!(g.allowed);
            let action = g.record.unwrap();
            assert_eq!(
                w.state(action),
                Lifecycle::Committed,
                "a committed tool action with a revoked ancestor: G3 breaks"
            );
        }
    }
}
