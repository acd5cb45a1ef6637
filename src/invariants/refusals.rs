//! Refusals (ours; issue 39): every attempt the model offers is refused
//! exactly when one of its documented refusals applies, and with that
//! refusal's name. A refused operation is no transition, so no other
//! property sees a revalidation or a rebuild refused for a reason no rule
//! names; this one judges attempts, both ways. Clauses: `admitted` (the
//! protocol accepted an operation a rule refuses, judged on the
//! transition), `refused` (it refused one no rule refuses) and `named`
//! (both refuse, but by another rule or naming another record than the
//! first rule that applies).
//!
//! The rules are recomputed here, in the order the protocol documents
//! them (DESIGN.md, docs/readings.md "Revalidation" and "Rebuild"), from
//! the records' fields (state, kind, `derived_from`), the transactions'
//! status, staging and snapshot, what the model's [`Monitor`] kept of the
//! actions taken (which quarantined records a retraction held back, and
//! so which a commit check quarantined), and the [`Context`] (how many
//! tools, which are irreversible, the tool-basis switch, the gate in
//! force): never from the protocol's own walks, nor from the quarantine
//! reason it stored, so that a stale reason cannot give the refusal it
//! names. A rule is compared by [`ProtocolError::name`] and the record it
//! names ([`ProtocolError::record`]); an expected refusal is written as the
//! protocol's error so that the two share one list of names. The rules
//! per operation, first one that applies, are [`applies`]'s.

use super::context::Context;
use super::fields::{active, is_view, settled};
use super::i1::irreversible_allowed;
use super::invariant::Invariant;
use super::monitor::Monitor;
use super::violation::Violation;
use crate::protocol::{
    Kind, Lifecycle, Mechanism, Op, ProtocolError, Record, RecordId, RecordSet, StoreView,
    ToolBasis, Transaction, TxId, TxStatus, MAX_RECORDS,
};

/// The first refusal rule that applies to `op` on `store`, reached with
/// `monitor`, written as the error the protocol should give; `Ok` when
/// none does.
pub fn applies(
    ctx: &Context,
    store: StoreView<'_>,
    monitor: &Monitor,
    op: &Op,
) -> Result<(), ProtocolError> {
    let verb = op.verb().name();
    match *op {
        Op::Open { .. } if store.transactions().len() > TxId::MAX as usize => {
            Err(ProtocolError::TooManyTransactions)
        }
        Op::Open { .. } => Ok(()),
        Op::Stage { tx, proposal } => {
            open(store, tx, verb)?;
            if proposal.kind == Kind::ToolAction {
                return Err(ProtocolError::StagedToolAction);
            }
            let missing = proposal.derived_from.difference(store.ids());
            if let Some(parent) = missing.iter().next() {
                return Err(ProtocolError::UnknownParent(parent));
            }
            room(store)
        }
        Op::Commit { tx } | Op::Abort { tx } => open(store, tx, verb).map(drop),
        Op::Revoke { record } => {
            let r = exists(store, record)?;
            if settled(r.state()) {
                Ok(())
            } else {
                Err(ProtocolError::NotRevocable {
                    record,
                    state: r.state().name(),
                })
            }
        }
        Op::ToolCall { tx, tool, basis } => {
            let t = store
                .transaction(tx)
                .ok_or(ProtocolError::UnknownTransaction(tx))?;
            if t.status() == TxStatus::Aborted {
                return Err(ProtocolError::TransactionAborted(tx));
            }
            if tool as usize >= ctx.tools() {
                return Err(ProtocolError::UnknownTool(tool));
            }
            usable_basis(ctx, store, t, basis)?;
            let gated = ctx.is_irreversible(tool) && ctx.has(Mechanism::Gate);
            if gated && irreversible_allowed(store, tx).is_err() {
                Ok(())
            } else {
                room(store)
            }
        }
        Op::Revalidate { tx, record } => {
            open(store, tx, verb)?;
            let r = exists(store, record)?;
            quarantined(r, record, verb)?;
            staged_nowhere_else(store, tx, record, verb)
        }
        Op::Rebuild { tx, record } => {
            open(store, tx, verb)?;
            let r = exists(store, record)?;
            if !is_view(r.kind()) {
                return Err(ProtocolError::NotAView {
                    record,
                    kind: r.kind().name(),
                });
            }
            quarantined(r, record, verb)?;
            // Card §3.4: a rebuild takes what a cascade held back; any
            // other quarantine is a commit check's.
            if !monitor.held_back().contains(record) {
                return Err(ProtocolError::QuarantinedByCheck {
                    record,
                    reason: "a commit check",
                });
            }
            staged_nowhere_else(store, tx, record, verb)?;
            let survives = |p: RecordId| {
                store
                    .record(p)
                    .is_some_and(|q| q.state() != Lifecycle::Revoked)
            };
            if r.derived_from().iter().any(survives) {
                Ok(())
            } else {
                Err(ProtocolError::NoSurvivingSource { record })
            }
        }
    }
}

