//! Unit tests that pin every protocol rule of the card and DESIGN.md:
//! thresholds on both sides, the conflict order, both gate conditions,
//! every repair type, each variant switch and each ablation.

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

    fn ablating(ablation: Mechanism) -> Self {
        Self::with(None, Variant::default().without(ablation))
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
            Outcome::Retracted { repairs } => repairs,
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

// ---- check 1: evidence ------------------------------------------------

#[test]
fn evidence_threshold_is_inclusive_on_both_sides() {
    for (confidence, authority, passes) in [
        (60, 50, true),
        (59, 50, false),
        (59, 89, false),
        (59, 90, true),
        (0, 100, true),
        (100, 0, true),
    ] {
        let mut w = World::new();
        let p = w.belief("yes");
        let p = w.sourced(
            Proposal {
                confidence: Hundredths(confidence),
                ..p
            },
            "lookup",
            authority,
        );
        let (id, c) = w.commit_one(0, Tier::Low, p);
        let expected = if passes {
            (CommitResult::Committed, None)
        } else {
            (CommitResult::Quarantined, Some(Reason::LowEvidence))
        };
        assert_eq!(
            verdict(&c, id),
            expected,
            "confidence {confidence} authority {authority}"
        );
        assert_eq!(
            c.verifier_calls,
            u32::from(passes),
            "only records reaching check 3 cost a call"
        );
    }
}

#[test]
fn a_missing_source_has_authority_one_half() {
    let mut w = World::new();
    let p = Proposal {
        source: None,
        authority: Hundredths(95),
        confidence: Hundredths(10),
        ..w.belief("yes")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, id),
        (CommitResult::Quarantined, Some(Reason::LowEvidence))
    );
}

#[test]
fn evidence_ablation_admits_low_confidence() {
    let mut w = World::ablating(Mechanism::Evidence);
    let p = Proposal {
        confidence: Hundredths(10),
        ..w.belief("yes")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id), (CommitResult::Committed, None));
}

// ---- check 2: validity ------------------------------------------------

#[test]
fn validity_runs_only_with_a_clock_and_is_inclusive() {
    for (clock, from, to, passes) in [
        (None, Some(10), Some(12), true),
        (Some(10), Some(10), Some(12), true),
        (Some(12), Some(10), Some(12), true),
        (Some(9), Some(10), Some(12), false),
        (Some(13), Some(10), Some(12), false),
        (Some(13), Some(10), None, true),
        (Some(-5), None, Some(0), true),
    ] {
        let mut w = World::with(clock, Variant::default());
        let p = Proposal {
            window: Window { from, to },
            ..w.belief("yes")
        };
        let (id, c) = w.commit_one(0, Tier::Low, p);
        let expected = if passes {
            (CommitResult::Committed, None)
        } else {
            (CommitResult::Quarantined, Some(Reason::OutsideValidity))
        };
        assert_eq!(
            verdict(&c, id),
            expected,
            "clock {clock:?} window {from:?}..{to:?}"
        );
    }
}

#[test]
fn evidence_is_checked_before_validity() {
    let mut w = World::with(Some(0), Variant::default());
    let p = Proposal {
        confidence: Hundredths(10),
        window: Window {
            from: Some(5),
            to: None,
        },
        ..w.belief("yes")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id).1, Some(Reason::LowEvidence));
}

#[test]
fn validity_ablation_admits_expired_records() {
    let mut w = World::with(Some(20), Variant::default().without(Mechanism::Validity));
    let p = Proposal {
        window: Window {
            from: None,
            to: Some(3),
        },
        ..w.belief("yes")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id), (CommitResult::Committed, None));
}

// ---- check 3: semantic conflict ----------------------------------------

