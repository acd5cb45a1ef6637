//! The input fuzz test (issue 13): arbitrary JSON documents, and mutations
//! of every shipped model and trace (fields deleted, duplicated, retyped;
//! boundary numbers; sequences for objects and objects for sequences;
//! hostile names; truncated or corrupted text), each read in-process as a
//! model and as a trace. Reading must give a value or one error line,
//! never a panic; a model read is compiled, two levels of its actions
//! taken (the first and last few of each state) and every state reached
//! packed and unpacked as the engine does; a trace read is replayed. None
//! of it may panic.
//!
//! `MEMTX_FUZZ_CASES` sets the cases per property (default
//! [`DEFAULT_CASES`], a few seconds in `cargo test --release`); the slow
//! variant is `MEMTX_FUZZ_CASES=100000 cargo test --release --test
//! suite fuzz::inputs::`. Failures are not persisted; proptest prints the shrunk
//! case.

use memtx_check::config::ModelConfig;
use memtx_check::engine::StateCodec;
use memtx_check::model::{MemtxModel, ModelCodec, ModelSpec, ModelState};
use memtx_check::replay::replay;
use memtx_check::trace::Trace;
use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use stateright::Model;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Cases per property unless `MEMTX_FUZZ_CASES` says otherwise.
const DEFAULT_CASES: u32 = 3000;

const MODEL_ORIGIN: &str = "models/fuzz.json";
const TRACE_ORIGIN: &str = "traces/fuzz.json";

/// Every shipped model and trace (ITF exports included, as documents the
/// readers must refuse cleanly), parsed once.
fn corpus() -> &'static [(PathBuf, Value)] {
    static CORPUS: OnceLock<Vec<(PathBuf, Value)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let corpus: Vec<_> = crate::support::json_files(&["models", "traces"])
            .into_iter()
            .map(|p| {
                let value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                (p, value)
            })
            .collect();
        assert!(corpus.len() >= 40, "the shipped models and traces");
        corpus
    })
}

/// The readers, on one text: a value or one error line, never a panic.
fn read_everything(text: &str) {
    match ModelConfig::parse(text, MODEL_ORIGIN) {
        Ok(config) => two_levels(&MemtxModel::new(ModelSpec::from_config(&config))),
        Err(e) => assert_one_line(&e.to_string(), MODEL_ORIGIN),
    }
    match Trace::parse(text, TRACE_ORIGIN, Some(Path::new("traces"))) {
        Ok(trace) => {
            if let Err(e) = replay(&trace) {
                assert_one_line(&e.to_string(), "");
            }
        }
        Err(e) => assert_one_line(&e.to_string(), ""),
    }
}

/// The first and last few successors of the initial state and of each of
/// those, each packed and unpacked by the engine's codec.
fn two_levels(model: &MemtxModel) {
    let codec = ModelCodec::new(&model.spec);
    let mut level = model.init_states();
    for _ in 0..2 {
        let mut next = Vec::new();
        for state in &level {
            round_trip(&codec, state);
            let mut actions = Vec::new();
            model.actions(state, &mut actions);
            let ends = actions.len().saturating_sub(6);
            for (i, action) in actions.into_iter().enumerate() {
                if i < 6 || i >= ends {
                    next.extend(model.next_state(state, action));
                }
            }
        }
        level = next;
    }
    for state in &level {
        round_trip(&codec, state);
    }
}

fn round_trip(codec: &ModelCodec, state: &ModelState) {
    let mut bytes = Vec::new();
    codec.encode(state, &mut bytes);
    assert_eq!(&codec.decode(&bytes), state);
}

fn assert_one_line(message: &str, origin: &str) {
    assert!(
        !message.is_empty() && !message.contains('\n') && !message.contains('\r'),
        "not one line: {message:?}"
    );
    assert!(message.starts_with(origin), "{message:?} names no file");
}

/// Field names and words of the formats, so generated documents get past
/// the first check.
const WORDS: &[&str] = &[
    "name",
    "description",
    "bounds",
    "records",
    "transactions",
    "depth",
    "agents",
    "tiers",
    "tools",
    "irreversible",
    "clock",
    "templates",
    "kind",
    "entity",
    "attribute",
    "value",
    "source",
    "authority",
    "confidence",
    "scope",
    "valid_from",
    "valid_to",
    "owner",
    "parent",
    "variant",
    "same_source_tie",
    "stale_check_empty_snapshot",
    "laundering_parents",
    "tool_basis",
    "ablate",
    "expect",
    "I1",
    "I2",
    "G3",
    "config",
    "model",
    "steps",
    "op",
    "agent",
    "tier",
    "tx",
    "record",
    "tool",
    "basis",
    "derived_from",
    "violation",
    "property",
    "step",
    "detail",
    "open",
    "stage",
    "commit",
    "abort",
    "revoke",
    "tool_call",
    "low",
    "medium",
    "high",
    "external_action",
    "belief",
    "summary",
    "profile",
    "index_entry",
    "shared_copy",
    "tool_action",
    "shared",
    "private",
    "none",
    "optional",
    "required",
    "full",
    "holds",
    "violated",
    "gate",
    "cascade",
    "supersede",
    "review",
    "skip",
    "apply",
    "active",
    "any",
    "snapshot",
    "issue_refund",
    "models/default.json",
    "",
];

