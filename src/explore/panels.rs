//! The panels under the record graph: each invariant and companion at the
//! state, the transactions with tier, status and snapshot, the rollback
//! log, and the legend of colours, shapes and marks.

use super::style::{fill, text, EDGE, GREEN, GREY, INK, MARGIN, PAPER, RED, VERDICT_COLUMN, WIDTH};
use super::svg::{clip, hexagon, n, Svg};
use super::verdicts::{PathVerdicts, Reached};
use crate::outcome_text::{ids, log_entry};
use crate::protocol::{Lifecycle, Store};

/// A coloured dot, a bold name and, in a column of its own, a verdict;
/// returns the next y.
fn row(svg: &mut Svg, y: i32, colour: &str, bold: &str, rest: &str) -> i32 {
    svg.empty(
        "circle",
        &[
            ("cx", n(MARGIN + 6)),
            ("cy", n(y - 4)),
            ("r", n(5)),
            ("fill", colour.to_owned()),
        ],
    );
    text(svg, MARGIN + 18, y, "bold=1", bold);
    text(
        svg,
        MARGIN + 18 + VERDICT_COLUMN,
        y,
        &format!("fill={colour}"),
        rest,
    );
    y + 18
}

/// Each invariant and companion at this state; returns the next free y.
pub(super) fn properties(svg: &mut Svg, verdicts: &PathVerdicts, top: i32) -> i32 {
    text(
        svg,
        MARGIN,
        top + 14,
        "bold=1;size=14",
        "Invariants and companions at this state",
    );
    let mut y = top + 34;
    svg.open("g", &[("class", "invariants".to_owned())]);
    for r in &verdicts.invariants {
        let name = format!("{} {}", r.invariant.name(), r.invariant.title());
        let (colour, said, verdict) = match (&r.violation, &r.action) {
            (None, _) => (GREEN, "holds", "holds".to_owned()),
            (Some(_), Some((k, label))) => (
                RED,
                "violated",
                format!("VIOLATED by action #{k} ({label})"),
            ),
            (Some(_), None) => (RED, "violated", "VIOLATED".to_owned()),
        };
        svg.open(
            "g",
            &[
                ("data-invariant", r.invariant.name().to_owned()),
                ("data-verdict", said.to_owned()),
            ],
        );
        y = row(svg, y, colour, &name, &verdict);
        svg.close();
    }
    svg.close();
    svg.open("g", &[("class", "companions".to_owned())]);
    for c in &verdicts.companions {
        let (colour, verdict) = match c.reached {
            Reached::Here => (GREEN, "reached here".to_owned()),
            Reached::After(0) => (GREEN, "reached at the initial state".to_owned()),
            Reached::After(k) => (GREEN, format!("reached after action #{k}")),
            Reached::No => (GREY, "not reached on this path".to_owned()),
        };
        y = row(svg, y, colour, &format!("sometimes: {}", c.name), &verdict);
    }
    svg.close();
    y - 10
}

/// Transactions (left) and the rollback log (right); returns the next y.
pub(super) fn transactions_and_log(svg: &mut Svg, store: &Store, top: i32) -> i32 {
    let right = WIDTH / 2 + 10;
    text(svg, MARGIN, top + 14, "bold=1;size=14", "Transactions");
    text(svg, right, top + 14, "bold=1;size=14", "Rollback log");
    let mut y = top + 34;
    if store.transactions().is_empty() {
        text(svg, MARGIN, y, &format!("fill={GREY}"), "(none opened)");
        y += 18;
    }
    for (tx, t) in store.transactions().iter().enumerate() {
        let status = t.status().name();
        svg.open("g", &[("data-transaction", format!("T{tx}"))]);
        text(
            svg,
            MARGIN,
            y,
            "bold=1",
            &format!(
                "T{tx} · agent {} · {} · {status}",
                t.agent(),
                t.tier().name()
            ),
        );
        text(
            svg,
            MARGIN + 12,
            y + 16,
            "",
            &clip(
                &format!(
                    "snapshot {} · staged {}",
                    ids(t.snapshot()),
                    ids(t.staged())
                ),
                60,
            ),
        );
        svg.close();
        y += 38;
    }
    let mut ly = top + 34;
    let log = store.rollback_log();
    if log.is_empty() {
        text(svg, right, ly, &format!("fill={GREY}"), "(empty)");
        ly += 18;
    }
    for e in log {
        text(svg, right, ly, "", &log_entry(e));
        ly += 18;
    }
    y.max(ly) - 10
}

