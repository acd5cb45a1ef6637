//! The non-vacuity companions (DESIGN.md "Invariants"): "sometimes"
//! properties whose being reached shows that I1, I2 and G3 were exercised.
//! Each is a predicate on one state, read from record fields and the
//! rollback log like the invariants themselves.

use super::i1::irreversible_allowed;
use super::Context;
use crate::protocol::{Kind, Lifecycle, Reason, Repair, StoreView, TxStatus};

/// One companion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Companion {
    /// An irreversible tool call has executed.
    IrreversibleExecuted,
    /// Some transaction that may still call tools would have an
    /// irreversible call blocked by the gate here.
    IrreversibleBlocked,
    /// A cascade revoked a descendant.
    CascadeRevokedDescendant,
    /// A cascade quarantined a view.
    ViewQuarantined,
    /// A leaked irreversible effect was logged.
    LeakLogged,
    /// A record was superseded.
    Superseded,
    /// A record went to user review.
    UserReview,
}

impl Companion {
    pub const ALL: [Companion; 7] = [
        Companion::IrreversibleExecuted,
        Companion::IrreversibleBlocked,
        Companion::CascadeRevokedDescendant,
        Companion::ViewQuarantined,
        Companion::LeakLogged,
        Companion::Superseded,
        Companion::UserReview,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Companion::IrreversibleExecuted => "irreversible call executes",
            Companion::IrreversibleBlocked => "irreversible call blocked",
            Companion::CascadeRevokedDescendant => "cascade revokes a descendant",
            Companion::ViewQuarantined => "view quarantined",
            Companion::LeakLogged => "leak logged",
            Companion::Superseded => "record superseded",
            Companion::UserReview => "record goes to user review",
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
        }
    }

    pub fn holds(self, ctx: &Context, store: StoreView<'_>) -> bool {
        let log = store.rollback_log();
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
            Companion::Superseded => store
                .records()
                .iter()
                .any(|r| r.state() == Lifecycle::Superseded),
            Companion::UserReview => store
                .records()
                .iter()
                .any(|r| r.reason() == Some(Reason::NeedsReview)),
        }
    }
}
