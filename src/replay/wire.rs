//! The `replay --json` output: serialize-only wire types, one object with
//! the per-step outcomes, the final records, the rollback log and the
//! violations. Field names here are the documented format; tests parse it
//! with their own mirror types.

use super::{Declared, ReplayReport, StepReport};
use crate::config::Compiled;
use crate::protocol::{
    CommitOutcome, GateOutcome, Kind, Lifecycle, Outcome, ProtocolError, Reason, Record, Repair,
    Scope, Store,
};
use serde::Serialize;

#[derive(Serialize)]
struct ReportJson<'a> {
    steps: Vec<StepJson>,
    records: Vec<RecordJson<'a>>,
    rollback_log: Vec<LogJson>,
    violations: Vec<ViolationJson<'a>>,
    declared_violation: Option<DeclaredJson<'a>>,
}

#[derive(Serialize)]
struct StepJson {
    step: usize,
    op: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<OutcomeJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum OutcomeJson {
    Opened {
        tx: u8,
        snapshot: Vec<u8>,
    },
    Staged {
        record: u8,
    },
    Committed {
        status: &'static str,
        records: Vec<VerdictJson>,
        verifier_calls: u32,
    },
    ToolCall {
        allowed: bool,
        reason: Option<&'static str>,
        record: Option<u8>,
        in_snapshot: Vec<u8>,
    },
    Retracted {
        roots: Vec<u8>,
        repairs: Vec<RepairJson>,
    },
    Revalidated {
        revalidated: u8,
        tx: u8,
        was: Option<Reason>,
    },
    Rebuilt {
        rebuilt: u8,
        tx: u8,
        dropped: Vec<u8>,
    },
}

#[derive(Serialize)]
struct VerdictJson {
    id: u8,
    result: &'static str,
    reason: Option<Reason>,
    superseded: Vec<u8>,
    admission: Option<&'static str>,
}

#[derive(Serialize)]
struct RepairJson {
    id: u8,
    repair: Repair,
}

#[derive(Serialize)]
struct RecordJson<'a> {
    id: usize,
    kind: Kind,
    state: Lifecycle,
    entity: &'a str,
    attribute: &'a str,
    value: &'a str,
    source: Option<&'a str>,
    authority: f64,
    confidence: f64,
    owner: u8,
    scope: Scope,
    derived_from: Vec<u8>,
    valid_from: Option<i32>,
    valid_to: Option<i32>,
    reason: Option<Reason>,
    tool: Option<String>,
}

#[derive(Serialize)]
struct LogJson {
    record: u8,
    repair: Repair,
    root: bool,
}

#[derive(Serialize)]
struct ViolationJson<'a> {
    property: &'static str,
    step: usize,
    records: Vec<u8>,
    detail: &'a str,
}

#[derive(Serialize)]
struct DeclaredJson<'a> {
    property: &'static str,
    step: usize,
    detail: &'a str,
    /// Found again at the declared step.
    refound: bool,
    /// The step at which the replay first found the property, if it did.
    found_at: Option<usize>,
}

/// One step's answer as the driver protocol writes it (docs/driver-protocol.md):
/// the outcome, or the error of a refused step, and the store after it.
#[derive(Serialize)]
pub struct StepAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<OutcomeJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    records: Vec<RecordJson<'a>>,
    rollback_log: Vec<LogJson>,
}

impl<'a> StepAnswer<'a> {
    /// The answer to a step whose result is `result`, `store` the store
    /// after it (unchanged when the step was refused).
    pub fn new(
        result: &Result<Outcome, ProtocolError>,
        store: &Store,
        compiled: &'a Compiled,
    ) -> StepAnswer<'a> {
        let (outcome, error) = match result {
            Ok(outcome) => (Some(outcome_json(outcome)), None),
            Err(e) => (None, Some(e.to_string())),
        };
        StepAnswer {
            outcome,
            error,
            records: records_json(store, compiled),
            rollback_log: log_json(store),
        }
    }
}

fn records_json<'a>(store: &Store, compiled: &'a Compiled) -> Vec<RecordJson<'a>> {
    store
        .records()
        .iter()
        .enumerate()
        .map(|(id, r)| record(id, r, compiled))
        .collect()
}

