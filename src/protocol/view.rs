//! [`StoreView`]: the read-only view of a store that the invariant checkers
//! take (DESIGN.md "invariants": they read record fields, transactions and
//! the rollback log, and never call the protocol). It holds the three
//! readable parts, not the store, so no `&Store` can be had back from it,
//! and every protocol operation ([`Protocol::step`], [`Protocol::apply`])
//! takes a `Store`: a checker given a view cannot run the protocol, and the
//! compiler says so.
//!
//! ```compile_fail,E0308
//! use memtx_check::protocol::{Op, Protocol, StoreView, Tier, Variant};
//!
//! /// An invariant checker that tries to ask the protocol what happens next.
//! fn checker(view: StoreView<'_>) -> bool {
//!     let protocol = Protocol::new(Vec::new(), None, Variant::default());
//!     let open = Op::Open { agent: 0, tier: Tier::Low };
//!     protocol.step(view, &open).is_ok()
//! }
//! ```
//!
//! It fails as E0308, mismatched types: a `StoreView` is no `&Store`
//! (stable rustdoc does not check the code, nightly does). The same
//! checker given the store itself, the only difference, compiles; and the
//! view reads what the store holds:
//!
//! ```
//! use memtx_check::protocol::{Op, Protocol, Store, Tier, Variant};
//!
//! fn checker(store: &Store) -> bool {
//!     let protocol = Protocol::new(Vec::new(), None, Variant::default());
//!     let open = Op::Open { agent: 0, tier: Tier::Low };
//!     protocol.step(store, &open).is_ok()
//! }
//!
//! let mut store = Store::new();
//! assert!(checker(&store));
//! let protocol = Protocol::new(Vec::new(), None, Variant::default());
//! protocol.apply(&mut store, &Op::Open { agent: 1, tier: Tier::High }).unwrap();
//! let view = store.view();
//! assert_eq!(view.transactions().len(), 1);
//! assert_eq!(view.transaction(0).unwrap().agent(), 1);
//! assert!(view.records().is_empty() && view.rollback_log().is_empty());
//! ```
//!
//! [`Protocol::step`]: super::Protocol::step
//! [`Protocol::apply`]: super::Protocol::apply

use super::record::Record;
use super::record_set::{RecordId, RecordSet};
use super::store::{LogEntry, Store};
use super::transaction::{Transaction, TxId};

/// Records, transactions and the rollback log of one store, read-only.
#[derive(Clone, Copy, Debug)]
pub struct StoreView<'a> {
    records: &'a [Record],
    txs: &'a [Transaction],
    log: &'a [LogEntry],
}

impl Store {
    /// The read-only view the invariant checkers take.
    pub fn view(&self) -> StoreView<'_> {
        StoreView {
            records: &self.records,
            txs: &self.txs,
            log: &self.log,
        }
    }
}

impl<'a> StoreView<'a> {
    pub fn records(self) -> &'a [Record] {
        self.records
    }

    pub fn record(self, id: RecordId) -> Option<&'a Record> {
        self.records.get(id as usize)
    }

    pub fn transactions(self) -> &'a [Transaction] {
        self.txs
    }

    pub fn transaction(self, tx: TxId) -> Option<&'a Transaction> {
        self.txs.get(tx as usize)
    }

    pub fn rollback_log(self) -> &'a [LogEntry] {
        self.log
    }

    /// All record ids, `0..records().len()`.
    pub fn ids(self) -> RecordSet {
        RecordSet::below(self.records.len())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Op, Protocol, Store, Tier, Tool, Variant};
    use crate::protocol::{Kind, RecordSet, Symbols, TxStatus};

    #[test]
    fn a_view_reads_the_stores_records_transactions_and_log() {
        let mut syms = Symbols::new();
        let tool = Tool {
            name: syms.intern("refund"),
            irreversible: true,
        };
        let protocol = Protocol::new(vec![tool], None, Variant::default());
        let mut store = Store::new();
        for op in [
            Op::Open {
                agent: 0,
                tier: Tier::Low,
            },
            Op::ToolCall {
                tx: 0,
                tool: 0,
                basis: Default::default(),
            },
            Op::Revoke { record: 0 },
            Op::Open {
                agent: 1,
                tier: Tier::High,
            },
            Op::Abort { tx: 1 },
        ] {
            protocol.apply(&mut store, &op).unwrap();
        }
        let view = store.view();
        assert_eq!(view.records(), store.records());
        assert_eq!(view.transactions(), store.transactions());
        assert_eq!(
            view.transaction(1).map(|t| t.status()),
            Some(TxStatus::Aborted)
        );
        assert_eq!(view.rollback_log(), store.rollback_log());
        assert_eq!(view.rollback_log().len(), 1, "the leaked refund");
        assert_eq!(view.record(0).map(|r| r.kind()), Some(Kind::ToolAction));
        assert_eq!((view.record(1), view.transaction(2)), (None, None));
        assert_eq!(view.ids(), RecordSet::single(0));
    }
}
