//! Text made safe for XML, the one escaper of every XML this crate writes
//! (the explorer's SVG pictures and the JUnit reports of `ci`).

/// `text` safe in an XML attribute or element: the five special
/// characters as entities (`'` as `&#39;`, which HTML reads too), the
/// control characters XML 1.0 forbids as U+FFFD, and tab, newline and
/// carriage return as character references (an attribute's value would
/// otherwise have them normalized to spaces).
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}
