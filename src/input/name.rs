//! Names that become file names. A model's name is the folder of its
//! reports (`reports/NAME/`) and the start of its traces' file names
//! (`traces/NAME-I1.json`), so it must be a name and nothing else: no
//! separator, no `..`, no absolute path, nothing hidden. The same rule
//! guards every file name the outputs build ([`crate::outputs`]).

/// The longest name: far below every file system's 255-byte limit, with
/// room for the suffixes traces add (`-random-I1.itf.json`).
pub const MAX_NAME_LEN: usize = 100;

/// Why `name` cannot be a file name inside a chosen folder, or `None`
/// when it can: one to [`MAX_NAME_LEN`] characters among ASCII letters,
/// digits, `.`, `_` and `-`, not starting with `.`.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Some(format!("it is longer than {MAX_NAME_LEN} characters"));
    }
    if name.starts_with('.') {
        return Some("it starts with '.'".to_owned());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .map(|c| format!("it holds {c:?}"))
}

/// The rule in words, for error messages.
pub const NAME_RULE: &str =
    "a name is 1 to 100 of the characters A-Z a-z 0-9 . _ - and does not start with '.'";
