//! The commit pipeline (card §3.2): each staged record, in staging order,
//! passes evidence, validity, semantic conflict and dependency stability;
//! each commit is active for the records checked after it. A failing record
//! is quarantined with a machine-readable reason; a passing one is
//! committed, and action_safe in an external_action transaction.

use super::conflict::Verdict;
use super::dispatch::Protocol;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::{
    Admission, CommitOutcome, CommitResult, CommitStatus, RecordVerdict, Verdicts,
};
use super::record::{Hundredths, Reason, Record};
use super::record_set::{RecordId, RecordSet};
use super::store::Store;
use super::transaction::{Tier, TxId, TxStatus};
use super::variant::Mechanism;

/// Confidence needed by check 1, inclusive (card §3.2).
pub const EVIDENCE_THRESHOLD: Hundredths = Hundredths(60);
/// Authority at which a source skips the confidence check, inclusive.
pub const AUTHORITY_BYPASS: Hundredths = Hundredths(90);

/// Card §3.2, check 1: confidence ≥ 0.6 unless the source's authority
/// (0.5 for a missing source) is ≥ 0.9, both inclusive.
pub(in crate::protocol) fn check_evidence(record: &Record) -> bool {
    record.confidence() >= EVIDENCE_THRESHOLD || record.effective_authority() >= AUTHORITY_BYPASS
}

/// Card §3.2, check 2: the validity window contains the logical now;
/// without a clock it passes.
pub(in crate::protocol) fn check_validity(record: &Record, clock: Option<i32>) -> bool {
    clock.is_none_or(|now| record.window().contains(now))
}

impl Protocol {
    /// Commits transaction `tx` (already known to be open).
    pub(in crate::protocol) fn commit(
        &self,
        store: &mut Store,
        tx: TxId,
    ) -> Result<CommitOutcome, ProtocolError> {
        let staged = store.txs[tx as usize].staged;
        let mut verdicts = Verdicts::new();
        let mut verifier_calls = 0;
        for id in staged.iter() {
            let verdict = match store.records[id as usize].state {
                // A cascade got here first (DESIGN.md): skipped.
                Lifecycle::Revoked => skipped(id, CommitResult::Revoked, None),
                // A cascade held it back (a view): not judged by commit.
                Lifecycle::Quarantined => skipped(id, CommitResult::Quarantined, None),
                _ => self.commit_record(store, tx, id, &mut verifier_calls)?,
            };
            verdicts.push(verdict);
        }
        store.txs[tx as usize].status = TxStatus::Committed;
        let rules = self.rules();
        let passed = verdicts.iter().filter(|v| rules.passes(v.result)).count();
        let status = if passed == verdicts.len() {
            CommitStatus::Committed
        } else if passed > 0 {
            CommitStatus::Partial
        } else {
            CommitStatus::Aborted
        };
        Ok(CommitOutcome {
            status,
            records: verdicts,
            verifier_calls,
        })
    }

    /// The four ordered checks for one tentative record (card §3.2), and
    /// the fifth of the test-only spec change B.
    fn commit_record(
        &self,
        store: &mut Store,
        tx: TxId,
        id: RecordId,
        verifier_calls: &mut u32,
    ) -> Result<RecordVerdict, ProtocolError> {
        let rules = self.rules();
        let record = store.records[id as usize];
        if self.has(Mechanism::Evidence) && !rules.check_evidence(&record) {
            return quarantine(store, id, Reason::LowEvidence, RecordSet::EMPTY, None);
        }
        if self.has(Mechanism::Validity) && !rules.check_validity(&record, self.clock) {
            return quarantine(store, id, Reason::OutsideValidity, RecordSet::EMPTY, None);
        }
        *verifier_calls += 1;
        let verdict = self.conflict_verdict(store, tx, id);
        let mut superseded = RecordSet::EMPTY;
        // As in the card's pseudocode, superseding happens before check 4.
        if rules.displaces(verdict) {
            superseded = rules.supersede_rivals(store, id)?;
        }
        let admission = match verdict {
            Verdict::Commit(admission) => admission,
            Verdict::SupersedeOld(admission) => Some(admission),
            Verdict::Abort(reason) => return quarantine(store, id, reason, superseded, None),
            Verdict::AskUser => {
                return quarantine(store, id, Reason::NeedsReview, superseded, None)
            }
        };
        if self.has(Mechanism::DependencyStability) && !rules.dependencies_stable(store, id) {
            return quarantine(store, id, Reason::UnstableDependency, superseded, admission);
        }
        // Check 5 of the test-only spec change B: every parent committed.
        #[cfg(feature = "tutorial-committed-parents")]
        if record
            .derived_from()
            .iter()
            .any(|p| !store.records[p as usize].state.is_committed_or_safe())
        {
            return quarantine(store, id, Reason::UncommittedParent, superseded, admission);
        }
        let tier = store.txs[tx as usize].tier;
        let result = rules.promote(store, id, tier)?;
        Ok(rules.passed(id, result, superseded, admission))
    }
}

/// Card §3.2, check 4: no transitive ancestor is in the revocation
/// registry.
pub(in crate::protocol) fn dependencies_stable(store: &Store, id: RecordId) -> bool {
    !store.ancestors(id).intersects(store.registry)
}

/// Card §3.2: a record that passes every check is committed, and also
/// action_safe in an external_action transaction.
pub(in crate::protocol) fn promote(
    store: &mut Store,
    id: RecordId,
    tier: Tier,
) -> Result<CommitResult, ProtocolError> {
    // A revalidated record passes now: its old quarantine reason goes.
    store.records[id as usize].reason = None;
    store.move_to(id, Lifecycle::Validated)?;
    store.move_to(id, Lifecycle::Committed)?;
    if tier == Tier::ExternalAction {
        store.move_to(id, Lifecycle::ActionSafe)?;
        Ok(CommitResult::ActionSafe)
    } else {
        Ok(CommitResult::Committed)
    }
}

/// The verdict of a record that passed: how it passed (`admission`) and
/// the rivals it superseded.
pub(in crate::protocol) fn passed(
    id: RecordId,
    result: CommitResult,
    superseded: RecordSet,
    admission: Option<Admission>,
) -> RecordVerdict {
    RecordVerdict {
        id,
        result,
        reason: None,
        superseded,
        admission,
    }
}

/// Card §3.2: a commit is committed when every verdict passed, partial
/// when some did, aborted when none did; committed and action_safe
/// verdicts pass.
pub(in crate::protocol) fn passes(result: CommitResult) -> bool {
    matches!(result, CommitResult::Committed | CommitResult::ActionSafe)
}

fn skipped(id: RecordId, result: CommitResult, reason: Option<Reason>) -> RecordVerdict {
    RecordVerdict {
        id,
        result,
        reason,
        superseded: RecordSet::EMPTY,
        admission: None,
    }
}

/// Quarantines `id` for `reason`; `superseded` and `admission` say what
/// check 3 had already done when check 4 failed.
fn quarantine(
    store: &mut Store,
    id: RecordId,
    reason: Reason,
    superseded: RecordSet,
    admission: Option<Admission>,
) -> Result<RecordVerdict, ProtocolError> {
    store.move_to(id, Lifecycle::Quarantined)?;
    store.records[id as usize].reason = Some(reason);
    Ok(RecordVerdict {
        id,
        result: CommitResult::Quarantined,
        reason: Some(reason),
        superseded,
        admission,
    })
}
