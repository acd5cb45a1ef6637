//! The non-vacuity companions (DESIGN.md "Invariants"): "sometimes"
//! properties whose being reached shows that an invariant was exercised:
//! a state where the mechanism it guards actually acted. Each guards one
//! invariant ([`Companion::guards`]) and is a predicate on one state, read
//! from record fields, the rollback log and the monitor like the
//! invariants themselves.

use super::context::Context;
use super::i1::irreversible_allowed;
use super::i2::rebuilt;
use super::invariant::Invariant;
use super::monitor::Monitor;
use super::snapshot::visible_at;
use crate::protocol::{enumerated, Kind, Lifecycle, Reason, Repair, StoreView, TxStatus};

enumerated! {
    /// One companion.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Companion {
        /// An irreversible tool call has executed.
        IrreversibleExecuted = "irreversible call executes",
        /// Some transaction that may still call tools would have an
        /// irreversible call blocked by the gate here.
        IrreversibleBlocked = "irreversible call blocked",
        /// A cascade revoked a descendant.
        CascadeRevokedDescendant = "cascade revokes a descendant",
        /// A cascade quarantined a view.
        ViewQuarantined = "view quarantined",
        /// A leaked irreversible effect was logged.
        LeakLogged = "leak logged",
        /// A record was superseded.
        Superseded = "record superseded",
        /// A record went to user review.
        UserReview = "record goes to user review",
        /// Commit check 1 quarantined a record.
        LowEvidenceRefused = "low evidence quarantined",
        /// Commit check 2 quarantined a record.
        OutsideValidityRefused = "expired record quarantined",
        /// A record lost to a rival of higher authority.
        LowerAuthorityRefused = "lower authority quarantined",
        /// The laundering rule quarantined a record.
        LaunderingRefused = "laundering quarantined",
        /// A commit promoted a record all the way to action_safe.
        ActionSafePromoted = "record promoted to action_safe",
        /// A retraction reached a tool action.
        RetractionReachesToolAction = "retraction reaches a tool action",
        /// A stale late write was refused.
        StaleWriteRefused = "stale write quarantined",
        /// An aborted transaction had staged records.
        AbortedWithStaging = "abort retracts staged records",
        /// A transaction's snapshot differs from what its tier sees now.
        SnapshotDiffersFromNow = "snapshot differs from now",
        /// A view a retraction reached derives from no retracted record any
        /// more: it was rebuilt from surviving sources.
        ViewRebuilt = "view rebuilt from surviving sources",
    }
}

impl Companion {
    /// The invariant whose mechanism it shows at work.
    pub fn guards(self) -> Invariant {
        match self {
            Companion::IrreversibleExecuted | Companion::IrreversibleBlocked => Invariant::I1,
            Companion::CascadeRevokedDescendant
            | Companion::ViewQuarantined
            | Companion::LeakLogged => Invariant::I2,
            Companion::Superseded | Companion::UserReview | Companion::LowerAuthorityRefused => {
                Invariant::OneValuePerSlot
            }
            Companion::LowEvidenceRefused => Invariant::Evidence,
            Companion::OutsideValidityRefused => Invariant::Validity,
            Companion::LaunderingRefused => Invariant::Scope,
            Companion::ActionSafePromoted | Companion::ViewRebuilt => Invariant::Lifecycle,
            Companion::RetractionReachesToolAction => Invariant::LogCompleteness,
            Companion::StaleWriteRefused => Invariant::StaleWrite,
            Companion::AbortedWithStaging => Invariant::TxHygiene,
            Companion::SnapshotDiffersFromNow => Invariant::Snapshot,
        }
    }

