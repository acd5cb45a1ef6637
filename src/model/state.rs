//! The model's state and the model itself (its behaviour is implemented
//! in `model/`'s other files).

use super::spec::ModelSpec;
use crate::invariants::Monitor;
use crate::protocol::{Lifecycle, RecordId, RecordSet, Store, StoreView};

/// A state of the model: the protocol's store plus the invariants'
/// monitor of the actions that led to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelState {
    pub store: Store,
    pub monitor: Monitor,
}

impl ModelState {
    /// The records the monitor has held back where the store does not
    /// imply it ([`implied_held_back`]): empty in a correct protocol.
    pub fn held_back_departure(&self) -> RecordSet {
        let implied = implied_held_back(self.store.view());
        RecordSet::from_bits(self.monitor.held_back().bits() ^ implied.bits())
    }
}

/// The store, then the monitor, then the records held back where they
/// depart from what the store implies: in a correct protocol they never
/// do, so a state's fingerprint is the store's and the monitor's alone.
/// Only a retraction holds a record back, so a state before any (most
/// states) has none held back and nothing to add.
impl std::hash::Hash for ModelState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.store.hash(h);
        self.monitor.hash(h);
        if !self.monitor.retracted().is_empty() {
            let departs = self.held_back_departure();
            if !departs.is_empty() {
                h.write_u64(departs.bits());
            }
        }
    }
}

/// The records a correct protocol's store shows held back: quarantined
/// without a commit check's reason. A commit check writes its reason when
/// it quarantines (card §3.2), the cascade clears it when it holds a
/// record back (card §3.4), and nothing else moves a record into
/// quarantine. The checkers never read it: it only makes the monitor's
/// part cost nothing where the two agree.
pub(super) fn implied_held_back(store: StoreView<'_>) -> RecordSet {
    let mut set = RecordSet::EMPTY;
    for (id, r) in store.records().iter().enumerate() {
        if r.state() == Lifecycle::Quarantined && r.reason().is_none() {
            set.insert(id as RecordId);
        }
    }
    set
}

/// The model: a specification plus the stateright plumbing.
#[derive(Clone, Debug)]
pub struct MemtxModel {
    pub spec: ModelSpec,
}
