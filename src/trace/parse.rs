//! Trace text to a validated [`Trace`]: the configuration resolved (inline
//! or by path), every step checked against its operation's fields and the
//! configuration (agents, tiers, tools), and the declared violation
//! checked against the steps. Errors are one line: file, path, value.

use super::document::{ConfigRef, Step, StepArgs, Trace, TraceViolation};
use super::raw::{RawStagedRecord, RawStep, RawTrace, RawViolation};
use crate::config::limits::{MAX_RECORDS, MAX_TRANSACTION_ID};
use crate::config::{record_spec, validate_config, ModelConfig, RecordSpec};
use crate::input::locate::{index, show};
use crate::input::{parse_json, read_text, stem, InputError, Validator};
use crate::invariants::Invariant;
use crate::protocol::{Blank, Tier, Translate, Verb};
use serde_json::Value;
use std::path::{Path, PathBuf};

impl Trace {
    /// Reads a trace file; a `model` path is resolved against the current
    /// directory first, then against the trace file's directory.
    pub fn load(path: &Path) -> Result<Trace, InputError> {
        let text = read_text(path)?;
        Trace::parse(&text, &path.display().to_string(), path.parent())
    }

    /// Parses trace text; `origin` names the file in messages and
    /// `base_dir` is where a relative `model` path is looked up second.
    pub fn parse(text: &str, origin: &str, base_dir: Option<&Path>) -> Result<Trace, InputError> {
        let value = parse_json(text, origin)?;
        let v = Validator::new(origin, "");
        let raw: RawTrace = v.raw(&value)?;
        let (config, config_ref) = match (raw.config, raw.model) {
            (Some(_), Some(_)) => {
                return Err(v.err(
                    "model",
                    "a trace gives either `config` or `model`, not both",
                ))
            }
            (Some(inline), None) => (
                validate_config(&inline, &v.child("config"), &stem(origin))?,
                ConfigRef::Inline,
            ),
            (None, Some(model)) => {
                let path = resolve_model(&v, &model, base_dir)?;
                (ModelConfig::load(&path)?, ConfigRef::Path(model))
            }
            (None, None) => {
                return Err(v.err(
                    "",
                    "missing `config` (an inline configuration) or `model` (a path to one)",
                ))
            }
        };
        let steps = raw
            .steps
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, step)| parse_step(&v.child(&index("steps", i)), step, &config))
            .collect::<Result<Vec<_>, _>>()?;
        let violation = raw
            .violation
            .map(|raw| parse_violation(&v.child("violation"), raw, steps.len()))
            .transpose()?;
        Ok(Trace {
            config,
            config_ref,
            steps,
            violation,
            origin: origin.to_owned(),
        })
    }
}

/// One step of a trace, read from its JSON value alone and checked against
/// `config` as a trace file's steps are; `origin` and `path` name it in
/// errors (the driver protocol's requests, `memtx-check driver`).
pub fn parse_step_value(
    value: &Value,
    config: &ModelConfig,
    origin: &str,
    path: &str,
) -> Result<Step, InputError> {
    let v = Validator::new(origin, path);
    let raw: RawStep = v.raw(value)?;
    parse_step(&v, raw, config)
}

/// The model file: relative to the current directory first, then to the
/// trace file's directory.
fn resolve_model(
    v: &Validator,
    model: &str,
    base_dir: Option<&Path>,
) -> Result<PathBuf, InputError> {
    let direct = PathBuf::from(model);
    if direct.is_file() {
        return Ok(direct);
    }
    if let Some(dir) = base_dir {
        let beside = dir.join(model);
        if beside.is_file() {
            return Ok(beside);
        }
    }
    let looked = match base_dir {
        Some(dir) if !dir.as_os_str().is_empty() => {
            format!("the current directory and {}", dir.display())
        }
        _ => "the current directory".to_owned(),
    };
    Err(v.err(
        "model",
        format!("\"{model}\" is not a file (looked in {looked})"),
    ))
}

fn parse_step(v: &Validator, raw: RawStep, config: &ModelConfig) -> Result<Step, InputError> {
    let op = v.required("op", raw.op.clone())?;
    let Some(verb) = Verb::named(&op) else {
        let names: Vec<_> = Verb::ALL.iter().map(|verb| verb.name()).collect();
        return Err(v.err("op", format!("\"{op}\" is not one of {}", names.join(", "))));
    };
    let allowed = verb.fields();
    let present = [
        ("agent", raw.agent.is_some()),
        ("tier", raw.tier.is_some()),
        ("tx", raw.tx.is_some()),
        ("record", raw.record.is_some()),
        ("tool", raw.tool.is_some()),
        ("basis", raw.basis.is_some()),
    ];
    if let Some((field, _)) = present.iter().find(|(f, p)| *p && !allowed.contains(f)) {
        return Err(v.err(
            field,
            format!(
                "not a field of a \"{op}\" step (it takes {})",
                allowed.join(", ")
            ),
        ));
    }
    verb.blank().translate(&mut Fields { v, raw, config })
}

