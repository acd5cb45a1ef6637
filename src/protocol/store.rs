//! The store: records, transactions, the revocation registry and the
//! rollback log. It is the model checker's state, so it holds integers only.
//!
//! Records, transactions and the rollback log are readable by anyone
//! (they are what the invariants inspect, through [`super::StoreView`]). The revocation registry is the
//! protocol's own bookkeeping and is private to `protocol`: the invariant
//! checkers cannot reach it (DESIGN.md "invariants").

use super::enumerated::enumerated;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::record::Record;
use super::record_set::{RecordId, RecordSet};
use super::transaction::{Transaction, TxId};
use serde::{Deserialize, Serialize};

enumerated! {
    /// How one record was repaired by a retraction (card §3.4).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Repair {
        Revoked = "revoked",
        Quarantined = "quarantined",
        /// A reversible tool action, compensated (and revoked).
        Compensated = "compensated",
        /// An irreversible tool action, logged as a leaked effect (and revoked).
        Leaked = "leaked",
    }
}

/// One rollback-log entry: a repair, with what an independent checker
/// needs to judge it without the protocol's bookkeeping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub record: RecordId,
    pub repair: Repair,
    /// True for a retracted record itself (a root of abort or revoke),
    /// false for a descendant the cascade reached.
    pub root: bool,
    /// The record's lifecycle state just before the repair.
    pub from: Lifecycle,
    /// How many records existed when the retraction ran: the cascade
    /// covers exactly the descendants with smaller ids.
    pub horizon: u8,
}

/// One word, injectively (see `Record`'s `Hash`).
impl std::hash::Hash for LogEntry {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(
            u64::from(self.record)
                | (self.repair as u64) << 8
                | u64::from(self.root) << 10
                | (self.from as u64) << 11
                | u64::from(self.horizon) << 14,
        );
    }
}

/// The protocol's whole mutable state.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Store {
    pub(in crate::protocol) records: Vec<Record>,
    pub(in crate::protocol) txs: Vec<Transaction>,
    /// The revocation registry: every retracted record and every descendant
    /// a cascade reached (card §3.4 `retract`). Records quarantined by a
    /// commit check are not in it (card pitfall).
    pub(in crate::protocol) registry: RecordSet,
    pub(in crate::protocol) log: Vec<LogEntry>,
}

/// The three lengths and the registry in one 128-bit word, then each
/// record, transaction and log entry (injectively: the lengths say where
/// each part ends). The fingerprint hasher takes a 128-bit word in one
/// multiply, and a chain of those multiplies is a fingerprint's time.
impl std::hash::Hash for Store {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let lengths = self.records.len() as u64
            | (self.txs.len() as u64) << 16
            | (self.log.len() as u64) << 32;
        h.write_u128(u128::from(lengths) | u128::from(self.registry.bits()) << 64);
        for r in &self.records {
            r.hash(h);
        }
        for t in &self.txs {
            t.hash(h);
        }
        for e in &self.log {
            e.hash(h);
        }
    }
}

/// A copy with room for what one step adds: a model checker clones the
/// store on every transition, then the step stages a record, opens a
/// transaction or logs repairs. `Vec`'s own clone allocates exactly the
/// length, so that first push reallocated and copied again on most
/// transitions (8% of the engine's instructions on the default model at
/// depth 7, counted with callgrind). Stores inline in one block were tried
/// and were no faster: a clone then copies the whole block several times.
impl Clone for Store {
    fn clone(&self) -> Self {
        let mut copy = Store::new();
        copy.clone_from(self);
        copy
    }

    /// The same copy into `self`'s buffers: once they have grown to the
    /// largest store seen, a step allocates nothing (the engine steps
    /// every transition into one reused state, `Protocol::step_into`).
    fn clone_from(&mut self, source: &Self) {
        copy_with_headroom(&mut self.records, &source.records, 1);
        copy_with_headroom(&mut self.txs, &source.txs, 1);
        self.registry = source.registry;
        copy_with_headroom(&mut self.log, &source.log, 4);
    }
}

fn copy_with_headroom<T: Copy>(to: &mut Vec<T>, items: &[T], extra: usize) {
    to.clear();
    to.reserve(items.len() + extra);
    to.extend_from_slice(items);
}

impl Store {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn record(&self, id: RecordId) -> Option<&Record> {
        self.view().record(id)
    }

    pub fn transactions(&self) -> &[Transaction] {
        &self.txs
    }

    pub fn transaction(&self, tx: TxId) -> Option<&Transaction> {
        self.view().transaction(tx)
    }

    pub fn rollback_log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Renames the transactions so that they stand in ascending order of
    /// their values (`Transaction`'s `Ord`): transaction `k` becomes the
    /// `k`-th smallest. A transaction id is nothing but a position in
    /// `txs`; records name records and their owner agent, the registry and
    /// the rollback log name records, so no other field of a store names a
    /// transaction and the result is the same store up to a renaming of
    /// transaction ids. Equal transactions are interchangeable, so the
    /// result is the same for every store that differs from this one only
    /// by such a renaming. The model's symmetry reduction
    /// (`model::symmetry`) relies on both.
    pub fn sort_transactions(&mut self) {
        self.txs.sort_unstable();
    }

