//! [`InputError`]: what every bad input becomes, one line naming the file,
//! the field path and the value (exit code 2 at the command line).

use super::locate::at;
use std::fmt;

/// A bad input: one line naming the file, the field path and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError(pub String);

impl InputError {
    /// The error, its control characters escaped: a message quotes what
    /// the input holds (a key, a value, a path), which may hold a newline.
    pub fn new(message: impl fmt::Display) -> Self {
        InputError(one_line(&message.to_string()))
    }

    /// `origin: path: message`, the path left out when empty.
    pub fn at(origin: &str, path: &str, message: impl fmt::Display) -> Self {
        InputError::new(format!("{origin}: {}", at(path, &message.to_string())))
    }

    pub fn message(&self) -> &str {
        &self.0
    }
}

/// `text` on one line, and short: every control character (a newline, a
/// carriage return, a tab, an escape) written as its Rust escape, and
/// what it quotes of an input cut ([`cut_quoted`]). Every error line
/// goes through here (`InputError::new`, and the binary's last word).
pub fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return cut_quoted(text);
    }
    let escaped: String = text
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    cut_quoted(&escaped)
}

/// A quoted value (between `"` or `` ` ``) longer than this many
/// characters is cut to [`SHOWN`] of them.
const MAX_QUOTED: usize = 200;
/// A run of characters without a space longer than this (a key in a
/// field path, say) is cut to [`SHOWN`] of them.
const MAX_WORD: usize = 400;
/// The characters kept of a value or a word that is cut.
const SHOWN: usize = 100;

/// `text` with every quoted value of more than [`MAX_QUOTED`] characters,
/// and every word of more than [`MAX_WORD`], cut to its first [`SHOWN`]
/// characters and said to be cut, with its length (issue 51.11: a value
/// of 10 MB in a model file gave an error line of 10 MB).
pub fn cut_quoted(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len().min(4096));
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let end = match c {
            '"' | '`' => closing(&chars, i),
            _ => None,
        };
        match end {
            Some(end) if end - i - 1 > MAX_QUOTED => {
                out.push(c);
                out.extend(&chars[i + 1..i + 1 + SHOWN]);
                out.push('…');
                out.push(c);
                out.push_str(&format!(" (cut, {} characters)", end - i - 1));
                i = end + 1;
            }
            Some(end) => {
                out.extend(&chars[i..=end]);
                i = end + 1;
            }
            None => {
                let word = chars[i..]
                    .iter()
                    .position(|c| c.is_whitespace())
                    .map_or(chars.len(), |n| i + n.max(1));
                if word - i > MAX_WORD {
                    out.extend(&chars[i..i + SHOWN]);
                    out.push_str(&format!("… (cut, {} characters)", word - i));
                    i = word;
                } else {
                    out.push(c);
                    i += 1;
                }
            }
        }
    }
    out
}

/// The index of the quote that closes the one at `open` (a `"` escaped
/// with a backslash does not), if there is one.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let quote = chars[open];
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' if quote == '"' => i += 2,
            c if c == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
