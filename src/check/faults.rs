//! Each broken protocol variant (a test-only [`Fault`]: the protocol's
//! rule book with one entry replaced by a broken rule of a few lines,
//! `protocol/faults.rs`) is caught by the exhaustive check on a small
//! model: the property it breaks is violated, with the clause named, and the same
//! model without the fault keeps that property, so the fault is what is
//! caught. One property at least per fault, every property of ours and
//! the paper's three among them; and "forgetting to log a retraction" is
//! caught by log completeness, while a revoke that is neither logged nor
//! cascaded is caught by I2 read from the actions taken, with a rollback
//! log that says nothing happened.

use super::{run, CheckOptions, CheckReport, Outcome};
use crate::config::ModelConfig;
use crate::invariants::Invariant;
use crate::model::{MemtxModel, ModelSpec};
use crate::protocol::{Fault, Op};

/// A template as model JSON: a belief or a summary on order841, `fields`
/// replacing the defaults (a model may not give a key twice).
fn template(name: &str, fields: &str) -> String {
    let mut base: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&format!(
        r#"{{"name": "{name}", "kind": "belief", "entity": "order841",
            "attribute": "refund_eligible", "value": "yes", "source": "lookup",
            "authority": 0.7, "confidence": 0.8, "scope": "shared"}}"#
    ))
    .expect("the default template");
    let given: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&format!("{{{fields}}}")).expect("template fields");
    base.extend(given);
    serde_json::Value::Object(base).to_string()
}

const LOOKUP: &str = r#""parent": "none""#;
const SUMMARY: &str =
    r#""kind": "summary", "attribute": "summary", "value": "eligible", "parent": "required""#;

/// A model: records, transactions, depth, tiers, clock, templates, and
/// one irreversible tool.
fn model(
    bounds: (usize, usize, usize),
    tiers: &str,
    clock: &str,
    templates: &[String],
) -> ModelConfig {
    let mut config = untooled(bounds, tiers, clock, templates);
    config.tools = vec![crate::config::ToolConfig {
        name: "issue_refund".to_owned(),
        irreversible: true,
    }];
    config
}

/// The same with no tool: where a tool action would break the property
/// under another clause at the same depth, which of the two the engine
/// shows first would depend on its state order.
fn untooled(
    bounds: (usize, usize, usize),
    tiers: &str,
    clock: &str,
    templates: &[String],
) -> ModelConfig {
    let (records, transactions, depth) = bounds;
    let json = format!(
        r#"{{"bounds": {{"records": {records}, "transactions": {transactions}, "depth": {depth}}},
            "agents": 1, "tiers": [{tiers}], "clock": {clock},
            "templates": [{}]}}"#,
        templates.join(", ")
    );
    ModelConfig::parse(&json, "fault.json").expect("a valid test model")
}

fn check(config: &ModelConfig) -> CheckReport {
    run(config, CheckOptions::quiet(2))
}

/// `fault` breaks `inv` with `clause` at `depth` on `config`, which keeps
/// `inv` without it.
fn caught(
    config: ModelConfig,
    fault: Fault,
    inv: Invariant,
    clause: &str,
    depth: usize,
) -> CheckReport {
    assert_eq!(
        check(&config).outcome(inv),
        Some(Outcome::Holds),
        "{inv} without {fault:?}"
    );
    let mut broken = config;
    broken.variant = broken.variant.with_fault(fault);
    let report = check(&broken);
    let p = report
        .properties
        .iter()
        .find(|p| p.kind == crate::model::PropertyKind::Invariant(inv))
        .expect("every invariant is judged");
    assert_eq!(
        (p.outcome, p.clause),
        (Outcome::Violated { depth }, Some(clause)),
        "{fault:?}: {inv}"
    );
    report
}

/// `fault` is caught by `clause` of `inv` alone: with that clause
/// switched off, the faulty protocol's verdicts on `config` are the
/// intact protocol's, every invariant's. (Companions may differ: the
/// fault changes what the protocol does.)
fn only_clause_catches(
    config: ModelConfig,
    fault: Fault,
    inv: Invariant,
    clause: &'static str,
    depth: usize,
) -> CheckReport {
    only_clauses_catch(config, fault, &[(inv, clause, depth)])
}

