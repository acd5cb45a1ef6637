//! Test support shared by the property-based tests of the protocol, the
//! invariant checkers and replay (test builds only): strategies for whole
//! operation sequences over the protocol, not through a model's templates.
//! A [`Setup`] (tools, clock, variant switches) and up to 60 abstract
//! operations whose transaction, record, parent and basis choices are
//! selectors resolved against the store as it is when the operation runs
//! ([`resolve`]), so every parent set is a DAG over records that exist
//! then, whatever their state (tentative, quarantined and revoked parents
//! included), and a few choices deliberately miss so that refusals are
//! exercised too. [`run`] plays a sequence from an empty store.
//!
//! Each property runs `MEMTX_PROPTEST_CASES` cases (default
//! [`DEFAULT_CASES`], sized so that all of them together stay well inside
//! CI's budget of about a minute in `cargo test --release` on two cores).
//! Every such test has `generated` in its name, so
//! `MEMTX_PROPTEST_CASES=20000 cargo test --release generated` runs many
//! more. Failures are not persisted to files; proptest prints the shrunk
//! case.

use super::{
    Hundredths, Kind, LaunderingParents, Mechanism, Op, OpArgs, Operands, Operation, Outcome,
    Proposal, Protocol, ProtocolError, RecordId, RecordSet, SameSourceTie, Scope,
    StaleCheckEmptySnapshot, Store, Sym, Symbols, Tier, Tool, ToolBasis, Translate, TxId, TxStatus,
    Variant, Verb, Window,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use std::convert::Infallible;

/// Cases per property unless `MEMTX_PROPTEST_CASES` says otherwise.
pub const DEFAULT_CASES: u32 = 2048;

/// The proptest configuration every generated-sequence property runs.
pub fn config() -> ProptestConfig {
    let cases = std::env::var("MEMTX_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Agents that may open transactions and own records.
pub const AGENTS: u8 = 3;
const ENTITIES: [&str; 2] = ["order841", "order9"];
const ATTRIBUTES: [&str; 2] = ["refund_eligible", "address"];
const VALUES: [&str; 3] = ["yes", "no", "maybe"];
const SOURCES: [&str; 3] = ["lookup", "crm", "notes"];

/// What a sequence runs under.
#[derive(Clone, Debug)]
pub struct Setup {
    /// `true` per tool: irreversible.
    pub tools: Vec<bool>,
    pub clock: Option<i32>,
    pub same_source_review: bool,
    pub stale_apply: bool,
    pub laundering_any: bool,
    pub basis_snapshot: bool,
    /// A mechanism removed (the broken-variant tests only).
    pub ablation: Option<Mechanism>,
}

impl Setup {
    /// The variant the switches and the ablation name.
    pub fn variant(&self) -> Variant {
        let variant = Variant {
            same_source_tie: if self.same_source_review {
                SameSourceTie::Review
            } else {
                SameSourceTie::Supersede
            },
            stale_check_empty_snapshot: if self.stale_apply {
                StaleCheckEmptySnapshot::Apply
            } else {
                StaleCheckEmptySnapshot::Skip
            },
            laundering_parents: if self.laundering_any {
                LaunderingParents::Any
            } else {
                LaunderingParents::Active
            },
            tool_basis: if self.basis_snapshot {
                ToolBasis::Snapshot
            } else {
                ToolBasis::Active
            },
            ..Variant::default()
        };
        self.ablation.map_or(variant, |m| variant.without(m))
    }

    /// The tools, `tool0`, `tool1`, …, named in `symbols`.
    pub fn tools(&self, symbols: &mut Symbols) -> Vec<Tool> {
        self.tools
            .iter()
            .enumerate()
            .map(|(i, &irreversible)| Tool {
                name: symbols.intern(&format!("tool{i}")),
                irreversible,
            })
            .collect()
    }

    /// The protocol this setup runs, its tools named in `symbols`.
    pub fn protocol(&self, symbols: &mut Symbols) -> Protocol {
        Protocol::new(self.tools(symbols), self.clock, self.variant())
    }

    /// Runs `ops` under this setup from an empty store.
    pub fn run(&self, ops: &[AbstractOp]) -> (Vec<Stepped>, Store) {
        let mut symbols = Symbols::new();
        let protocol = self.protocol(&mut symbols);
        run(&protocol, &Strings::intern(&mut symbols), ops)
    }
}

/// The interned strings operations pick from.
pub struct Strings {
    entities: Vec<Sym>,
    attributes: Vec<Sym>,
    values: Vec<Sym>,
    sources: Vec<Sym>,
}

impl Strings {
    /// Every string the operations use, interned in `symbols`.
    pub fn intern(symbols: &mut Symbols) -> Strings {
        let mut intern =
            |names: &[&str]| -> Vec<Sym> { names.iter().map(|n| symbols.intern(n)).collect() };
        Strings {
            entities: intern(&ENTITIES),
            attributes: intern(&ATTRIBUTES),
            values: intern(&VALUES),
            sources: intern(&SOURCES),
        }
    }
}

/// One step of a run: the store before, the operation, its result and
/// the store after.
pub struct Stepped {
    pub before: Store,
    pub op: Op,
    pub result: Result<Outcome, ProtocolError>,
    pub after: Store,
}

/// Runs the operations from an empty store under `protocol`, resolving each
/// against the store it meets.
pub fn run(protocol: &Protocol, strings: &Strings, ops: &[AbstractOp]) -> (Vec<Stepped>, Store) {
    let mut store = Store::new();
    let mut steps = Vec::with_capacity(ops.len());
    for a in ops {
        let op = resolve(a, &store, strings, protocol.tools().len());
        let before = store.clone();
        let result = protocol.apply(&mut store, &op);
        steps.push(Stepped {
            before,
            op,
            result,
            after: store.clone(),
        });
    }
    (steps, store)
}

/// An operation whose references are selectors, resolved at run time.
pub type AbstractOp = Operation<Selectors>;

/// The generator's arguments: transactions and records by selector
/// ([`choose`]), a stage's record by string choices and parent selectors,
/// a tool call's basis by selectors and a pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Selectors {}

impl Operands for Selectors {
    type Agent = u8;
    type Tx = u16;
    type Record = u16;
    type Stage = AbstractRecord;
    type Tool = u8;
    type Basis = AbstractBasis;
}

/// A tool call's basis: selectors into the pool `mode` names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbstractBasis {
    pub picks: Vec<u16>,
    /// 0: active visible records; 1: any visible record; 2: any record.
    pub mode: u8,
}

/// A record's fields, string choices by index, parents by selector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbstractRecord {
    pub kind: Kind,
    pub entity: usize,
    pub attribute: usize,
    pub value: usize,
    pub source: Option<usize>,
    pub authority: Hundredths,
    pub confidence: Hundredths,
    pub owner: Option<u8>,
    pub scope: Scope,
    pub parents: Vec<u16>,
    /// A parent that does not exist (the stage must be refused).
    pub missing_parent: bool,
    pub window: Window,
}

/// Authority and confidence: anywhere on the hundredths grid, with the
/// thresholds (0.6 evidence, 0.9 authority bypass) and their neighbours
/// weighted up.
pub fn hundredths() -> impl Strategy<Value = Hundredths> {
    prop_oneof![
        3 => select(vec![59u8, 60, 61, 89, 90, 91]),
        2 => 0u8..=100,
        1 => select(vec![0u8, 50, 100]),
    ]
    .prop_map(Hundredths)
}

fn time() -> impl Strategy<Value = Option<i32>> {
    prop_oneof![2 => Just(None), 3 => (-4i32..=4).prop_map(Some)]
}

fn window() -> impl Strategy<Value = Window> {
    (time(), time()).prop_map(|(from, to)| Window { from, to })
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        6 => Just(Kind::Belief),
        1 => Just(Kind::Summary),
        1 => Just(Kind::Profile),
        1 => Just(Kind::IndexEntry),
        1 => Just(Kind::SharedCopy),
        // Refused: only an executed tool call creates a tool_action.
        1 => Just(Kind::ToolAction),
    ]
}

