//! A compact byte encoding of stores whose records all come from a fixed
//! dictionary of proposals (a model's templates) or from tool calls, as in
//! the model checker, where a level of millions of stores waits in memory.
//! A record becomes its dictionary index, parent set, state and owner; a
//! transaction its agent, tier, status, snapshot and staging; a log entry
//! three bytes. It lives in `protocol` because it must carry the revocation
//! registry, which nothing outside this module may read.

use super::dispatch::{tool_action_fields, Tool};
use super::lifecycle::Lifecycle;
use super::record::{Proposal, Reason, Record};
use super::record_set::RecordSet;
use super::store::{LogEntry, Repair, Store};
use super::transaction::{Tier, Transaction, TxStatus};

/// Packs and unpacks stores over one dictionary of proposals.
#[derive(Clone, Debug)]
pub struct StorePacker {
    /// Parentless proposals, with their own `owner` field as given.
    dictionary: Vec<Proposal>,
    tools: Vec<Tool>,
    /// Bytes per record set: enough for the largest id that can occur.
    width: usize,
}

/// Bit 7 of a record's origin byte marks a tool action (tool index below).
const TOOL: u8 = 0x80;

impl StorePacker {
    /// `max_records` bounds the stores that will be packed (≤ 64).
    ///
    /// # Panics
    /// With more than 127 proposals or tools: origins are one byte.
    pub fn new(dictionary: Vec<Proposal>, tools: Vec<Tool>, max_records: usize) -> StorePacker {
        assert!(dictionary.len() < TOOL as usize && tools.len() < TOOL as usize);
        let dictionary = dictionary
            .into_iter()
            .map(|p| Proposal {
                derived_from: RecordSet::EMPTY,
                ..p
            })
            .collect();
        StorePacker {
            dictionary,
            tools,
            width: max_records.clamp(1, 64).div_ceil(8),
        }
    }

    /// Appends the encoding of `store` to `out`.
    ///
    /// # Panics
    /// If a record is neither a dictionary proposal nor a tool action, or a
    /// store exceeds the bound given to [`StorePacker::new`]: the caller
    /// packs only stores of its own model.
    pub fn pack(&self, store: &Store, out: &mut Vec<u8>) {
        out.push(store.records.len() as u8);
        out.push(store.txs.len() as u8);
        out.push(store.log.len() as u8);
        self.set(store.registry, out);
        for r in &store.records {
            let origin = match r.tool {
                Some(tool) => TOOL | tool,
                None => {
                    let key = Proposal {
                        derived_from: RecordSet::EMPTY,
                        ..r.fields
                    };
                    self.dictionary
                        .iter()
                        .position(|p| *p == key)
                        .expect("every record of a packed store comes from the dictionary")
                        as u8
                }
            };
            out.push(origin);
            self.set(r.fields.derived_from, out);
            out.push(r.state as u8 | (r.reason.map_or(0, |x| x as u8 + 1) << 3));
            out.push(r.owner);
        }
        for t in &store.txs {
            out.push(t.agent);
            out.push(t.tier as u8 | ((t.status as u8) << 2));
            self.set(t.snapshot, out);
            self.set(t.staged, out);
        }
        for e in &store.log {
            out.push(e.record);
            out.push(e.repair as u8 | (u8::from(e.root) << 2) | ((e.from as u8) << 3));
            out.push(e.horizon);
        }
    }

    /// The store `pack` encoded at the start of `bytes`, and the bytes it
    /// took.
    pub fn unpack(&self, bytes: &[u8]) -> (Store, usize) {
        let mut at = 3;
        let (n_records, n_txs, n_log) = (bytes[0] as usize, bytes[1] as usize, bytes[2] as usize);
        let mut next = |n: usize| {
            let slice = &bytes[at..at + n];
            at += n;
            slice
        };
        let registry = self.get_set(next(self.width));
        let mut records = Vec::with_capacity(n_records);
        for _ in 0..n_records {
            let origin = next(1)[0];
            let parents = self.get_set(next(self.width));
            let (packed_state, owner) = {
                let b = next(2);
                (b[0], b[1])
            };
            let (fields, tool) = if origin & TOOL != 0 {
                let tool = origin & !TOOL;
                (
                    tool_action_fields(self.tools[tool as usize], owner, parents),
                    Some(tool),
                )
            } else {
                let base = self.dictionary[origin as usize];
                (
                    Proposal {
                        derived_from: parents,
                        ..base
                    },
                    None,
                )
            };
            records.push(Record {
                fields,
                owner,
                state: LIFECYCLE[(packed_state & 7) as usize],
                reason: match packed_state >> 3 {
                    0 => None,
                    k => Some(REASONS[k as usize - 1]),
                },
                tool,
            });
        }
        let mut txs = Vec::with_capacity(n_txs);
        for _ in 0..n_txs {
            let (agent, flags) = {
                let b = next(2);
                (b[0], b[1])
            };
            let snapshot = self.get_set(next(self.width));
            let staged = self.get_set(next(self.width));
            txs.push(Transaction {
                agent,
                tier: Tier::ALL[(flags & 3) as usize],
                status: STATUSES[((flags >> 2) & 3) as usize],
                snapshot,
                staged,
            });
        }
        let mut log = Vec::with_capacity(n_log);
        for _ in 0..n_log {
            let b = next(3);
            log.push(LogEntry {
                record: b[0],
                repair: REPAIRS[(b[1] & 3) as usize],
                root: b[1] & 4 != 0,
                from: LIFECYCLE[(b[1] >> 3) as usize],
                horizon: b[2],
            });
        }
        (
            Store {
                records,
                txs,
                registry,
                log,
            },
            at,
        )
    }

