//! A compact bit encoding of stores whose records all come from a fixed
//! dictionary of proposals (a model's templates) or from tool calls, as in
//! the model checker, where a level of millions of stores waits in memory.
//! A record becomes its origin (dictionary index or tool), parent set,
//! state, quarantine reason and owner; a transaction its agent, tier,
//! status, snapshot and staging; a log entry its five fields; each field in
//! just the bits its range needs (a record of the default model takes 14
//! bits). It lives in `protocol` because it must carry the revocation
//! registry, which nothing outside this module may read.

use super::bits::{bits_for, BitReader, BitWriter};
use super::dispatch::{tool_action_fields, Tool};
use super::lifecycle::Lifecycle;
use super::record::{Content, Proposal, Reason, Record};
use super::record_set::{RecordSet, MAX_RECORDS};
use super::store::{LogEntry, Repair, Store};
use super::transaction::{Tier, Transaction, TxStatus};

/// The widest stores that can be packed: every record id fits a
/// [`RecordSet`]. The one size limit of this encoding.
pub const MAX_PACKED_RECORDS: usize = MAX_RECORDS;

/// Packs and unpacks stores over one dictionary of proposals.
#[derive(Clone, Debug)]
pub struct StorePacker {
    /// Parentless proposals, with their own `owner` field as given.
    dictionary: Vec<Proposal>,
    /// [`identity`] of each dictionary entry, searched by `origin`.
    keys: Vec<[u64; 4]>,
    /// The digest content of each dictionary entry, so that decoding a
    /// record does not compute it again.
    contents: Vec<Content>,
    /// Whether the first word of a key tells the dictionary's entries
    /// apart: then a record, which comes from one of them, is found by
    /// that word alone.
    heads_unique: bool,
    tools: Vec<Tool>,
    /// Bits of a record set, a record count, a record id, an origin, an
    /// owner or agent.
    set_bits: u32,
    count_bits: u32,
    id_bits: u32,
    origin_bits: u32,
    agent_bits: u32,
}

/// The most proposals a dictionary may hold. The bit encoding itself has
/// no such limit, but a validated model is the packer's to bound, so that
/// an origin fits a byte and the limits live in one place: validation
/// takes its template limit from here (`config::limits::MAX_TEMPLATES`).
pub const MAX_PACKED_PROPOSALS: usize = 128;

/// The most tools (validation's `config::limits::MAX_TOOLS`).
pub const MAX_PACKED_TOOLS: usize = 128;

impl StorePacker {
    /// `max_records` bounds the stores that will be packed (at most
    /// [`MAX_PACKED_RECORDS`]); owners and agents are below `agents`, or
    /// are a template's own owner.
    pub fn new(
        dictionary: Vec<Proposal>,
        tools: Vec<Tool>,
        max_records: usize,
        agents: u8,
    ) -> StorePacker {
        assert!(dictionary.len() <= MAX_PACKED_PROPOSALS && tools.len() <= MAX_PACKED_TOOLS);
        let max_records = max_records.clamp(1, MAX_PACKED_RECORDS);
        let owners = dictionary
            .iter()
            .filter_map(|p| p.owner)
            .chain([agents.saturating_sub(1)])
            .max()
            .unwrap_or(0);
        let dictionary: Vec<Proposal> = dictionary
            .into_iter()
            .map(|p| Proposal {
                derived_from: RecordSet::EMPTY,
                ..p
            })
            .collect();
        let keys: Vec<[u64; 4]> = dictionary.iter().map(identity).collect();
        let mut heads: Vec<u64> = keys.iter().map(|k| k[0]).collect();
        heads.sort_unstable();
        heads.dedup();
        StorePacker {
            contents: dictionary.iter().map(|p| Content::of(p, None)).collect(),
            heads_unique: heads.len() == keys.len(),
            keys,
            origin_bits: bits_for((dictionary.len() + tools.len()).saturating_sub(1) as u64),
            dictionary,
            tools,
            set_bits: max_records as u32,
            count_bits: bits_for(max_records as u64),
            id_bits: bits_for(max_records as u64 - 1),
            agent_bits: bits_for(u64::from(owners)),
        }
    }