/// Names a hostile user would try.
const HOSTILE: &[&str] = &[
    "../../../escape",
    "/tmp/escape",
    ".hidden",
    "a/b",
    "..",
    ".",
    "nul\u{0}",
    "caf\u{e9}",
    "/dev/zero",
    "traces",
    "models/../models/default.json",
];

fn boundary_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            0i64,
            -1,
            1,
            2,
            3,
            63,
            64,
            65,
            127,
            128,
            129,
            255,
            256,
            1000,
            1001,
            4096,
            4097,
            i32::MAX as i64,
            i32::MAX as i64 + 1,
            i32::MIN as i64 - 1,
            i64::MAX,
            i64::MIN,
        ])
        .prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        prop::sample::select(vec![
            0.5, 0.555, 0.01, 0.99, 1.01, -0.0, 1e-9, 1e308, -1e308, 2.5, 0.6, 0.9,
        ])
        .prop_map(|x| Number::from_f64(x).map_or(Value::Null, Value::Number)),
    ]
}

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(WORDS).prop_map(str::to_owned),
        2 => prop::sample::select(HOSTILE).prop_map(str::to_owned),
        1 => "[a-z_./]{0,12}",
        1 => (1usize..300).prop_map(|n| "x".repeat(n)),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        boundary_number(),
        any::<i64>().prop_map(Value::from),
        string().prop_map(Value::String),
    ]
}