    fn set(&self, set: RecordSet, out: &mut Vec<u8>) {
        out.extend_from_slice(&set.bits().to_le_bytes()[..self.width]);
    }

    fn get_set(&self, bytes: &[u8]) -> RecordSet {
        let mut word = [0u8; 8];
        word[..bytes.len()].copy_from_slice(bytes);
        RecordSet::from_bits(u64::from_le_bytes(word))
    }
}

// Decoding tables, in each enum's declaration order (the `as u8` values).
const LIFECYCLE: [Lifecycle; 8] = Lifecycle::ALL;
const STATUSES: [TxStatus; 3] = [TxStatus::Open, TxStatus::Committed, TxStatus::Aborted];
const REPAIRS: [Repair; 4] = [
    Repair::Revoked,
    Repair::Quarantined,
    Repair::Compensated,
    Repair::Leaked,
];
const REASONS: [Reason; 8] = Reason::ALL;

#[cfg(test)]
mod tests {
    use super::super::{Hundredths, Kind, Op, Protocol, Scope, Symbols, Variant, Window};
    use super::*;

    #[test]
    fn decoding_tables_follow_declaration_order() {
        for (i, s) in LIFECYCLE.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
        for (i, s) in STATUSES.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
        for (i, s) in REPAIRS.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
        for (i, s) in REASONS.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
        for (i, s) in Tier::ALL.iter().enumerate() {
            assert_eq!(*s as usize, i);
        }
    }

    #[test]
    fn a_store_with_every_kind_of_entry_round_trips() {
        let mut syms = Symbols::new();
        let tools = vec![Tool {
            name: syms.intern("refund"),
            irreversible: true,
        }];
        let protocol = Protocol::new(tools.clone(), None, Variant::default());
        let p = |syms: &mut Symbols, v: &str, conf| Proposal {
            kind: Kind::Belief,
            entity: syms.intern("e"),
            attribute: syms.intern("a"),
            value: syms.intern(v),
            source: Some(syms.intern("s")),
            authority: Hundredths(70),
            confidence: Hundredths(conf),
            owner: None,
            scope: Scope::Shared,
            derived_from: RecordSet::EMPTY,
            window: Window::default(),
        };
        let dict = vec![p(&mut syms, "yes", 80), p(&mut syms, "no", 10)];
        let packer = StorePacker::new(dict.clone(), tools, 8);
        let mut store = Store::new();
        let ops = [
            Op::Open {
                agent: 3,
                tier: Tier::ExternalAction,
            },
            Op::Stage {
                tx: 0,
                proposal: dict[0],
            },
            Op::Stage {
                tx: 0,
                proposal: dict[1],
            },
            Op::Commit { tx: 0 },
            Op::Open {
                agent: 1,
                tier: Tier::ExternalAction,
            },
            Op::ToolCall {
                tx: 1,
                tool: 0,
                basis: RecordSet::single(0),
            },
            Op::Stage {
                tx: 1,
                proposal: Proposal {
                    derived_from: RecordSet::single(0),
                    ..dict[0]
                },
            },
            Op::Revoke { record: 0 },
        ];
        let mut bytes = Vec::new();
        for op in ops {
            protocol.apply(&mut store, &op).unwrap();
            bytes.clear();
            bytes.push(0xAA); // packing appends
            packer.pack(&store, &mut bytes);
            let (back, used) = packer.unpack(&bytes[1..]);
            assert_eq!(back, store, "after {op:?}");
            assert_eq!(used, bytes.len() - 1);
        }
        assert!(!store.log.is_empty() && store.records.iter().any(|r| r.reason.is_some()));
    }
}