fn scope() -> impl Strategy<Value = Scope> {
    select(vec![Scope::Private, Scope::Shared, Scope::Public])
}

fn tier() -> impl Strategy<Value = Tier> {
    select(Tier::ALL.to_vec())
}

fn record() -> impl Strategy<Value = AbstractRecord> {
    (
        (kind(), 0..ENTITIES.len(), 0..ATTRIBUTES.len(), 0..VALUES.len()),
        (
            proptest::option::weighted(0.8, 0..SOURCES.len()),
            hundredths(),
            hundredths(),
            proptest::option::weighted(0.3, 0..AGENTS),
            scope(),
        ),
        (
            prop_oneof![3 => vec(any::<u16>(), 0..=0), 3 => vec(any::<u16>(), 1..=1), 2 => vec(any::<u16>(), 2..=3)],
            proptest::bool::weighted(0.03),
            window(),
        ),
    )
        .prop_map(
            |(
                (kind, entity, attribute, value),
                (source, authority, confidence, owner, scope),
                (parents, missing_parent, window),
            )| AbstractRecord {
                kind,
                entity,
                attribute,
                value,
                source,
                authority,
                confidence,
                owner,
                scope,
                parents,
                missing_parent,
                window,
            },
        )
}

pub fn op() -> impl Strategy<Value = AbstractOp> {
    prop_oneof![
        2 => (0..AGENTS, tier()).prop_map(|(agent, tier)| AbstractOp::Open { agent, tier }),
        5 => (any::<u16>(), record()).prop_map(|(tx, proposal)| AbstractOp::Stage { tx, proposal }),
        2 => any::<u16>().prop_map(|tx| AbstractOp::Commit { tx }),
        1 => any::<u16>().prop_map(|tx| AbstractOp::Abort { tx }),
        1 => any::<u16>().prop_map(|record| AbstractOp::Revoke { record }),
        2 => (any::<u16>(), any::<u8>(), vec(any::<u16>(), 1..=2), select(vec![0u8, 0, 0, 1, 2]))
            .prop_map(|(tx, tool, picks, mode)| AbstractOp::ToolCall { tx, tool, basis: AbstractBasis { picks, mode } }),
        1 => (any::<u16>(), any::<u16>()).prop_map(|(tx, record)| AbstractOp::Revalidate { tx, record }),
        1 => (any::<u16>(), any::<u16>()).prop_map(|(tx, record)| AbstractOp::Rebuild { tx, record }),
    ]
}