    /// All record ids, `0..records().len()`.
    pub fn ids(&self) -> RecordSet {
        self.view().ids()
    }

    /// The ids of records in `state`.
    pub fn in_state(&self, state: Lifecycle) -> RecordSet {
        self.records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.state == state)
            .map(|(id, _)| id as RecordId)
            .collect()
    }

    /// Moves record `id` to `to` if the lifecycle allows it (card §3.1)
    /// and returns the state it left; a refused move is the caller's
    /// error, never silently ignored (DESIGN.md "Lifecycle moves").
    pub(in crate::protocol) fn move_to(
        &mut self,
        id: RecordId,
        to: Lifecycle,
    ) -> Result<Lifecycle, ProtocolError> {
        let record = &mut self.records[id as usize];
        let from = record.state;
        record.state = from
            .move_to(to)
            .map_err(|illegal| ProtocolError::IllegalMove {
                record: id,
                illegal,
            })?;
        Ok(from)
    }

    /// Every transitive ancestor of `id`, from the protocol's dependency
    /// walk. Parents always have smaller ids than their children, so one
    /// descending pass closes the set.
    pub(in crate::protocol) fn ancestors(&self, id: RecordId) -> RecordSet {
        let mut anc = self.records[id as usize].derived_from();
        for p in (0..id).rev() {
            if anc.contains(p) {
                anc = anc.union(self.records[p as usize].derived_from());
            }
        }
        anc
    }

    /// Every transitive descendant of `roots`, roots excluded.
    pub(in crate::protocol) fn descendants(&self, roots: RecordSet) -> RecordSet {
        let mut reached = roots;
        for (id, record) in self.records.iter().enumerate() {
            if record.derived_from().intersects(reached) {
                reached.insert(id as RecordId);
            }
        }
        reached.difference(roots)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Op, Protocol, Symbols, Tier, Variant};
    use super::*;
    use crate::protocol::{Hundredths, Kind, Proposal, Scope, Window};

    /// Test-only doors into the store's private state.
    impl Store {
        /// The same store with transaction `order[k]` as transaction `k`: any
        /// renaming of transaction ids, for tests of the symmetry reduction.
        pub(crate) fn renamed_for_tests(&self, order: &[usize]) -> Store {
            let mut sorted = order.to_vec();
            sorted.sort_unstable();
            assert!(
                sorted.iter().copied().eq(0..self.txs.len()),
                "a permutation"
            );
            Store {
                txs: order.iter().map(|&k| self.txs[k]).collect(),
                ..self.clone()
            }
        }

        /// The protocol's own view of the revocation registry, for tests that
        /// cross-check it against an independent recomputation.
        pub(crate) fn registry_for_tests(&self) -> RecordSet {
            self.registry
        }

        /// The protocol's own descendant walk, for tests that cross-check the
        /// invariant checkers' recomputation against it.
        pub(crate) fn descendants_for_tests(&self, roots: RecordSet) -> RecordSet {
            self.descendants(roots)
        }

        /// The protocol's own ancestor walk, for cross-checking tests.
        pub(crate) fn ancestors_for_tests(&self, id: RecordId) -> RecordSet {
            self.ancestors(id)
        }
    }

    /// A store holding one tentative record, r0.
    fn one_tentative() -> Store {
        let mut syms = Symbols::new();
        let s = syms.intern("s");
        let protocol = Protocol::new(Vec::new(), None, Variant::default());
        let mut store = Store::new();
        let proposal = Proposal {
            kind: Kind::Belief,
            entity: s,
            attribute: s,
            value: s,
            source: None,
            authority: Hundredths(50),
            confidence: Hundredths(100),
            owner: None,
            scope: Scope::Shared,
            derived_from: RecordSet::EMPTY,
            window: Window::default(),
        };
        for op in [
            Op::Open {
                agent: 0,
                tier: Tier::Low,
            },
            Op::Stage { tx: 0, proposal },
        ] {
            protocol.apply(&mut store, &op).unwrap();
        }
        store
    }

    #[test]
    fn a_move_returns_the_state_left_and_a_refused_one_names_the_record() {
        let mut store = one_tentative();
        assert_eq!(
            store.move_to(0, Lifecycle::Validated),
            Ok(Lifecycle::Tentative)
        );
        assert_eq!(store.records[0].state, Lifecycle::Validated);
        let refused = store.move_to(0, Lifecycle::Tentative);
        assert_eq!(
            refused,
            Err(ProtocolError::IllegalMove {
                record: 0,
                illegal: crate::protocol::lifecycle::IllegalMove {
                    from: Lifecycle::Validated,
                    to: Lifecycle::Tentative,
                },
            })
        );
        assert_eq!(store.records[0].state, Lifecycle::Validated, "unchanged");
    }
}