fn log_json(store: &Store) -> Vec<LogJson> {
    store
        .rollback_log()
        .iter()
        .map(|e| LogJson {
            record: e.record,
            repair: e.repair,
            root: e.root,
        })
        .collect()
}

/// The report as one JSON object (pretty-printed, newline-terminated).
pub fn render_json(report: &ReplayReport) -> String {
    let json = ReportJson {
        steps: report.steps.iter().map(step).collect(),
        records: records_json(&report.final_store, &report.compiled),
        rollback_log: log_json(&report.final_store),
        violations: report
            .violations
            .iter()
            .map(|f| ViolationJson {
                property: f.violation.invariant.name(),
                step: f.step,
                records: f.violation.records.iter().collect(),
                detail: &f.violation.detail,
            })
            .collect(),
        declared_violation: report.declared.as_ref().map(|d| DeclaredJson {
            property: d.property.name(),
            step: d.step,
            detail: &d.detail,
            refound: report.declared_status() == Some(Declared::Refound),
            found_at: report.first(d.property).map(|f| f.step),
        }),
    };
    let mut text = serde_json::to_string_pretty(&json).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

fn step(s: &StepReport) -> StepJson {
    let (outcome, error) = match &s.result {
        Ok(outcome) => (Some(outcome_json(outcome)), None),
        Err(e) => (None, Some(e.to_string())),
    };
    StepJson {
        step: s.index,
        op: s.step.op_name(),
        outcome,
        error,
    }
}

fn outcome_json(outcome: &Outcome) -> OutcomeJson {
    match outcome {
        Outcome::Opened { tx, snapshot } => OutcomeJson::Opened {
            tx: *tx,
            snapshot: snapshot.iter().collect(),
        },
        Outcome::Staged { record } => OutcomeJson::Staged { record: *record },
        Outcome::Committed(CommitOutcome {
            status,
            records,
            verifier_calls,
        }) => OutcomeJson::Committed {
            status: status.name(),
            records: records
                .iter()
                .map(|v| VerdictJson {
                    id: v.id,
                    result: v.result.name(),
                    reason: v.reason,
                    superseded: v.superseded.iter().collect(),
                    admission: v.admission.map(|a| a.name()),
                })
                .collect(),
            verifier_calls: *verifier_calls,
        },
        Outcome::ToolCall(GateOutcome {
            allowed,
            reason,
            record,
            in_snapshot,
        }) => OutcomeJson::ToolCall {
            allowed: *allowed,
            reason: reason.map(|r| r.name()),
            record: *record,
            in_snapshot: in_snapshot.iter().collect(),
        },
        Outcome::Retracted { roots, repairs } => OutcomeJson::Retracted {
            roots: roots.iter().collect(),
            repairs: repairs
                .iter()
                .map(|&(id, repair)| RepairJson { id, repair })
                .collect(),
        },
        Outcome::Revalidated { tx, record, reason } => OutcomeJson::Revalidated {
            revalidated: *record,
            tx: *tx,
            was: *reason,
        },
        Outcome::Rebuilt {
            tx,
            record,
            dropped,
        } => OutcomeJson::Rebuilt {
            rebuilt: *record,
            tx: *tx,
            dropped: dropped.iter().collect(),
        },
    }
}

fn record<'a>(id: usize, r: &Record, compiled: &'a Compiled) -> RecordJson<'a> {
    let name = |s| compiled.symbols.name(s);
    RecordJson {
        id,
        kind: r.kind(),
        state: r.state(),
        entity: name(r.entity()),
        attribute: name(r.attribute()),
        value: name(r.value()),
        source: r.source().map(name),
        authority: r.authority().as_decimal(),
        confidence: r.confidence().as_decimal(),
        owner: r.owner(),
        scope: r.scope(),
        derived_from: r.derived_from().iter().collect(),
        valid_from: r.window().from,
        valid_to: r.window().to,
        reason: r.reason(),
        tool: r.tool().map(|t| compiled.tool_name(t)),
    }
}