    /// Appends the encoding of `store` to `w`.
    ///
    /// # Panics
    /// If a record is neither a dictionary proposal nor a tool action, or a
    /// store exceeds the bound given to [`StorePacker::new`]: the caller
    /// packs only stores of its own model.
    pub fn pack(&self, store: &Store, w: &mut BitWriter) {
        assert!(
            store.records.len() < 1 << self.count_bits,
            "a store past the packer's bound"
        );
        w.put(store.records.len() as u64, self.count_bits);
        w.put_count(store.txs.len() as u64);
        w.put_count(store.log.len() as u64);
        w.put_wide(store.registry.bits(), self.set_bits);
        for r in &store.records {
            w.put(self.origin(r), self.origin_bits);
            w.put_wide(r.fields.derived_from.bits(), self.set_bits);
            w.put(r.state as u64, 3);
            w.put(r.reason.map_or(0, |x| x as u64 + 1), 4);
            w.put(u64::from(r.owner), self.agent_bits);
        }
        for t in &store.txs {
            w.put(u64::from(t.agent), self.agent_bits);
            w.put(t.tier as u64 | (t.status as u64) << 2, 4);
            w.put_wide(t.snapshot.bits(), self.set_bits);
            w.put_wide(t.staged.bits(), self.set_bits);
        }
        for e in &store.log {
            w.put(u64::from(e.record), self.id_bits);
            w.put(
                e.repair as u64 | u64::from(e.root) << 2 | (e.from as u64) << 3,
                6,
            );
            w.put(u64::from(e.horizon), self.count_bits);
        }
    }

    /// A record's origin: its dictionary index, or the dictionary's size
    /// plus its tool's index.
    fn origin(&self, r: &Record) -> u64 {
        match r.tool {
            Some(tool) => (self.dictionary.len() + tool as usize) as u64,
            None => {
                let head = identity_head(&r.fields);
                let found = if self.heads_unique {
                    self.keys.iter().position(|k| k[0] == head)
                } else {
                    let key = identity(&r.fields);
                    self.keys.iter().position(|k| *k == key)
                };
                debug_assert!(found.is_none_or(|i| self.keys[i] == identity(&r.fields)));
                found.expect("every record of a packed store comes from the dictionary") as u64
            }
        }
    }

    /// The store [`StorePacker::pack`] wrote next in `r`.
    pub fn unpack(&self, r: &mut BitReader) -> Store {
        let mut store = Store::new();
        self.unpack_into(r, &mut store);
        store
    }

    /// [`StorePacker::unpack`] into `store`, reusing its arrays: the engine
    /// decodes every state it expands, and allocating three arrays for each
    /// cost more than decoding them.
    ///
    /// # Panics
    /// On bits no [`StorePacker::pack`] of this packer wrote: a caller
    /// reading what it did not write itself uses [`StorePacker::try_unpack`].
    pub fn unpack_into(&self, r: &mut BitReader, store: &mut Store) {
        self.try_unpack(r, store)
            .expect("a store this packer packed");
    }

    /// [`StorePacker::unpack_into`], `None` (the store then half-read) on
    /// bits no [`StorePacker::pack`] of this packer wrote: a count past
    /// what the input holds, a value past its table. A checkpoint's
    /// states are read so before they are trusted (issue 51.12).
    pub fn try_unpack(&self, r: &mut BitReader, store: &mut Store) -> Option<()> {
        let n_records = r.get(self.count_bits) as usize;
        let n_txs = r.get_count() as usize;
        let n_log = r.get_count() as usize;
        // Every item takes a bit or more: counts past what is left are
        // no store's (and would allocate without bound).
        if n_records.max(n_txs).max(n_log) as u64 > r.bits_left() {
            return None;
        }
        store.registry = RecordSet::from_bits(r.get_wide(self.set_bits));
        store.records.clear();
        for _ in 0..n_records {
            let record = self.unpack_record(r)?;
            store.records.push(record);
        }
        store.txs.clear();
        for _ in 0..n_txs {
            let agent = r.get(self.agent_bits) as u8;
            let flags = r.get(4) as usize;
            store.txs.push(Transaction {
                agent,
                tier: Tier::ALL[flags & 3],
                status: *STATUSES.get(flags >> 2)?,
                snapshot: RecordSet::from_bits(r.get_wide(self.set_bits)),
                staged: RecordSet::from_bits(r.get_wide(self.set_bits)),
            });
        }
        store.log.clear();
        for _ in 0..n_log {
            let record = r.get(self.id_bits) as u8;
            let flags = r.get(6) as usize;
            store.log.push(LogEntry {
                record,
                repair: REPAIRS[flags & 3],
                root: flags & 4 != 0,
                from: *LIFECYCLE.get(flags >> 3)?,
                horizon: r.get(self.count_bits) as u8,
            });
        }
        Some(())
    }

