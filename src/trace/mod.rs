//! Traces (`traces/*.json`, DESIGN.md "Formats"): a model configuration,
//! inline or by path, then the steps, each an operation with its arguments
//! written out in full (explicit record fields and parent ids), then the
//! violation the trace demonstrates, if any. One format for
//! counterexamples, random-trace failures and hand-written scenarios.
//!
//! [`parse`] reads and validates a trace, [`write`] writes one back,
//! [`ops`] converts steps to and from protocol operations, and [`itf`]
//! exports a replayed trace in the Informal Trace Format.

pub mod itf;
mod ops;
mod parse;
mod raw;
mod write;

#[cfg(test)]
mod tests;

pub use itf::to_itf;

use crate::config::{read_text, ConfigError, ModelConfig};
use crate::invariants::Invariant;
use crate::protocol::Tier;
use std::path::Path;

/// A trace: the configuration it runs under, its steps, and the violation
/// it declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub config: ModelConfig,
    /// Whether the file inlines the configuration or names a model file.
    pub config_ref: ConfigRef,
    pub steps: Vec<Step>,
    pub violation: Option<TraceViolation>,
    /// The file name used in messages.
    pub origin: String,
}

/// Where a trace's configuration comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigRef {
    Inline,
    /// The `model` path as written in the trace.
    Path(String),
}

/// One operation with its arguments in full.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Open {
        agent: u8,
        tier: Tier,
    },
    Stage {
        tx: u8,
        record: RecordSpec,
    },
    Commit {
        tx: u8,
    },
    Abort {
        tx: u8,
    },
    Revoke {
        record: u8,
    },
    ToolCall {
        tx: u8,
        tool: String,
        basis: Vec<u8>,
    },
}

impl Step {
    /// The operation's name as written in traces.
    pub fn op_name(&self) -> &'static str {
        match self {
            Step::Open { .. } => "open",
            Step::Stage { .. } => "stage",
            Step::Commit { .. } => "commit",
            Step::Abort { .. } => "abort",
            Step::Revoke { .. } => "revoke",
            Step::ToolCall { .. } => "tool_call",
        }
    }
}

pub use crate::config::RecordSpec;

/// The violation a trace demonstrates: the property, the index of the step
/// after which it is first seen, and a description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceViolation {
    pub property: Invariant,
    pub step: usize,
    pub detail: String,
}

impl Trace {
    /// A trace with its configuration inlined, e.g. a counterexample;
    /// `origin` is the configuration's name until the trace is saved.
    pub fn new(config: ModelConfig, steps: Vec<Step>, violation: Option<TraceViolation>) -> Trace {
        Trace {
            origin: config.name.clone(),
            config,
            config_ref: ConfigRef::Inline,
            steps,
            violation,
        }
    }

    /// Writes the trace to `path` atomically (parent directories created).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        crate::atomic_file::write_atomic(path, self.to_json_string().as_bytes())
    }

    /// Reads a trace file; a `model` path is resolved against the current
    /// directory first, then against the trace file's directory.
    pub fn load(path: &Path) -> Result<Trace, ConfigError> {
        let text = read_text(path)?;
        Trace::parse(&text, &path.display().to_string(), path.parent())
    }

    /// Parses trace text; `origin` names the file in messages and
    /// `base_dir` is where a relative `model` path is looked up second.
    pub fn parse(text: &str, origin: &str, base_dir: Option<&Path>) -> Result<Trace, ConfigError> {
        parse::parse(text, origin, base_dir)
    }

    /// The trace as pretty JSON with a stable field order; it parses back
    /// to an equal trace.
    pub fn to_json_string(&self) -> String {
        write::to_json_string(self)
    }
}
