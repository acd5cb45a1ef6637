//! Export to the Informal Trace Format (ITF, Apalache ADR-015, also read by
//! Quint): one ITF state per store of a replayed trace, with the step that
//! led to it as the `action` variable. For tools built for Quint's
//! model-based testing (Quint Connect), every state also carries Quint's
//! two MBT variables: `mbt::actionTaken`, the operation's name (`init` for
//! the initial state), and `mbt::nondetPicks`, a record with one field per
//! argument any operation takes ([`NONDET_PICKS`]: `agent`, `tier`, `tx`,
//! `proposal` (a stage's record), `record` (a revoke's, revalidation's or
//! rebuild's record id), `tool`, `basis`), each `Some(value)` for the
//! arguments the step took and `None` for the others. ITF has no floats and no null:
//! integers are `{"#bigint": "n"}`, authority and confidence are integer
//! hundredths, sets are `{"#set": [...]}`, and an absent value is the Quint
//! option `{"tag": "None", "value": {"#tup": []}}` (present:
//! `{"tag": "Some", "value": v}`).

use super::document::{Step, StepArgs};
use crate::config::Compiled;
use crate::config::RecordSpec;
use crate::protocol::{LogEntry, Operands, Record, Store, Tier, Transaction, Translate, Verb};
use serde_json::{json, Value};
use std::convert::Infallible;

/// The ITF document for `trace_states` (index 0 the initial store, index
/// `i + 1` the store after `steps[i]`).
pub fn to_itf(trace_states: &[Store], steps: &[Step], compiled: &Compiled) -> Value {
    let states: Vec<Value> = trace_states
        .iter()
        .enumerate()
        .map(|(i, store)| {
            let step = i.checked_sub(1).and_then(|s| steps.get(s));
            let action = step.map_or_else(|| json!({"op": "init"}), action);
            json!({
                ACTION_TAKEN: step.map_or("init", Step::op_name),
                NONDET_PICKS_VAR: nondet_picks(step),
                "#meta": {"index": i},
                "records": store.records().iter().enumerate()
                    .map(|(id, r)| record(id, r, compiled)).collect::<Vec<_>>(),
                "transactions": store.transactions().iter().enumerate()
                    .map(|(id, t)| transaction(id, t)).collect::<Vec<_>>(),
                "rollback_log": store.rollback_log().iter().map(log_entry).collect::<Vec<_>>(),
                "action": action,
            })
        })
        .collect();
    json!({
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": "memtx-check",
            "description": "a MemTX trace replayed by memtx-check: one state per step; \
                authority and confidence in integer hundredths; options as Quint Some/None",
        },
        "vars": ["records", "transactions", "rollback_log", "action", ACTION_TAKEN, NONDET_PICKS_VAR],
        "states": states,
    })
}

/// Quint's MBT variable naming the action taken.
pub const ACTION_TAKEN: &str = "mbt::actionTaken";
/// Quint's MBT variable holding the action's nondeterministic picks.
pub const NONDET_PICKS_VAR: &str = "mbt::nondetPicks";
/// The fields of `mbt::nondetPicks`: every argument of every operation,
/// each name with one type (a stage's record is `proposal`, a record id
/// is `record`).
pub const NONDET_PICKS: [&str; 7] = ["agent", "tier", "tx", "proposal", "record", "tool", "basis"];

/// `mbt::nondetPicks` of the state after `step` (all `None` for the
/// initial state): the arguments of its `action`, a stage's record as
/// `proposal`.
fn nondet_picks(step: Option<&Step>) -> Value {
    let mut args = match step.map(action) {
        Some(Value::Object(args)) => args,
        _ => serde_json::Map::new(),
    };
    if step.is_some_and(|s| s.verb() == Verb::Stage) {
        if let Some(record) = args.remove("record") {
            args.insert("proposal".to_owned(), record);
        }
    }
    let picks = NONDET_PICKS
        .iter()
        .map(|&name| (name.to_owned(), option(args.remove(name))))
        .collect();
    Value::Object(picks)
}

