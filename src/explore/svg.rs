//! A tiny SVG writer: elements with escaped attributes and text, so any
//! string from a configuration (entity names, values) is safe to embed.
//! Output is deterministic: attributes in the order given, no randomness.

pub use crate::outputs::xml_escape as escape;
use std::fmt::Write;

/// An SVG document under construction.
#[derive(Default)]
pub struct Svg {
    body: String,
    open: Vec<&'static str>,
}

/// Attributes, in order, as (name, value) pairs; values are escaped.
pub type Attrs<'a> = &'a [(&'a str, String)];

impl Svg {
    pub fn new() -> Self {
        Self::default()
    }

    /// `<tag attrs>`; close it with [`Svg::close`].
    pub fn open(&mut self, tag: &'static str, attrs: Attrs) {
        self.start(tag, attrs);
        self.body.push_str(">\n");
        self.open.push(tag);
    }

    /// Closes the innermost open element.
    pub fn close(&mut self) {
        if let Some(tag) = self.open.pop() {
            let _ = writeln!(self.body, "</{tag}>");
        }
    }

    /// `<tag attrs/>`.
    pub fn empty(&mut self, tag: &'static str, attrs: Attrs) {
        self.start(tag, attrs);
        self.body.push_str("/>\n");
    }

    /// `<tag attrs>text</tag>`, the text escaped.
    pub fn leaf(&mut self, tag: &'static str, attrs: Attrs, text: &str) {
        self.start(tag, attrs);
        let _ = writeln!(self.body, ">{}</{tag}>", escape(text));
    }

    fn start(&mut self, tag: &str, attrs: Attrs) {
        let _ = write!(self.body, "<{tag}");
        for (name, value) in attrs {
            let _ = write!(self.body, " {name}=\"{}\"", escape(value));
        }
    }

    /// The whole document, `width` × `height` pixels, every element closed.
    pub fn finish(mut self, width: u32, height: u32) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans, Arial, sans-serif\" \
             font-size=\"12\">\n{}</svg>\n",
            self.body
        )
    }
}

/// Shortens `text` to at most `max` characters, ending in `…` if cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Splits `text` into lines of at most `width` characters at spaces (a
/// longer word is clipped).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word = clip(word, width);
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The points of a hexagon in the box `w` × `h` at (`x`, `y`), its left
/// and right corners cut `c` deep: a tool action's outline.
pub fn hexagon(x: i32, y: i32, w: i32, h: i32, c: i32) -> String {
    let points = [
        (x + c, y),
        (x + w - c, y),
        (x + w, y + h / 2),
        (x + w - c, y + h),
        (x + c, y + h),
        (x, y + h / 2),
    ];
    let points: Vec<String> = points.iter().map(|(a, b)| format!("{a},{b}")).collect();
    points.join(" ")
}

/// A number as an attribute value.
pub fn n(x: i32) -> String {
    x.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text_and_attributes() {
        let mut svg = Svg::new();
        svg.open("g", &[("data-x", "a\"<b>&'".to_owned())]);
        svg.leaf("text", &[], "x < y && z > \"w\"");
        let doc = svg.finish(10, 10);
        assert!(doc.contains("data-x=\"a&quot;&lt;b&gt;&amp;&#39;\""));
        assert!(doc.contains(">x &lt; y &amp;&amp; z &gt; &quot;w&quot;</text>"));
        assert!(doc.trim_end().ends_with("</g>\n</svg>"));
    }

    #[test]
    fn wraps_and_clips() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        assert!(wrap("", 5).is_empty());
    }
}