/// Clause `admitted`: the protocol accepted `op` on `before`, but a
/// refusal rule applies.
pub fn check_admitted(
    ctx: &Context,
    before: StoreView<'_>,
    monitor: &Monitor,
    op: &Op,
) -> Option<Violation> {
    let rule = applies(ctx, before, monitor, op).err()?;
    Some(Violation::new(
        Invariant::Refusals,
        "admitted",
        named(&rule),
        format!(
            "{} was admitted, but the rule `{}` refuses it: {rule}",
            op.verb().name(),
            rule.name()
        ),
    ))
}

/// Clauses `refused` and `named`: the protocol refused `op` on `before`
/// with `error`, and no rule refuses it, or the first that does is
/// another rule or names another record.
pub fn check_refused(
    ctx: &Context,
    before: StoreView<'_>,
    monitor: &Monitor,
    op: &Op,
    error: &ProtocolError,
) -> Option<Violation> {
    let verb = op.verb().name();
    match applies(ctx, before, monitor, op) {
        Ok(()) => Some(Violation::new(
            Invariant::Refusals,
            "refused",
            named(error),
            format!(
                "{verb} was refused as `{}` ({error}), but no refusal rule applies",
                error.name()
            ),
        )),
        Err(rule) if (rule.name(), rule.record()) == (error.name(), error.record()) => None,
        Err(rule) => Some(Violation::new(
            Invariant::Refusals,
            "named",
            named(error).union(named(&rule)),
            format!(
                "{verb} was refused as `{}` ({error}), but the first rule that applies is `{}`: {rule}",
                error.name(),
                rule.name()
            ),
        )),
    }
}

/// The record a refusal names, as a set.
fn named(error: &ProtocolError) -> RecordSet {
    error.record().map_or(RecordSet::EMPTY, RecordSet::single)
}

/// Transaction `tx`, which must exist and be open to `verb`.
fn open<'a>(
    store: StoreView<'a>,
    tx: TxId,
    verb: &'static str,
) -> Result<&'a Transaction, ProtocolError> {
    let t = store
        .transaction(tx)
        .ok_or(ProtocolError::UnknownTransaction(tx))?;
    if t.status() == TxStatus::Open {
        Ok(t)
    } else {
        Err(ProtocolError::TransactionNotOpen { tx, op: verb })
    }
}

fn exists(store: StoreView<'_>, record: RecordId) -> Result<&Record, ProtocolError> {
    store
        .record(record)
        .ok_or(ProtocolError::UnknownRecord(record))
}

fn room(store: StoreView<'_>) -> Result<(), ProtocolError> {
    if store.records().len() < MAX_RECORDS {
        Ok(())
    } else {
        Err(ProtocolError::StoreFull)
    }
}

fn quarantined(r: &Record, record: RecordId, verb: &'static str) -> Result<(), ProtocolError> {
    if r.state() == Lifecycle::Quarantined {
        Ok(())
    } else {
        Err(ProtocolError::NotQuarantined {
            op: verb,
            record,
            state: r.state().name(),
        })
    }
}

/// No open transaction but `tx` stages `record`: its own commit or abort
/// decides it.
fn staged_nowhere_else(
    store: StoreView<'_>,
    tx: TxId,
    record: RecordId,
    verb: &'static str,
) -> Result<(), ProtocolError> {
    let holder = store.transactions().iter().enumerate().find(|(id, t)| {
        *id != tx as usize && t.status() == TxStatus::Open && t.staged().contains(record)
    });
    match holder {
        Some((holder, _)) => Err(ProtocolError::StagedElsewhere {
            op: verb,
            record,
            tx: holder as TxId,
        }),
        None => Ok(()),
    }
}

