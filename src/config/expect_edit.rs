//! Rewriting a model file's `expect` block in place (`ci --bless
//! --update-expect`): the top-level `expect` value's span is found in the
//! file's text and replaced by the new block, pretty-printed at the
//! block's own indentation, so every other byte of the file — the
//! description, the templates, their formatting — stays as it was. A file
//! without an `expect` block gets one as its last field.

use super::model_config::Expectations;
use super::verdicts::VerdictsJson;

/// `text` (a model file's JSON) with its `expect` block replaced by
/// `expect`; `None` when the text is not one JSON object.
pub fn replace_expect(text: &str, expect: &Expectations) -> Option<String> {
    let spans = top_level_values(text)?;
    let block = |indent: &str| render(expect, indent);
    match spans.iter().find(|s| s.key == "expect") {
        Some(span) => {
            let indent = line_indent(text, span.key_start);
            Some(format!(
                "{}{}{}",
                &text[..span.value.0],
                block(indent),
                &text[span.value.1..]
            ))
        }
        None => {
            let close = text.rfind('}')?;
            let indent = spans
                .last()
                .map_or("  ", |s| line_indent(text, s.key_start));
            let body_end = text[..close].trim_end().len();
            let comma = if spans.is_empty() { "" } else { "," };
            Some(format!(
                "{}{comma}\n{indent}\"expect\": {}\n{}",
                &text[..body_end],
                block(indent),
                &text[close..]
            ))
        }
    }
}

/// The block pretty-printed, its lines after the first indented by
/// `indent`.
fn render(expect: &Expectations, indent: &str) -> String {
    let pretty =
        serde_json::to_string_pretty(&VerdictsJson(expect)).unwrap_or_else(|_| "{}".into());
    pretty.replace('\n', &format!("\n{indent}"))
}

/// The white space that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start().len()]
}

/// A top-level key and its value's byte span.
struct Span {
    key: String,
    key_start: usize,
    value: (usize, usize),
}

/// The keys of the top-level object and their values' spans; `None`
/// unless `text` is one object.
fn top_level_values(text: &str) -> Option<Vec<Span>> {
    let bytes = text.as_bytes();
    let mut i = skip_ws(bytes, 0);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut spans = Vec::new();
    loop {
        i = skip_ws(bytes, i);
        match bytes.get(i)? {
            b'}' => return Some(spans),
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_start = i;
        let key_end = string_end(bytes, i)?;
        let key: String = serde_json::from_str(&text[key_start..key_end]).ok()?;
        i = skip_ws(bytes, key_end);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(bytes, i + 1);
        let end = value_end(bytes, start)?;
        spans.push(Span {
            key,
            key_start,
            value: (start, end),
        });
        i = end;
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// The byte after the string that starts at `i` (a `"`).
fn string_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// The byte after the value that starts at `i`.
fn value_end(bytes: &[u8], i: usize) -> Option<usize> {
    match bytes.get(i)? {
        b'"' => string_end(bytes, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match bytes.get(j)? {
                    b'"' => {
                        j = string_end(bytes, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while bytes
                .get(j)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Expect, ModelConfig};
    use crate::invariants::Invariant;

    fn expectations(text: &str) -> Expectations {
        ModelConfig::parse(text, "m.json")
            .expect("a valid model")
            .expect
    }

    #[test]
    fn only_the_expect_block_changes() {
        let text = "{\n  \"name\": \"m\",\n  \"description\": \"a \\\"quoted\\\" {brace}\",\n  \"expect\": {\n    \"I1\": \"holds\"\n  },\n  \"bounds\": {\"records\": 2}\n}\n";
        let mut e = expectations(text);
        e.verdicts[Invariant::I1 as usize] = Some(Expect::violated(Some("unsupported"), None));
        let out = replace_expect(text, &e).expect("an object");
        assert_eq!(
            out,
            "{\n  \"name\": \"m\",\n  \"description\": \"a \\\"quoted\\\" {brace}\",\n  \"expect\": {\n    \"I1\": {\n      \"violated\": \"unsupported\"\n    }\n  },\n  \"bounds\": {\"records\": 2}\n}\n"
        );
        assert_eq!(expectations(&out), e);
    }

    #[test]
    fn a_file_without_a_block_gets_one_last() {
        let text = "{\n  \"name\": \"m\"\n}\n";
        let mut e = expectations(text);
        e.verdicts[Invariant::G3 as usize] = Some(Expect::Holds);
        let out = replace_expect(text, &e).expect("an object");
        assert_eq!(
            out,
            "{\n  \"name\": \"m\",\n  \"expect\": {\n    \"G3\": \"holds\"\n  }\n}\n"
        );
        assert_eq!(expectations(&out), e);
        assert_eq!(replace_expect("[1]", &e), None);
    }
}
