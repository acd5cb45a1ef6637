//! [`Validator`]: where an input's errors are reported (the file and the
//! path of the value inside it) and the checks every format shares: a
//! required field, an integer in range, a logical time, a validity window,
//! an agent index, a name. A record in a trace is judged by the same
//! helpers as a template in a model.

use super::locate::{join, locate, Schema};
use super::name::{name_problem, NAME_RULE};
use super::InputError;
use serde_json::Value;

/// Where errors are reported: the file, and the path of the value being
/// validated inside it (empty for a whole file, `config` for a
/// configuration inlined in a trace).
#[derive(Clone, Debug)]
pub(crate) struct Validator {
    pub origin: String,
    pub prefix: String,
}

impl Validator {
    pub fn new(origin: &str, prefix: &str) -> Self {
        Validator {
            origin: origin.to_owned(),
            prefix: prefix.to_owned(),
        }
    }

    /// The validator for a field below this one.
    pub fn child(&self, path: &str) -> Validator {
        Validator::new(&self.origin, &self.path(path))
    }

    /// The full path of `path` below the prefix.
    pub fn path(&self, path: &str) -> String {
        if path.is_empty() {
            self.prefix.clone()
        } else if path.starts_with('[') {
            format!("{}{path}", self.prefix)
        } else {
            join(&self.prefix, path)
        }
    }

    pub fn err(&self, path: &str, message: impl std::fmt::Display) -> InputError {
        InputError::at(&self.origin, &self.path(path), message)
    }

    /// Deserializes `value` as `T`, or the error at its innermost path.
    pub fn raw<T: Schema>(&self, value: &Value) -> Result<T, InputError> {
        if let Some(message) = locate::<T>(value, &self.prefix) {
            return Err(InputError::new(format!("{}: {message}", self.origin)));
        }
        super::strict::from_value::<T>(value).map_err(|e| self.err("", e))
    }

    pub fn required<T>(&self, path: &str, value: Option<T>) -> Result<T, InputError> {
        value.ok_or_else(|| self.err(path, "missing (this field is required)"))
    }

    /// An integer in `lo..=hi`.
    pub fn int_in(&self, path: &str, x: i64, lo: i64, hi: i64) -> Result<i64, InputError> {
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(self.err(path, format!("{x} is out of range {lo}..={hi}")))
        }
    }

    /// A logical time (clock or validity bound).
    pub fn time(&self, path: &str, x: Option<i64>) -> Result<Option<i32>, InputError> {
        x.map(|t| {
            i32::try_from(t)
                .map_err(|_| self.err(path, format!("{t} does not fit a 32-bit logical time")))
        })
        .transpose()
    }

    /// An inclusive validity window, `from <= to` when both are set.
    pub fn window(
        &self,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Result<(Option<i32>, Option<i32>), InputError> {
        let from = self.time("valid_from", from)?;
        let to = self.time("valid_to", to)?;
        if let (Some(f), Some(t)) = (from, to) {
            if f > t {
                return Err(self.err(
                    "valid_to",
                    format!("{t} is before valid_from {f} (the window would be empty)"),
                ));
            }
        }
        Ok((from, to))
    }

    /// An agent index below `agents`.
    pub fn agent(&self, path: &str, x: i64, agents: u8) -> Result<u8, InputError> {
        if (0..i64::from(agents)).contains(&x) {
            Ok(x as u8)
        } else {
            Err(self.err(
                path,
                format!(
                    "{x} is not an agent of the configuration (agents are 0..={})",
                    agents.saturating_sub(1)
                ),
            ))
        }
    }

    /// A model's name, which becomes a folder and file names: `given`, or
    /// else `default` (the file's stem), either obeying the name rule.
    pub fn model_name(
        &self,
        path: &str,
        given: Option<String>,
        default: &str,
    ) -> Result<String, InputError> {
        match given {
            Some(name) => match name_problem(&name) {
                None => Ok(name),
                Some(why) => Err(self.err(
                    path,
                    format!("{} is not a model name: {why} ({NAME_RULE})", quoted(&name)),
                )),
            },
            None => match name_problem(default) {
                None => Ok(default.to_owned()),
                Some(why) => Err(self.err(
                    path,
                    format!(
                        "missing, and the file's stem {} is not a model name: {why} ({NAME_RULE}); \
                         give a `name`",
                        quoted(default)
                    ),
                )),
            },
        }
    }

    /// A non-empty name.
    pub fn name(&self, path: &str, name: Option<String>) -> Result<String, InputError> {
        let name = self.required(path, name)?;
        if name.is_empty() {
            Err(self.err(path, "\"\" is empty (a name is required)"))
        } else {
            Ok(name)
        }
    }
}

/// A string as JSON writes it, shortened if long.
fn quoted(s: &str) -> String {
    super::locate::show(&Value::String(s.to_owned()))
}