/// The legend: colours, shapes and marks; returns the next free y.
pub(super) fn legend(svg: &mut Svg, top: i32) -> i32 {
    text(svg, MARGIN, top + 14, "bold=1;size=14", "Legend");
    svg.open("g", &[("class", "legend".to_owned())]);
    let y = top + 26;
    for (i, state) in Lifecycle::ALL.into_iter().enumerate() {
        let x = MARGIN + (i as i32 % 4) * 150;
        let yy = y + (i as i32 / 4) * 22;
        svg.empty(
            "rect",
            &[
                ("x", n(x)),
                ("y", n(yy)),
                ("width", n(16)),
                ("height", n(14)),
                ("fill", fill(state).to_owned()),
                ("stroke", INK.to_owned()),
            ],
        );
        text(svg, x + 22, yy + 12, "", state.name());
    }
    let y = y + 56;
    let plain = [
        ("stroke", INK.to_owned()),
        ("fill", PAPER.to_owned()),
        ("stroke-width", n(2)),
    ];
    let small = |svg: &mut Svg, tag: &'static str, geo: Vec<(&'static str, String)>| {
        let mut attrs = geo;
        attrs.extend(plain.iter().cloned());
        svg.empty(tag, &attrs);
    };
    small(
        svg,
        "ellipse",
        vec![
            ("cx", n(MARGIN + 14)),
            ("cy", n(y)),
            ("rx", n(14)),
            ("ry", n(9)),
        ],
    );
    text(svg, MARGIN + 34, y + 4, "", "belief");
    small(
        svg,
        "rect",
        vec![
            ("x", n(MARGIN + 100)),
            ("y", n(y - 9)),
            ("width", n(28)),
            ("height", n(18)),
        ],
    );
    text(
        svg,
        MARGIN + 134,
        y + 4,
        "",
        "view: summary, profile, index_entry, shared_copy",
    );
    small(
        svg,
        "polygon",
        vec![("points", hexagon(MARGIN + 474, y - 9, 30, 18, 6))],
    );
    text(svg, MARGIN + 512, y + 4, "", "tool_action");
    let y = y + 28;
    svg.empty(
        "rect",
        &[
            ("x", n(MARGIN)),
            ("y", n(y - 9)),
            ("width", n(28)),
            ("height", n(18)),
            ("fill", PAPER.to_owned()),
            ("stroke", INK.to_owned()),
            ("stroke-width", n(2)),
            ("stroke-dasharray", "6 4".to_owned()),
        ],
    );
    text(svg, MARGIN + 34, y + 4, "", "tentative, in flight");
    svg.empty(
        "rect",
        &[
            ("x", n(MARGIN + 200)),
            ("y", n(y - 9)),
            ("width", n(28)),
            ("height", n(18)),
            ("fill", PAPER.to_owned()),
            ("stroke", RED.to_owned()),
            ("stroke-width", n(5)),
        ],
    );
    text(
        svg,
        MARGIN + 236,
        y + 4,
        "",
        "named by a violated invariant",
    );
    svg.empty(
        "line",
        &[
            ("x1", n(MARGIN + 470)),
            ("y1", n(y)),
            ("x2", n(MARGIN + 500)),
            ("y2", n(y)),
            ("stroke", EDGE.to_owned()),
            ("stroke-width", n(2)),
            ("marker-end", "url(#memtx-arrow)".to_owned()),
        ],
    );
    text(
        svg,
        MARGIN + 512,
        y + 4,
        "",
        "derived_from (child → parent)",
    );
    svg.close();
    arrow_marker(svg);
    // The explorer's own checker is off (see `ExploredMemtxModel`'s
    // boundary); say where the exhaustive check is.
    let y = y + 28;
    text(
        svg,
        MARGIN,
        y + 4,
        "",
        "\"Run to completion\" is off here (it would explore without bound): \
         the exhaustive check is memtx-check check MODEL",
    );
    y + 12
}

/// The arrowhead the edges use (ids are document-wide, hence the prefix).
fn arrow_marker(svg: &mut Svg) {
    svg.open("defs", &[]);
    svg.open(
        "marker",
        &[
            ("id", "memtx-arrow".to_owned()),
            ("viewBox", "0 0 10 10".to_owned()),
            ("refX", n(9)),
            ("refY", n(5)),
            ("markerWidth", n(7)),
            ("markerHeight", n(7)),
            ("orient", "auto".to_owned()),
        ],
    );
    svg.empty(
        "path",
        &[
            ("d", "M 0 0 L 10 5 L 0 10 z".to_owned()),
            ("fill", EDGE.to_owned()),
        ],
    );
    svg.close();
    svg.close();
}
