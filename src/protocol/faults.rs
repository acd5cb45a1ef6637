//! The deliberate bugs of the tests (test builds only): each [`Fault`] is
//! the card's rule book ([`Rules::CARD`]) with exactly one entry replaced
//! by a broken rule of a few lines, written here beside the entry it
//! replaces. `check::faults` shows each caught by the property it breaks;
//! `conform` tests use some as implementations that depart from the model.
//!
//! The card's rules know nothing of this module: a variant with a fault
//! runs [`Fault::rules`] instead of the card's book, and a normal build
//! has neither the faults nor a table to put them in (`protocol/rules.rs`).

use super::commit::{self, AUTHORITY_BYPASS, EVIDENCE_THRESHOLD};
use super::conflict::{self, Verdict};
use super::dispatch::{self, Protocol, Tool};
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::{Admission, CommitResult, Outcome, Repairs};
use super::rebuild;
use super::record::{Kind, Reason, Record, Scope};
use super::record_set::{RecordId, RecordSet};
use super::repair::{self, compensate_or_leak};
use super::revalidate;
use super::rules::Rules;
use super::store::{LogEntry, Repair, Store};
use super::transaction::{visible_at, Tier, TxId, TxStatus};

/// A deliberate bug of one line or two, for the tests that show a checker
/// catches it (`check::faults`): which entry of the rule book it replaces,
/// and how ([`Fault::rules`]). Only test builds have this type; a
/// [`Variant`](super::Variant) holds one through `with_fault`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Fault {
    /// An external_action snapshot also sees committed records
    /// (snapshots).
    ExternalSnapshotSeesCommitted,
    /// An external_action open reports an empty snapshot (honest
    /// outcome, report).
    OpenReportsEmptySnapshot,
    /// A stage replaces its transaction's staging with the new record, so
    /// the records staged before it belong to no transaction (tx-hygiene,
    /// orphan_tentative).
    StageReplacesStaging,
    /// Staging adds the record to its transaction's snapshot ("read your
    /// writes"; snapshots, changed).
    StageJoinsSnapshot,
    /// An executed call creates its tool action raw, not committed
    /// (lifecycle, birth).
    ToolActionBornRaw,
    /// An executed call reports no tool action record (honest outcome,
    /// gate).
    ExecutedCallReportsNoRecord,
    /// Check 1 reads a missing source's authority field, not 0.5
    /// (evidence).
    MissingSourceKeepsAuthority,
    /// Check 1's confidence threshold is exclusive: 0.6 is refused
    /// (admission).
    EvidenceThresholdExclusive,
    /// Check 1's authority bypass is exclusive: 0.9 does not bypass
    /// (admission).
    AuthorityBypassExclusive,
    /// Check 2 accepts a window that ended the day before (validity).
    ValidityOffByOne,
    /// Check 2's window end is exclusive: a window ending today is over
    /// (admission).
    WindowEndExclusive,
    /// Check 3 tests laundering before the revoked-parent rule
    /// (admission, check order).
    LaunderingBeforeRevokedParent,
    /// Check 3 reads a revoked parent from the parents' states (revoked, or
    /// held back by a cascade), not the revocation registry: a record staged from a
    /// view rebuilt and committed again passes check 3 (admission, order).
    RevokedParentFromStates,
    /// Laundering refuses only public children of private parents (scope).
    LaunderingPublicOnly,
    /// Check 3's slot holders are the active beliefs only, as the card's
    /// pseudocode passes `active_beliefs`: two views of one slot with
    /// different values both commit, and a view never supersedes (one
    /// value per slot, read over every kind; admission, rival_kept).
    SlotHoldersBeliefsOnly,
    /// Check 3 compares the authority the writers claim, not the
    /// effective one (0.5 without a source): an anonymous record claiming
    /// 0.95 supersedes a 0.9 CRM record (admission, committed).
    ClaimedAuthorityDecides,
    /// A stale late write displaces its rivals before it is refused for
    /// staleness (stale writes, read from what a turn displaced; the old
    /// reading took the quarantine reason as proof it never got past
    /// check 3).
    StaleWriteDisplacesRivals,
    /// `supersede_old` moves the rivals only when check 4 will pass: a
    /// superseding candidate that check 4 then quarantines leaves them
    /// standing, where the card supersedes before check 4 (admission,
    /// rival_kept).
    SupersedeAfterCheck4,
    /// Check 3 drops its same-value rule: a rival with the same value
    /// is judged by authority (admission).
    SameValueConflicts,
    /// The stale-write check never fires (stale writes).
    StaleCheckSkipped,
    /// The stale-write check is skipped when the candidate has more
    /// authority than its rival (stale writes).
    StaleCheckSkippedForStronger,
    /// `supersede_old` moves no rival (one value per slot).
    SupersedeForgetsRivals,
    /// A tie of authority is decided by the records' owner, not their
    /// source: two records of one agent supersede where the card sends
    /// different sources to review (admission, committed).
    TieDecidedByOwner,
    /// `supersede_old` displaces every holder of the slot of another
    /// value, whatever its window (admission, supersede).
    SupersedeIgnoresWindows,
    /// Check 4 looks at direct parents only (G3).
    DependencyParentsOnly,
    /// Check 4 also counts a superseded ancestor as unstable (admission).
    DependencyRejectsSuperseded,
    /// A high-tier commit, not only an external_action one, makes its
    /// records action_safe (transaction hygiene, unearned_action_safe).
    HighCommitActionSafe,
    /// An external_action commit stops at committed (transaction hygiene).
    ExternalCommitNotSafe,
    /// An action_safe verdict is reported committed (honest outcome).
    ActionSafeReportedCommitted,
    /// A supersede moves its rivals but reports none (honest outcome,
    /// unreported).
    SupersedeUnreported,
    /// A commit counts only committed verdicts as passed, not
    /// action_safe ones (honest outcome, status).
    StatusIgnoresActionSafe,
    /// The gate's first clause ignores the snapshot: every tentative
    /// record blocks an irreversible call, read or not (card §3.3 says
    /// only records "that the transaction did not read" do; I1,
    /// blocked).
    GateIgnoresSnapshot,
    /// The gate's first clause is off: tentative records in flight do
    /// not block (I1, in_flight).
    GateIgnoresInFlight,
    /// The gate drops its external_action clause (I1).
    GateIgnoresSupport,
    /// Abort closes the transaction and retracts nothing (transaction
    /// hygiene).
    AbortLeavesTentative,
    /// An abort whose staged records are the newest drops them from the
    /// store once it has repaired and logged them (lifecycle, vanished).
    AbortDropsItsRecords,
    /// Revoke moves its record to revoked and stops: no cascade, no log
    /// entry (I2, read from the actions taken).
    SilentRevoke,
    /// A revoke of a tool action writes its log entry and stops: the
    /// record stays committed, and the outcome reports no root and no
    /// repair (I2, tool_action).
    ToolActionRevokeOnlyLogs,
    /// Cascading repair reaches direct children only (I2).
    CascadeSkipsGrandchildren,
    /// The cascade takes every record created after a root for one of its
    /// descendants, as if ids ordered derivation: it repairs records no
    /// retraction reached (I2, unreached; log completeness, stray_entry).
    CascadeReachesLaterRecords,
    /// Typed repair counts a view that carries a commit check's reason as
    /// held back already and leaves it: a revalidated view, tentative
    /// again, stays tentative with its stale reason (I2, view, read from
    /// what the retraction did; the old reading took the reason as proof
    /// of a hold-back).
    ViewWithAReasonSkipped,
    /// Holding a view back keeps the reason a commit check once gave it
    /// (a revalidated view): a rebuild then refuses it as quarantined by
    /// a commit check (refusals, named, read from what the retraction
    /// did; the old reading agreed with the stale reason).
    HoldBackKeepsReason,
    /// Repair quarantines an action_safe view, past the state machine
    /// (lifecycle).
    QuarantineFromActionSafe,
    /// Typed repair revokes a view it could have quarantined (I2, view).
    ViewRevokedNotQuarantined,
    /// A cascade holds back a belief descendant like a view instead of
    /// revoking it (I2, belief).
    CascadeQuarantinesBeliefs,
    /// A retraction writes no root entry (log completeness).
    UnloggedRetraction,
    /// The rollback log writes an irreversible tool action's repair as
    /// compensated; the outcome still reports it leaked (I2, log).
    LogCompensatesLeaks,
    /// A cascade logs the repair of a tool action it reaches twice
    /// (log completeness, tool_action_entry).
    ToolRepairLoggedTwice,
    /// Every repair's log entry is flagged as a retraction's root
    /// (log completeness, stray_entry).
    EveryRepairLoggedAsRoot,
    /// The rollback log keeps the roots and the tool actions' repairs
    /// only: a belief revoked or a view held back by a cascade has no
    /// entry (log completeness, repair_entry).
    LogKeepsRootsAndToolActions,
    /// A quarantined view is reported revoked (honest outcome, repair).
    QuarantineReportedRevoked,
    /// A revalidation quietly drops the record's revoked parents, as a
    /// rebuild would (lifecycle, provenance).
    RevalidateDropsRevokedSources,
    /// A rebuild keeps every parent, the revoked ones too (lifecycle,
    /// rebuilt_from_survivors).
    RebuildKeepsRevokedSource,
    /// A rebuild reads "surviving" as active: a view whose sources are
    /// held back themselves is refused as having no surviving source
    /// (refusals, refused).
    RebuildNeedsAnActiveSource,
    /// A revalidation skips the staged-elsewhere refusal: it takes a
    /// record another open transaction still stages (refusals, admitted).
    RevalidateTakesFromAnOpenTransaction,
    /// A rebuild skips the commit-check refusal: a view a commit check
    /// quarantined is judged like one a cascade held back, so one whose
    /// parent is revoked is refused for having no surviving source
    /// (refusals, named).
    RebuildIgnoresCommitCheck,
}