    fn unpack_record(&self, r: &mut BitReader) -> Option<Record> {
        let origin = r.get(self.origin_bits) as usize;
        let parents = RecordSet::from_bits(r.get_wide(self.set_bits));
        let state = *LIFECYCLE.get(r.get(3) as usize)?;
        let reason = match r.get(4) {
            0 => None,
            k => Some(*REASONS.get(k as usize - 1)?),
        };
        let owner = r.get(self.agent_bits) as u8;
        Some(match origin.checked_sub(self.dictionary.len()) {
            Some(tool) => Record::new(
                tool_action_fields(*self.tools.get(tool)?, owner, parents),
                owner,
                state,
                reason,
                Some(tool as u8),
            ),
            None => Record::with_content(
                self.contents[origin],
                Proposal {
                    derived_from: parents,
                    ..self.dictionary[origin]
                },
                owner,
                state,
                reason,
                None,
            ),
        })
    }
}

// Decoding tables, in each enum's declaration order (the `as u8` values).
/// Every field of a proposal but its parents, in four words: two
/// proposals with the same parents are equal exactly when these are (the
/// dictionary is searched for a record's origin by them: four word
/// comparisons rather than eleven field ones).
fn identity(p: &Proposal) -> [u64; 4] {
    let opt32 = |x: Option<i32>| x.map_or(0, |v| u64::from(v as u32) | 1 << 32);
    [
        identity_head(p),
        p.source.map_or(0, |s| u64::from(s.0) | 1 << 16)
            | u64::from(p.authority.0) << 24
            | u64::from(p.confidence.0) << 32
            | p.owner.map_or(0, |o| u64::from(o) | 1 << 8) << 40,
        opt32(p.window.from),
        opt32(p.window.to),
    ]
}

/// The first word of [`identity`]: kind, entity, attribute, value, scope.
#[inline]
fn identity_head(p: &Proposal) -> u64 {
    p.kind as u64
        | u64::from(p.entity.0) << 8
        | u64::from(p.attribute.0) << 24
        | u64::from(p.value.0) << 40
        | (p.scope as u64) << 56
}

const LIFECYCLE: [Lifecycle; Lifecycle::ALL.len()] = Lifecycle::ALL;
const STATUSES: [TxStatus; TxStatus::ALL.len()] = TxStatus::ALL;
const REPAIRS: [Repair; Repair::ALL.len()] = Repair::ALL;
/// A reason is packed in four bits, 0 for none.
const REASONS: [Reason; Reason::ALL.len()] = Reason::ALL;
const _: () = assert!(REASONS.len() < 16 && LIFECYCLE.len() <= 8 && REPAIRS.len() <= 4);

#[cfg(test)]
mod tests {
    use super::super::{Hundredths, Kind, Op, Protocol, Scope, Sym, Symbols, Variant, Window};
    use super::*;

