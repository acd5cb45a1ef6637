//! Export to the Informal Trace Format (ITF, Apalache ADR-015, also read by
//! Quint): one ITF state per store of a replayed trace, with the step that
//! led to it as the `action` variable. For tools built for Quint's
//! model-based testing (Quint Connect), every state also carries Quint's
//! two MBT variables: `mbt::actionTaken`, the operation's name (`init` for
//! the initial state), and `mbt::nondetPicks`, a record with one field per
//! argument any operation takes ([`NONDET_PICKS`]: `agent`, `tier`, `tx`,
//! `proposal` (a stage's record), `record` (a revoke's, revalidation's or
//! rebuild's record id), `tool`, `basis`), each `Some(value)` for the arguments the
//! step took and `None` for the others. ITF has no floats and no null:
//! integers are `{"#bigint": "n"}`, authority and confidence are integer
//! hundredths, sets are `{"#set": [...]}`, and an absent value is the Quint
//! option `{"tag": "None", "value": {"#tup": []}}` (present:
//! `{"tag": "Some", "value": v}`).

use super::document::Step;
use crate::config::Compiled;
use crate::config::RecordSpec;
use crate::protocol::{LogEntry, Record, RecordSet, Store, Transaction};
use serde_json::{json, Value};

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
/// initial state).
fn nondet_picks(step: Option<&Step>) -> Value {
    let picked: Vec<(&str, Value)> = match step {
        None => Vec::new(),
        Some(Step::Open { agent, tier }) => {
            vec![("agent", int(*agent)), ("tier", Value::from(tier.name()))]
        }
        Some(Step::Stage { tx, record }) => vec![("tx", int(*tx)), ("proposal", spec(record))],
        Some(Step::Commit { tx } | Step::Abort { tx }) => vec![("tx", int(*tx))],
        Some(Step::Revoke { record }) => vec![("record", int(*record))],
        Some(Step::ToolCall { tx, tool, basis }) => vec![
            ("tx", int(*tx)),
            ("tool", Value::from(tool.as_str())),
            ("basis", id_set(basis)),
        ],
        Some(Step::Revalidate { tx, record } | Step::Rebuild { tx, record }) => {
            vec![("tx", int(*tx)), ("record", int(*record))]
        }
    };
    let mut picks = serde_json::Map::new();
    for name in NONDET_PICKS {
        let value = picked
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone());
        picks.insert(name.to_owned(), option(value));
    }
    Value::Object(picks)
}

fn int(n: impl Into<i64>) -> Value {
    json!({"#bigint": n.into().to_string()})
}

fn set(ids: RecordSet) -> Value {
    json!({"#set": ids.iter().map(int).collect::<Vec<_>>()})
}

fn id_set(ids: &[u8]) -> Value {
    json!({"#set": ids.iter().map(|&id| int(id)).collect::<Vec<_>>()})
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
        "derived_from": set(r.derived_from()),
        "valid_from": option(r.window().from.map(int)),
        "valid_to": option(r.window().to.map(int)),
        "reason": option(r.reason().map(|x| Value::from(x.name()))),
        "tool": option(r.tool().map(|t| Value::from(compiled.tool_name(t)))),
    })
}

fn transaction(id: usize, t: &Transaction) -> Value {
    let status = match t.status() {
        crate::protocol::TxStatus::Open => "open",
        crate::protocol::TxStatus::Committed => "committed",
        crate::protocol::TxStatus::Aborted => "aborted",
    };
    json!({
        "id": int(id as i64),
        "agent": int(t.agent()),
        "tier": t.tier().name(),
        "status": status,
        "snapshot": set(t.snapshot()),
        "staged": set(t.staged()),
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

fn action(step: &Step) -> Value {
    match step {
        Step::Open { agent, tier } => {
            json!({"op": "open", "agent": int(*agent), "tier": tier.name()})
        }
        Step::Stage { tx, record } => {
            json!({"op": "stage", "tx": int(*tx), "record": spec(record)})
        }
        Step::Commit { tx } => json!({"op": "commit", "tx": int(*tx)}),
        Step::Abort { tx } => json!({"op": "abort", "tx": int(*tx)}),
        Step::Revoke { record } => json!({"op": "revoke", "record": int(*record)}),
        Step::ToolCall { tx, tool, basis } => {
            json!({"op": "tool_call", "tx": int(*tx), "tool": tool, "basis": id_set(basis)})
        }
        Step::Revalidate { tx, record } | Step::Rebuild { tx, record } => {
            json!({"op": step.op_name(), "tx": int(*tx), "record": int(*record)})
        }
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
        "derived_from": id_set(&r.derived_from),
        "valid_from": option(r.valid_from.map(int)),
        "valid_to": option(r.valid_to.map(int)),
        "owner": option(r.owner.map(int)),
    })
}
