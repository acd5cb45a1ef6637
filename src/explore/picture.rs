//! `as_svg`: the store at the last state of an explorer path, drawn for
//! this protocol. Records are nodes coloured by lifecycle state and shaped
//! by type (belief: ellipse; summary, profile, index_entry, shared_copy
//! views: rectangle; tool_action: hexagon), with `derived_from` arrows from
//! child to parent; tentative records in flight are dashed and labelled
//! with the transaction that staged them. Below: each transaction with its
//! tier, status and snapshot, the rollback log, each invariant and
//! companion, and a legend. Records that a violated invariant names get a
//! thick red outline and a `data-violation` attribute listing the
//! invariants, so tests (and browsers) can find them.

use super::panels::{legend, properties, transactions_and_log};
use super::store;
use super::style::{
    fill, text, COL, EDGE, GREEN, GREY, INK, IN_FLIGHT, LINE_CHARS, MARGIN, NODE_H, NODE_W, PAPER,
    PER_ROW, RED, ROW, WIDTH,
};
use super::svg::{clip, hexagon, n, wrap, Svg};
use super::verdicts::PathVerdicts;
use crate::model::{Action, MemtxModel, ModelState};
use crate::protocol::{Kind, Lifecycle, Record, RecordId, Store, TxStatus};
use stateright::{Model, Path};

/// The picture of `path`'s last state (stateright's `Model::as_svg`).
pub fn as_svg(model: &MemtxModel, path: Path<ModelState, Action>) -> Option<String> {
    Some(render(model, &path.into_vec()))
}

/// The picture of a path given as `(state, action taken from it)` pairs,
/// the last with no action.
pub fn render(model: &MemtxModel, path: &[(ModelState, Option<Action>)]) -> String {
    let verdicts = PathVerdicts::of(model, path);
    let empty = ModelState::default();
    let last = path.last().map_or(&empty, |(s, _)| s);
    let mut svg = Svg::new();
    svg.empty(
        "rect",
        &[
            ("x", n(0)),
            ("y", n(0)),
            ("width", n(WIDTH)),
            ("height", "100%".to_owned()),
            ("fill", PAPER.to_owned()),
        ],
    );
    let mut y = header(&mut svg, model, path, &verdicts);
    y = records(&mut svg, model, store(last), &verdicts, y + 10);
    y = properties(&mut svg, &verdicts, y + 16);
    y = transactions_and_log(&mut svg, store(last), y + 16);
    y = legend(&mut svg, y + 16);
    svg.finish(WIDTH as u32, (y + MARGIN) as u32)
}

/// The title and the verdict banner; returns the next free y.
fn header(
    svg: &mut Svg,
    model: &MemtxModel,
    path: &[(ModelState, Option<Action>)],
    verdicts: &PathVerdicts,
) -> i32 {
    let actions = path.len().saturating_sub(1);
    let title = match path.iter().rev().find_map(|(_, a)| a.as_ref()) {
        Some(a) => format!("Store after action #{actions}: {}", model.format_action(a)),
        None => "Initial store (no action yet)".to_owned(),
    };
    let mut y = 26;
    text(svg, MARGIN, y, "bold=1;size=16", &title);
    y += 22;
    if !verdicts.violated() {
        text(
            svg,
            MARGIN,
            y,
            &format!("bold=1;fill={GREEN}"),
            "every invariant holds on this path",
        );
        return y + 6;
    }
    for row in &verdicts.invariants {
        let Some(v) = &row.violation else { continue };
        let named: Vec<String> = v.records.iter().map(|id| format!("r{id}")).collect();
        let named = if named.is_empty() {
            String::new()
        } else {
            format!(" — highlighted: {}", named.join(", "))
        };
        svg.open(
            "g",
            &[
                ("class", "violation-banner".to_owned()),
                ("data-invariant", v.invariant.name().to_owned()),
            ],
        );
        text(
            svg,
            MARGIN,
            y,
            &format!("bold=1;fill={RED};size=14"),
            &format!(
                "{} VIOLATED ({}){named}",
                v.invariant.name(),
                v.invariant.title()
            ),
        );
        for line in wrap(&v.detail, LINE_CHARS) {
            y += 16;
            text(svg, MARGIN + 12, y, &format!("fill={RED}"), &line);
        }
        svg.close();
        y += 20;
    }
    y - 14
}

/// Which row of the graph each record sits in: parents above children.
fn layers(store: &Store) -> Vec<usize> {
    let mut layer: Vec<usize> = Vec::with_capacity(store.records().len());
    for (id, r) in store.records().iter().enumerate() {
        let l = r
            .derived_from()
            .iter()
            .filter(|&p| (p as usize) < id)
            .map(|p| layer[p as usize] + 1)
            .max()
            .unwrap_or(0);
        layer.push(l);
    }
    layer
}

/// Node positions (top-left corners), by record id.
fn positions(store: &Store, top: i32) -> Vec<(i32, i32)> {
    let layer = layers(store);
    let mut pos = vec![(0, 0); layer.len()];
    let mut row = 0;
    for l in 0..=layer.iter().copied().max().unwrap_or(0) {
        let ids: Vec<usize> = (0..layer.len()).filter(|&id| layer[id] == l).collect();
        for chunk in ids.chunks(PER_ROW) {
            for (col, &id) in chunk.iter().enumerate() {
                pos[id] = (MARGIN + 8 + col as i32 * COL, top + row * ROW + 18);
            }
            row += 1;
        }
    }
    pos
}

/// The transaction still open that staged `id`, if any.
fn in_flight(store: &Store, id: RecordId) -> Option<usize> {
    store
        .transactions()
        .iter()
        .position(|t| t.status() == TxStatus::Open && t.staged().contains(id))
}

