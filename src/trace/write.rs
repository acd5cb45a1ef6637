//! A trace written back as JSON: the configuration pretty-printed (or the
//! model path), then one step a line, then the violation. Serialize-only
//! wire types fix the field order, so output is stable and diffs stay
//! small.

use super::document::{ConfigRef, Step, Trace, TraceViolation};
use crate::config::RecordJson;
use crate::protocol::Tier;
use serde::Serialize;
use std::io;
use std::path::Path;

impl Trace {
    /// Writes the trace to `path` atomically (parent directories created).
    pub fn save(&self, path: &Path) -> io::Result<()> {
        crate::outputs::atomic_file::write_atomic(path, self.to_json_string().as_bytes())
    }

    /// The trace as pretty JSON with a stable field order; it parses back
    /// to an equal trace.
    pub fn to_json_string(&self) -> String {
        to_json_string(self)
    }
}

impl Step {
    /// The step as compact JSON on one line, as a trace file writes it
    /// (a driver protocol request's STEP).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(&StepJson::of(self)).unwrap_or_else(|_| "{}".to_owned())
    }
}

#[derive(Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum StepJson<'a> {
    Open {
        agent: u8,
        tier: Tier,
    },
    Stage {
        tx: u8,
        record: RecordJson<'a>,
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
        tool: &'a str,
        basis: &'a [u8],
    },
    Revalidate {
        tx: u8,
        record: u8,
    },
    Rebuild {
        tx: u8,
        record: u8,
    },
}

#[derive(Serialize)]
struct ViolationJson<'a> {
    property: &'static str,
    step: usize,
    detail: &'a str,
}

impl<'a> StepJson<'a> {
    fn of(step: &'a Step) -> Self {
        match step {
            Step::Open { agent, tier } => StepJson::Open {
                agent: *agent,
                tier: *tier,
            },
            Step::Stage { tx, record } => StepJson::Stage {
                tx: *tx,
                record: RecordJson::of(record, true),
            },
            Step::Commit { tx } => StepJson::Commit { tx: *tx },
            Step::Abort { tx } => StepJson::Abort { tx: *tx },
            Step::Revoke { record } => StepJson::Revoke { record: *record },
            Step::ToolCall { tx, tool, basis } => StepJson::ToolCall {
                tx: *tx,
                tool,
                basis,
            },
            Step::Revalidate { tx, record } => StepJson::Revalidate {
                tx: *tx,
                record: *record,
            },
            Step::Rebuild { tx, record } => StepJson::Rebuild {
                tx: *tx,
                record: *record,
            },
        }
    }
}

/// One JSON line, with a space after each `:` and `,`.
pub(crate) fn one_line<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
    // Serializing these plain structs to memory cannot fail.
    if value.serialize(&mut ser).is_err() {
        return "null".to_owned();
    }
    String::from_utf8(out).unwrap_or_default()
}

fn to_json_string(trace: &Trace) -> String {
    let mut out = String::from("{\n");
    match &trace.config_ref {
        ConfigRef::Inline => {
            let config = serde_json::to_string_pretty(&trace.config.wire())
                .unwrap_or_else(|_| "{}".to_owned());
            out.push_str("  \"config\": ");
            out.push_str(&config.replace('\n', "\n  "));
        }
        ConfigRef::Path(path) => {
            out.push_str("  \"model\": ");
            out.push_str(&one_line(path));
        }
    }
    out.push_str(",\n  \"steps\": [");
    for (i, step) in trace.steps.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        out.push_str(&one_line(&StepJson::of(step)));
    }
    out.push_str(if trace.steps.is_empty() {
        "],\n"
    } else {
        "\n  ],\n"
    });
    out.push_str("  \"violation\": ");
    out.push_str(&match &trace.violation {
        None => "null".to_owned(),
        Some(TraceViolation {
            property,
            step,
            detail,
        }) => one_line(&ViolationJson {
            property: property.name(),
            step: *step,
            detail,
        }),
    });
    out.push_str("\n}\n");
    out
}

/// serde_json's compact output with a space after `:` and `,`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}
