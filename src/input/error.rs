//! [`InputError`]: what every bad input becomes, one line naming the file,
//! the field path and the value (exit code 2 at the command line).

use std::fmt;

/// A bad input: one line naming the file, the field path and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError(pub String);

impl InputError {
    /// `origin: path: message`, the path left out when empty; a message
    /// of several lines is joined into one.
    pub fn at(origin: &str, path: &str, message: impl fmt::Display) -> Self {
        let message = message.to_string();
        let one_line = message.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        if path.is_empty() {
            InputError(format!("{origin}: {one_line}"))
        } else {
            InputError(format!("{origin}: {path}: {one_line}"))
        }
    }

    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