/// A committed `yes` from `lookup` (authority 0.7), then a second
/// transaction opened after it (so the rival is in its snapshot) stages
/// `candidate`.
fn contest(w: &mut World, candidate: Proposal) -> (RecordId, RecordId, CommitOutcome) {
    let p = w.belief("yes");
    let (old, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    let new = w.stage(tx, candidate);
    let c = w.commit(tx);
    (old, new, c)
}

#[test]
fn same_value_commits_alongside() {
    let mut w = World::new();
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 10);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn higher_authority_supersedes_the_old_value() {
    let mut w = World::new();
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 80);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(c.records[0].superseded, set(&[old]));
    assert_eq!(w.state(old), Lifecycle::Superseded);
}

#[test]
fn lower_authority_is_rejected() {
    let mut w = World::new();
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 69);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(
        verdict(&c, new),
        (CommitResult::Quarantined, Some(Reason::LowerAuthority))
    );
    assert_eq!(w.state(old), Lifecycle::Committed);
    assert_eq!(
        w.store.record(new).unwrap().reason(),
        Some(Reason::LowerAuthority)
    );
}

#[test]
fn equal_authority_from_another_source_goes_to_review() {
    let mut w = World::new();
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 70);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(
        verdict(&c, new),
        (CommitResult::Quarantined, Some(Reason::NeedsReview))
    );
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn equal_authority_same_source_supersedes_in_the_code_and_goes_to_review_in_the_paper() {
    let mut w = World::new();
    let p = w.belief("no");
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(w.state(old), Lifecycle::Superseded);

    let mut w = World::with(
        None,
        Variant {
            same_source_tie: SameSourceTie::Review,
            ..Variant::default()
        },
    );
    let p = w.belief("no");
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(
        verdict(&c, new),
        (CommitResult::Quarantined, Some(Reason::NeedsReview))
    );
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn a_stale_write_loses_even_with_higher_authority() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (_, _) = w.commit_one(0, Tier::Low, p);
    // T1 opens on a snapshot holding r0 ...
    let t1 = w.open(1, Tier::Low);
    // ... then a correction r1 commits after T1's snapshot.
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 80);
    let (r1, _) = w.commit_one(0, Tier::Low, p);
    // T1's late write, with the highest authority, is stale against r1.
    let p = w.belief("maybe");
    let p = w.sourced(p, "oracle", 100);
    let late = w.stage(t1, p);
    let c = w.commit(t1);
    assert_eq!(
        verdict(&c, late),
        (CommitResult::Quarantined, Some(Reason::StaleWrite))
    );
    assert_eq!(w.state(r1), Lifecycle::Committed);
}

#[test]
fn stale_check_on_an_empty_snapshot_is_skipped_in_the_code_and_applied_in_the_paper() {
    for (switch, expected) in [
        (
            StaleCheckEmptySnapshot::Skip,
            (CommitResult::Committed, None),
        ),
        (
            StaleCheckEmptySnapshot::Apply,
            (CommitResult::Quarantined, Some(Reason::StaleWrite)),
        ),
    ] {
        let mut w = World::with(
            None,
            Variant {
                stale_check_empty_snapshot: switch,
                ..Variant::default()
            },
        );
        let t0 = w.open(0, Tier::Low); // empty snapshot
        let p = w.belief("yes");
        w.commit_one(1, Tier::Low, p);
        let p = w.belief("no");
        let p = w.sourced(p, "crm", 90);
        let late = w.stage(t0, p);
        let c = w.commit(t0);
        assert_eq!(verdict(&c, late), expected, "{switch:?}");
    }
}

#[test]
fn a_rival_committed_earlier_in_the_same_transaction_is_a_late_write() {
    let mut w = World::new();
    let p = w.slot("x", "other");
    w.commit_one(0, Tier::Low, p); // makes later snapshots non-empty
    let tx = w.open(0, Tier::Low);
    let p = w.belief("yes");
    let first = w.stage(tx, p);
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 90);
    let second = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, first).0, CommitResult::Committed);
    assert_eq!(
        verdict(&c, second),
        (CommitResult::Quarantined, Some(Reason::StaleWrite))
    );
    assert_eq!(c.status, CommitStatus::Partial);
}

