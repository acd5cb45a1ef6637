//! Commit check 3, semantic conflict (card §3.2 and its `conflict_verdict`
//! pseudocode), in the card's exact order: revoked parent, permission
//! laundering, then the same-slot rules, where the first rival in id order
//! decides: same value, stale late write (before authority), higher, lower,
//! then equal authority.

use super::dispatch::Protocol;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::record::{Kind, Reason, Scope};
use super::record_set::{RecordId, RecordSet};
use super::store::Store;
use super::transaction::TxId;
use super::variant::{Fault, LaunderingParents, Mechanism, SameSourceTie, StaleCheckEmptySnapshot};

/// What check 3 decides for one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::protocol) enum Verdict {
    Commit,
    Abort(Reason),
    SupersedeOld,
    AskUser,
}

impl Protocol {
    pub(in crate::protocol) fn conflict_verdict(
        &self,
        store: &Store,
        tx: TxId,
        id: RecordId,
    ) -> Verdict {
        let candidate = &store.records[id as usize];
        // A parent in the revocation registry (card §3.2).
        if candidate.derived_from().intersects(store.registry) {
            return Verdict::Abort(Reason::RevokedParent);
        }
        // A private parent republished to a wider scope (card §3.2).
        let widened = if self.faulty(Fault::LaunderingPublicOnly) {
            candidate.scope() == Scope::Public
        } else {
            candidate.scope() != Scope::Private
        };
        if self.has(Mechanism::PermissionInheritance) && widened {
            let laundered = candidate.derived_from().iter().any(|p| {
                let parent = &store.records[p as usize];
                let considered = match self.variant.laundering_parents {
                    LaunderingParents::Active => parent.state.is_active(),
                    LaunderingParents::Any => true,
                };
                considered && parent.scope() == Scope::Private
            });
            if laundered {
                return Verdict::Abort(Reason::PermissionLaundering);
            }
        }
        if !self.has(Mechanism::Conflict) {
            return Verdict::Commit;
        }
        let Some(rival_id) = self.rivals(store, id).iter().next() else {
            return Verdict::Commit;
        };
        let rival = &store.records[rival_id as usize];
        if rival.value() == candidate.value() {
            return Verdict::Commit;
        }
        // Stale late write: the rival is not in the snapshot (card §3.2).
        // The code skips this on an empty snapshot (card "Paper vs code").
        let snapshot = store.txs[tx as usize].snapshot;
        let stale_check = !snapshot.is_empty()
            || self.variant.stale_check_empty_snapshot == StaleCheckEmptySnapshot::Apply;
        if stale_check && !snapshot.contains(rival_id) && !self.faulty(Fault::StaleCheckSkipped) {
            return Verdict::Abort(Reason::StaleWrite);
        }
        let (mine, theirs) = (candidate.effective_authority(), rival.effective_authority());
        if mine > theirs {
            Verdict::SupersedeOld
        } else if mine < theirs {
            Verdict::Abort(Reason::LowerAuthority)
        } else if self.variant.same_source_tie == SameSourceTie::Supersede
            && candidate.source() == rival.source()
        {
            Verdict::SupersedeOld
        } else {
            Verdict::AskUser
        }
    }

    /// Active records of any kind on the candidate's entity and attribute,
    /// other than the candidate, whose validity windows overlap its own;
    /// values that hold in non-overlapping windows coexist (DESIGN.md).
    pub(in crate::protocol) fn rivals(&self, store: &Store, id: RecordId) -> RecordSet {
        let candidate = &store.records[id as usize];
        store
            .records
            .iter()
            .enumerate()
            .filter(|&(rid, r)| {
                rid != id as usize
                    && r.state.is_active()
                    // A tool action carries no belief slot of its own.
                    && r.kind() != Kind::ToolAction
                    && r.entity() == candidate.entity()
                    && r.attribute() == candidate.attribute()
                    && r.window().overlaps(candidate.window())
            })
            .map(|(rid, _)| rid as RecordId)
            .collect()
    }

    /// `supersede_old`: every rival whose value differs is superseded.
    pub(in crate::protocol) fn supersede_rivals(
        &self,
        store: &mut Store,
        id: RecordId,
    ) -> Result<RecordSet, ProtocolError> {
        if self.faulty(Fault::SupersedeForgetsRivals) {
            return Ok(RecordSet::EMPTY);
        }
        let value = store.records[id as usize].value();
        let displaced: RecordSet = self
            .rivals(store, id)
            .iter()
            .filter(|&r| store.records[r as usize].value() != value)
            .collect();
        for r in displaced.iter() {
            store.move_to(r, Lifecycle::Superseded)?;
        }
        Ok(displaced)
    }
}