const CARD: Rules = Rules::CARD;

impl Protocol {
    /// The rule book this protocol runs (a test build): the card's, or the
    /// card's with the one entry its variant's fault replaces.
    pub(in crate::protocol) fn rules(&self) -> &'static Rules {
        self.variant.fault.map_or(&Rules::CARD, Fault::rules)
    }
}

impl Fault {
    /// The card's rule book with this fault's one entry replaced.
    pub(in crate::protocol) fn rules(self) -> &'static Rules {
        use Fault::*;
        match self {
            // Opening, staging, tool calls.
            ExternalSnapshotSeesCommitted => &Rules {
                snapshot_at: |tier, records| match tier {
                    Tier::ExternalAction => visible_at(Tier::Low, records),
                    _ => visible_at(tier, records),
                },
                ..CARD
            },
            OpenReportsEmptySnapshot => &Rules {
                opened: |tx, t| match t.tier {
                    Tier::ExternalAction => Outcome::Opened {
                        tx,
                        snapshot: RecordSet::EMPTY,
                    },
                    _ => dispatch::opened(tx, t),
                },
                ..CARD
            },
            StageReplacesStaging => &Rules {
                join_staging: |t, id| t.staged = RecordSet::single(id),
                ..CARD
            },
            StageJoinsSnapshot => &Rules {
                join_staging: |t, id| {
                    dispatch::join_staging(t, id);
                    t.snapshot.insert(id);
                },
                ..CARD
            },
            ToolActionBornRaw => &Rules {
                tool_action: |spec, agent, basis, tool| {
                    let mut record = dispatch::tool_action(spec, agent, basis, tool);
                    record.state = Lifecycle::Raw;
                    record
                },
                ..CARD
            },
            ExecutedCallReportsNoRecord => &Rules {
                executed: |record, in_snapshot| {
                    let mut outcome = dispatch::executed(record, in_snapshot);
                    outcome.record = None;
                    outcome
                },
                ..CARD
            },
            // Checks 1 and 2.
            MissingSourceKeepsAuthority => &Rules {
                check_evidence: |r| {
                    r.confidence() >= EVIDENCE_THRESHOLD || r.authority() >= AUTHORITY_BYPASS
                },
                ..CARD
            },
            EvidenceThresholdExclusive => &Rules {
                check_evidence: |r| {
                    r.confidence() > EVIDENCE_THRESHOLD
                        || r.effective_authority() >= AUTHORITY_BYPASS
                },
                ..CARD
            },
            AuthorityBypassExclusive => &Rules {
                check_evidence: |r| {
                    r.confidence() >= EVIDENCE_THRESHOLD
                        || r.effective_authority() > AUTHORITY_BYPASS
                },
                ..CARD
            },
            ValidityOffByOne => &Rules {
                check_validity: |r, clock| window_end_moved(r, clock, 1),
                ..CARD
            },
            WindowEndExclusive => &Rules {
                check_validity: |r, clock| window_end_moved(r, clock, -1),
                ..CARD
            },
            // Check 3.
            LaunderingBeforeRevokedParent => &Rules {
                parent_refusal: |revoked_parent, laundered| {
                    if laundered() {
                        Some(Reason::PermissionLaundering)
                    } else {
                        conflict::parent_refusal(revoked_parent, &|| false)
                    }
                },
                ..CARD
            },
            RevokedParentFromStates => &Rules {
                revoked_parent: |store, id| {
                    store.records[id as usize].derived_from().iter().any(|p| {
                        let parent = &store.records[p as usize];
                        parent.state == Lifecycle::Revoked
                            || (parent.state == Lifecycle::Quarantined && parent.reason.is_none())
                    })
                },
                ..CARD
            },
            LaunderingPublicOnly => &Rules {
                laundered: |store, id, parents| {
                    store.records[id as usize].scope() == Scope::Public
                        && conflict::laundered(store, id, parents)
                },
                ..CARD
            },
            SlotHoldersBeliefsOnly => &Rules {
                slot_holders: |store, id| {
                    conflict::slot_holders(store, id)
                        .iter()
                        .filter(|&r| store.records[r as usize].kind() == Kind::Belief)
                        .collect()
                },
                ..CARD
            },
            ClaimedAuthorityDecides => &Rules {
                by_authority: |candidate, rival, tie| {
                    let (mine, theirs) = (candidate.authority(), rival.authority());
                    if mine > theirs {
                        Verdict::SupersedeOld(Admission::SupersededByAuthority)
                    } else if mine < theirs {
                        Verdict::Abort(Reason::LowerAuthority)
                    } else {
                        conflict::by_authority(candidate, rival, tie)
                    }
                },
                ..CARD
            },
            StaleWriteDisplacesRivals => &Rules {
                displaces: |verdict| {
                    conflict::displaces(verdict) || verdict == Verdict::Abort(Reason::StaleWrite)
                },
                ..CARD
            },
            SupersedeAfterCheck4 => &Rules {
                supersede_rivals: |store, id| {
                    if commit::dependencies_stable(store, id) {
                        conflict::supersede_rivals(store, id)
                    } else {
                        Ok(RecordSet::EMPTY)
                    }
                },
                ..CARD
            },
            SameValueConflicts => &Rules {
                rival_verdict: |_, stale, by_authority| {
                    conflict::rival_verdict(false, stale, by_authority)
                },
                ..CARD
            },
            StaleCheckSkipped => &Rules {
                rival_verdict: |same_value, _, by_authority| {
                    conflict::rival_verdict(same_value, false, by_authority)
                },
                ..CARD
            },
            StaleCheckSkippedForStronger => &Rules {
                rival_verdict: |same_value, stale, by_authority| {
                    let stronger =
                        by_authority == Verdict::SupersedeOld(Admission::SupersededByAuthority);
                    conflict::rival_verdict(same_value, stale && !stronger, by_authority)
                },
                ..CARD
            },
            SupersedeForgetsRivals => &Rules {
                supersede_rivals: |_, _| Ok(RecordSet::EMPTY),
                ..CARD
            },
            TieDecidedByOwner => &Rules {
                by_authority: |candidate, rival, tie| {
                    let tied = candidate.effective_authority() == rival.effective_authority();
                    if tied && candidate.owner() == rival.owner() {
                        Verdict::SupersedeOld(Admission::SupersededBySameSource)
                    } else {
                        conflict::by_authority(candidate, rival, tie)
                    }
                },
                ..CARD
            },
            SupersedeIgnoresWindows => &Rules {
                supersede_rivals: |store, id| {
                    conflict::supersede_among(store, id, conflict::slot_holders(store, id))
                },
                ..CARD
            },
            // Check 4 and what a passed record becomes.
            DependencyParentsOnly => &Rules {
                dependencies_stable: |store, id| {
                    !store.records[id as usize]
                        .derived_from()
                        .intersects(store.registry)
                },
                ..CARD
            },
            DependencyRejectsSuperseded => &Rules {
                dependencies_stable: |store, id| {
                    let superseded = store.in_state(Lifecycle::Superseded);
                    commit::dependencies_stable(store, id)
                        && !store.ancestors(id).intersects(superseded)
                },
                ..CARD
            },
            HighCommitActionSafe => &Rules {
                promote: |store, id, tier| {
                    let tier = match tier {
                        Tier::High => Tier::ExternalAction,
                        other => other,
                    };
                    commit::promote(store, id, tier)
                },
                ..CARD
            },
            ExternalCommitNotSafe => &Rules {
                promote: |store, id, _| commit::promote(store, id, Tier::Low),
                ..CARD
            },
            ActionSafeReportedCommitted => &Rules {
                passed: |id, result, superseded, admission| {
                    let result = match result {
                        CommitResult::ActionSafe => CommitResult::Committed,
                        other => other,
                    };
                    commit::passed(id, result, superseded, admission)
                },
                ..CARD
            },
            SupersedeUnreported => &Rules {
                passed: |id, result, _, admission| {
                    commit::passed(id, result, RecordSet::EMPTY, admission)
                },
                ..CARD
            },
            StatusIgnoresActionSafe => &Rules {
                passes: |result| result == CommitResult::Committed,
                ..CARD
            },
            // The gate.
            GateIgnoresSnapshot => &Rules {
                in_flight: |tentative, _| tentative,
                ..CARD
            },
            GateIgnoresInFlight => &Rules {
                in_flight: |_, _| RecordSet::EMPTY,
                ..CARD
            },
            GateIgnoresSupport => &Rules {
                lacks_support: |_, _| false,
                ..CARD
            },
            // Retraction and repair.
            AbortLeavesTentative => &Rules {
                abort: |_, store, tx| {
                    store.txs[tx as usize].status = TxStatus::Aborted;
                    Ok(retracted(RecordSet::EMPTY))
                },
                ..CARD
            },
            AbortDropsItsRecords => &Rules {
                abort: abort_drops_its_records,
                ..CARD
            },
            SilentRevoke => &Rules {
                revoke: |_, store, record| {
                    store.move_to(record, Lifecycle::Revoked)?;
                    Ok(retracted(RecordSet::single(record)))
                },
                ..CARD
            },
            ToolActionRevokeOnlyLogs => &Rules {
                revoke: tool_action_revoke_only_logs,
                ..CARD
            },
            CascadeSkipsGrandchildren => &Rules {
                reached: children,
                ..CARD
            },
            CascadeReachesLaterRecords => &Rules {
                reached: |store, roots| {
                    let first = roots.iter().next().map_or(0, |r| r as usize + 1);
                    let later =
                        RecordSet::below(store.records.len()).difference(RecordSet::below(first));
                    store.descendants(roots).union(later.difference(roots))
                },
                ..CARD
            },
            ViewWithAReasonSkipped => &Rules {
                repair_by_type: |tools, store, id, kind| {
                    if kind.is_view() && store.records[id as usize].reason.is_some() {
                        return Ok(None); // "already held back"
                    }
                    repair::repair_by_type(tools, store, id, kind)
                },
                ..CARD
            },
            HoldBackKeepsReason => &Rules {
                repair_by_type: |tools, store, id, kind| {
                    let reason = store.records[id as usize].reason;
                    let repaired = repair::repair_by_type(tools, store, id, kind)?;
                    store.records[id as usize].reason = reason;
                    Ok(repaired)
                },
                ..CARD
            },
            QuarantineFromActionSafe => &Rules {
                repair_by_type: quarantine_from_action_safe,
                ..CARD
            },
            ViewRevokedNotQuarantined => &Rules {
                repair_by_type: |tools, store, id, kind| {
                    if kind.is_view() && may_quarantine(store, id) {
                        moved(store, id, Repair::Revoked, Lifecycle::Revoked)
                    } else {
                        repair::repair_by_type(tools, store, id, kind)
                    }
                },
                ..CARD
            },
            CascadeQuarantinesBeliefs => &Rules {
                repair_by_type: |tools, store, id, kind| {
                    if kind == Kind::Belief && may_quarantine(store, id) {
                        moved(store, id, Repair::Quarantined, Lifecycle::Quarantined)
                    } else {
                        repair::repair_by_type(tools, store, id, kind)
                    }
                },
                ..CARD
            },
            UnloggedRetraction => &Rules {
                log_repair: |store, entry| {
                    if !entry.root {
                        repair::log_repair(store, entry);
                    }
                },
                ..CARD
            },
            LogCompensatesLeaks => &Rules {
                log_repair: |store, entry| {
                    let repair = match entry.repair {
                        Repair::Leaked => Repair::Compensated,
                        other => other,
                    };
                    repair::log_repair(store, LogEntry { repair, ..entry });
                },
                ..CARD
            },
            ToolRepairLoggedTwice => &Rules {
                log_repair: |store, entry| {
                    let tool_repair = matches!(entry.repair, Repair::Compensated | Repair::Leaked);
                    if !entry.root && tool_repair {
                        repair::log_repair(store, entry);
                    }
                    repair::log_repair(store, entry);
                },
                ..CARD
            },
            EveryRepairLoggedAsRoot => &Rules {
                log_repair: |store, entry| {
                    repair::log_repair(
                        store,
                        LogEntry {
                            root: true,
                            ..entry
                        },
                    );
                },
                ..CARD
            },
            LogKeepsRootsAndToolActions => &Rules {
                log_repair: |store, entry| {
                    let tool_repair = matches!(entry.repair, Repair::Compensated | Repair::Leaked);
                    if entry.root || tool_repair {
                        repair::log_repair(store, entry);
                    }
                },
                ..CARD
            },
            QuarantineReportedRevoked => &Rules {
                report_repair: |repairs, id, repair| {
                    let reported = match repair {
                        Repair::Quarantined => Repair::Revoked,
                        other => other,
                    };
                    repair::report_repair(repairs, id, reported);
                },
                ..CARD
            },
            // Revalidation and rebuild.
            RevalidateDropsRevokedSources => &Rules {
                revalidate: |store, tx, record| {
                    let r = store.records[record as usize];
                    let alive = r
                        .derived_from()
                        .difference(store.in_state(Lifecycle::Revoked));
                    store.records[record as usize] = r.with_parents(alive);
                    revalidate::revalidate(store, tx, record)
                },
                ..CARD
            },
            RebuildKeepsRevokedSource => &Rules {
                kept_parents: |store, record| store.records[record as usize].derived_from(),
                ..CARD
            },
            RebuildNeedsAnActiveSource => &Rules {
                rebuild_refusal: |store, tx, record| {
                    rebuild::refusal(store, tx, record)?;
                    let parents = store.records[record as usize].derived_from();
                    if parents
                        .iter()
                        .any(|p| store.records[p as usize].state.is_active())
                    {
                        Ok(())
                    } else {
                        Err(ProtocolError::NoSurvivingSource { record })
                    }
                },
                ..CARD
            },
            RebuildIgnoresCommitCheck => &Rules {
                rebuild_refusal: |store, tx, record| {
                    let mut view = store.records[record as usize];
                    view.reason = None;
                    let mut held_back = store.clone();
                    held_back.records[record as usize] = view;
                    rebuild::refusal(&held_back, tx, record)
                },
                ..CARD
            },
            RevalidateTakesFromAnOpenTransaction => &Rules {
                revalidation_refusal: |store, tx, record| match revalidate::refusal(
                    store, tx, record,
                ) {
                    Err(ProtocolError::StagedElsewhere { .. }) => Ok(()),
                    other => other,
                },
                ..CARD
            },
        }
    }
}

