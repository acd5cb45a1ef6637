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
    /// The symbols the configuration itself interned: those past it were
    /// interned by steps.
    own_symbols: usize,
    /// Each step request line the protocol took, as the operation it
    /// became: a client sends the same few steps again and again.
    ops: HashMap<String, Op>,
    /// The bytes of the lines in `ops`.
    ops_bytes: usize,
}

/// The bytes of step lines remembered at most (a client sending endless
/// distinct steps is not slowed down, only no longer helped). A line
/// longer than [`MAX_REMEMBERED_LINE`] is never remembered.
pub(super) const MAX_REMEMBERED_BYTES: usize = 32 << 20;
/// The longest step line remembered: a step is far shorter unless padded.
const MAX_REMEMBERED_LINE: usize = 4 << 10;
/// Symbols interned by steps past which a reset forgets them (and the
/// remembered lines naming them): far below the table's 65,536, far above
/// what one store of the model's bounds names.
const MAX_STEP_SYMBOLS: usize = 16 << 10;

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
                return Ok(loaded.apply(&op).0);
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
            Some(loaded) if loaded.sent == *sent => loaded.restart(),
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
                    own_symbols: compiled.symbols.len(),
                    compiled,
                    store: Store::new(),
                    ops: HashMap::new(),
                    ops_bytes: 0,
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
        let interned = loaded.compiled.symbols.len();
        let op = step.to_op(&mut loaded.compiled);
        let Ok(op) = op else {
            loaded.compiled.symbols.truncate(interned);
            return Err(InputError::at(origin, "step", op.unwrap_err()));
        };
        let (answer, taken) = loaded.apply(&op);
        if !taken {
            // A refused step keeps nothing: no store names what it interned.
            loaded.compiled.symbols.truncate(interned);
        } else if text.len() <= MAX_REMEMBERED_LINE
            && loaded.ops_bytes + text.len() <= MAX_REMEMBERED_BYTES
        {
            loaded.ops_bytes += text.len();
            loaded.ops.insert(text.to_owned(), op);
        }
        Ok(answer)
    }

    /// The step lines remembered, and their bytes (tests).
    #[cfg(test)]
    pub(super) fn remembered(&self) -> (usize, usize) {
        self.loaded
            .as_ref()
            .map_or((0, 0), |l| (l.ops.len(), l.ops_bytes))
    }
}

impl Loaded {
    /// Applies `op` to the store; the answer, and whether the protocol
    /// took the step.
    fn apply(&mut self, op: &Op) -> (Answer, bool) {
        let result = self.compiled.protocol.apply(&mut self.store, op);
        let answer = Answer(to_line(&StepAnswer::new(
            &result,
            &self.store,
            &self.compiled,
        )));
        (answer, result.is_ok())
    }

    /// An empty store under the same configuration. Once steps have
    /// interned many names, they are forgotten, with the remembered lines
    /// whose operations name them, so the symbol table never fills.
    fn restart(&mut self) {
        self.store = Store::new();
        if self.compiled.symbols.len() - self.own_symbols > MAX_STEP_SYMBOLS {
            self.compiled.symbols.truncate(self.own_symbols);
            self.ops.clear();
            self.ops_bytes = 0;
        }
    }
}
