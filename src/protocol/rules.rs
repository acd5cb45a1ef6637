//! The rule book: every rule of the card that a test build may replace,
//! one entry each, named for what it decides and pointing at the plain
//! function that is the card's rule (in `commit`, `conflict`, `gate`,
//! `repair`, `dispatch`, `rebuild`, `revalidate`). The protocol's steps
//! ask the book (`self.rules().check_evidence(&record)`), never a fault.
//!
//! In a normal build [`Rules`] holds nothing: each entry is an
//! `#[inline(always)]` method that calls the card's function directly, so
//! the book costs nothing and the release binary runs the card alone. In
//! a test build it is a table of function pointers, [`Rules::CARD`] by
//! default; a test-only `Fault` (`protocol/faults.rs`) is the same table
//! with exactly one entry replaced by a broken rule of a few lines.

use super::commit;
use super::conflict::{self, Verdict};
use super::dispatch::{self, Protocol, Tool};
use super::gate;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::{Admission, CommitResult, GateOutcome, Outcome, RecordVerdict, Repairs};
use super::rebuild;
use super::record::{Kind, Reason, Record};
use super::record_set::{RecordId, RecordSet};
use super::repair;
use super::revalidate;
use super::store::{LogEntry, Repair, Store};
use super::transaction::{visible_at, Tier, Transaction, TxId};
use super::variant::{LaunderingParents, SameSourceTie};