/// Check 2 with the window's end moved `by` days.
fn window_end_moved(record: &Record, clock: Option<i32>, by: i32) -> bool {
    let mut window = record.window();
    window.to = window.to.map(|to| to + by);
    clock.is_none_or(|now| window.contains(now))
}

/// A retraction outcome with these roots and no repair.
fn retracted(roots: RecordSet) -> Outcome {
    Outcome::Retracted {
        roots,
        repairs: Repairs::new(),
    }
}

/// The card's abort, then its staged records dropped from the store when
/// they are the newest.
fn abort_drops_its_records(
    protocol: &Protocol,
    store: &mut Store,
    tx: TxId,
) -> Result<Outcome, ProtocolError> {
    let staged = store.txs[tx as usize].staged;
    let outcome = repair::abort(protocol, store, tx)?;
    if let Some(first) = staged.iter().next() {
        let tail =
            RecordSet::below(store.records.len()).difference(RecordSet::below(first as usize));
        if staged == tail {
            store.records.truncate(first as usize);
        }
    }
    Ok(outcome)
}

/// The card's revoke, but a tool action only gets its log entry.
fn tool_action_revoke_only_logs(
    protocol: &Protocol,
    store: &mut Store,
    record: RecordId,
) -> Result<Outcome, ProtocolError> {
    let r = &store.records[record as usize];
    if r.kind() != Kind::ToolAction {
        return repair::revoke(protocol, store, record);
    }
    let entry = LogEntry {
        record,
        repair: compensate_or_leak(&protocol.tools, store, record),
        root: true,
        from: r.state,
        horizon: store.records.len() as u8,
    };
    repair::log_repair(store, entry);
    Ok(retracted(RecordSet::EMPTY))
}