    /// A short identifier for files and JSON.
    pub fn key(self) -> &'static str {
        match self {
            Companion::IrreversibleExecuted => "irreversible_executed",
            Companion::IrreversibleBlocked => "irreversible_blocked",
            Companion::CascadeRevokedDescendant => "cascade_revokes_descendant",
            Companion::ViewQuarantined => "view_quarantined",
            Companion::LeakLogged => "leak_logged",
            Companion::Superseded => "superseded",
            Companion::UserReview => "user_review",
            Companion::LowEvidenceRefused => "low_evidence_quarantined",
            Companion::OutsideValidityRefused => "outside_validity_quarantined",
            Companion::LowerAuthorityRefused => "lower_authority_quarantined",
            Companion::LaunderingRefused => "laundering_quarantined",
            Companion::ActionSafePromoted => "action_safe_promoted",
            Companion::RetractionReachesToolAction => "retraction_reaches_tool_action",
            Companion::StaleWriteRefused => "stale_write_quarantined",
            Companion::AbortedWithStaging => "abort_retracts_staging",
            Companion::SnapshotDiffersFromNow => "snapshot_differs_from_now",
            Companion::ViewRebuilt => "view_rebuilt",
        }
    }

    #[inline]
    pub fn holds(self, ctx: &Context, store: StoreView<'_>, monitor: &Monitor) -> bool {
        let log = store.rollback_log();
        let quarantined_for =
            |reason: Reason| store.records().iter().any(|r| r.reason() == Some(reason));
        let some_is = |state: Lifecycle| store.records().iter().any(|r| r.state() == state);
        match self {
            Companion::IrreversibleExecuted => store.records().iter().any(|r| {
                r.kind() == Kind::ToolAction && r.tool().is_some_and(|t| ctx.is_irreversible(t))
            }),
            Companion::IrreversibleBlocked => {
                ctx.irreversible_tools().next().is_some()
                    && store.transactions().iter().enumerate().any(|(tx, t)| {
                        t.status() != TxStatus::Aborted
                            && irreversible_allowed(store, tx as u8).is_err()
                    })
            }
            Companion::CascadeRevokedDescendant => {
                log.iter().any(|e| !e.root && e.repair == Repair::Revoked)
            }
            Companion::ViewQuarantined => log
                .iter()
                .any(|e| !e.root && e.repair == Repair::Quarantined),
            Companion::LeakLogged => log.iter().any(|e| e.repair == Repair::Leaked),
            Companion::Superseded => some_is(Lifecycle::Superseded),
            Companion::UserReview => quarantined_for(Reason::NeedsReview),
            Companion::LowEvidenceRefused => quarantined_for(Reason::LowEvidence),
            Companion::OutsideValidityRefused => quarantined_for(Reason::OutsideValidity),
            Companion::LowerAuthorityRefused => quarantined_for(Reason::LowerAuthority),
            Companion::LaunderingRefused => quarantined_for(Reason::PermissionLaundering),
            Companion::StaleWriteRefused => quarantined_for(Reason::StaleWrite),
            Companion::ActionSafePromoted => some_is(Lifecycle::ActionSafe),
            Companion::RetractionReachesToolAction => {
                retraction_reaches_tool_action(store, monitor)
            }
            Companion::AbortedWithStaging => store
                .transactions()
                .iter()
                .any(|t| t.status() == TxStatus::Aborted && !t.staged().is_empty()),
            Companion::SnapshotDiffersFromNow => store
                .transactions()
                .iter()
                .any(|t| t.snapshot() != visible_at(store, t.tier())),
            Companion::ViewRebuilt => view_rebuilt(store, monitor),
        }
    }
}

/// Some view a retraction's cascade covered has, by its parents now, no
/// retracted ancestor.
fn view_rebuilt(store: StoreView<'_>, monitor: &Monitor) -> bool {
    let retracted = monitor.retracted();
    monitor
        .covered()
        .difference(retracted)
        .iter()
        .any(|id| rebuilt(store, retracted, id))
}

/// Some tool action is retracted, or descends from a retracted record and
/// existed when it was retracted.
fn retraction_reaches_tool_action(store: StoreView<'_>, monitor: &Monitor) -> bool {
    monitor.reached().iter().any(|id| {
        store
            .record(id)
            .is_some_and(|r| r.kind() == Kind::ToolAction)
    })
}
