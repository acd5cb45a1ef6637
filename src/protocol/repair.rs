//! Retraction and typed cascading repair (card §3.4 `retract`). Abort and
//! revoke both run [`Protocol::retract`]: each retracted record ends
//! revoked whatever its type, then every transitive descendant is repaired
//! by type (beliefs revoked; views quarantined, or revoked where quarantine
//! is not allowed; tool actions compensated or leaked, and revoked), and
//! each repair writes a rollback-log entry.

use super::dispatch::{Protocol, Tool};
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::{Outcome, Repairs};
use super::record::Kind;
use super::record_set::{RecordId, RecordSet};
use super::store::{LogEntry, Repair, Store};
use super::transaction::{TxId, TxStatus};
use super::variant::Mechanism;

impl Protocol {
    /// Card §3.4 `retract`: retracts `roots` and repairs their
    /// descendants; returns each repair, the roots first, then
    /// descendants in id order.
    pub(in crate::protocol) fn retract(
        &self,
        store: &mut Store,
        roots: RecordSet,
    ) -> Result<Repairs, ProtocolError> {
        let rules = self.rules();
        let horizon = store.records.len() as u8;
        let mut repairs = Repairs::new();
        // Each root ends revoked whatever its type; a tool action is
        // compensated or leaked first.
        for id in roots.iter() {
            let repair = if store.records[id as usize].kind() == Kind::ToolAction {
                compensate_or_leak(&self.tools, store, id)
            } else {
                Repair::Revoked
            };
            let from = store.move_to(id, Lifecycle::Revoked)?;
            let entry = LogEntry {
                record: id,
                repair,
                root: true,
                from,
                horizon,
            };
            self.record_repair(store, entry, &mut repairs);
        }
        if !self.has(Mechanism::Cascade) {
            return Ok(repairs);
        }
        for id in rules.reached(store, roots).iter() {
            store.registry.insert(id);
            let state = store.records[id as usize].state;
            if state == Lifecycle::Revoked {
                continue;
            }
            let kind = if self.has(Mechanism::TypedRepair) {
                store.records[id as usize].kind()
            } else {
                Kind::Belief
            };
            if let Some((repair, from)) = rules.repair_by_type(&self.tools, store, id, kind)? {
                let entry = LogEntry {
                    record: id,
                    repair,
                    root: false,
                    from,
                    horizon,
                };
                self.record_repair(store, entry, &mut repairs);
            }
        }
        Ok(repairs)
    }

    /// What every repair does after its move: the record joins the
    /// revocation registry, the rollback log gets `entry`, and the
    /// outcome reports the repair.
    fn record_repair(&self, store: &mut Store, entry: LogEntry, repairs: &mut Repairs) {
        store.registry.insert(entry.record);
        let rules = self.rules();
        rules.log_repair(store, entry);
        rules.report_repair(repairs, entry.record, entry.repair);
    }
}

/// Card §3.4: aborting a transaction retracts every record it staged.
pub(in crate::protocol) fn abort(
    protocol: &Protocol,
    store: &mut Store,
    tx: TxId,
) -> Result<Outcome, ProtocolError> {
    let t = &mut store.txs[tx as usize];
    t.status = TxStatus::Aborted;
    let staged = t.staged;
    // Staged records a cascade already revoked stay as they are.
    let roots = staged.difference(store.in_state(Lifecycle::Revoked));
    let repairs = protocol.retract(store, roots)?;
    Ok(Outcome::Retracted { roots, repairs })
}

/// Card §3.4: revoking a committed record retracts it.
pub(in crate::protocol) fn revoke(
    protocol: &Protocol,
    store: &mut Store,
    record: RecordId,
) -> Result<Outcome, ProtocolError> {
    let roots = RecordSet::single(record);
    let repairs = protocol.retract(store, roots)?;
    Ok(Outcome::Retracted { roots, repairs })
}

/// Card §3.4, the typed repair of record `id` a retraction reached,
/// repaired as a `kind`: a tool action is compensated or leaked, and
/// revoked; a view is held back (quarantined) to be rebuilt, or revoked
/// where quarantine is not allowed (from action_safe or superseded: card
/// pitfall); a belief is revoked. The repair and the state it moved
/// from, or `None` for a view already held back.
pub(in crate::protocol) fn repair_by_type(
    tools: &[Tool],
    store: &mut Store,
    id: RecordId,
    kind: Kind,
) -> Result<Option<(Repair, Lifecycle)>, ProtocolError> {
    let state = store.records[id as usize].state;
    let (repair, to) = if kind == Kind::ToolAction {
        (compensate_or_leak(tools, store, id), Lifecycle::Revoked)
    } else if kind.is_view() {
        if state == Lifecycle::Quarantined {
            return Ok(None); // already held back for rebuilding
        }
        if state.may_move_to(Lifecycle::Quarantined) {
            // Held back by the cascade now, whatever a commit check once
            // said of it (a revalidated view): a rebuild takes it back.
            store.records[id as usize].reason = None;
            (Repair::Quarantined, Lifecycle::Quarantined)
        } else {
            (Repair::Revoked, Lifecycle::Revoked)
        }
    } else {
        (Repair::Revoked, Lifecycle::Revoked)
    };
    Ok(Some((repair, store.move_to(id, to)?)))
}

/// Card §3.4: a tool action is compensated if its tool is reversible,
/// else recorded as a leaked irreversible effect.
pub(in crate::protocol) fn compensate_or_leak(
    tools: &[Tool],
    store: &Store,
    id: RecordId,
) -> Repair {
    let irreversible = store.records[id as usize]
        .tool
        .and_then(|t| tools.get(t as usize))
        .is_none_or(|t| t.irreversible);
    if irreversible {
        Repair::Leaked
    } else {
        Repair::Compensated
    }
}

/// Card §3.4: every repair writes an entry to the rollback log.
pub(in crate::protocol) fn log_repair(store: &mut Store, entry: LogEntry) {
    store.log.push(entry);
}

/// A repair as the retraction's outcome reports it: as made.
pub(in crate::protocol) fn report_repair(repairs: &mut Repairs, id: RecordId, repair: Repair) {
    repairs.push((id, repair));
}