/// The records derived directly from one of `parents`, instead of every
/// transitive descendant.
fn children(store: &Store, parents: RecordSet) -> RecordSet {
    let mut found = RecordSet::EMPTY;
    for (id, record) in store.records.iter().enumerate() {
        if record.derived_from().intersects(parents) {
            found.insert(id as RecordId);
        }
    }
    found.difference(parents)
}

/// The card's typed repair, but an action_safe view is quarantined past
/// the state machine.
fn quarantine_from_action_safe(
    tools: &[Tool],
    store: &mut Store,
    id: RecordId,
    kind: Kind,
) -> Result<Option<(Repair, Lifecycle)>, ProtocolError> {
    let record = &mut store.records[id as usize];
    if kind.is_view() && record.state == Lifecycle::ActionSafe {
        let from = std::mem::replace(&mut record.state, Lifecycle::Quarantined);
        return Ok(Some((Repair::Quarantined, from)));
    }
    repair::repair_by_type(tools, store, id, kind)
}

/// Whether the lifecycle lets record `id` be quarantined.
fn may_quarantine(store: &Store, id: RecordId) -> bool {
    store.records[id as usize]
        .state
        .may_move_to(Lifecycle::Quarantined)
}

/// Repair `repair`, moving record `id` to `to`.
fn moved(
    store: &mut Store,
    id: RecordId,
    repair: Repair,
    to: Lifecycle,
) -> Result<Option<(Repair, Lifecycle)>, ProtocolError> {
    Ok(Some((repair, store.move_to(id, to)?)))
}
