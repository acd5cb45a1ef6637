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

/// `text` on one line: every control character (a newline, a carriage
/// return, a tab, an escape) written as its Rust escape.
pub fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