/// `fault` is caught by each of `catchers` (invariant, clause, depth) and
/// by nothing else: with those clauses switched off, the faulty
/// protocol's verdicts on `config` are the intact protocol's.
fn only_clauses_catch(
    config: ModelConfig,
    fault: Fault,
    catchers: &[(Invariant, &'static str, usize)],
) -> CheckReport {
    let intact = check(&config);
    let mut report = None;
    for &(inv, clause, depth) in catchers {
        report = Some(caught(config.clone(), fault, inv, clause, depth));
    }
    let mut broken = config;
    broken.variant = broken.variant.with_fault(fault);
    let mut spec = ModelSpec::from_config(&broken);
    for &(inv, clause, _) in catchers {
        spec.mute(inv, clause);
    }
    let weakened = super::run_spec(&broken, spec, CheckOptions::quiet(2));
    let invariants = intact
        .properties
        .iter()
        .filter(|p| matches!(p.kind, crate::model::PropertyKind::Invariant(_)));
    for p in invariants {
        let without = weakened
            .properties
            .iter()
            .find(|q| q.kind == p.kind)
            .expect("the same properties");
        assert_eq!(
            (without.outcome, without.clause),
            (p.outcome, p.clause),
            "{fault:?} with {catchers:?} switched off: {}",
            p.kind.name()
        );
    }
    report.expect("at least one catcher")
}

fn lookup() -> String {
    template("lookup", LOOKUP)
}

fn summary() -> String {
    template("summary", SUMMARY)
}

#[test]
fn a_gate_without_its_external_action_clause_breaks_i1() {
    let config = model((2, 1, 4), r#""external_action""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::GateIgnoresSupport,
        Invariant::I1,
        "unsupported",
        4,
    );
}

#[test]
fn a_cascade_that_skips_grandchildren_breaks_i2() {
    // Without a tool: a skipped grandchild tool action breaks I2 under
    // `tool_action` at the same depth, and the clause shown would be the
    // engine's choice among equally short counterexamples.
    let config = untooled((3, 1, 6), r#""low""#, "null", &[lookup(), summary()]);
    caught(
        config,
        Fault::CascadeSkipsGrandchildren,
        Invariant::I2,
        "view",
        6,
    );
}

#[test]
fn check_4_on_direct_parents_only_breaks_g3() {
    // The card's quarantined-parent pitfall: a summary of a summary that
    // check 4 quarantined... here, of one whose parent was revoked.
    let private = template(
        "note",
        r#""value": "no", "source": "notes", "scope": "private", "parent": "none""#,
    );
    let config = model(
        (3, 2, 7),
        r#""low""#,
        "null",
        &[lookup(), private, summary()],
    );
    caught(
        config,
        Fault::DependencyParentsOnly,
        Invariant::G3,
        "revoked_ancestor",
        7,
    );
}

#[test]
fn a_missing_source_that_keeps_its_authority_breaks_evidence() {
    let anonymous = template(
        "anonymous",
        r#""source": null, "authority": 0.95, "confidence": 0.4, "parent": "none""#,
    );
    let config = model((1, 1, 3), r#""low""#, "null", &[anonymous]);
    // Admission judges the commit that lets the record through.
    only_clauses_catch(
        config,
        Fault::MissingSourceKeepsAuthority,
        &[
            (Invariant::Evidence, "low_evidence", 3),
            (Invariant::Admission, "committed", 3),
        ],
    );
}

#[test]
fn a_window_read_a_day_late_breaks_validity() {
    let expired = template("expired", r#""valid_to": 9, "parent": "none""#);
    let config = model((1, 1, 3), r#""low""#, "10", &[expired]);
    // Admission judges the commit that lets the record through.
    only_clauses_catch(
        config,
        Fault::ValidityOffByOne,
        &[
            (Invariant::Validity, "outside_window", 3),
            (Invariant::Admission, "committed", 3),
        ],
    );
}

#[test]
fn a_supersede_that_moves_no_rival_breaks_one_value_per_slot() {
    let correction = template(
        "correction",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5, "parent": "none""#,
    );
    let config = model((2, 1, 4), r#""low""#, "null", &[lookup(), correction]);
    // Admission judges the rival that `supersede_old` had to move.
    only_clauses_catch(
        config,
        Fault::SupersedeForgetsRivals,
        &[
            (Invariant::OneValuePerSlot, "two_values", 4),
            (Invariant::Admission, "rival_kept", 4),
        ],
    );
}

#[test]
fn laundering_checked_for_public_children_only_breaks_scope() {
    let private = template(
        "note",
        r#""value": "no", "scope": "private", "parent": "none""#,
    );
    let config = model((2, 1, 4), r#""low""#, "null", &[private, summary()]);
    // Admission judges the commit that lets the record through.
    only_clauses_catch(
        config,
        Fault::LaunderingPublicOnly,
        &[
            (Invariant::Scope, "laundered", 4),
            (Invariant::Admission, "committed", 4),
        ],
    );
}

#[test]
fn quarantining_an_action_safe_view_breaks_lifecycle() {
    let config = model(
        (2, 1, 5),
        r#""external_action""#,
        "null",
        &[lookup(), summary()],
    );
    only_clause_catches(
        config,
        Fault::QuarantineFromActionSafe,
        Invariant::Lifecycle,
        "move",
        5,
    );
}

#[test]
fn forgetting_to_log_a_retraction_breaks_log_completeness() {
    let config = model((1, 1, 3), r#""low""#, "null", &[lookup()]);
    let report = only_clause_catches(
        config,
        Fault::UnloggedRetraction,
        Invariant::LogCompleteness,
        "root_entry",
        3,
    );
    // The abort revoked its record and repaired nothing else: I2 has
    // nothing to object to, the missing entry is log completeness's alone.
    assert_eq!(report.outcome(Invariant::I2), Some(Outcome::Holds));
}

/// lookup, the CRM's correction and an audit's recheck on one slot, two
/// transactions: where a late write meets a rival committed after its
/// snapshot.
fn stale_write_model() -> ModelConfig {
    let correction = template(
        "correction",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5, "parent": "none""#,
    );
    let recheck = template(
        "recheck",
        r#""source": "audit", "authority": 0.95, "parent": "none""#,
    );
    model(
        (3, 2, 7),
        r#""low""#,
        "null",
        &[lookup(), correction, recheck],
    )
}

#[test]
fn a_stale_check_that_never_fires_breaks_stale_writes() {
    // T1's snapshot holds lookup; its correction supersedes lookup and
    // commits, then its recheck meets the correction (committed after the
    // snapshot) as its deciding rival and, unchecked, supersedes it.
    let config = stale_write_model();
    caught(
        config,
        Fault::StaleCheckSkipped,
        Invariant::StaleWrite,
        "stale_win",
        7,
    );
}

#[test]
fn an_abort_that_leaves_its_records_tentative_breaks_tx_hygiene() {
    let config = model((1, 1, 3), r#""low""#, "null", &[lookup()]);
    caught(
        config,
        Fault::AbortLeavesTentative,
        Invariant::TxHygiene,
        "orphan_tentative",
        3,
    );
}

#[test]
fn an_external_action_commit_that_is_not_action_safe_breaks_tx_hygiene() {
    let config = model((1, 1, 3), r#""external_action""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::ExternalCommitNotSafe,
        Invariant::TxHygiene,
        "not_action_safe",
        3,
    );
}

#[test]
fn an_external_action_snapshot_that_sees_committed_records_breaks_snapshots() {
    let config = model(
        (1, 2, 4),
        r#""low", "external_action""#,
        "null",
        &[lookup()],
    );
    only_clause_catches(
        config,
        Fault::ExternalSnapshotSeesCommitted,
        Invariant::Snapshot,
        "at_open",
        4,
    );
}

#[test]
fn a_silent_revoke_breaks_i2_read_from_the_actions_with_an_empty_log() {
    // A refund on the lookup, then the silent revoke. The shortest
    // counterexamples take 5 steps: revoking the refund itself leaves a
    // retracted tool action with no compensated or leaked entry (clause
    // `log`); revoking the lookup leaves the refund committed on a revoked
    // basis (`tool_action`). Which of the two the engine shows is its
    // fingerprint order's choice (scheme 2 shows the second), so the
    // first is walked below.
    let config = model((2, 1, 5), r#""low""#, "null", &[lookup()]);
    let report = caught(
        config.clone(),
        Fault::SilentRevoke,
        Invariant::I2,
        "tool_action",
        5,
    );
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.invariant == Invariant::I2)
        .expect("a counterexample");
    let last = c.stores.last().expect("a path");
    // A checker that took its retractions from the log's root entries
    // would have had nothing to check here.
    assert!(last.rollback_log().is_empty());
    assert_eq!(
        report.outcome(Invariant::LogCompleteness),
        Some(Outcome::Violated { depth: 4 })
    );
    let mut broken = config;
    broken.variant = broken.variant.with_fault(Fault::SilentRevoke);
    let (store, monitor, spec) = walk(
        &broken,
        &[
            |op| matches!(op, Op::Open { .. }),
            |op| matches!(op, Op::Stage { .. }),
            |op| matches!(op, Op::Commit { .. }),
            |op| matches!(op, Op::ToolCall { .. }),
            |op| matches!(op, Op::Revoke { record: 1 }),
        ],
    );
    assert!(store.rollback_log().is_empty());
    let v =
        crate::invariants::check_state_of(Invariant::I2, spec.context(), store.view(), &monitor)
            .expect("the refund revoked without a log entry breaks I2");
    assert_eq!(v.clause, "log", "{v:?}");
}

/// The state of `config`'s model after the actions whose operations the
/// predicates pick, one each, in order (the first match each time).
fn walk(
    config: &ModelConfig,
    picks: &[fn(&Op) -> bool],
) -> (
    crate::protocol::Store,
    crate::invariants::Monitor,
    ModelSpec,
) {
    use stateright::Model;
    let model = MemtxModel::new(ModelSpec::from_config(config));
    let mut state = model.init_states().remove(0);
    for pick in picks {
        let mut actions = Vec::new();
        model.actions(&state, &mut actions);
        let action = actions
            .into_iter()
            .find(|a| pick(&model.op(a)))
            .expect("an action the predicate picks");
        state = model.step(&state, &action).expect("a transition").0;
    }
    (state.store, state.monitor, model.spec)
}

// Admission: the converse of each commit check, and the card's order.

#[test]
fn a_confidence_threshold_made_exclusive_breaks_admission() {
    let borderline = template("borderline", r#""confidence": 0.6, "parent": "none""#);
    let config = model((1, 1, 3), r#""low""#, "null", &[borderline]);
    only_clause_catches(
        config,
        Fault::EvidenceThresholdExclusive,
        Invariant::Admission,
        "evidence",
        3,
    );
}

#[test]
fn an_authority_bypass_made_exclusive_breaks_admission() {
    let crm = template(
        "crm",
        r#""source": "crm", "authority": 0.9, "confidence": 0.5, "parent": "none""#,
    );
    let config = model((1, 1, 3), r#""low""#, "null", &[crm]);
    only_clause_catches(
        config,
        Fault::AuthorityBypassExclusive,
        Invariant::Admission,
        "evidence",
        3,
    );
}

#[test]
fn a_window_end_made_exclusive_breaks_admission() {
    let ending = template("ending", r#""valid_to": 10, "parent": "none""#);
    let config = model((1, 1, 3), r#""low""#, "10", &[ending]);
    only_clause_catches(
        config,
        Fault::WindowEndExclusive,
        Invariant::Admission,
        "validity",
        3,
    );
}

#[test]
fn a_dropped_same_value_rule_breaks_admission() {
    // Two sources agree: both must stand; without the rule the second
    // goes to user review (equal authority, another source).
    let echo = template("echo", r#""source": "crm", "parent": "none""#);
    let config = model((2, 1, 4), r#""low""#, "null", &[lookup(), echo]);
    only_clause_catches(
        config,
        Fault::SameValueConflicts,
        Invariant::Admission,
        "conflict",
        4,
    );
}

#[test]
fn a_dependency_check_that_refuses_superseded_ancestors_breaks_admission() {
    // lookup commits, the correction supersedes it in the same commit,
    // then the summary of lookup is judged: superseded is not revoked.
    let correction = template(
        "correction",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5, "parent": "none""#,
    );
    let config = model(
        (3, 1, 5),
        r#""low""#,
        "null",
        &[lookup(), correction, summary()],
    );
    only_clause_catches(
        config,
        Fault::DependencyRejectsSuperseded,
        Invariant::Admission,
        "dependency",
        5,
    );
}

#[test]
fn laundering_tested_before_the_revoked_parent_rule_breaks_admission_order() {
    // Under the paper's any-parent laundering, a public summary of an
    // aborted private note fails both rules: the card names the revoked
    // parent first.
    let private = template(
        "note",
        r#""value": "no", "scope": "private", "parent": "none""#,
    );
    let mut config = model((2, 2, 6), r#""low""#, "null", &[private, summary()]);
    config.variant.laundering_parents = crate::protocol::LaunderingParents::Any;
    only_clause_catches(
        config,
        Fault::LaunderingBeforeRevokedParent,
        Invariant::Admission,
        "order",
        6,
    );
}

#[test]
fn a_tie_decided_by_the_owner_breaks_admission_committed_alone() {
    // Two sources of equal authority disagree: the card sends the second
    // to review. Decided by the owner (one agent owns both), it
    // supersedes instead: one value stands, reported truly, and nothing is
    // quarantined, so only the clause that judges what a commit lets
    // through sees it.
    let echo = template(
        "echo",
        r#""value": "no", "source": "crm", "parent": "none""#,
    );
    let config = untooled((2, 1, 4), r#""low""#, "null", &[lookup(), echo]);
    only_clause_catches(
        config,
        Fault::TieDecidedByOwner,
        Invariant::Admission,
        "committed",
        4,
    );
}

#[test]
fn a_supersede_that_ignores_windows_breaks_admission_supersede_alone() {
    // `early` and `later` hold the slot in disjoint windows; the
    // correction overlaps `early` only, so the card supersedes `early`
    // alone. Displacing `later` too leaves fewer values, not more, and the
    // verdict reports it: only the clause that recomputes what
    // `supersede_old` displaces sees it.
    let early = template(
        "early",
        r#""valid_from": 1, "valid_to": 5, "parent": "none""#,
    );
    let later = template(
        "later",
        r#""value": "maybe", "valid_from": 6, "valid_to": 10, "parent": "none""#,
    );
    let correction = template(
        "correction",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5,
            "valid_from": 1, "valid_to": 5, "parent": "none""#,
    );
    let config = untooled((3, 1, 5), r#""low""#, "null", &[early, later, correction]);
    only_clause_catches(
        config,
        Fault::SupersedeIgnoresWindows,
        Invariant::Admission,
        "supersede",
        5,
    );
}

#[test]
fn check_3_reading_revoked_parents_from_states_breaks_admission_order_alone() {
    // The registry case, at depth 9 on the shipped rebuild model: T0
    // stages a lookup (r0), T1 a crm record (r1) and a summary of both
    // (r2); T0's abort revokes r0 and holds r2 back; T1 rebuilds r2 from
    // r1, stages a summary of r2 and r1 (r3) and commits. r2 commits
    // again but stays in the registry, which only grows, so check 3
    // refuses r3 (`revoked_parent`). Read from the states, r2 is
    // committed and check 3 passes; check 4, reading the registry, still
    // quarantines r3 (`unstable_dependency`): the reason is not the first
    // failing check's, and nothing but admission's `order` sees it.
    let config =
        ModelConfig::load(std::path::Path::new("models/coverage/rebuild.json")).expect("a model");
    only_clause_catches(
        config,
        Fault::RevokedParentFromStates,
        Invariant::Admission,
        "order",
        9,
    );
}

// Honest outcomes: what each operation reports is what it did.

#[test]
fn a_status_that_miscounts_action_safe_records_breaks_honest_outcome() {
    let config = model((1, 1, 3), r#""external_action""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::StatusIgnoresActionSafe,
        Invariant::HonestOutcome,
        "status",
        3,
    );
}

#[test]
fn an_action_safe_record_reported_committed_breaks_honest_outcome() {
    let config = model((1, 1, 3), r#""external_action""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::ActionSafeReportedCommitted,
        Invariant::HonestOutcome,
        "verdict",
        3,
    );
}

#[test]
fn a_quarantine_reported_as_a_revocation_breaks_honest_outcome() {
    // Revoking a committed lookup holds back its committed summary.
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup(), summary()]);
    only_clause_catches(
        config,
        Fault::QuarantineReportedRevoked,
        Invariant::HonestOutcome,
        "repair",
        5,
    );
}

#[test]
fn an_executed_call_that_reports_no_record_breaks_honest_outcome() {
    let config = model((2, 1, 4), r#""low""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::ExecutedCallReportsNoRecord,
        Invariant::HonestOutcome,
        "gate",
        4,
    );
}

#[test]
fn a_supersede_left_out_of_the_verdict_breaks_honest_outcome() {
    let correction = template(
        "correction",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5, "parent": "none""#,
    );
    let config = untooled((2, 1, 4), r#""low""#, "null", &[lookup(), correction]);
    only_clause_catches(
        config,
        Fault::SupersedeUnreported,
        Invariant::HonestOutcome,
        "unreported",
        4,
    );
}

#[test]
fn an_open_that_reports_an_empty_snapshot_breaks_honest_outcome() {
    let config = untooled((1, 2, 4), r#""external_action""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::OpenReportsEmptySnapshot,
        Invariant::HonestOutcome,
        "report",
        4,
    );
}

#[test]
fn a_view_revoked_where_it_could_be_quarantined_breaks_i2_view_alone() {
    // A revoked view is no active record (G3 holds) and the repair
    // reports the revocation it made (honest): only I2's view clause
    // says a committed view must be held back, not revoked.
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup(), summary()]);
    only_clause_catches(
        config,
        Fault::ViewRevokedNotQuarantined,
        Invariant::I2,
        "view",
        5,
    );
}

#[test]
fn a_cascade_that_holds_back_a_belief_breaks_i2_belief_alone() {
    let derived = template(
        "reason",
        r#""attribute": "refund_reason", "value": "damaged", "parent": "required""#,
    );
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup(), derived]);
    only_clause_catches(
        config,
        Fault::CascadeQuarantinesBeliefs,
        Invariant::I2,
        "belief",
        5,
    );
}

#[test]
fn check_4_on_direct_parents_only_breaks_g3_alone() {
    // Without the private note of the test above, whose laundering the
    // same fault lets through as well.
    let config = model((3, 2, 7), r#""low""#, "null", &[lookup(), summary()]);
    // Admission judges the commit that lets the record through.
    only_clauses_catch(
        config,
        Fault::DependencyParentsOnly,
        &[
            (Invariant::G3, "revoked_ancestor", 7),
            (Invariant::Admission, "committed", 7),
        ],
    );
}

#[test]
fn a_gate_that_lets_records_in_flight_pass_breaks_i1_in_flight_alone() {
    let config = model((3, 2, 6), r#""low""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::GateIgnoresInFlight,
        Invariant::I1,
        "in_flight",
        6,
    );
}

#[test]
fn a_stale_check_skipped_for_stronger_writes_breaks_stale_writes_alone() {
    // Unlike a stale check that never fires, a weaker stale write is
    // still refused for being stale, so no refusal gives another reason.
    let config = stale_write_model();
    // Admission judges the commit that lets the record through.
    only_clauses_catch(
        config,
        Fault::StaleCheckSkippedForStronger,
        &[
            (Invariant::StaleWrite, "stale_win", 7),
            (Invariant::Admission, "committed", 7),
        ],
    );
}

#[test]
fn staging_into_the_snapshot_breaks_snapshots_changed_alone() {
    // No tool: with one, the gate would let the staged record's own
    // irreversible call pass (I1).
    let config = untooled((1, 1, 2), r#""low""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::StageJoinsSnapshot,
        Invariant::Snapshot,
        "changed",
        2,
    );
}

#[test]
fn a_gate_that_ignores_the_snapshot_breaks_i1_blocked_alone() {
    // Only revalidation makes a record tentative inside a snapshot
    // (model/tests.rs says why), so the shipped revalidation model.
    let mut config = ModelConfig::load(std::path::Path::new("models/coverage/revalidate.json"))
        .expect("a model");
    config.bounds.depth = crate::config::Depth::Bounded(9);
    only_clause_catches(
        config,
        Fault::GateIgnoresSnapshot,
        Invariant::I1,
        "blocked",
        9,
    );
}

/// Templates of a lookup, a crm note and a summary of two sources.
fn two_source_summary() -> Vec<String> {
    let crm = template(
        "crm",
        r#""attribute": "refund_reason", "value": "damaged", "source": "crm", "parent": "none""#,
    );
    let two = template(
        "summary",
        r#""kind": "summary", "attribute": "summary", "value": "eligible", "parent": "two""#,
    );
    vec![lookup(), crm, two]
}

#[test]
fn a_revalidation_that_drops_revoked_parents_breaks_lifecycle_provenance_alone() {
    // The same held-back summary, revalidated by T1: parents change only
    // by a rebuild, so only provenance sees a revalidation that narrows
    // them (I2 then reads the view as rebuilt, and its commit passes).
    let mut config = untooled((3, 2, 7), r#""low""#, "null", &two_source_summary());
    config.revalidate = true;
    only_clause_catches(
        config,
        Fault::RevalidateDropsRevokedSources,
        Invariant::Lifecycle,
        "provenance",
        7,
    );
}

#[test]
fn a_rebuild_that_keeps_a_revoked_source_breaks_lifecycle_alone() {
    // Shortest: T0 stages a lookup (r0), T1 a crm note (r1) and a
    // summary of both (r2); T0's abort revokes r0 and holds r2 back; T1
    // rebuilds it (depth 7). Kept, its revoked source only sends it back
    // to quarantine at T1's commit (check 3), and a held-back view being
    // rebuilt is what I2 allows: only the clause on what a rebuild keeps
    // sees it.
    let mut config = untooled((3, 2, 8), r#""low""#, "null", &two_source_summary());
    config.rebuild = true;
    only_clause_catches(
        config,
        Fault::RebuildKeepsRevokedSource,
        Invariant::Lifecycle,
        "rebuilt_from_survivors",
        7,
    );
}

// The clauses a tool action's retraction is judged by. The model of the
// silent revoke: a lookup committed, a refund called on it, then a revoke
// of the lookup (the cascade reaches the refund) or of the refund itself.

/// One lookup, one transaction, the irreversible refund: open, stage,
/// commit, call, revoke.
fn refund_model() -> ModelConfig {
    model((2, 1, 5), r#""low""#, "null", &[lookup()])
}

#[test]
fn a_leak_logged_as_compensated_breaks_i2_log_alone() {
    // The outcome reports the leak (honest), the log holds one entry for
    // the refund (complete): only I2's log clause reads which repair the
    // log says the irreversible tool's action had.
    only_clause_catches(
        refund_model(),
        Fault::LogCompensatesLeaks,
        Invariant::I2,
        "log",
        5,
    );
}

#[test]
fn a_tool_repair_logged_twice_breaks_log_completeness_tool_action_entry_alone() {
    // I2 finds the leaked entry it asks for; the outcome reports the
    // repair once: only log completeness counts the entries.
    only_clause_catches(
        refund_model(),
        Fault::ToolRepairLoggedTwice,
        Invariant::LogCompleteness,
        "tool_action_entry",
        5,
    );
}

#[test]
fn a_revoked_tool_action_left_committed_breaks_i2_tool_action_and_its_empty_report_honest_outcome()
{
    // The log holds the refund's root and leaked entry (complete), no
    // ancestor of the refund is revoked (G3 holds): I2, reading the
    // retraction from the action taken, sees a retracted tool action
    // still committed. The outcome claims no root: honest-outcome sees
    // that lie (the roots a retraction reports are the ones it
    // retracts), and an outcome that named the root would have to report
    // a repair the record did not make, so I2 `tool_action` is the one
    // clause not shown alone: G3 and honest-outcome imply it.
    let report = caught(
        refund_model(),
        Fault::ToolActionRevokeOnlyLogs,
        Invariant::I2,
        "tool_action",
        5,
    );
    assert_eq!(report.outcome(Invariant::G3), Some(Outcome::Holds));
    let honest = report
        .properties
        .iter()
        .find(|p| p.kind == crate::model::PropertyKind::Invariant(Invariant::HonestOutcome))
        .expect("honest-outcome is judged");
    assert_eq!(
        (honest.outcome, honest.clause),
        (Outcome::Violated { depth: 5 }, Some("repair"))
    );
}

#[test]
fn a_tool_action_born_raw_breaks_lifecycle_birth_and_its_illegal_move_refusals() {
    // The gate reports the one record the call created, calling the tool
    // (honest); a raw record is active nowhere, and no cascade can move
    // it: the clause on how a record is born sees it at the call, and
    // `refusals` one step later, when the revoke of the refund's basis is
    // refused for the cascade's illegal move (raw to revoked), a reason
    // no refusal rule names.
    only_clauses_catch(
        refund_model(),
        Fault::ToolActionBornRaw,
        &[
            (Invariant::Lifecycle, "birth", 4),
            (Invariant::Refusals, "refused", 5),
        ],
    );
}

#[test]
fn an_abort_that_drops_its_records_breaks_lifecycle_vanished_alone() {
    // Open, stage, abort: the record is revoked, logged and reported, then
    // gone. Every other property judges the records that exist (a record
    // that is not there has no state to be wrong), so only the clause on a
    // record that existed and is gone sees it.
    let config = untooled((1, 1, 3), r#""low""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::AbortDropsItsRecords,
        Invariant::Lifecycle,
        "vanished",
        3,
    );
}

#[test]
fn a_stage_that_replaces_the_staging_breaks_tx_hygiene_orphan_tentative_alone() {
    // Open, stage r0, stage r1: r0 is tentative and staged by no
    // transaction. The stage reports its own record truly (honest), and
    // a commit or abort then judges or retracts what the staging holds,
    // as the monitor reads it too: r0 is left tentative for good, which
    // only the clause on records no open transaction holds sees.
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::StageReplacesStaging,
        Invariant::TxHygiene,
        "orphan_tentative",
        3,
    );
}

// Refusals: a refused attempt is no transition, so only `refusals` sees
// an attempt refused where the rules admit it, or admitted where they
// refuse it.

#[test]
fn a_rebuild_that_needs_an_active_source_breaks_refusals_refused_alone() {
    // T0 stages a lookup (r0); T1 a summary of it (r1) and a summary of
    // that (r2); T0's abort revokes r0 and holds both views back; T1
    // rebuilds r2 from r1, which survives (held back, not revoked). The
    // broken rule refuses it as having no surviving source.
    let mut config = untooled((3, 2, 7), r#""low""#, "null", &[lookup(), summary()]);
    config.rebuild = true;
    only_clause_catches(
        config,
        Fault::RebuildNeedsAnActiveSource,
        Invariant::Refusals,
        "refused",
        7,
    );
}

#[test]
fn a_revalidation_that_takes_an_open_transactions_record_breaks_refusals_admitted_alone() {
    // T0 stages a lookup (r0), T1 a summary of it (r1); T0's abort holds
    // r1 back while T1, still open, stages it; T2 revalidates it.
    let mut config = untooled((2, 3, 7), r#""low""#, "null", &[lookup(), summary()]);
    config.revalidate = true;
    only_clause_catches(
        config,
        Fault::RevalidateTakesFromAnOpenTransaction,
        Invariant::Refusals,
        "admitted",
        7,
    );
}

#[test]
fn a_rebuild_that_ignores_the_commit_check_breaks_refusals_named_alone() {
    // T0 stages a lookup (r0) and aborts; T1 stages a summary of it (r1),
    // which its commit quarantines (revoked_parent); T2 rebuilds r1. The
    // commit-check refusal comes first, the broken rule refuses it for
    // having no surviving source. With two records no view of a view is
    // reached, so no such rebuild is admitted either.
    let mut config = untooled((2, 3, 8), r#""low""#, "null", &[lookup(), summary()]);
    config.rebuild = true;
    only_clause_catches(
        config,
        Fault::RebuildIgnoresCommitCheck,
        Invariant::Refusals,
        "named",
        8,
    );
}

// Both directions (issue 49): where the card says "if and only if" or
// "only", each property reads it both ways; each new direction has a
// fault here that it catches, and each property that stopped reading a
// mark the protocol wrote has a fault whose stale mark the old reading
// believed.

#[test]
fn slot_holders_filtered_to_beliefs_break_one_value_per_slot_over_views() {
    // Two summaries of one slot with different values, one source: the
    // card's check 3 holds the second to the first (a tie of one source
    // supersedes). Read over beliefs only, the second has no rival and
    // commits beside it: two values stand, both views, which only the
    // reading of every kind sees; admission, recomputing check 3 over
    // every kind, sees the rival the view never superseded.
    let view = |name: &str, value: &str| {
        template(
            name,
            &format!(
                r#""kind": "summary", "attribute": "summary", "value": "{value}", "parent": "none""#
            ),
        )
    };
    let config = untooled(
        (2, 1, 4),
        r#""low""#,
        "null",
        &[
            view("eligible", "eligible"),
            view("ineligible", "ineligible"),
        ],
    );
    let report = only_clauses_catch(
        config,
        Fault::SlotHoldersBeliefsOnly,
        &[
            (Invariant::OneValuePerSlot, "two_values", 4),
            (Invariant::Admission, "rival_kept", 4),
        ],
    );
    let c = report
        .counterexamples
        .iter()
        .find(|c| c.invariant == Invariant::OneValuePerSlot)
        .expect("a counterexample");
    let last = c.stores.last().expect("a path");
    assert!(
        last.records()
            .iter()
            .all(|r| r.kind() == crate::protocol::Kind::Summary),
        "the two values are views: {last:?}"
    );
}

#[test]
fn check_3_on_claimed_authority_breaks_admission_committed() {
    // The card's pitfall: a record without a source counts 0.5, whatever
    // it claims. The anonymous record claiming 0.95 must lose to the CRM's
    // 0.9; compared by its claim, it supersedes it and commits (and the
    // supersede it reports is one check 3 does not decide).
    let crm = template(
        "crm",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5, "parent": "none""#,
    );
    let anonymous = template(
        "anonymous",
        r#""source": null, "authority": 0.95, "parent": "none""#,
    );
    let config = untooled((2, 1, 4), r#""low""#, "null", &[crm, anonymous]);
    let report = caught(
        config,
        Fault::ClaimedAuthorityDecides,
        Invariant::Admission,
        "committed",
        4,
    );
    assert_eq!(
        report.outcome(Invariant::OneValuePerSlot),
        Some(Outcome::Holds)
    );
}

#[test]
fn rivals_superseded_after_check_4_break_admission_rival_kept_alone() {
    // T0 stages a lookup (r0) and aborts: r0 is revoked. T1, its snapshot
    // empty, stages a lookup (r1), a reason derived from r0 (r2) and a
    // correction derived from r2 (r3), and commits: r1 commits; r2 is
    // refused (revoked parent); r3's parent is in no registry, so check 3
    // lets it supersede r1, and check 4 (r0 an ancestor) quarantines it.
    // The card supersedes before check 4: r1 ends superseded. Moved only
    // once check 4 passes, r1 stands alone, reported truly: only the
    // clause that recomputes what `supersede_old` had to displace sees it.
    let reason = template(
        "reason",
        r#""attribute": "refund_reason", "value": "damaged", "parent": "required""#,
    );
    let correction = template(
        "correction",
        r#""value": "no", "source": "crm", "authority": 0.9, "confidence": 0.5,
            "parent": "required""#,
    );
    let config = untooled(
        (4, 2, 8),
        r#""low""#,
        "null",
        &[lookup(), reason, correction],
    );
    only_clause_catches(
        config,
        Fault::SupersedeAfterCheck4,
        Invariant::Admission,
        "rival_kept",
        8,
    );
}

#[test]
fn a_high_commit_that_makes_records_action_safe_breaks_tx_hygiene_unearned_alone() {
    let config = model((1, 1, 3), r#""high""#, "null", &[lookup()]);
    only_clause_catches(
        config,
        Fault::HighCommitActionSafe,
        Invariant::TxHygiene,
        "unearned_action_safe",
        3,
    );
}

#[test]
fn a_cascade_that_reaches_later_records_breaks_i2_and_log_completeness_unreached() {
    // Two lookups committed, the first revoked: the second, created after
    // it and derived from nothing, is revoked too. Every repair is
    // logged and reported as made; only the clauses that read the
    // retraction's reach the other way see it.
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup()]);
    only_clauses_catch(
        config,
        Fault::CascadeReachesLaterRecords,
        &[
            (Invariant::I2, "unreached", 5),
            (Invariant::LogCompleteness, "stray_entry", 5),
        ],
    );
}

#[test]
fn every_repair_logged_as_a_root_breaks_log_completeness_stray_entry_alone() {
    // Revoking a committed lookup holds back its committed summary: the
    // summary's entry says it was retracted, which no action did.
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup(), summary()]);
    only_clause_catches(
        config,
        Fault::EveryRepairLoggedAsRoot,
        Invariant::LogCompleteness,
        "stray_entry",
        5,
    );
}

#[test]
fn a_log_of_roots_and_tool_actions_only_breaks_log_completeness_repair_entry_alone() {
    // The summary held back has no entry (card §3.4: every repair writes
    // one); I2 reads the hold-back from the actions, not the log.
    let config = untooled((2, 1, 5), r#""low""#, "null", &[lookup(), summary()]);
    only_clause_catches(
        config,
        Fault::LogKeepsRootsAndToolActions,
        Invariant::LogCompleteness,
        "repair_entry",
        5,
    );
}

/// A lookup and a summary of it too weak to commit (confidence 0.4):
/// where a view carries a commit check's reason into a retraction.
fn weak_summary() -> Vec<String> {
    let weak = template(
        "summary",
        r#""kind": "summary", "attribute": "summary", "value": "eligible",
            "confidence": 0.4, "parent": "required""#,
    );
    vec![lookup(), weak]
}

#[test]
fn a_cascade_that_skips_a_view_with_a_reason_breaks_i2_view_alone() {
    // T0 stages a lookup (r0) and a weak summary of it (r1) and commits:
    // r1 is quarantined for low evidence. T1 revalidates r1 (tentative,
    // its reason kept) and r0 is revoked: the cascade must hold r1 back.
    // Skipped, r1 stays tentative with its stale reason, which the old
    // reading of I2 took for a hold-back; the monitor saw the retraction
    // leave r1 unrepaired.
    let mut config = untooled((2, 2, 7), r#""low""#, "null", &weak_summary());
    config.revalidate = true;
    only_clause_catches(
        config,
        Fault::ViewWithAReasonSkipped,
        Invariant::I2,
        "view",
        7,
    );
}

#[test]
fn a_hold_back_that_keeps_a_stale_reason_breaks_refusals_named_alone() {
    // As above, but the cascade holds r1 back keeping its low-evidence
    // reason; T1 then rebuilds r1. Its only source is revoked: the first
    // rule that applies is "no surviving source". The protocol, reading
    // the stale reason, refuses it as quarantined by a commit check, which
    // the old reading of `refusals` (the same reason) agreed with; the
    // monitor saw the retraction hold r1 back.
    let mut config = untooled((2, 2, 8), r#""low""#, "null", &weak_summary());
    config.revalidate = true;
    config.rebuild = true;
    only_clause_catches(
        config,
        Fault::HoldBackKeepsReason,
        Invariant::Refusals,
        "named",
        8,
    );
}

#[test]
fn a_stale_write_that_displaces_its_rivals_breaks_stale_writes_read_from_its_effects() {
    // The stale-write model: T1's recheck meets the correction, committed
    // after T1's snapshot, as its deciding rival. It is refused for
    // staleness, as the card says, but only after it superseded the
    // correction. Its reason names check 3, which the old reading took as
    // proof it never got past check 3; the supersede its verdict reports
    // shows it did. Admission sees a supersede check 3 does not decide.
    only_clauses_catch(
        stale_write_model(),
        Fault::StaleWriteDisplacesRivals,
        &[
            (Invariant::StaleWrite, "stale_win", 7),
            (Invariant::Admission, "supersede", 7),
        ],
    );
}