#[test]
fn staging_order_matters_each_commit_is_active_for_the_next() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low); // empty snapshot: no stale check
    let p = w.belief("yes");
    let a = w.stage(tx, p);
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 50);
    let b = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, a).0, CommitResult::Committed);
    assert_eq!(
        verdict(&c, b),
        (CommitResult::Quarantined, Some(Reason::LowerAuthority))
    );
}

#[test]
fn values_in_non_overlapping_windows_coexist() {
    let mut w = World::new();
    let p = Proposal {
        window: Window {
            from: Some(0),
            to: Some(4),
        },
        ..w.belief("yes")
    };
    let (old, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    let p = Proposal {
        window: Window {
            from: Some(5),
            to: None,
        },
        ..w.belief("no")
    };
    let p = w.sourced(p, "crm", 10);
    let new = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(w.state(old), Lifecycle::Committed);
}

#[test]
fn the_first_rival_in_id_order_decides() {
    let mut w = World::new();
    // r0 = yes (0.7), r1 = yes from crm (0.95) on the same slot.
    let p = w.belief("yes");
    w.commit_one(0, Tier::Low, p);
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 95);
    w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    // 0.8 beats r0 (the first rival) although r1 has more authority; both
    // differing rivals are superseded.
    let p = w.belief("no");
    let p = w.sourced(p, "desk", 80);
    let new = w.stage(tx, p);
    let c = w.commit(tx);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(c.records[0].superseded, set(&[0, 1]));
}

#[test]
fn conflict_ablation_lets_contradictions_coexist() {
    let mut w = World::ablating(Mechanism::Conflict);
    let p = w.belief("no");
    let p = w.sourced(p, "crm", 10);
    let (old, new, c) = contest(&mut w, p);
    assert_eq!(verdict(&c, new), (CommitResult::Committed, None));
    assert_eq!(w.state(old), Lifecycle::Committed);
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
    let mut w = World::new();
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    let summary = |w: &mut World, scope| Proposal {
        kind: Kind::Summary,
        scope,
        derived_from: set(&[private]),
        ..w.slot("s", "summary")
    };
    let p = summary(&mut w, Scope::Shared);
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, id),
        (
            CommitResult::Quarantined,
            Some(Reason::PermissionLaundering)
        )
    );
    let p = summary(&mut w, Scope::Private);
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id), (CommitResult::Committed, None));
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
        let child = w.stage(tx, p);
        let c = w.commit(tx);
        assert_eq!(verdict(&c, parent).1, Some(Reason::LowEvidence));
        assert_eq!(verdict(&c, child), expected, "{switch:?}");
    }
}

#[test]
fn permission_inheritance_ablation_admits_laundering() {
    let mut w = World::ablating(Mechanism::PermissionInheritance);
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        kind: Kind::Summary,
        scope: Scope::Public,
        derived_from: set(&[private]),
        ..w.slot("s", "summary")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id), (CommitResult::Committed, None));
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
    // The candidate would lose on authority to r1; laundering decides first.
    let mut w = World::new();
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 95);
    w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        derived_from: set(&[private]),
        ..w.belief("no")
    };
    let (cand, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, cand),
        (
            CommitResult::Quarantined,
            Some(Reason::PermissionLaundering)
        )
    );
    // Without the laundering rule, the same candidate loses on authority.
    let mut w = World::ablating(Mechanism::PermissionInheritance);
    let p = Proposal {
        scope: Scope::Private,
        ..w.slot("secret", "notes")
    };
    let (private, _) = w.commit_one(0, Tier::Low, p);
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 95);
    w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        derived_from: set(&[private]),
        ..w.belief("no")
    };
    let (cand, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, cand),
        (CommitResult::Quarantined, Some(Reason::LowerAuthority))
    );
}

