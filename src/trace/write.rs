//! A trace written back as JSON: the configuration pretty-printed (or the
//! model path), then one step a line, then the violation. A step
//! serializes as its [`crate::protocol::Operation`] declares (the verb as
//! `op`, then its fields in declaration order); serialize-only wire types
//! fix the order of the rest, so output is stable and diffs stay small.

use super::document::{ConfigRef, Step, Trace, TraceViolation};
use crate::config::{RecordJson, RecordSpec};
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
        let mut out = String::from("{\n");
        match &self.config_ref {
            ConfigRef::Inline => {
                let config = serde_json::to_string_pretty(&self.config.wire())
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
        for (i, step) in self.steps.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(&one_line(step));
        }
        out.push_str(if self.steps.is_empty() {
            "],\n"
        } else {
            "\n  ],\n"
        });
        out.push_str("  \"violation\": ");
        out.push_str(&match &self.violation {
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
}

impl Step {
    /// The step as compact JSON on one line, as a trace file writes it
    /// (a driver protocol request's STEP).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// A staged record as a trace step writes it: every field in full.
impl Serialize for RecordSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RecordJson::of(self, true).serialize(s)
    }
}

#[derive(Serialize)]
struct ViolationJson<'a> {
    property: &'static str,
    step: usize,
    detail: &'a str,
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

/// serde_json's compact output with a space after `:` and `,`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        comma(w, first)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        comma(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// `, ` before every item but the first.
fn comma<W: ?Sized + io::Write>(w: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}
