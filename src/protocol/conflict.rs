//! Commit check 3, semantic conflict (card §3.2 and its `conflict_verdict`
//! pseudocode), in the card's exact order: revoked parent, permission
//! laundering, then the same-slot rules, where the first rival in id order
//! decides: same value, stale late write (before authority), higher, lower,
//! then equal authority. A candidate that passes says how
//! ([`Admission`]), so coverage can count each way a record commits.

use super::dispatch::Protocol;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::Admission;
use super::record::{Kind, Reason, Scope};
use super::record_set::{RecordId, RecordSet};
use super::store::Store;
use super::transaction::TxId;
use super::variant::{Fault, LaunderingParents, Mechanism, SameSourceTie, StaleCheckEmptySnapshot};

/// What check 3 decides for one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::protocol) enum Verdict {
    /// Passes; how, unless the same-slot rules are ablated.
    Commit(Option<Admission>),
    Abort(Reason),
    SupersedeOld(Admission),
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
        let revoked_parent = candidate.derived_from().intersects(store.registry);
        // A parent in the revocation registry (card §3.2).
        if revoked_parent && !self.faulty(Fault::LaunderingBeforeRevokedParent) {
            return Verdict::Abort(Reason::RevokedParent);
        }
        // A private parent republished to a wider scope (card §3.2).
        let widened = if self.faulty(Fault::LaunderingPublicOnly) {
            candidate.scope() == Scope::Public
        } else {
            candidate.scope() != Scope::Private
        };
        if self.has(Mechanism::PermissionInheritance) && widened {
            let laundered = laundering_sources(store, id).iter().any(|p| {
                let parent = &store.records[p as usize];
                let considered = match self.variant.laundering_parents {
                    // Change A reads every ancestor, in any state.
                    _ if cfg!(feature = "tutorial-transitive-laundering") => true,
                    LaunderingParents::Active => parent.state.is_active(),
                    LaunderingParents::Any => true,
                };
                considered && parent.scope() == Scope::Private
            });
            if laundered {
                return Verdict::Abort(Reason::PermissionLaundering);
            }
        }
        if revoked_parent {
            return Verdict::Abort(Reason::RevokedParent);
        }
        if !self.has(Mechanism::Conflict) {
            return Verdict::Commit(None);
        }
        let holders = self.slot_holders(store, id);
        let Some(rival_id) = self.rivals_among(store, id, holders).iter().next() else {
            // Values that hold in non-overlapping windows coexist (card §3.2).
            return Verdict::Commit(Some(if holders.is_empty() {
                Admission::NoRival
            } else {
                Admission::CoexistingWindows
            }));
        };
        let rival = &store.records[rival_id as usize];
        if rival.value() == candidate.value() && !self.faulty(Fault::SameValueConflicts) {
            return Verdict::Commit(Some(Admission::SameValue));
        }
        // Stale late write: the rival is not in the snapshot (card §3.2).
        // The code skips this on an empty snapshot (card "Paper vs code").
        let snapshot = store.txs[tx as usize].snapshot;
        let stale_check = !snapshot.is_empty()
            || self.variant.stale_check_empty_snapshot == StaleCheckEmptySnapshot::Apply;
        let stronger_skips = self.faulty(Fault::StaleCheckSkippedForStronger)
            && candidate.effective_authority() > rival.effective_authority();
        if stale_check
            && !snapshot.contains(rival_id)
            && !self.faulty(Fault::StaleCheckSkipped)
            && !stronger_skips
        {
            return Verdict::Abort(Reason::StaleWrite);
        }
        let (mine, theirs) = (candidate.effective_authority(), rival.effective_authority());
        if mine > theirs {
            Verdict::SupersedeOld(Admission::SupersededByAuthority)
        } else if mine < theirs {
            Verdict::Abort(Reason::LowerAuthority)
        } else if self.variant.same_source_tie == SameSourceTie::Supersede
            && candidate.source() == rival.source()
        {
            Verdict::SupersedeOld(Admission::SupersededBySameSource)
        } else {
            Verdict::AskUser
        }
    }

    /// Active records of any kind on the candidate's entity and attribute,
    /// other than the candidate, whose validity windows overlap its own;
    /// values that hold in non-overlapping windows coexist (DESIGN.md).
    pub(in crate::protocol) fn rivals(&self, store: &Store, id: RecordId) -> RecordSet {
        self.rivals_among(store, id, self.slot_holders(store, id))
    }

    /// Active records of any kind on the candidate's entity and attribute,
    /// other than the candidate, whatever their windows.
    fn slot_holders(&self, store: &Store, id: RecordId) -> RecordSet {
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
            })
            .map(|(rid, _)| rid as RecordId)
            .collect()
    }

    /// The `holders` whose windows overlap the candidate's.
    fn rivals_among(&self, store: &Store, id: RecordId, holders: RecordSet) -> RecordSet {
        let window = store.records[id as usize].window();
        holders
            .iter()
            .filter(|&r| store.records[r as usize].window().overlaps(window))
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

/// The records the laundering rule reads for candidate `id`: its parents
/// (card §3.2); under the test-only spec change A
/// (`tutorial-transitive-laundering`), every transitive ancestor.
fn laundering_sources(store: &Store, id: RecordId) -> RecordSet {
    if cfg!(feature = "tutorial-transitive-laundering") {
        store.ancestors(id)
    } else {
        store.records[id as usize].derived_from()
    }
}
