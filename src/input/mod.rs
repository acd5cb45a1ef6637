//! Reading input: the layer below [`crate::config`] and [`crate::trace`]
//! that both read through, so a model file, a trace and a command-line
//! flag are judged the same way.
//!
//! It owns the error type ([`InputError`]: one line naming the file, the
//! field path and the value), reading a file ([`read_text`]: regular files
//! only, at most [`MAX_INPUT_BYTES`]), JSON text to a value with every key
//! given once (`json`), structs read from objects only (`strict`), finding
//! the field a serde error is about (`locate`), refusing unknown fields
//! through `#[serde(flatten)]` (`fields`), the field validators
//! (`Validator`), the rule for names that become file names
//! ([`name_problem`]) and the command-line number reader (`flag`). It
//! knows no format's fields: those are config's and trace's.

mod error;
pub(crate) mod fields;
mod file;
pub(crate) mod flag;
mod json;
pub(crate) mod locate;
mod name;
mod strict;
mod validator;

pub use error::{one_line, InputError};
pub(crate) use file::stem;
pub use file::{read_bytes, read_text, MAX_INPUT_BYTES};
pub(crate) use json::parse_json;
pub use name::{name_problem, MAX_NAME_LEN, NAME_RULE};
pub(crate) use strict::from_value;
pub(crate) use validator::Validator;

#[cfg(test)]
mod tests;
