//! Refusals (DESIGN.md): every operation the protocol refuses names its
//! reason and leaves the store exactly as it was; the store's bounds (64
//! records, 256 transactions) are refusals too.

use super::*;

#[test]
fn refused_operations_leave_the_store_unchanged() {
    let mut w = World::new();
    let p = w.belief("yes");
    assert_eq!(
        w.refuse(Op::Stage { tx: 0, proposal: p }),
        ProtocolError::UnknownTransaction(0)
    );
    let tx = w.open(0, Tier::Low);
    let bad_parent = Proposal {
        derived_from: set(&[7]),
        ..p
    };
    assert_eq!(
        w.refuse(Op::Stage {
            tx,
            proposal: bad_parent
        }),
        ProtocolError::UnknownParent(7)
    );
    let tool_action = Proposal {
        kind: Kind::ToolAction,
        ..p
    };
    assert_eq!(
        w.refuse(Op::Stage {
            tx,
            proposal: tool_action
        }),
        ProtocolError::StagedToolAction
    );
    let r = w.stage(tx, p);
    assert!(
        matches!(
            w.refuse(Op::Revoke { record: r }),
            ProtocolError::NotRevocable { .. }
        ),
        "tentative is not revocable"
    );
    assert_eq!(
        w.refuse(Op::Revoke { record: 9 }),
        ProtocolError::UnknownRecord(9)
    );
    assert_eq!(
        w.refuse(Op::ToolCall {
            tx,
            tool: 5,
            basis: RecordSet::EMPTY
        }),
        ProtocolError::UnknownTool(5)
    );
    w.apply(Op::Abort { tx });
    assert!(matches!(
        w.refuse(Op::Stage { tx, proposal: p }),
        ProtocolError::TransactionNotOpen { .. }
    ));
    assert!(matches!(
        w.refuse(Op::Commit { tx }),
        ProtocolError::TransactionNotOpen { .. }
    ));
    assert!(matches!(
        w.refuse(Op::Abort { tx }),
        ProtocolError::TransactionNotOpen { .. }
    ));
    assert_eq!(
        w.refuse(Op::ToolCall {
            tx,
            tool: NOTE,
            basis: RecordSet::EMPTY
        }),
        ProtocolError::TransactionAborted(tx)
    );
    assert!(
        matches!(
            w.refuse(Op::Revoke { record: r }),
            ProtocolError::NotRevocable { .. }
        ),
        "revoked is not revocable again"
    );
}

#[test]
fn the_store_holds_at_most_max_records() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    for _ in 0..MAX_RECORDS {
        let p = w.belief("yes");
        w.stage(tx, p);
    }
    let p = w.belief("yes");
    assert_eq!(
        w.refuse(Op::Stage { tx, proposal: p }),
        ProtocolError::StoreFull
    );
}

#[test]
fn at_most_256_transactions() {
    let mut w = World::new();
    for i in 0..=255u8 {
        assert_eq!(w.open(0, Tier::Low), i);
    }
    assert_eq!(
        w.refuse(Op::Open {
            agent: 0,
            tier: Tier::Low
        }),
        ProtocolError::TooManyTransactions
    );
}