/// Declares the book once for both builds: each entry's doc, its
/// signature, and the card's function that decides it.
macro_rules! rule_book {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $card:path;
    )*) => {
        /// The card's rules (normal build: no data, no indirection).
        #[cfg(not(test))]
        pub(in crate::protocol) struct Rules;

        #[cfg(not(test))]
        impl Rules {
            $(
                $(#[$doc])*
                #[inline(always)]
                pub(in crate::protocol) fn $name(&self, $($arg: $ty),*) $(-> $ret)? {
                    $card($($arg),*)
                }
            )*
        }

        /// The rules a protocol runs (test build: one function pointer an
        /// entry, the card's unless a fault replaced it).
        #[cfg(test)]
        #[derive(Clone, Copy)]
        pub(in crate::protocol) struct Rules {
            $(pub(in crate::protocol) $name: fn($($ty),*) $(-> $ret)?,)*
        }

        #[cfg(test)]
        impl Rules {
            /// Every entry the card's.
            pub(in crate::protocol) const CARD: Rules = Rules { $($name: $card,)* };

            $(
                $(#[$doc])*
                pub(in crate::protocol) fn $name(&self, $($arg: $ty),*) $(-> $ret)? {
                    (self.$name)($($arg),*)
                }
            )*
        }
    };
}

rule_book! {
    // Opening, staging, tool calls.

    /// Card §3.2: a transaction's snapshot, the records visible at its
    /// tier when it opens.
    fn snapshot_at(tier: Tier, records: &[Record]) -> RecordSet = visible_at;
    /// What an open reports: the transaction and its snapshot.
    fn opened(tx: TxId, t: &Transaction) -> Outcome = dispatch::opened;
    /// Card §3.2: a staged record joins its transaction's staging (not its
    /// snapshot).
    fn join_staging(t: &mut Transaction, id: RecordId) = dispatch::join_staging;
    /// The tool_action record an executed call creates: committed.
    fn tool_action(spec: Tool, agent: u8, basis: RecordSet, tool: u8) -> Record =
        dispatch::tool_action;
    /// What an executed call reports: the record it created.
    fn executed(record: RecordId, in_snapshot: RecordSet) -> GateOutcome = dispatch::executed;

    // The commit pipeline (card §3.2).

    /// Check 1, evidence.
    fn check_evidence(record: &Record) -> bool = commit::check_evidence;
    /// Check 2, validity.
    fn check_validity(record: &Record, clock: Option<i32>) -> bool = commit::check_validity;
    /// Check 3, whether a parent of the candidate is in the revocation
    /// registry.
    fn revoked_parent(store: &Store, id: RecordId) -> bool = conflict::revoked_parent;
    /// Check 3, its parent rules in the card's order: revoked parent, then
    /// laundering (asked only when needed: it walks the ancestors).
    fn parent_refusal(revoked_parent: bool, laundered: &dyn Fn() -> bool) -> Option<Reason> =
        conflict::parent_refusal;
    /// Check 3, permission laundering.
    fn laundered(store: &Store, id: RecordId, parents: LaunderingParents) -> bool =
        conflict::laundered;
    /// Check 3, the records holding the candidate's slot: active, of every
    /// kind but tool_action, on its entity and attribute (its rivals are
    /// those whose windows overlap its own).
    fn slot_holders(store: &Store, id: RecordId) -> RecordSet = conflict::slot_holders;
    /// Check 3, what the first rival decides, in the card's order: same
    /// value, stale late write, authority.
    fn rival_verdict(same_value: bool, stale: bool, by_authority: Verdict) -> Verdict =
        conflict::rival_verdict;
    /// Check 3, authority against the first rival: more supersedes, less
    /// is refused, a tie goes to review unless the variant lets a shared
    /// source supersede.
    fn by_authority(candidate: &Record, rival: &Record, tie: SameSourceTie) -> Verdict =
        conflict::by_authority;
    /// Check 3, whether its verdict displaces the rivals: `supersede_old`
    /// alone.
    fn displaces(verdict: Verdict) -> bool = conflict::displaces;
    /// Check 3, `supersede_old`: the rivals it displaces.
    fn supersede_rivals(store: &mut Store, id: RecordId) -> Result<RecordSet, ProtocolError> =
        conflict::supersede_rivals;
    /// Check 4, dependency stability.
    fn dependencies_stable(store: &Store, id: RecordId) -> bool = commit::dependencies_stable;
    /// A record that passed every check: committed, action_safe in an
    /// external_action transaction.
    fn promote(store: &mut Store, id: RecordId, tier: Tier) -> Result<CommitResult, ProtocolError> =
        commit::promote;
    /// The verdict a passed record reports.
    fn passed(
        id: RecordId,
        result: CommitResult,
        superseded: RecordSet,
        admission: Option<Admission>,
    ) -> RecordVerdict = commit::passed;
    /// Which verdicts a commit's status counts as passed.
    fn passes(result: CommitResult) -> bool = commit::passes;

    // The action gate (card §3.3).

    /// First clause: the tentative records the transaction did not read.
    fn in_flight(tentative: RecordSet, t: &Transaction) -> RecordSet = gate::in_flight;
    /// Second clause: an external_action snapshot without an action_safe
    /// record.
    fn lacks_support(store: &Store, t: &Transaction) -> bool = gate::lacks_support;

    // Retraction and typed cascading repair (card §3.4).

    /// Abort: its staged records are retracted.
    fn abort(protocol: &Protocol, store: &mut Store, tx: TxId) -> Result<Outcome, ProtocolError> =
        repair::abort;
    /// Revoke: one committed record is retracted.
    fn revoke(
        protocol: &Protocol,
        store: &mut Store,
        record: RecordId,
    ) -> Result<Outcome, ProtocolError> = repair::revoke;
    /// The cascade: the records a retraction of `roots` reaches.
    fn reached(store: &Store, roots: RecordSet) -> RecordSet = Store::descendants;
    /// The typed repair of one reached record, and the move it makes.
    fn repair_by_type(
        tools: &[Tool],
        store: &mut Store,
        id: RecordId,
        kind: Kind,
    ) -> Result<Option<(Repair, Lifecycle)>, ProtocolError> = repair::repair_by_type;
    /// A repair's rollback-log entry.
    fn log_repair(store: &mut Store, entry: LogEntry) = repair::log_repair;
    /// A repair as the retraction's outcome reports it.
    fn report_repair(repairs: &mut Repairs, id: RecordId, repair: Repair) = repair::report_repair;

    // Revalidation and rebuild (card §3.1, §3.4).

    /// What refuses a revalidation (beyond a closed transaction): a record
    /// not quarantined, or staged by another open transaction.
    fn revalidation_refusal(store: &Store, tx: TxId, record: RecordId) -> Result<(), ProtocolError> =
        revalidate::refusal;
    /// Revalidate: a quarantined record back into a transaction's staging.
    fn revalidate(store: &mut Store, tx: TxId, record: RecordId) -> Result<Outcome, ProtocolError> =
        revalidate::revalidate;
    /// What refuses a rebuild (beyond a closed transaction): not a view,
    /// not quarantined, quarantined by a commit check, staged by another
    /// open transaction, no surviving source.
    fn rebuild_refusal(store: &Store, tx: TxId, record: RecordId) -> Result<(), ProtocolError> =
        rebuild::refusal;
    /// The parents a rebuilt view keeps: its surviving sources.
    fn kept_parents(store: &Store, record: RecordId) -> RecordSet = rebuild::survivors;
}

impl Protocol {
    /// The rule book this protocol runs: the card's (a normal build).
    #[cfg(not(test))]
    #[inline(always)]
    pub(in crate::protocol) fn rules(&self) -> &'static Rules {
        &Rules
    }

    // In a test build, `rules` is in `faults.rs`: the book there depends on
    // the variant's fault, and this file knows nothing of faults.
}