/// The record graph; returns the next free y.
fn records(
    svg: &mut Svg,
    model: &MemtxModel,
    store: &Store,
    verdicts: &PathVerdicts,
    top: i32,
) -> i32 {
    text(
        svg,
        MARGIN,
        top + 14,
        "bold=1;size=14",
        "Records (arrow: derived_from, child → parent)",
    );
    let top = top + 24;
    if store.records().is_empty() {
        text(
            svg,
            MARGIN + 8,
            top + 18,
            &format!("fill={GREY}"),
            "(no records yet)",
        );
        return top + 26;
    }
    let pos = positions(store, top);
    svg.open("g", &[("class", "edges".to_owned())]);
    for (id, r) in store.records().iter().enumerate() {
        for p in r.derived_from().iter().filter(|&p| (p as usize) < id) {
            let (cx, cy) = pos[id];
            let (px, py) = pos[p as usize];
            svg.empty(
                "line",
                &[
                    ("x1", n(cx + NODE_W / 2)),
                    ("y1", n(cy)),
                    ("x2", n(px + NODE_W / 2)),
                    ("y2", n(py + NODE_H + 4)),
                    ("stroke", EDGE.to_owned()),
                    ("stroke-width", n(2)),
                    ("marker-end", "url(#memtx-arrow)".to_owned()),
                    ("data-edge", format!("r{id}->r{p}")),
                ],
            );
        }
    }
    svg.close();
    let mut bottom = top;
    for (id, r) in store.records().iter().enumerate() {
        let (x, y) = pos[id];
        node(svg, model, store, verdicts, id as RecordId, r, x, y);
        bottom = bottom.max(y + NODE_H);
    }
    bottom + 8
}

#[allow(clippy::too_many_arguments)]
fn node(
    svg: &mut Svg,
    model: &MemtxModel,
    store: &Store,
    verdicts: &PathVerdicts,
    id: RecordId,
    r: &Record,
    x: i32,
    y: i32,
) {
    let named = verdicts.naming(id);
    let flight = if r.state() == Lifecycle::Tentative {
        in_flight(store, id)
    } else {
        None
    };
    let mut attrs = vec![
        (
            "class",
            if named.is_empty() {
                "record".to_owned()
            } else {
                "record violation".to_owned()
            },
        ),
        ("data-record", format!("r{id}")),
        ("data-kind", r.kind().name().to_owned()),
        ("data-state", r.state().name().to_owned()),
    ];
    if !named.is_empty() {
        let names: Vec<&str> = named.iter().map(|i| i.name()).collect();
        attrs.push(("data-violation", names.join(" ")));
    }
    if let Some(tx) = flight {
        attrs.push(("data-in-flight", format!("T{tx}")));
    }
    svg.open("g", &attrs);
    let mut style = vec![
        ("fill", fill(r.state()).to_owned()),
        (
            "stroke",
            if named.is_empty() { INK } else { RED }.to_owned(),
        ),
        ("stroke-width", n(if named.is_empty() { 2 } else { 5 })),
    ];
    if r.state() == Lifecycle::Tentative {
        style.push(("stroke-dasharray", "6 4".to_owned()));
    }
    shape(svg, r.kind(), x, y, &style);
    let cx = x + NODE_W / 2;
    let middle = "anchor=middle";
    text(
        svg,
        cx,
        y + 19,
        &format!("{middle};bold=1"),
        &format!("r{id} · {}", r.kind().name()),
    );
    let state = match r.reason() {
        Some(reason) => format!("{}: {}", r.state().name(), reason.name()),
        None => r.state().name().to_owned(),
    };
    text(
        svg,
        cx,
        y + 35,
        &format!("{middle};size=11"),
        &clip(&state, 28),
    );
    let symbols = model.spec.symbols();
    let what = match r.tool() {
        Some(tool) => format!("tool {}", model.spec.compiled.tool_name(tool)),
        None => format!(
            "{}={}",
            symbols.name(r.attribute()),
            symbols.name(r.value())
        ),
    };
    text(
        svg,
        cx,
        y + 50,
        &format!("{middle};size=11"),
        &clip(&what, 28),
    );
    if let Some(tx) = flight {
        text(
            svg,
            x + 4,
            y - 5,
            &format!("size=10;fill={IN_FLIGHT};bold=1"),
            &format!("in flight · staged by T{tx}"),
        );
    }
    if !named.is_empty() {
        let names: Vec<&str> = named.iter().map(|i| i.name()).collect();
        text(
            svg,
            x + NODE_W - 2,
            y - 5,
            &format!("anchor=end;size=11;bold=1;fill={RED}"),
            &format!("✘ {}", names.join(" ")),
        );
    }
    svg.close();
}

/// A node outline: ellipse for beliefs, rectangle for views, hexagon for
/// tool actions.
fn shape(svg: &mut Svg, kind: Kind, x: i32, y: i32, style: &[(&str, String)]) {
    let mut attrs: Vec<(&str, String)> = Vec::new();
    let tag = match kind {
        Kind::Belief => {
            attrs.extend([
                ("cx", n(x + NODE_W / 2)),
                ("cy", n(y + NODE_H / 2)),
                ("rx", n(NODE_W / 2)),
                ("ry", n(NODE_H / 2 + 2)),
            ]);
            "ellipse"
        }
        Kind::ToolAction => {
            attrs.push(("points", hexagon(x, y, NODE_W, NODE_H, 14)));
            "polygon"
        }
        _ => {
            attrs.extend([
                ("x", n(x)),
                ("y", n(y)),
                ("width", n(NODE_W)),
                ("height", n(NODE_H)),
                ("rx", n(3)),
            ]);
            "rect"
        }
    };
    attrs.extend(style.iter().cloned());
    svg.empty(tag, &attrs);
}
