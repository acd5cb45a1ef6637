//! Unit tests that pin every protocol rule of the card and DESIGN.md:
//! thresholds on both sides, the conflict order, both gate conditions,
//! every repair type, each variant switch and each ablation. One file per
//! rule; a scenario is written once and, where a switch or an ablation
//! changes its verdict, run over the list of variants with the verdict
//! each should give. [`World`] reads like the card's scenarios.

mod commit;
mod conflict;
mod contracts;
mod dependency;
mod evidence_validity;
mod gate;
mod isolation;
mod parents;
mod rebuild;
mod refusals;
mod repair;
mod tool_basis;

use super::*;

/// A small world: symbols, a protocol and a store, with helpers that read
/// like the card's scenarios.
struct World {
    syms: Symbols,
    protocol: Protocol,
    store: Store,
}

const REFUND: u8 = 0; // irreversible
const NOTE: u8 = 1; // reversible

impl World {
    fn new() -> Self {
        Self::with(None, Variant::default())
    }

    fn with(clock: Option<i32>, variant: Variant) -> Self {
        let mut syms = Symbols::new();
        let tools = vec![
            Tool {
                name: syms.intern("issue_refund"),
                irreversible: true,
            },
            Tool {
                name: syms.intern("send_note"),
                irreversible: false,
            },
        ];
        World {
            syms,
            protocol: Protocol::new(tools, clock, variant),
            store: Store::new(),
        }
    }

    /// A belief on `order841.refund_eligible` with the given value, from
    /// source `lookup` at authority 0.7 and confidence 0.8, shared scope.
    fn belief(&mut self, value: &str) -> Proposal {
        Proposal {
            kind: Kind::Belief,
            entity: self.syms.intern("order841"),
            attribute: self.syms.intern("refund_eligible"),
            value: self.syms.intern(value),
            source: Some(self.syms.intern("lookup")),
            authority: Hundredths(70),
            confidence: Hundredths(80),
            owner: None,
            scope: Scope::Shared,
            derived_from: RecordSet::EMPTY,
            window: Window::default(),
        }
    }

    /// A belief like [`World::belief`] on attribute `attribute`.
    fn slot(&mut self, value: &str, attribute: &str) -> Proposal {
        let p = self.belief(value);
        Proposal {
            attribute: self.syms.intern(attribute),
            ..p
        }
    }

    fn sourced(&mut self, p: Proposal, source: &str, authority: u8) -> Proposal {
        Proposal {
            source: Some(self.syms.intern(source)),
            authority: Hundredths(authority),
            ..p
        }
    }

    fn apply(&mut self, op: Op) -> Outcome {
        self.protocol
            .apply(&mut self.store, &op)
            .unwrap_or_else(|e| panic!("{op:?} refused: {e}"))
    }

    fn refuse(&mut self, op: Op) -> ProtocolError {
        let before = self.store.clone();
        let err = self
            .protocol
            .apply(&mut self.store, &op)
            .expect_err("expected a refusal");
        assert_eq!(
            self.store, before,
            "a refused operation leaves the store unchanged"
        );
        err
    }

    fn open(&mut self, agent: u8, tier: Tier) -> TxId {
        match self.apply(Op::Open { agent, tier }) {
            Outcome::Opened { tx, .. } => tx,
            other => panic!("{other:?}"),
        }
    }

    fn stage(&mut self, tx: TxId, proposal: Proposal) -> RecordId {
        match self.apply(Op::Stage { tx, proposal }) {
            Outcome::Staged { record } => record,
            other => panic!("{other:?}"),
        }
    }

    fn commit(&mut self, tx: TxId) -> CommitOutcome {
        match self.apply(Op::Commit { tx }) {
            Outcome::Committed(c) => c,
            other => panic!("{other:?}"),
        }
    }

    /// Opens, stages one proposal and commits it; returns the record.
    fn commit_one(
        &mut self,
        agent: u8,
        tier: Tier,
        proposal: Proposal,
    ) -> (RecordId, CommitOutcome) {
        let tx = self.open(agent, tier);
        let id = self.stage(tx, proposal);
        (id, self.commit(tx))
    }

    fn call(&mut self, tx: TxId, tool: u8, basis: &[RecordId]) -> GateOutcome {
        match self.apply(Op::ToolCall {
            tx,
            tool,
            basis: basis.iter().copied().collect(),
        }) {
            Outcome::ToolCall(g) => g,
            other => panic!("{other:?}"),
        }
    }

    fn retracted(&mut self, op: Op) -> Vec<(RecordId, Repair)> {
        match self.apply(op) {
            Outcome::Retracted { repairs, .. } => repairs.to_vec(),
            other => panic!("{other:?}"),
        }
    }

    fn state(&self, id: RecordId) -> Lifecycle {
        self.store.record(id).unwrap().state()
    }
}

fn verdict(c: &CommitOutcome, id: RecordId) -> (CommitResult, Option<Reason>) {
    let v = c
        .records
        .iter()
        .find(|v| v.id == id)
        .expect("a verdict for the record");
    (v.result, v.reason)
}

fn set(ids: &[RecordId]) -> RecordSet {
    ids.iter().copied().collect()
}

/// The default variant with `mechanism` ablated.
fn without(mechanism: Mechanism) -> Variant {
    Variant::default().without(mechanism)
}

#[test]
fn the_protocol_is_deterministic() {
    let run = || {
        let mut w = World::new();
        let p = w.belief("yes");
        w.commit_one(0, Tier::ExternalAction, p);
        let tx = w.open(1, Tier::ExternalAction);
        w.call(tx, REFUND, &[0]);
        w.retracted(Op::Revoke { record: 0 });
        w.store
    };
    assert_eq!(run(), run());
}
