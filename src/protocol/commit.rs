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
use super::variant::{Fault, Mechanism};

/// Confidence needed by check 1, inclusive (card §3.2).
pub const EVIDENCE_THRESHOLD: Hundredths = Hundredths(60);
/// Authority at which a source skips the confidence check, inclusive.
pub const AUTHORITY_BYPASS: Hundredths = Hundredths(90);

impl Protocol {
    /// Check 1: confidence ≥ 0.6 unless authority ≥ 0.9, both inclusive.
    fn check_evidence(&self, record: &Record) -> bool {
        let authority = if self.faulty(Fault::MissingSourceKeepsAuthority) {
            record.authority()
        } else {
            record.effective_authority()
        };
        // The faults that make a bound exclusive fail a record exactly on it.
        let on_bound = |value: Hundredths, bound: Hundredths, fault: Fault| {
            value == bound && self.faulty(fault)
        };
        if on_bound(
            record.confidence(),
            EVIDENCE_THRESHOLD,
            Fault::EvidenceThresholdExclusive,
        ) && authority < AUTHORITY_BYPASS
            || on_bound(authority, AUTHORITY_BYPASS, Fault::AuthorityBypassExclusive)
                && record.confidence() < EVIDENCE_THRESHOLD
        {
            return false;
        }
        record.confidence() >= EVIDENCE_THRESHOLD || authority >= AUTHORITY_BYPASS
    }

    /// Check 2: the window contains the logical now; without a clock it
    /// passes.
    fn check_validity(&self, record: &Record) -> bool {
        let mut window = record.window();
        if self.faulty(Fault::ValidityOffByOne) {
            window.to = window.to.map(|to| to + 1);
        }
        if self.faulty(Fault::WindowEndExclusive) {
            window.to = window.to.map(|to| to - 1);
        }
        self.clock.is_none_or(|now| window.contains(now))
    }
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
        let passed = verdicts
            .iter()
            .filter(|v| match v.result {
                CommitResult::Committed => true,
                CommitResult::ActionSafe => !self.faulty(Fault::StatusIgnoresActionSafe),
                _ => false,
            })
            .count();
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
        let record = store.records[id as usize];
        if self.has(Mechanism::Evidence) && !self.check_evidence(&record) {
            return quarantine(store, id, Reason::LowEvidence, RecordSet::EMPTY, None);
        }
        if self.has(Mechanism::Validity) && !self.check_validity(&record) {
            return quarantine(store, id, Reason::OutsideValidity, RecordSet::EMPTY, None);
        }
        *verifier_calls += 1;
        let mut superseded = RecordSet::EMPTY;
        let admission = match self.conflict_verdict(store, tx, id) {
            Verdict::Commit(admission) => admission,
            Verdict::Abort(reason) => return quarantine(store, id, reason, superseded, None),
            Verdict::AskUser => {
                return quarantine(store, id, Reason::NeedsReview, superseded, None)
            }
            // As in the card's pseudocode, superseding happens before check 4.
            Verdict::SupersedeOld(admission) => {
                superseded = self.supersede_rivals(store, id)?;
                Some(admission)
            }
        };
        let stable = if self.faulty(Fault::DependencyParentsOnly) {
            !record.derived_from().intersects(store.registry)
        } else if self.faulty(Fault::DependencyRejectsSuperseded) {
            let superseded = store.in_state(Lifecycle::Superseded);
            dependencies_stable(store, id) && !store.ancestors(id).intersects(superseded)
        } else {
            dependencies_stable(store, id)
        };
        if self.has(Mechanism::DependencyStability) && !stable {
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
        let external = store.txs[tx as usize].tier == Tier::ExternalAction
            && !self.faulty(Fault::ExternalCommitNotSafe);
        // A revalidated record passes now: its old quarantine reason goes.
        store.records[id as usize].reason = None;
        store.move_to(id, Lifecycle::Validated)?;
        store.move_to(id, Lifecycle::Committed)?;
        let result = if external {
            store.move_to(id, Lifecycle::ActionSafe)?;
            if self.faulty(Fault::ActionSafeReportedCommitted) {
                CommitResult::Committed
            } else {
                CommitResult::ActionSafe
            }
        } else {
            CommitResult::Committed
        };
        if self.faulty(Fault::SupersedeUnreported) {
            superseded = RecordSet::EMPTY;
        }
        Ok(RecordVerdict {
            id,
            result,
            reason: None,
            superseded,
            admission,
        })
    }
}

/// Check 4: no transitive ancestor is in the revocation registry.
pub(in crate::protocol) fn dependencies_stable(store: &Store, id: RecordId) -> bool {
    !store.ancestors(id).intersects(store.registry)
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