    #[test]
    fn identity_tells_apart_proposals_that_differ_in_any_field_but_parents() {
        let mut syms = Symbols::new();
        let base = Proposal {
            kind: Kind::Belief,
            entity: syms.intern("e"),
            attribute: syms.intern("a"),
            value: syms.intern("v"),
            source: None,
            authority: Hundredths(70),
            confidence: Hundredths(80),
            owner: None,
            scope: Scope::Shared,
            derived_from: RecordSet::EMPTY,
            window: Window::default(),
        };
        let other = syms.intern("x");
        let variants = [
            Proposal {
                kind: Kind::Summary,
                ..base
            },
            Proposal {
                entity: other,
                ..base
            },
            Proposal {
                attribute: other,
                ..base
            },
            Proposal {
                value: other,
                ..base
            },
            Proposal {
                source: Some(Sym(0)),
                ..base
            },
            Proposal {
                authority: Hundredths(71),
                ..base
            },
            Proposal {
                confidence: Hundredths(0),
                ..base
            },
            Proposal {
                owner: Some(0),
                ..base
            },
            Proposal {
                scope: Scope::Private,
                ..base
            },
            Proposal {
                window: Window {
                    from: Some(0),
                    to: None,
                },
                ..base
            },
            Proposal {
                window: Window {
                    from: None,
                    to: Some(-1),
                },
                ..base
            },
        ];
        let with_parents = Proposal {
            derived_from: RecordSet::single(0),
            ..base
        };
        assert_eq!(identity(&with_parents), identity(&base));
        for (i, a) in variants.iter().enumerate() {
            assert_ne!(identity(a), identity(&base), "variant {i}");
            for b in &variants[i + 1..] {
                assert_eq!(identity(a) == identity(b), a == b);
            }
        }
    }

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
        for second in ["no", "yes"] {
            let dict = vec![p(&mut syms, "yes", 80), p(&mut syms, second, 10)];
            let packer = StorePacker::new(dict.clone(), tools.clone(), 8, 4);
            // Templates told apart by their first key word, and not.
            assert_eq!(packer.heads_unique, second == "no");
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
                let mut w = BitWriter::new(&mut bytes);
                packer.pack(&store, &mut w);
                w.finish();
                let mut r = BitReader::new(&bytes[1..]);
                let back = packer.unpack(&mut r);
                assert_eq!(back, store, "after {op:?}");
                assert_eq!(r.bytes_used(), bytes.len() - 1);
            }
            assert!(!store.log.is_empty() && store.records.iter().any(|r| r.reason.is_some()));
        }
    }

    #[test]
    fn a_full_dictionary_and_a_full_tool_table_round_trip() {
        // The last proposal and the last tool take the largest origins
        // (issue 13.1: 128 panicked under the byte encoding).
        let mut syms = Symbols::new();
        let tools: Vec<Tool> = (0..MAX_PACKED_TOOLS)
            .map(|i| Tool {
                name: syms.intern(&format!("tool{i}")),
                irreversible: false,
            })
            .collect();
        let dict: Vec<Proposal> = (0..MAX_PACKED_PROPOSALS)
            .map(|i| Proposal {
                kind: Kind::Belief,
                entity: syms.intern(&format!("e{i}")),
                attribute: syms.intern("a"),
                value: syms.intern("v"),
                source: None,
                authority: Hundredths(50),
                confidence: Hundredths(80),
                owner: None,
                scope: Scope::Shared,
                derived_from: RecordSet::EMPTY,
                window: Window::default(),
            })
            .collect();
        let protocol = Protocol::new(tools.clone(), None, Variant::default());
        let packer = StorePacker::new(dict.clone(), tools, 2, 1);
        let mut store = Store::new();
        for op in [
            Op::Open {
                agent: 0,
                tier: Tier::Low,
            },
            Op::Stage {
                tx: 0,
                proposal: dict[MAX_PACKED_PROPOSALS - 1],
            },
            Op::Commit { tx: 0 },
            Op::ToolCall {
                tx: 0,
                tool: (MAX_PACKED_TOOLS - 1) as u8,
                basis: RecordSet::single(0),
            },
        ] {
            protocol.apply(&mut store, &op).unwrap();
        }
        assert_eq!(store.records.len(), 2);
        let mut bytes = Vec::new();
        let mut w = BitWriter::new(&mut bytes);
        packer.pack(&store, &mut w);
        w.finish();
        let mut r = BitReader::new(&bytes);
        assert_eq!(packer.unpack(&mut r), store);
        assert_eq!(r.bytes_used(), bytes.len());
    }
}