/// Any JSON value, biased to the formats' words.
fn json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((string(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One change to a document; `node` picks a node in pre-order (modulo
/// their number).
#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Replace(usize, Value),
    SequenceForObject(usize),
    ObjectForSequence(usize),
    /// An object's key given again with this value.
    Duplicate(usize, Value),
    /// A list (the `node`-th list) grown to this many elements, copies of its own with each
    /// `name` made distinct (templates and tools at and past the limits).
    Widen(usize, usize),
}

/// A change to the text after the value is written.
#[derive(Clone, Debug)]
enum TextChange {
    None,
    Truncate(usize),
    Insert(usize, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let node = any::<usize>();
    let small = prop_oneof![scalar(), json()];
    prop_oneof![
        3 => node.prop_map(Mutation::Delete),
        3 => (node, small.clone()).prop_map(|(n, v)| Mutation::Replace(n, v)),
        2 => (node, boundary_number()).prop_map(|(n, v)| Mutation::Replace(n, v)),
        1 => (node, prop::sample::select(HOSTILE))
            .prop_map(|(n, s)| Mutation::Replace(n, Value::from(s))),
        2 => node.prop_map(Mutation::SequenceForObject),
        1 => node.prop_map(Mutation::ObjectForSequence),
        2 => (node, small).prop_map(|(n, v)| Mutation::Duplicate(n, v)),
        2 => (node, prop::sample::select(vec![64usize, 127, 128, 129, 255, 256, 257]))
            .prop_map(|(n, len)| Mutation::Widen(n, len)),
    ]
}

fn text_change() -> impl Strategy<Value = TextChange> {
    prop_oneof![
        8 => Just(TextChange::None),
        1 => any::<usize>().prop_map(TextChange::Truncate),
        1 => (any::<usize>(), prop::sample::select(vec!['{', '}', '[', ']', '"', ',', ':', '0', '-', 'e', '\\', ' ']))
            .prop_map(|(at, c)| TextChange::Insert(at, c)),
    ]
}

type NodePath = Vec<Key>;

#[derive(Clone, Debug, PartialEq)]
enum Key {
    Field(String),
    Index(usize),
}

/// Every node's path, in pre-order.
fn nodes(value: &Value, path: &mut NodePath, out: &mut Vec<NodePath>) {
    out.push(path.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Key::Index(i));
                nodes(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                path.push(Key::Field(k.clone()));
                nodes(v, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(value: &'a Value, path: &[Key]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, key| match key {
        Key::Field(k) => v.get(k.as_str()),
        Key::Index(i) => v.get(*i),
    })
}

fn node_mut<'a>(value: &'a mut Value, path: &[Key]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, key| match key {
        Key::Field(k) => v.get_mut(k.as_str()),
        Key::Index(i) => v.get_mut(*i),
    })
}

fn pick(value: &Value, n: usize) -> NodePath {
    let mut all = nodes_of(value);
    all.swap_remove(n % all.len())
}

/// Applies the value mutations; returns the object whose key is to be
/// given twice, if any.
fn mutate(value: &mut Value, mutations: &[Mutation]) -> Option<(NodePath, Value)> {
    let mut duplicate = None;
    for m in mutations {
        match m {
            Mutation::Delete(n) => {
                let mut path = pick(value, *n);
                let Some(last) = path.pop() else {
                    *value = Value::Object(Map::new());
                    continue;
                };
                match (node_mut(value, &path), last) {
                    (Some(Value::Object(map)), Key::Field(k)) => {
                        map.remove(&k);
                    }
                    (Some(Value::Array(items)), Key::Index(i)) => {
                        items.remove(i);
                    }
                    _ => {}
                }
            }
            Mutation::Replace(n, new) => {
                let path = pick(value, *n);
                if let Some(v) = node_mut(value, &path) {
                    *v = new.clone();
                }
            }
            Mutation::SequenceForObject(n) => {
                let path = pick(value, *n);
                if let Some(v) = node_mut(value, &path) {
                    if let Value::Object(map) = v {
                        *v = Value::Array(map.values().cloned().collect());
                    }
                }
            }
            Mutation::ObjectForSequence(n) => {
                let path = pick(value, *n);
                if let Some(v) = node_mut(value, &path) {
                    if let Value::Array(items) = v {
                        *v = Value::Object(
                            items
                                .iter()
                                .enumerate()
                                .map(|(i, x)| (i.to_string(), x.clone()))
                                .collect(),
                        );
                    }
                }
            }
            Mutation::Duplicate(n, again) => {
                let path = pick(value, *n);
                duplicate = Some((path, again.clone()));
            }
            Mutation::Widen(n, len) => {
                let lists: Vec<NodePath> = nodes_of(value)
                    .into_iter()
                    .filter(|p| matches!(node(value, p), Some(Value::Array(_))))
                    .collect();
                if let Some(path) = lists.get(n % lists.len().max(1)) {
                    if let Some(Value::Array(items)) = node_mut(value, path) {
                        widen(items, *len);
                    }
                }
            }
        }
    }
    duplicate
}

fn widen(items: &mut Vec<Value>, len: usize) {
    if items.is_empty() {
        return;
    }
    let originals = items.clone();
    for i in items.len()..len {
        let mut copy = originals[i % originals.len()].clone();
        if let Some(Value::String(name)) = copy.get_mut("name") {
            name.push_str(&format!("-{i}"));
        }
        items.push(copy);
    }
}

/// JSON text of `value`, the first key of the object at `twice.0` (if it
/// is a non-empty object) written a second time with `twice.1`.
fn write(value: &Value, path: &mut NodePath, twice: Option<&(NodePath, Value)>, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                path.push(Key::Index(i));
                write(item, path, twice, out);
                path.pop();
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(k.as_str()).to_string());
                out.push(':');
                path.push(Key::Field(k.clone()));
                write(v, path, twice, out);
                path.pop();
            }
            if let (Some((at, again)), Some(first)) = (twice, map.keys().next()) {
                if at == path {
                    out.push(',');
                    out.push_str(&Value::from(first.as_str()).to_string());
                    out.push(':');
                    out.push_str(&again.to_string());
                }
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn text_of(value: &Value, twice: Option<&(NodePath, Value)>, change: &TextChange) -> String {
    let mut text = String::new();
    write(value, &mut Vec::new(), twice, &mut text);
    match change {
        TextChange::None => text,
        TextChange::Truncate(at) => {
            let mut cut = at % (text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text
        }
        TextChange::Insert(at, c) => {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert(at, *c);
            text
        }
    }
}

proptest! {
    #![proptest_config(super::config(DEFAULT_CASES))]

    #[test]
    fn arbitrary_documents_read_or_fail_in_one_line(
        value in json(),
        change in text_change(),
    ) {
        read_everything(&text_of(&value, None, &change));
    }

    #[test]
    fn mutated_shipped_files_read_or_fail_in_one_line(
        file in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
        change in text_change(),
    ) {
        let (_, original) = &corpus()[file.index(corpus().len())];
        let mut value = original.clone();
        let twice = mutate(&mut value, &mutations);
        read_everything(&text_of(&value, twice.as_ref(), &change));
    }
}

#[test]
fn the_mutator_writes_what_it_means() {
    // The writer round-trips an unmutated document, so the fuzz test
    // starts from the shipped files themselves.
    for (path, value) in corpus() {
        let text = text_of(value, None, &TextChange::None);
        assert_eq!(
            &serde_json::from_str::<Value>(&text).unwrap(),
            value,
            "{}",
            path.display()
        );
    }
    // A duplicated key reaches the reader, which refuses it.
    let (_, model) = corpus()
        .iter()
        .find(|(p, _)| p.ends_with("models/default.json"))
        .unwrap();
    let mut value = model.clone();
    let bounds = nodes_of(&value)
        .into_iter()
        .position(|p| p == [Key::Field("bounds".into())])
        .unwrap();
    let twice = mutate(&mut value, &[Mutation::Duplicate(bounds, Value::from(2))]);
    let text = text_of(&value, twice.as_ref(), &TextChange::None);
    let e = ModelConfig::parse(&text, MODEL_ORIGIN)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bounds.depth: given twice"), "{e}");
    // A sequence for an object is refused too.
    let mut value = model.clone();
    mutate(&mut value, &[Mutation::SequenceForObject(bounds)]);
    let e = ModelConfig::parse(&value.to_string(), MODEL_ORIGIN)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bounds: [") && e.ends_with("is not an object"),
        "{e}"
    );
}

fn nodes_of(value: &Value) -> Vec<NodePath> {
    let mut all = Vec::new();
    nodes(value, &mut Vec::new(), &mut all);
    all
}