fn int(n: impl Into<i64>) -> Value {
    json!({"#bigint": n.into().to_string()})
}

/// Record ids, in the order given, as an ITF set.
fn set(ids: impl Iterator<Item = u8>) -> Value {
    json!({"#set": ids.map(int).collect::<Vec<_>>()})
}

fn some(value: Value) -> Value {
    json!({"tag": "Some", "value": value})
}

fn none() -> Value {
    json!({"tag": "None", "value": {"#tup": []}})
}

fn option(value: Option<Value>) -> Value {
    value.map_or_else(none, some)
}

fn record(id: usize, r: &Record, compiled: &Compiled) -> Value {
    let name = |s| Value::from(compiled.symbols.name(s));
    json!({
        "id": int(id as i64),
        "kind": r.kind().name(),
        "state": r.state().name(),
        "entity": name(r.entity()),
        "attribute": name(r.attribute()),
        "value": name(r.value()),
        "source": option(r.source().map(name)),
        "authority": int(r.authority().0),
        "confidence": int(r.confidence().0),
        "owner": int(r.owner()),
        "scope": r.scope().name(),
        "derived_from": set(r.derived_from().iter()),
        "valid_from": option(r.window().from.map(int)),
        "valid_to": option(r.window().to.map(int)),
        "reason": option(r.reason().map(|x| Value::from(x.name()))),
        "tool": option(r.tool().map(|t| Value::from(compiled.tool_name(t)))),
    })
}

fn transaction(id: usize, t: &Transaction) -> Value {
    let status = t.status().name();
    json!({
        "id": int(id as i64),
        "agent": int(t.agent()),
        "tier": t.tier().name(),
        "status": status,
        "snapshot": set(t.snapshot().iter()),
        "staged": set(t.staged().iter()),
    })
}

fn log_entry(e: &LogEntry) -> Value {
    json!({
        "record": int(e.record),
        "repair": e.repair.name(),
        "root": e.root,
        "from": e.from.name(),
        "horizon": int(e.horizon),
    })
}

/// The ITF `action` of a step: the step as a trace writes it, every
/// argument an ITF value.
fn action(step: &Step) -> Value {
    serde_json::to_value(step.map(&mut Itf)).unwrap_or(Value::Null)
}

/// ITF values for every argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ItfArgs {}

impl Operands for ItfArgs {
    type Agent = Value;
    type Tx = Value;
    type Record = Value;
    type Stage = Value;
    type Tool = Value;
    type Basis = Value;
}

/// A step's arguments as ITF values.
struct Itf;

impl Translate<StepArgs, ItfArgs> for Itf {
    type Error = Infallible;

    fn open(&mut self, agent: &u8, tier: Tier) -> Result<(Value, Tier), Infallible> {
        Ok((int(*agent), tier))
    }

    fn tx(&mut self, _: Verb, tx: &u8) -> Result<Value, Infallible> {
        Ok(int(*tx))
    }

    fn record(&mut self, _: Verb, record: &u8) -> Result<Value, Infallible> {
        Ok(int(*record))
    }

    fn stage(&mut self, _: &Value, record: &RecordSpec) -> Result<Value, Infallible> {
        Ok(spec(record))
    }

    fn call(
        &mut self,
        _: &Value,
        tool: &String,
        basis: &Vec<u8>,
    ) -> Result<(Value, Value), Infallible> {
        Ok((Value::from(tool.as_str()), set(basis.iter().copied())))
    }
}

fn spec(r: &RecordSpec) -> Value {
    json!({
        "kind": r.kind.name(),
        "entity": r.entity,
        "attribute": r.attribute,
        "value": r.value,
        "source": option(r.source.clone().map(Value::from)),
        "authority": int(r.authority.0),
        "confidence": int(r.confidence.0),
        "scope": r.scope.name(),
        "derived_from": set(r.derived_from.iter().copied()),
        "valid_from": option(r.valid_from.map(int)),
        "valid_to": option(r.valid_to.map(int)),
        "owner": option(r.owner.map(int)),
    })
}