/// A setup with every paper switch and the tool-basis reading free.
pub fn setup() -> impl Strategy<Value = Setup> {
    (vec(any::<bool>(), 1..=3), time(), any::<[bool; 4]>()).prop_map(|(tools, clock, s)| Setup {
        tools,
        clock,
        same_source_review: s[0],
        stale_apply: s[1],
        laundering_any: s[2],
        basis_snapshot: s[3],
        ablation: None,
    })
}

/// A setup and up to 60 operations.
pub fn scenario() -> impl Strategy<Value = (Setup, Vec<AbstractOp>)> {
    (setup(), vec(op(), 0..=60))
}

/// Picks from `preferred` when the selector's low bit is clear and it is
/// non-empty, else from `0..=n` (one past the end: a miss).
fn choose(sel: u16, preferred: &[u8], n: usize) -> u8 {
    let rest = usize::from(sel >> 1);
    if sel & 1 == 0 && !preferred.is_empty() {
        preferred[rest % preferred.len()]
    } else {
        (rest % (n + 1)).min(255) as u8
    }
}

/// The concrete operation `op` stands for in `store`.
pub fn resolve(op: &AbstractOp, store: &Store, strings: &Strings, tools: usize) -> Op {
    match op.translate(&mut Resolve {
        store,
        strings,
        tools,
    }) {
        Ok(op) => op,
        Err(never) => match never {},
    }
}

/// Selectors resolved against the store an operation meets.
struct Resolve<'a> {
    store: &'a Store,
    strings: &'a Strings,
    tools: usize,
}

impl Resolve<'_> {
    /// The ids of the transactions or records that pass `keep`.
    fn ids(n: usize, keep: impl Fn(usize) -> bool) -> Vec<u8> {
        (0..n).filter(|&i| keep(i)).map(|i| i as u8).collect()
    }
}

impl Translate<Selectors, OpArgs> for Resolve<'_> {
    type Error = Infallible;

    fn open(&mut self, agent: &u8, tier: Tier) -> Result<(u8, Tier), Infallible> {
        Ok((*agent, tier))
    }

    /// A tool call may be made in a committed transaction too.
    fn tx(&mut self, verb: Verb, tx: &u16) -> Result<TxId, Infallible> {
        let txs = self.store.transactions();
        let status = |t: usize| txs[t].status();
        let pool = match verb {
            Verb::ToolCall => Self::ids(txs.len(), |t| status(t) != TxStatus::Aborted),
            _ => Self::ids(txs.len(), |t| status(t) == TxStatus::Open),
        };
        Ok(choose(*tx, &pool, txs.len()))
    }

    /// A revoke prefers what may be revoked, a revalidation or a rebuild
    /// what is quarantined.
    fn record(&mut self, verb: Verb, record: &u16) -> Result<RecordId, Infallible> {
        let records = self.store.records();
        let pool = match verb {
            Verb::Revoke => Self::ids(records.len(), |id| {
                records[id].state().is_committed_or_safe()
            }),
            _ => Self::ids(records.len(), |id| {
                records[id].state() == super::Lifecycle::Quarantined
            }),
        };
        Ok(choose(*record, &pool, records.len()))
    }

    fn stage(&mut self, _: &TxId, record: &AbstractRecord) -> Result<Proposal, Infallible> {
        let (n, strings) = (self.store.records().len(), self.strings);
        let mut parents: RecordSet = if n == 0 {
            RecordSet::EMPTY
        } else {
            record
                .parents
                .iter()
                .map(|p| (*p as usize % n) as u8)
                .collect()
        };
        if record.missing_parent && n < 64 {
            parents.insert(n as u8);
        }
        Ok(Proposal {
            kind: record.kind,
            entity: strings.entities[record.entity],
            attribute: strings.attributes[record.attribute],
            value: strings.values[record.value],
            source: record.source.map(|s| strings.sources[s]),
            authority: record.authority,
            confidence: record.confidence,
            owner: record.owner,
            scope: record.scope,
            derived_from: parents,
            window: record.window,
        })
    }

    fn call(
        &mut self,
        tx: &TxId,
        tool: &u8,
        basis: &AbstractBasis,
    ) -> Result<(u8, RecordSet), Infallible> {
        let (store, tools) = (self.store, self.tools);
        let visible = store
            .transaction(*tx)
            .map_or(RecordSet::EMPTY, |t| t.visible());
        let pool: Vec<u8> = (0..store.records().len() as u8)
            .filter(|&id| match basis.mode {
                0 => {
                    visible.contains(id) && store.record(id).is_some_and(|r| r.state().is_active())
                }
                1 => visible.contains(id),
                _ => true,
            })
            .collect();
        let basis = if pool.is_empty() {
            RecordSet::EMPTY
        } else {
            basis
                .picks
                .iter()
                .map(|b| pool[*b as usize % pool.len()])
                .collect()
        };
        // Mostly a tool of the configuration, now and then not.
        let tool = if *tool == u8::MAX {
            tools as u8
        } else {
            tool % tools as u8
        };
        Ok((tool, basis))
    }
}

