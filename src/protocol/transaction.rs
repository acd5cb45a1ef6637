//! Transactions: risk tier, isolation by tier, the snapshot taken at open,
//! staging in order, and status (card §3.1, §3.2).

use super::enumerated::enumerated;
use super::record::Record;
use super::record_set::RecordSet;
use serde::{Deserialize, Serialize};

/// A transaction id: its position in the store, in opening order.
pub type TxId = u8;

enumerated! {
    /// Risk tier; the harness sets it and it selects the read isolation.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Tier {
        /// Committed read.
        Low = "low",
        /// Verified read.
        Medium = "medium",
        /// Causally stable read.
        High = "high",
        /// Action-safe read; passing commits become action_safe.
        ExternalAction = "external_action",
    }
}

enumerated! {
    /// Open until commit or abort.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum TxStatus {
        Open = "open",
        Committed = "committed",
        Aborted = "aborted",
    }
}

/// One transaction. Its order (`Ord`, every field in turn) means nothing
/// to the protocol: it is a total order on values, which names the
/// canonical renaming of transaction ids ([`super::Store::sort_transactions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Transaction {
    pub(in crate::protocol) agent: u8,
    pub(in crate::protocol) tier: Tier,
    pub(in crate::protocol) status: TxStatus,
    pub(in crate::protocol) snapshot: RecordSet,
    /// Records staged, in staging order (ids grow with staging order).
    pub(in crate::protocol) staged: RecordSet,
}

impl Transaction {
    pub fn agent(&self) -> u8 {
        self.agent
    }
    pub fn tier(&self) -> Tier {
        self.tier
    }
    pub fn status(&self) -> TxStatus {
        self.status
    }
    /// The records visible at open time; it never changes.
    pub fn snapshot(&self) -> RecordSet {
        self.snapshot
    }
    pub fn staged(&self) -> RecordSet {
        self.staged
    }
    /// What the transaction sees: its snapshot and its own staging.
    pub fn visible(&self) -> RecordSet {
        self.snapshot.union(self.staged)
    }
}

/// A 128-bit word and a 64-bit one, injectively (see `Store`'s `Hash`).
impl std::hash::Hash for Transaction {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u128(u128::from(self.snapshot.bits()) | u128::from(self.staged.bits()) << 64);
        h.write_u64(u64::from(self.agent) | (self.tier as u64) << 8 | (self.status as u64) << 10);
    }
}

/// The records visible at `tier` in `records` (DESIGN.md "Visibility at
/// open"): committed reads see committed and action_safe records; causally
/// stable reads additionally need every transitive ancestor committed or
/// action_safe; action-safe reads see action_safe records only.
pub(in crate::protocol) fn visible_at(tier: Tier, records: &[Record]) -> RecordSet {
    let mut visible = RecordSet::EMPTY;
    // Ids are in creation order and parents precede children, so one pass
    // in id order knows each parent's stability before its children.
    let mut stable = RecordSet::EMPTY;
    for (id, record) in records.iter().enumerate() {
        let id = id as u8;
        let settled = record.state().is_committed_or_safe();
        let parents = record.derived_from();
        if settled && parents.difference(stable).is_empty() {
            stable.insert(id);
        }
        let sees = match tier {
            Tier::Low | Tier::Medium => settled,
            Tier::High => stable.contains(id),
            Tier::ExternalAction => record.state() == super::lifecycle::Lifecycle::ActionSafe,
        };
        if sees {
            visible.insert(id);
        }
    }
    visible
}
