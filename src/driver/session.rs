//! A driver's state between requests — the configuration of the last
//! `reset`, compiled, and the store — and its answer to each request line.
//! Requests are read as every input is (each key once, unknown fields
//! refused, one-line errors naming the request and the field); a step is
//! checked against the configuration as a trace file's step is, then
//! applied with the protocol, exactly as `replay` applies it.

use super::PROTOCOL_VERSION;
use crate::build_info::BuildInfo;
use crate::config::{validate_config, Compiled, ModelConfig};
use crate::input::{parse_json, InputError, Validator};
use crate::protocol::{Op, Store};
use crate::replay::wire::StepAnswer;
use crate::trace::parse_step_value;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// The state a driver keeps.
#[derive(Default)]
pub struct Session {
    loaded: Option<Loaded>,
    /// A deliberate bug every reset's protocol gets (test builds only):
    /// an implementation that departs from the model, for conformance
    /// tests.
    #[cfg(test)]
    fault: Option<crate::protocol::Fault>,
}

struct Loaded {
    /// The reset's CONFIG as sent: a reset with the same one only empties
    /// the store (a client resets before every trace).
    sent: Value,
    config: ModelConfig,
    compiled: Compiled,
    store: Store,
    /// Each step request line taken so far, as the operation it became:
    /// a client sends the same few steps again and again.
    ops: HashMap<String, Op>,
}

/// Step lines remembered at most (a client sending endless distinct steps
/// is not slowed down, only no longer helped).
const MAX_REMEMBERED_STEPS: usize = 1 << 16;

/// One answer line.
pub struct Answer(String);

impl Answer {
    /// `{"bad_request": why}`.
    pub fn bad_request(why: String) -> Answer {
        #[derive(Serialize)]
        struct Bad {
            bad_request: String,
        }
        Answer(to_line(&Bad { bad_request: why }))
    }

    /// The answer's JSON text, without its newline.
    pub fn line(&self) -> &str {
        &self.0
    }
}

#[derive(Serialize)]
struct Ready {
    ok: bool,
    driver_protocol: u32,
    implementation: Implementation,
}

#[derive(Serialize)]
struct Implementation {
    name: &'static str,
    #[serde(flatten)]
    build: BuildInfo,
}

fn to_line(value: &impl Serialize) -> String {
    // Plain data: serialising cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    /// A session whose protocol has the deliberate bug `fault`.
    #[cfg(test)]
    pub(crate) fn with_fault(fault: crate::protocol::Fault) -> Session {
        Session {
            fault: Some(fault),
            ..Session::default()
        }
    }

    /// The answer to request line `text`, the `number`th.
    pub fn answer(&mut self, text: &str, number: u64) -> Answer {
        let origin = format!("request {number}");
        match self.take(text, &origin) {
            Ok(answer) => answer,
            Err(e) => Answer::bad_request(e.to_string()),
        }
    }

    fn take(&mut self, text: &str, origin: &str) -> Result<Answer, InputError> {
        if let Some(loaded) = self.loaded.as_mut() {
            if let Some(op) = loaded.ops.get(text).copied() {
                return Ok(loaded.apply(&op));
            }
        }
        let value = parse_json(text, origin)?;
        let Value::Object(fields) = &value else {
            return Err(InputError::new(format!(
                "{origin}: not an object: a request is {{\"reset\": CONFIG}} or {{\"step\": STEP}}"
            )));
        };
        let mut keys = fields.keys();
        let (Some(key), None) = (keys.next(), keys.next()) else {
            return Err(InputError::new(format!(
                "{origin}: a request holds exactly one of `reset` and `step` (it holds {})",
                fields.len()
            )));
        };
        let body = &fields[key];
        match key.as_str() {
            "reset" => self.reset(body, origin),
            "step" => self.step(body, text, origin),
            other => Err(InputError::new(format!(
                "{origin}: {other:?} is not a request (reset, step)"
            ))),
        }
    }

    fn reset(&mut self, sent: &Value, origin: &str) -> Result<Answer, InputError> {
        match self.loaded.as_mut() {
            Some(loaded) if loaded.sent == *sent => loaded.store = Store::new(),
            _ => {
                #[allow(unused_mut)] // a test build may add a fault
                let mut config = validate_config(sent, &Validator::new(origin, "reset"), "driver")?;
                #[cfg(test)]
                if let Some(fault) = self.fault {
                    config.variant = config.variant.with_fault(fault);
                }
                let compiled = config.compile();
                self.loaded = Some(Loaded {
                    sent: sent.clone(),
                    config,
                    compiled,
                    store: Store::new(),
                    ops: HashMap::new(),
                });
            }
        }
        Ok(Answer(to_line(&Ready {
            ok: true,
            driver_protocol: PROTOCOL_VERSION,
            implementation: Implementation {
                name: "memtx-check",
                build: BuildInfo::this(),
            },
        })))
    }

    fn step(&mut self, step: &Value, text: &str, origin: &str) -> Result<Answer, InputError> {
        let Some(loaded) = self.loaded.as_mut() else {
            return Err(InputError::new(format!(
                "{origin}: a step before any reset (send {{\"reset\": CONFIG}} first)"
            )));
        };
        let step = parse_step_value(step, &loaded.config, origin, "step")?;
        let op = step
            .to_op(&mut loaded.compiled)
            .map_err(|e| InputError::at(origin, "step", e))?;
        if loaded.ops.len() < MAX_REMEMBERED_STEPS {
            loaded.ops.insert(text.to_owned(), op);
        }
        Ok(loaded.apply(&op))
    }
}

impl Loaded {
    /// Applies `op` to the store; the answer.
    fn apply(&mut self, op: &Op) -> Answer {
        let result = self.compiled.protocol.apply(&mut self.store, op);
        Answer(to_line(&StepAnswer::new(
            &result,
            &self.store,
            &self.compiled,
        )))
    }
}