#[test]
fn validity_is_checked_before_conflict_and_costs_no_verifier_call() {
    let mut w = World::with(Some(10), Variant::default());
    let p = w.belief("yes");
    let p = w.sourced(p, "crm", 95);
    w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        window: Window {
            from: None,
            to: Some(5),
        },
        ..w.belief("no")
    };
    let (cand, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        verdict(&c, cand),
        (CommitResult::Quarantined, Some(Reason::OutsideValidity))
    );
    assert_eq!(c.verifier_calls, 0);
}

// ---- check 4: dependency stability ---------------------------------------

/// A revoked grandparent reached through a parent that a commit check
/// quarantined, and that is therefore not in the registry (card pitfall).
fn quarantined_parent_scenario(w: &mut World) -> (RecordId, CommitOutcome) {
    let p = w.slot("g", "g");
    let (grand, _) = w.commit_one(0, Tier::Low, p);
    w.retracted(Op::Revoke { record: grand });
    let p = Proposal {
        derived_from: set(&[grand]),
        ..w.slot("p", "p")
    };
    let (parent, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, parent).1, Some(Reason::RevokedParent));
    let p = Proposal {
        derived_from: set(&[parent]),
        ..w.slot("c", "c")
    };
    w.commit_one(0, Tier::Low, p)
}

#[test]
fn dependency_stability_rejects_a_revoked_transitive_ancestor() {
    let mut w = World::new();
    let (child, c) = quarantined_parent_scenario(&mut w);
    assert_eq!(
        verdict(&c, child),
        (CommitResult::Quarantined, Some(Reason::UnstableDependency))
    );
}

#[test]
fn dependency_stability_ablation_commits_over_a_revoked_ancestor() {
    let mut w = World::ablating(Mechanism::DependencyStability);
    let (child, c) = quarantined_parent_scenario(&mut w);
    assert_eq!(verdict(&c, child), (CommitResult::Committed, None));
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
    let p = w.slot("g", "g");
    let (grand, _) = w.commit_one(0, Tier::Low, p);
    w.retracted(Op::Revoke { record: grand });
    let p = Proposal {
        derived_from: set(&[grand]),
        ..w.slot("p", "p")
    };
    let (parent, _) = w.commit_one(0, Tier::Low, p);
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

// ---- commit outcome ---------------------------------------------------------

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

// ---- isolation ----------------------------------------------------------------

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

// ---- the action gate ------------------------------------------------------------

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
fn tentative_check_comes_before_action_safe_support() {
    let mut w = World::new();
    let tx = w.open(0, Tier::ExternalAction);
    let p = w.belief("yes");
    w.stage(tx, p);
    assert_eq!(
        w.call(tx, REFUND, &[]).reason,
        Some(Refusal::TentativeInFlight)
    );
}

#[test]
fn gate_ablation_lets_irreversible_calls_through() {
    let mut w = World::ablating(Mechanism::Gate);
    let tx = w.open(0, Tier::ExternalAction);
    let p = w.belief("yes");
    w.stage(tx, p);
    assert!(w.call(tx, REFUND, &[]).allowed);
}

#[test]
fn tool_basis_active_refuses_inactive_or_invisible_records() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (r0, _) = w.commit_one(0, Tier::Low, p);
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
    w.retracted(Op::Revoke { record: r0 });
    assert!(
        matches!(
            w.refuse(Op::ToolCall {
                tx,
                tool: NOTE,
                basis: set(&[r0])
            }),
            ProtocolError::BasisNotAllowed { .. }
        ),
        "revoked since open"
    );
}

