//! Model configurations (`models/*.json`, DESIGN.md "Formats"): what a run
//! fixes — bounds, agents, risk tiers, tools, clock, record templates, the
//! protocol variant and the expected verdict per invariant.
//!
//! Text is read into the raw structs of [`raw`] (close to the JSON, unknown
//! fields refused), then [`validate`]d into a [`ModelConfig`], then
//! [`ModelConfig::compile`]d into the protocol's interned form. Every error
//! is one line naming the file, the field path and the offending value.

mod compile;
pub(crate) mod locate;
pub(crate) mod raw;
mod record;
mod validate;
mod wire;

#[cfg(test)]
mod tests;

pub use compile::Compiled;
pub(crate) use record::RecordJson;
pub use record::{record_set, RecordSpec};
pub(crate) use validate::{record_spec, validate_config, RawFields, Validator};
pub(crate) use wire::ConfigJson;

use crate::invariants::Invariant;
use crate::protocol::{Tier, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A validated model configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    pub name: String,
    pub description: String,
    pub bounds: Bounds,
    pub agents: u8,
    /// The risk tiers transactions may open at; non-empty, no duplicates.
    pub tiers: Vec<Tier>,
    pub tools: Vec<ToolConfig>,
    /// The logical now of the validity check; `None` turns the check off.
    pub clock: Option<i32>,
    pub templates: Vec<Template>,
    pub variant: Variant,
    pub expect: Expectations,
    /// The file it was loaded from, if any.
    pub source_path: Option<PathBuf>,
}

/// How far an exhaustive run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bounds {
    /// At most this many records (1..=64).
    pub records: usize,
    /// At most this many transactions opened (1..=255).
    pub transactions: usize,
    pub depth: Depth,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            records: 4,
            transactions: 3,
            depth: Depth::Bounded(10),
        }
    }
}

/// The number of actions from the initial store, or the whole (finite)
/// state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Depth {
    Bounded(usize),
    Full,
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Depth::Bounded(d) => write!(f, "{d}"),
            Depth::Full => f.write_str("full"),
        }
    }
}

/// A domain tool and whether its effect can be undone (card §3.3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ToolConfig {
    pub name: String,
    pub irreversible: bool,
}

/// Whether a record staged from a template may, or must, name a parent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParentRule {
    #[default]
    None,
    Optional,
    Required,
}

impl ParentRule {
    pub fn name(self) -> &'static str {
        match self {
            ParentRule::None => "none",
            ParentRule::Optional => "optional",
            ParentRule::Required => "required",
        }
    }
}

/// A record the model may stage: every field but the parents, which the
/// model picks among existing records as `parent` allows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Template {
    pub name: String,
    /// The record's fields; `derived_from` is always empty.
    pub record: RecordSpec,
    pub parent: ParentRule,
}

/// The verdict a configuration expects for one invariant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    Holds,
    Violated,
}

impl Expect {
    pub fn name(self) -> &'static str {
        match self {
            Expect::Holds => "holds",
            Expect::Violated => "violated",
        }
    }
}

/// Expected verdicts; an absent one is no expectation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Expectations {
    pub i1: Option<Expect>,
    pub i2: Option<Expect>,
    pub g3: Option<Expect>,
}

impl Expectations {
    pub fn get(&self, inv: Invariant) -> Option<Expect> {
        match inv {
            Invariant::I1 => self.i1,
            Invariant::I2 => self.i2,
            Invariant::G3 => self.g3,
        }
    }
}

/// A bad input: one line naming the file, the field path and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl ConfigError {
    /// `origin: path: message`, the path left out when empty; a message
    /// of several lines is joined into one.
    pub fn at(origin: &str, path: &str, message: impl fmt::Display) -> Self {
        let message = message.to_string();
        let one_line = message.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        if path.is_empty() {
            ConfigError(format!("{origin}: {one_line}"))
        } else {
            ConfigError(format!("{origin}: {path}: {one_line}"))
        }
    }

    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl ModelConfig {
    /// Reads and validates `models/NAME.json`; the name defaults to the
    /// file stem.
    pub fn load(path: &Path) -> Result<ModelConfig, ConfigError> {
        let origin = path.display().to_string();
        let text = read_text(path)?;
        let mut config = ModelConfig::parse(&text, &origin)?;
        config.source_path = Some(path.to_path_buf());
        Ok(config)
    }

    /// Parses configuration text; `origin` names the file in messages and
    /// gives the default name (its stem).
    pub fn parse(text: &str, origin: &str) -> Result<ModelConfig, ConfigError> {
        let value = parse_json(text, origin)?;
        validate_config(&value, &Validator::new(origin, ""), &stem(origin))
    }

    /// The configuration as JSON, every field written out; it parses back
    /// to an equal configuration (bar `source_path`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.wire()).unwrap_or(serde_json::Value::Null)
    }

    /// The serialize-only form, fields in the documented order.
    pub(crate) fn wire(&self) -> ConfigJson<'_> {
        ConfigJson::of(self)
    }

    /// Interns every string and builds the protocol and invariant context.
    pub fn compile(&self) -> Compiled {
        Compiled::of(self)
    }
}

/// Reads a file; a missing or unreadable file is a one-line error.
pub(crate) fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("{}: cannot read: {e}", path.display())))
}

/// JSON text to a value; malformed JSON names line and column.
pub(crate) fn parse_json(text: &str, origin: &str) -> Result<serde_json::Value, ConfigError> {
    serde_json::from_str(text).map_err(|e| ConfigError(format!("{origin}: malformed JSON: {e}")))
}

/// The file stem of `origin`, the default configuration name.
pub(crate) fn stem(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| origin.to_owned())
}
