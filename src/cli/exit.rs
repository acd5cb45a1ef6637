//! How a command ends: a [`Verdict`] (exit 0, 1 or 3) or a [`CliError`]
//! (exit 2), which every bad input becomes.

use crate::input::InputError;
use std::fmt;

/// What a run concluded; its exit code is 0, 1 or 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every property checked holds.
    Holds,
    /// Some property is violated.
    Violated,
    /// The run stopped before its bound (the memory guard, or an
    /// interruption) and found no violation: nothing is concluded.
    Inconclusive,
}

impl Verdict {
    /// Violated when `failed`, else holds.
    pub fn violated_if(failed: bool) -> Verdict {
        if failed {
            Verdict::Violated
        } else {
            Verdict::Holds
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Holds => 0,
            Verdict::Violated => 1,
            Verdict::Inconclusive => 3,
        }
    }
}

/// Bad input or a failed write: one line, exit code 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl CliError {
    pub const EXIT_CODE: u8 = 2;
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl From<InputError> for CliError {
    fn from(e: InputError) -> Self {
        CliError(e.0)
    }
}

/// An output error, already one line naming the file.
impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError(message)
    }
}
