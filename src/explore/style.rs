//! The look of the explorer's drawing, in one place for the picture and
//! the panels under it: the colours (verdicts, lifecycle states, ink), the
//! page and node layout, and [`text`], the styled text both write.

use super::svg::{n, Svg};
use crate::protocol::Lifecycle;

/// The drawing's width in pixels.
pub const WIDTH: i32 = 920;
pub const MARGIN: i32 = 16;
/// A record node's size, and the grid the nodes sit on.
pub const NODE_W: i32 = 168;
pub const NODE_H: i32 = 62;
pub const COL: i32 = 184;
pub const ROW: i32 = 104;
pub const PER_ROW: usize = 4;
/// Characters per wrapped text line at the default font size.
pub const LINE_CHARS: usize = 120;
/// Where verdicts start, right of the widest property name.
pub const VERDICT_COLUMN: i32 = 330;

/// Violated: banners, the outline of a record a violation names.
pub const RED: &str = "#c40000";
/// Holds, or reached.
pub const GREEN: &str = "#1d7a3a";
/// Not reached, nothing to show.
pub const GREY: &str = "#777777";
/// Outlines of nodes and legend swatches.
pub const INK: &str = "#333333";
/// `derived_from` arrows and their heads.
pub const EDGE: &str = "#444444";
pub const PAPER: &str = "#ffffff";
/// The "in flight" label of a tentative record.
pub const IN_FLIGHT: &str = "#8a4b00";

/// A record's fill colour, by lifecycle state.
pub fn fill(state: Lifecycle) -> &'static str {
    match state {
        Lifecycle::Raw => "#e0e0e0",
        Lifecycle::Tentative => "#ffe08a",
        Lifecycle::Validated => "#a8d8f0",
        Lifecycle::Committed => "#9bd69b",
        Lifecycle::ActionSafe => "#4fbf8b",
        Lifecycle::Quarantined => "#f5b06b",
        Lifecycle::Superseded => "#cbb8e6",
        Lifecycle::Revoked => "#a9a9a9",
    }
}

/// A `<text>` at (x, y); `style` is a `;`-separated shorthand such as
/// `bold=1;size=14;fill=#c40000;anchor=middle`.
pub fn text(svg: &mut Svg, x: i32, y: i32, style: &str, content: &str) {
    let mut attrs = vec![("x", n(x)), ("y", n(y))];
    for part in style.split(';').filter(|p| !p.is_empty()) {
        match part.split_once('=') {
            Some(("bold", _)) => attrs.push(("font-weight", "bold".to_owned())),
            Some((k, v)) => attrs.push((attr_name(k), v.to_owned())),
            None => {}
        }
    }
    svg.leaf("text", &attrs, content);
}

/// Style keys used by [`text`], as SVG attribute names.
fn attr_name(key: &str) -> &'static str {
    match key {
        "fill" => "fill",
        "size" => "font-size",
        "anchor" => "text-anchor",
        "class" => "class",
        _ => "data-style",
    }
}