/// A step's arguments read from its fields, each checked against the
/// configuration.
struct Fields<'a> {
    v: &'a Validator,
    raw: RawStep,
    config: &'a ModelConfig,
}

impl Translate<Blank, StepArgs> for Fields<'_> {
    type Error = InputError;

    fn open(&mut self, _: &(), _: Tier) -> Result<(u8, Tier), InputError> {
        let (v, config) = (self.v, self.config);
        let agent = v.agent("agent", v.required("agent", self.raw.agent)?, config.agents)?;
        let tier = v.required("tier", self.raw.tier)?;
        if !config.tiers.contains(&tier) {
            let allowed: Vec<_> = config.tiers.iter().map(|t| t.name()).collect();
            return Err(v.err(
                "tier",
                format!(
                    "\"{}\" is not a tier the configuration allows ({})",
                    tier.name(),
                    allowed.join(", ")
                ),
            ));
        }
        Ok((agent, tier))
    }

    fn tx(&mut self, _: Verb, _: &()) -> Result<u8, InputError> {
        let v = self.v;
        Ok(v.int_in(
            "tx",
            v.required("tx", self.raw.tx)?,
            0,
            MAX_TRANSACTION_ID as i64,
        )? as u8)
    }

    fn record(&mut self, _: Verb, _: &()) -> Result<u8, InputError> {
        record_id(self.v, self.raw.record.as_ref())
    }

    fn stage(&mut self, _: &u8, _: &()) -> Result<RecordSpec, InputError> {
        let v = self.v;
        let record = v.required("record", self.raw.record.as_ref())?;
        parse_record(&v.child("record"), record, self.config)
    }

    fn call(&mut self, _: &u8, _: &(), _: &()) -> Result<(String, Vec<u8>), InputError> {
        let (v, config) = (self.v, self.config);
        let tool = v.required("tool", self.raw.tool.clone())?;
        if !config.tools.iter().any(|t| t.name == tool) {
            let known: Vec<_> = config.tools.iter().map(|t| t.name.as_str()).collect();
            return Err(v.err(
                "tool",
                format!(
                    "\"{tool}\" is not a tool of the configuration (tools: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        }
        let basis = record_ids(v, "basis", self.raw.basis.clone().unwrap_or_default())?;
        Ok((tool, basis))
    }
}

/// The `record` of a step that names an existing record by id.
fn record_id(v: &Validator, raw: Option<&Value>) -> Result<u8, InputError> {
    let record = v.required("record", raw)?;
    let id = record
        .as_i64()
        .ok_or_else(|| v.err("record", format!("{} is not a record id", show(record))))?;
    Ok(v.int_in("record", id, 0, MAX_RECORDS as i64 - 1)? as u8)
}

fn parse_record(
    v: &Validator,
    value: &Value,
    config: &ModelConfig,
) -> Result<RecordSpec, InputError> {
    let raw: RawStagedRecord = v.raw(value)?;
    let derived_from = record_ids(v, "derived_from", raw.derived_from.unwrap_or_default())?;
    record_spec(v, raw.record, derived_from, config.agents)
}

/// Record ids: each below the store's capacity, none listed twice.
fn record_ids(v: &Validator, field: &str, raw: Vec<i64>) -> Result<Vec<u8>, InputError> {
    let mut ids = Vec::with_capacity(raw.len());
    for (i, id) in raw.into_iter().enumerate() {
        let path = index(field, i);
        let id = v.int_in(&path, id, 0, MAX_RECORDS as i64 - 1)? as u8;
        if ids.contains(&id) {
            return Err(v.err(&path, format!("{id} is listed twice")));
        }
        ids.push(id);
    }
    Ok(ids)
}

fn parse_violation(
    v: &Validator,
    raw: RawViolation,
    steps: usize,
) -> Result<TraceViolation, InputError> {
    let name = v.required("property", raw.property)?;
    let property = Invariant::named(&name).ok_or_else(|| {
        let known: Vec<_> = Invariant::ALL.iter().map(|i| i.name()).collect();
        v.err(
            "property",
            format!("\"{name}\" is not one of {}", known.join(", ")),
        )
    })?;
    let step = v.required("step", raw.step)?;
    if steps == 0 {
        return Err(v.err(
            "step",
            format!("{step} names a step, but the trace has none"),
        ));
    }
    let step = v.int_in("step", step, 0, steps as i64 - 1)? as usize;
    Ok(TraceViolation {
        property,
        step,
        detail: raw.detail.unwrap_or_default(),
    })
}
