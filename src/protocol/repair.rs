//! Retraction and typed cascading repair (card §3.4 `retract`). Abort and
//! revoke both run [`Protocol::retract`]: each retracted record ends
//! revoked whatever its type, then every transitive descendant is repaired
//! by type (beliefs revoked; views quarantined, or revoked where quarantine
//! is not allowed; tool actions compensated or leaked, and revoked), and
//! each repair writes a rollback-log entry.

use super::dispatch::Protocol;
use super::lifecycle::Lifecycle;
use super::operation::ProtocolError;
use super::outcome::{Outcome, Repairs};
use super::record::Kind;
use super::record_set::{RecordId, RecordSet};
use super::store::{LogEntry, Repair, Store};
use super::transaction::{TxId, TxStatus};
use super::variant::{Fault, Mechanism};

impl Protocol {
    /// Aborts an open transaction: every record it staged is retracted.
    pub(in crate::protocol) fn abort(
        &self,
        store: &mut Store,
        tx: TxId,
    ) -> Result<Outcome, ProtocolError> {
        let t = &mut store.txs[tx as usize];
        t.status = TxStatus::Aborted;
        let staged = t.staged;
        if self.faulty(Fault::AbortLeavesTentative) {
            return Ok(Outcome::Retracted {
                roots: RecordSet::EMPTY,
                repairs: Repairs::new(),
            });
        }
        // Staged records a cascade already revoked stay as they are.
        let roots = staged.difference(store.in_state(Lifecycle::Revoked));
        let repairs = self.retract(store, roots)?;
        if self.faulty(Fault::AbortDropsItsRecords) {
            if let Some(first) = staged.iter().next() {
                let tail = RecordSet::below(store.records.len())
                    .difference(RecordSet::below(first as usize));
                if staged == tail {
                    store.records.truncate(first as usize);
                }
            }
        }
        Ok(Outcome::Retracted { roots, repairs })
    }

    /// Revokes one committed or action_safe record (checked beforehand).
    pub(in crate::protocol) fn revoke(
        &self,
        store: &mut Store,
        record: RecordId,
    ) -> Result<Outcome, ProtocolError> {
        let roots = RecordSet::single(record);
        if self.faulty(Fault::SilentRevoke) {
            store.move_to(record, Lifecycle::Revoked)?;
            return Ok(Outcome::Retracted {
                roots,
                repairs: Repairs::new(),
            });
        }
        if self.faulty(Fault::ToolActionRevokeOnlyLogs)
            && store.records[record as usize].kind() == Kind::ToolAction
        {
            let entry = LogEntry {
                record,
                repair: self.compensate_or_leak(store, record),
                root: true,
                from: store.records[record as usize].state,
                horizon: store.records.len() as u8,
            };
            store.log.push(entry);
            return Ok(Outcome::Retracted {
                roots: RecordSet::EMPTY,
                repairs: Repairs::new(),
            });
        }
        let repairs = self.retract(store, roots)?;
        Ok(Outcome::Retracted { roots, repairs })
    }

    /// Retracts `roots` and repairs their descendants; returns each repair,
    /// the roots first, then descendants in id order.
    pub(in crate::protocol) fn retract(
        &self,
        store: &mut Store,
        roots: RecordSet,
    ) -> Result<Repairs, ProtocolError> {
        let horizon = store.records.len() as u8;
        let mut repairs = Repairs::new();
        for id in roots.iter() {
            let kind = store.records[id as usize].kind();
            let repair = if kind == Kind::ToolAction {
                self.compensate_or_leak(store, id)
            } else {
                Repair::Revoked
            };
            self.repair(
                store,
                id,
                repair,
                Lifecycle::Revoked,
                true,
                horizon,
                &mut repairs,
            )?;
        }
        if !self.has(Mechanism::Cascade) {
            return Ok(repairs);
        }
        let reached = if self.faulty(Fault::CascadeSkipsGrandchildren) {
            store.children(roots)
        } else {
            store.descendants(roots)
        };
        for id in reached.iter() {
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
            let (repair, to) = if kind == Kind::ToolAction {
                (self.compensate_or_leak(store, id), Lifecycle::Revoked)
            } else if kind.is_view() {
                if state == Lifecycle::Quarantined {
                    continue; // already held back for rebuilding
                }
                // Quarantine where allowed (not from action_safe or
                // superseded), else revoke (card pitfall).
                if state.may_move_to(Lifecycle::Quarantined)
                    || (self.faulty(Fault::QuarantineFromActionSafe)
                        && state == Lifecycle::ActionSafe)
                {
                    if self.faulty(Fault::ViewRevokedNotQuarantined) {
                        (Repair::Revoked, Lifecycle::Revoked)
                    } else {
                        (Repair::Quarantined, Lifecycle::Quarantined)
                    }
                } else {
                    (Repair::Revoked, Lifecycle::Revoked)
                }
            } else if self.faulty(Fault::CascadeQuarantinesBeliefs)
                && state.may_move_to(Lifecycle::Quarantined)
            {
                let held_back = Lifecycle::Quarantined;
                (Repair::Quarantined, held_back)
            } else {
                (Repair::Revoked, Lifecycle::Revoked)
            };
            self.repair(store, id, repair, to, false, horizon, &mut repairs)?;
        }
        Ok(repairs)
    }

    /// Compensated if the tool is reversible, else a leaked effect.
    fn compensate_or_leak(&self, store: &Store, id: RecordId) -> Repair {
        let irreversible = store.records[id as usize]
            .tool
            .and_then(|t| self.tools.get(t as usize))
            .is_none_or(|t| t.irreversible);
        if irreversible {
            Repair::Leaked
        } else {
            Repair::Compensated
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn repair(
        &self,
        store: &mut Store,
        id: RecordId,
        repair: Repair,
        to: Lifecycle,
        root: bool,
        horizon: u8,
        repairs: &mut Repairs,
    ) -> Result<(), ProtocolError> {
        let from = if self.faulty(Fault::QuarantineFromActionSafe) && to == Lifecycle::Quarantined {
            std::mem::replace(&mut store.records[id as usize].state, to)
        } else {
            store.move_to(id, to)?
        };
        if to == Lifecycle::Quarantined {
            // Held back by the cascade now, whatever a commit check once
            // said of it (a revalidated view): a rebuild takes it back.
            store.records[id as usize].reason = None;
        }
        store.registry.insert(id);
        if !(root && self.faulty(Fault::UnloggedRetraction)) {
            let logged = if self.faulty(Fault::LogCompensatesLeaks) && repair == Repair::Leaked {
                Repair::Compensated
            } else {
                repair
            };
            let entry = LogEntry {
                record: id,
                repair: logged,
                root,
                from,
                horizon,
            };
            let tool_repair = matches!(repair, Repair::Compensated | Repair::Leaked);
            if !root && tool_repair && self.faulty(Fault::ToolRepairLoggedTwice) {
                store.log.push(entry);
            }
            store.log.push(entry);
        }
        let reported =
            if self.faulty(Fault::QuarantineReportedRevoked) && repair == Repair::Quarantined {
                Repair::Revoked
            } else {
                repair
            };
        repairs.push((id, reported));
        Ok(())
    }
}
