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
use super::record::{Kind, Reason, Record, Scope};
use super::record_set::{RecordId, RecordSet};
use super::store::Store;
use super::transaction::TxId;
use super::variant::{LaunderingParents, Mechanism, SameSourceTie, StaleCheckEmptySnapshot};

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
    /// Card §3.2, check 3 (`conflict_verdict`) for staged record `id` of
    /// transaction `tx`.
    pub(in crate::protocol) fn conflict_verdict(
        &self,
        store: &Store,
        tx: TxId,
        id: RecordId,
    ) -> Verdict {
        let rules = self.rules();
        let candidate = &store.records[id as usize];
        let revoked_parent = rules.revoked_parent(store, id);
        let laundered = || {
            self.has(Mechanism::PermissionInheritance)
                && rules.laundered(store, id, self.variant.laundering_parents)
        };
        if let Some(reason) = rules.parent_refusal(revoked_parent, &laundered) {
            return Verdict::Abort(reason);
        }
        if !self.has(Mechanism::Conflict) {
            return Verdict::Commit(None);
        }
        let holders = rules.slot_holders(store, id);
        let Some(rival_id) = rivals_among(store, id, holders).iter().next() else {
            // Values that hold in non-overlapping windows coexist (card §3.2).
            return Verdict::Commit(Some(if holders.is_empty() {
                Admission::NoRival
            } else {
                Admission::CoexistingWindows
            }));
        };
        let rival = &store.records[rival_id as usize];
        let snapshot = store.txs[tx as usize].snapshot;
        rules.rival_verdict(
            rival.value() == candidate.value(),
            stale_write(snapshot, rival_id, self.variant.stale_check_empty_snapshot),
            rules.by_authority(candidate, rival, self.variant.same_source_tie),
        )
    }
}

/// Card §3.2, check 3: a parent of candidate `id` is in the revocation
/// registry, which only grows (a view held back and rebuilt stays in it).
pub(in crate::protocol) fn revoked_parent(store: &Store, id: RecordId) -> bool {
    store.records[id as usize]
        .derived_from()
        .intersects(store.registry)
}

/// Card §3.2, check 3: a candidate derived from a revoked parent is
/// refused, then one that launders a private parent; the slot is judged
/// only after both. `laundered` walks the ancestors, so it is asked only
/// for a candidate with no revoked parent.
pub(in crate::protocol) fn parent_refusal(
    revoked_parent: bool,
    laundered: &dyn Fn() -> bool,
) -> Option<Reason> {
    if revoked_parent {
        Some(Reason::RevokedParent)
    } else if laundered() {
        Some(Reason::PermissionLaundering)
    } else {
        None
    }
}

/// Card §3.2, check 3: permission laundering, a private parent
/// republished to a wider scope; `parents` says which parents count
/// (card "Paper vs code": the code reads active ones only).
pub(in crate::protocol) fn laundered(
    store: &Store,
    id: RecordId,
    parents: LaunderingParents,
) -> bool {
    let candidate = &store.records[id as usize];
    candidate.scope() != Scope::Private
        && laundering_sources(store, id).iter().any(|p| {
            let parent = &store.records[p as usize];
            let considered = match parents {
                // Change A reads every ancestor, in any state.
                _ if cfg!(feature = "tutorial-transitive-laundering") => true,
                LaunderingParents::Active => parent.state.is_active(),
                LaunderingParents::Any => true,
            };
            considered && parent.scope() == Scope::Private
        })
}

/// Card §3.2, check 3, the first rival in id order decides: a rival with
/// the same value lets the candidate commit beside it; otherwise a stale
/// late write is refused before authority is compared; otherwise
/// authority decides.
pub(in crate::protocol) fn rival_verdict(
    same_value: bool,
    stale: bool,
    by_authority: Verdict,
) -> Verdict {
    if same_value {
        Verdict::Commit(Some(Admission::SameValue))
    } else if stale {
        Verdict::Abort(Reason::StaleWrite)
    } else {
        by_authority
    }
}

/// Card §3.2, `if verdict == "supersede_old": supersede_rivals(...)`:
/// only a supersede displaces the rivals; a refusal leaves them standing.
pub(in crate::protocol) fn displaces(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::SupersedeOld(_))
}

/// Card §3.2: a stale late write, the rival not in the snapshot. The code
/// skips this on an empty snapshot (card "Paper vs code").
fn stale_write(snapshot: RecordSet, rival_id: RecordId, on_empty: StaleCheckEmptySnapshot) -> bool {
    let stale_check = !snapshot.is_empty() || on_empty == StaleCheckEmptySnapshot::Apply;
    stale_check && !snapshot.contains(rival_id)
}

/// Card §3.2: more authority supersedes the rival, less is refused; equal
/// authority goes to user review, unless both share a source and the
/// variant follows the code (card "Paper vs code").
pub(in crate::protocol) fn by_authority(
    candidate: &Record,
    rival: &Record,
    tie: SameSourceTie,
) -> Verdict {
    let (mine, theirs) = (candidate.effective_authority(), rival.effective_authority());
    if mine > theirs {
        Verdict::SupersedeOld(Admission::SupersededByAuthority)
    } else if mine < theirs {
        Verdict::Abort(Reason::LowerAuthority)
    } else if tie == SameSourceTie::Supersede && candidate.source() == rival.source() {
        Verdict::SupersedeOld(Admission::SupersededBySameSource)
    } else {
        Verdict::AskUser
    }
}

/// Active records of any kind on the candidate's entity and attribute,
/// other than the candidate, whose validity windows overlap its own;
/// values that hold in non-overlapping windows coexist (DESIGN.md).
fn rivals(store: &Store, id: RecordId) -> RecordSet {
    rivals_among(store, id, slot_holders(store, id))
}

/// Active records of any kind on the candidate's entity and attribute,
/// other than the candidate, whatever their windows.
pub(in crate::protocol) fn slot_holders(store: &Store, id: RecordId) -> RecordSet {
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
fn rivals_among(store: &Store, id: RecordId, holders: RecordSet) -> RecordSet {
    let window = store.records[id as usize].window();
    holders
        .iter()
        .filter(|&r| store.records[r as usize].window().overlaps(window))
        .collect()
}

/// Card §3.2, `supersede_old`: every rival whose value differs is
/// superseded.
pub(in crate::protocol) fn supersede_rivals(
    store: &mut Store,
    id: RecordId,
) -> Result<RecordSet, ProtocolError> {
    supersede_among(store, id, rivals(store, id))
}

/// Supersedes those of `candidates` whose value differs from record
/// `id`'s, and returns them.
pub(in crate::protocol) fn supersede_among(
    store: &mut Store,
    id: RecordId,
    candidates: RecordSet,
) -> Result<RecordSet, ProtocolError> {
    let value = store.records[id as usize].value();
    let displaced: RecordSet = candidates
        .iter()
        .filter(|&r| store.records[r as usize].value() != value)
        .collect();
    for r in displaced.iter() {
        store.move_to(r, Lifecycle::Superseded)?;
    }
    Ok(displaced)
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