#[test]
fn tool_basis_snapshot_accepts_a_belief_revoked_since_open() {
    let mut w = World::with(
        None,
        Variant {
            tool_basis: ToolBasis::Snapshot,
            ..Variant::default()
        },
    );
    let p = w.belief("yes");
    let (r0, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(1, Tier::Low);
    w.retracted(Op::Revoke { record: r0 });
    let g = w.call(tx, REFUND, &[r0]);
    assert!(g.allowed);
    let action = g.record.unwrap();
    assert_eq!(
        w.state(action),
        Lifecycle::Committed,
        "a committed tool action with a revoked ancestor: G3 breaks"
    );
}

// ---- retraction and typed repair -------------------------------------------------

#[test]
fn revoke_repairs_each_descendant_by_type() {
    let mut w = World::new();
    let p = w.belief("yes");
    let (root, _) = w.commit_one(0, Tier::ExternalAction, p);
    let on = |w: &mut World, kind, attr: &str, parents: &[RecordId]| Proposal {
        kind,
        derived_from: set(parents),
        ..w.slot("v", attr)
    };
    let p = on(&mut w, Kind::Belief, "b", &[root]);
    let (belief, _) = w.commit_one(0, Tier::Low, p);
    let p = on(&mut w, Kind::Summary, "s", &[belief]);
    let (summary, _) = w.commit_one(0, Tier::Low, p);
    let p = on(&mut w, Kind::Profile, "p", &[root]);
    let (safe_profile, _) = w.commit_one(0, Tier::ExternalAction, p);
    let tx = w.open(1, Tier::ExternalAction);
    let refund = w.call(tx, REFUND, &[root]).record.unwrap();
    let note = w.call(tx, NOTE, &[root]).record.unwrap();
    let repairs = w.retracted(Op::Revoke { record: root });
    assert_eq!(
        repairs,
        vec![
            (root, Repair::Revoked),
            (belief, Repair::Revoked),
            (summary, Repair::Quarantined),
            (safe_profile, Repair::Revoked), // quarantine is not allowed from action_safe
            (refund, Repair::Leaked),
            (note, Repair::Compensated),
        ]
    );
    for (id, state) in [
        (root, Lifecycle::Revoked),
        (belief, Lifecycle::Revoked),
        (summary, Lifecycle::Quarantined),
        (safe_profile, Lifecycle::Revoked),
        (refund, Lifecycle::Revoked),
        (note, Lifecycle::Revoked),
    ] {
        assert_eq!(w.state(id), state, "r{id}");
    }
    assert_eq!(w.store.rollback_log().len(), 6);
    assert!(w.store.rollback_log()[0].root && !w.store.rollback_log()[1].root);
    assert_eq!(w.store.rollback_log()[3].from, Lifecycle::ActionSafe);
    assert_eq!(
        w.store.registry_for_tests(),
        set(&[root, belief, summary, safe_profile, refund, note])
    );
}

#[test]
fn every_view_kind_is_quarantined() {
    for kind in [
        Kind::Summary,
        Kind::Profile,
        Kind::IndexEntry,
        Kind::SharedCopy,
    ] {
        let mut w = World::new();
        let p = w.belief("yes");
        let (root, _) = w.commit_one(0, Tier::Low, p);
        let p = Proposal {
            kind,
            derived_from: set(&[root]),
            ..w.slot("v", "v")
        };
        let (view, _) = w.commit_one(0, Tier::Low, p);
        assert_eq!(
            w.retracted(Op::Revoke { record: root }),
            vec![(root, Repair::Revoked), (view, Repair::Quarantined)]
        );
    }
}

#[test]
fn abort_retracts_every_staged_record_and_repairs_descendants() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let p = w.belief("yes");
    let a = w.stage(tx, p);
    let p = Proposal {
        kind: Kind::Summary,
        ..w.slot("s", "s")
    };
    let own_view = w.stage(tx, p);
    let other = w.open(1, Tier::Low);
    let p = Proposal {
        derived_from: set(&[a]),
        ..w.slot("c", "c")
    };
    let child = w.stage(other, p);
    let repairs = w.retracted(Op::Abort { tx });
    assert_eq!(
        repairs,
        vec![
            (a, Repair::Revoked),
            (own_view, Repair::Revoked),
            (child, Repair::Revoked)
        ]
    );
    assert_eq!(
        w.state(own_view),
        Lifecycle::Revoked,
        "a retracted record ends revoked whatever its type"
    );
    assert_eq!(w.store.transaction(tx).unwrap().status(), TxStatus::Aborted);
    // The other transaction's commit skips the record the cascade revoked.
    let c = w.commit(other);
    assert_eq!(verdict(&c, child), (CommitResult::Revoked, None));
    assert_eq!(c.status, CommitStatus::Aborted);
}