/// A tool call's basis: each record exists, is in the caller's snapshot
/// or its own staging, and, under `tool_basis: active`, is active now.
fn usable_basis(
    ctx: &Context,
    store: StoreView<'_>,
    t: &Transaction,
    basis: RecordSet,
) -> Result<(), ProtocolError> {
    let visible = t.snapshot().union(t.staged());
    for id in basis.iter() {
        let r = exists(store, id)?;
        if !visible.contains(id) {
            return Err(ProtocolError::BasisNotAllowed {
                record: id,
                why: "not in the snapshot or the transaction's staging",
            });
        }
        if ctx.variant().tool_basis == ToolBasis::Active && !active(r.state()) {
            return Err(ProtocolError::BasisNotAllowed {
                record: id,
                why: "not active",
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::belief;
    use super::*;
    use crate::protocol::{Protocol, Scope, Store, Symbols, Tier, Variant, Window};

    /// T0 open, with one belief r0 staged: a store where some operations
    /// are refused.
    fn one_staged() -> (Context, Store) {
        let proposal = belief(&mut Symbols::new(), "yes", Scope::Shared, Window::default());
        let protocol = Protocol::new(Vec::new(), None, Variant::default());
        let mut store = Store::new();
        for op in [
            Op::Open {
                agent: 0,
                tier: Tier::Low,
            },
            Op::Stage { tx: 0, proposal },
        ] {
            protocol.apply(&mut store, &op).expect("accepted");
        }
        (Context::new(&[], None, &Variant::default()), store)
    }

    #[test]
    fn the_first_rule_that_applies_is_found() {
        let (ctx, store) = one_staged();
        let first =
            |op: Op| applies(&ctx, store.view(), &Monitor::default(), &op).map_err(|e| e.name());
        assert_eq!(first(Op::Commit { tx: 0 }), Ok(()));
        assert_eq!(first(Op::Commit { tx: 1 }), Err("unknown_transaction"));
        assert_eq!(first(Op::Revoke { record: 0 }), Err("not_revocable"));
        assert_eq!(first(Op::Revoke { record: 5 }), Err("unknown_record"));
        // Not a view comes before not quarantined.
        assert_eq!(first(Op::Rebuild { tx: 0, record: 0 }), Err("not_a_view"));
        assert_eq!(
            first(Op::Revalidate { tx: 0, record: 0 }),
            Err("not_quarantined")
        );
        let call = Op::ToolCall {
            tx: 0,
            tool: 0,
            basis: RecordSet::EMPTY,
        };
        assert_eq!(first(call), Err("unknown_tool"));
    }

    #[test]
    fn a_refusal_is_judged_by_its_rule_and_record() {
        let (ctx, store) = one_staged();
        let (before, revoke) = (store.view(), Op::Revoke { record: 0 });
        let right = ProtocolError::NotRevocable {
            record: 0,
            state: "tentative",
        };
        let none = Monitor::default();
        assert_eq!(check_refused(&ctx, before, &none, &revoke, &right), None);
        let clause = |op: &Op, e: &ProtocolError| {
            check_refused(&ctx, before, &none, op, e).map(|v| v.clause)
        };
        assert_eq!(
            clause(&revoke, &ProtocolError::UnknownRecord(0)),
            Some("named")
        );
        let other_record = ProtocolError::NotRevocable {
            record: 1,
            state: "tentative",
        };
        assert_eq!(clause(&revoke, &other_record), Some("named"));
        assert_eq!(
            clause(&Op::Commit { tx: 0 }, &ProtocolError::StoreFull),
            Some("refused")
        );
        let admitted = check_admitted(&ctx, before, &none, &revoke).map(|v| v.clause);
        assert_eq!(admitted, Some("admitted"));
        let commit = Op::Commit { tx: 0 };
        assert_eq!(check_admitted(&ctx, before, &none, &commit), None);
    }
}
