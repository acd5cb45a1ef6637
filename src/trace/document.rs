//! A trace as a value: the configuration it runs under, its steps with
//! their arguments in full, and the violation it declares. Reading one is
//! [`super::parse`]'s, writing one [`super::write`]'s, turning steps into
//! protocol operations [`super::ops`]'s; this file only defines them.

use crate::config::{ModelConfig, RecordSpec};
use crate::invariants::Invariant;
use crate::protocol::{Operands, Operation};

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

/// One operation with its arguments in full: the protocol's
/// [`Operation`] with a trace's arguments ([`StepArgs`]). It serializes
/// as a trace writes it (`super::write`).
pub type Step = Operation<StepArgs>;

/// A trace's arguments: ids as numbers, a staged record with every field,
/// a tool by name and the basis as a list of ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepArgs {}

impl Operands for StepArgs {
    type Agent = u8;
    type Tx = u8;
    type Record = u8;
    type Stage = RecordSpec;
    type Tool = String;
    type Basis = Vec<u8>;
}

impl Step {
    /// The operation's name as written in traces.
    pub fn op_name(&self) -> &'static str {
        self.verb().name()
    }
}

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
}