#[test]
fn retracting_a_tool_action_logs_it() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let refund = w.call(tx, REFUND, &[]).record.unwrap();
    assert_eq!(
        w.retracted(Op::Revoke { record: refund }),
        vec![(refund, Repair::Leaked)]
    );
    assert_eq!(w.state(refund), Lifecycle::Revoked);
    let note = w.call(tx, NOTE, &[]).record.unwrap();
    assert_eq!(
        w.retracted(Op::Revoke { record: note }),
        vec![(note, Repair::Compensated)]
    );
}

#[test]
fn a_cascade_leaves_revoked_and_already_quarantined_records_as_they_are() {
    let mut w = World::new();
    let p = w.slot("a", "a");
    let (a, _) = w.commit_one(0, Tier::Low, p);
    let p = w.slot("b", "b");
    let (b, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        kind: Kind::Summary,
        derived_from: set(&[a, b]),
        ..w.slot("s", "s")
    };
    let (view, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        derived_from: set(&[a, b]),
        ..w.slot("c", "c")
    };
    let (child, _) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        w.retracted(Op::Revoke { record: a }),
        vec![
            (a, Repair::Revoked),
            (view, Repair::Quarantined),
            (child, Repair::Revoked)
        ]
    );
    assert_eq!(
        w.retracted(Op::Revoke { record: b }),
        vec![(b, Repair::Revoked)]
    );
}

#[test]
fn cascade_ablation_repairs_only_the_retracted_record() {
    let mut w = World::ablating(Mechanism::Cascade);
    let p = w.belief("yes");
    let (root, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        derived_from: set(&[root]),
        ..w.slot("c", "c")
    };
    let (child, _) = w.commit_one(0, Tier::Low, p);
    assert_eq!(
        w.retracted(Op::Revoke { record: root }),
        vec![(root, Repair::Revoked)]
    );
    assert_eq!(w.state(child), Lifecycle::Committed);
}

#[test]
fn typed_repair_ablation_treats_every_descendant_as_a_belief() {
    let mut w = World::ablating(Mechanism::TypedRepair);
    let p = w.belief("yes");
    let (root, _) = w.commit_one(0, Tier::Low, p);
    let p = Proposal {
        kind: Kind::Summary,
        derived_from: set(&[root]),
        ..w.slot("s", "s")
    };
    let (view, _) = w.commit_one(0, Tier::Low, p);
    let tx = w.open(0, Tier::Low);
    let refund = w.call(tx, REFUND, &[root]).record.unwrap();
    assert_eq!(
        w.retracted(Op::Revoke { record: root }),
        vec![
            (root, Repair::Revoked),
            (view, Repair::Revoked),
            (refund, Repair::Revoked)
        ]
    );
}

// ---- refusals ----------------------------------------------------------------------

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

#[test]
fn a_tool_action_is_never_a_conflict_rival() {
    let mut w = World::new();
    let tx = w.open(0, Tier::Low);
    let action = w.call(tx, NOTE, &[]).record.unwrap();
    let tool = w.syms.intern("send_note");
    let p = Proposal {
        entity: tool,
        attribute: tool,
        value: w.syms.intern("other"),
        ..w.belief("x")
    };
    let (id, c) = w.commit_one(0, Tier::Low, p);
    assert_eq!(verdict(&c, id), (CommitResult::Committed, None));
    assert_eq!(w.state(action), Lifecycle::Committed);
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