/// The generator is not degenerate: over a fixed sample of scenarios, every
/// commit result and reason, every repair, both gate decisions and the
/// main refusals occur.
#[test]
fn generated_sequences_reach_every_outcome() {
    use super::GateOutcome;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    let mut runner = TestRunner::deterministic();
    let mut seen = BTreeSet::new();
    for _ in 0..3000 {
        let (setup, ops) = scenario().new_tree(&mut runner).unwrap().current();
        for s in setup.run(&ops).0 {
            match &s.result {
                Err(e) => {
                    let text = format!("{e:?}");
                    seen.insert(format!(
                        "error {}",
                        &text[..text.find([' ', '(', '{']).unwrap_or(text.len())]
                    ));
                }
                Ok(Outcome::Committed(c)) => {
                    for r in &c.records {
                        seen.insert(format!("commit {}", r.result.name()));
                        if !r.superseded.is_empty() {
                            seen.insert("supersede".to_owned());
                        }
                        if let Some(reason) = r.reason {
                            seen.insert(format!("reason {}", reason.name()));
                        }
                    }
                }
                Ok(Outcome::Retracted { repairs, .. }) => {
                    for (_, r) in repairs {
                        seen.insert(format!("repair {}", r.name()));
                    }
                }
                Ok(Outcome::ToolCall(GateOutcome {
                    allowed, reason, ..
                })) => {
                    seen.insert(format!(
                        "gate {allowed} {}",
                        reason.map_or("-", |r| r.name())
                    ));
                }
                Ok(Outcome::Revalidated { reason, .. }) => {
                    seen.insert(format!("revalidated {}", reason.is_some()));
                }
                Ok(Outcome::Rebuilt { dropped, .. }) => {
                    seen.insert(format!("rebuilt {}", !dropped.is_empty()));
                }
                Ok(_) => {}
            }
        }
    }
    let expected = [
        "commit action_safe",
        "commit committed",
        "commit quarantined",
        "commit revoked",
        "error BasisNotAllowed",
        "error NoSurvivingSource",
        "error NotAView",
        "error NotQuarantined",
        "error QuarantinedByCheck",
        "error NotRevocable",
        "error StagedToolAction",
        "error TransactionAborted",
        "error TransactionNotOpen",
        "error UnknownParent",
        "error UnknownRecord",
        "error UnknownTool",
        "error UnknownTransaction",
        "gate false no_action_safe_support",
        "gate false tentative_in_flight",
        "gate true -",
        "reason low_evidence",
        "reason lower_authority",
        "reason needs_review",
        "reason outside_validity",
        "reason permission_laundering",
        "reason revoked_parent",
        "reason stale_write",
        "reason unstable_dependency",
        "repair compensated",
        "repair leaked",
        "repair quarantined",
        "repair revoked",
        "revalidated false",
        "revalidated true",
        // A rebuild that drops nothing (a view of a held-back view) is too
        // rare here; protocol/tests/rebuild.rs and models/coverage/rebuild.json
        // reach it.
        "rebuilt true",
        "supersede",
    ];
    let missing: Vec<_> = expected.iter().filter(|e| !seen.contains(**e)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
