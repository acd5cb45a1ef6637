//! Raw configuration to validated [`ModelConfig`]: defaults filled in and
//! every rule checked, each failure one line naming file, field path and
//! value. The helpers on [`Validator`] are shared with trace parsing, so a
//! record in a trace is judged by the same rules as a template.

use super::locate::{index, join, locate, show, Schema};
use super::raw::{RawBounds, RawConfig, RawExpect, RawTemplate, RawTool, RawVariant};
use super::{
    Bounds, ConfigError, Depth, Expectations, ModelConfig, RecordSpec, Template, ToolConfig,
};
use crate::protocol::{Hundredths, Kind, Scope, Tier, Variant, MAX_RECORDS};
use serde_json::Value;
use std::collections::HashSet;

/// The deepest bounded depth a configuration may ask for.
pub const MAX_DEPTH: usize = 1000;
/// Tool indices are `u8`.
pub const MAX_TOOLS: usize = 256;
/// Keeps the interned strings of a configuration far below the symbol
/// table's 65,536 (four strings a template).
pub const MAX_TEMPLATES: usize = 4096;

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

    pub fn err(&self, path: &str, message: impl std::fmt::Display) -> ConfigError {
        ConfigError::at(&self.origin, &self.path(path), message)
    }

    /// Deserializes `value` as `T`, or the error at its innermost path.
    pub fn raw<T: Schema>(&self, value: &Value) -> Result<T, ConfigError> {
        if let Some(message) = locate::<T>(value, &self.prefix) {
            return Err(ConfigError(format!("{}: {message}", self.origin)));
        }
        T::deserialize(value).map_err(|e| self.err("", e))
    }

    pub fn required<T>(&self, path: &str, value: Option<T>) -> Result<T, ConfigError> {
        value.ok_or_else(|| self.err(path, "missing (this field is required)"))
    }

    /// An integer in `lo..=hi`.
    pub fn int_in(&self, path: &str, x: i64, lo: i64, hi: i64) -> Result<i64, ConfigError> {
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(self.err(path, format!("{x} is out of range {lo}..={hi}")))
        }
    }

    /// A logical time (clock or validity bound).
    pub fn time(&self, path: &str, x: Option<i64>) -> Result<Option<i32>, ConfigError> {
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
    ) -> Result<(Option<i32>, Option<i32>), ConfigError> {
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
    pub fn agent(&self, path: &str, x: i64, agents: u8) -> Result<u8, ConfigError> {
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

    /// A non-empty name.
    pub fn name(&self, path: &str, name: Option<String>) -> Result<String, ConfigError> {
        let name = self.required(path, name)?;
        if name.is_empty() {
            Err(self.err(path, "\"\" is empty (a name is required)"))
        } else {
            Ok(name)
        }
    }
}

/// Authority or confidence: a decimal in [0, 1] on the hundredths grid.
pub(crate) fn decimal(v: &Validator, path: &str, x: f64) -> Result<Hundredths, ConfigError> {
    Hundredths::from_decimal(x).ok_or_else(|| {
        v.err(
            path,
            format!("{x} is not a decimal in [0, 1] on the hundredths grid"),
        )
    })
}

/// Validates the configuration `value`; `default_name` applies when it
/// has no `name`.
pub(crate) fn validate_config(
    value: &Value,
    v: &Validator,
    default_name: &str,
) -> Result<ModelConfig, ConfigError> {
    let raw: RawConfig = v.raw(value)?;
    let name = match raw.name {
        Some(name) => v.name("name", Some(name))?,
        None => default_name.to_owned(),
    };
    let agents = match raw.agents {
        Some(a) => v.int_in("agents", a, 1, 255)? as u8,
        None => 2,
    };
    let templates = raw.templates.unwrap_or_default();
    Ok(ModelConfig {
        name,
        description: raw.description.unwrap_or_default(),
        bounds: bounds(&v.child("bounds"), raw.bounds)?,
        agents,
        tiers: tiers(v, raw.tiers)?,
        tools: tools(v, raw.tools.unwrap_or_default())?,
        clock: v.time("clock", raw.clock)?,
        templates: validate_templates(v, templates, agents)?,
        variant: variant(&v.child("variant"), raw.variant)?,
        expect: expectations(raw.expect),
        source_path: None,
    })
}

fn bounds(v: &Validator, raw: Option<RawBounds>) -> Result<Bounds, ConfigError> {
    let raw = raw.unwrap_or_default();
    let default = Bounds::default();
    let records = match raw.records {
        Some(r) => v.int_in("records", r, 1, MAX_RECORDS as i64)? as usize,
        None => default.records,
    };
    let transactions = match raw.transactions {
        Some(t) => v.int_in("transactions", t, 1, 255)? as usize,
        None => default.transactions,
    };
    let depth = match raw.depth {
        None => default.depth,
        Some(Value::String(s)) if s == "full" => Depth::Full,
        Some(Value::Number(n))
            if n.as_i64()
                .is_some_and(|d| (0..=MAX_DEPTH as i64).contains(&d)) =>
        {
            Depth::Bounded(n.as_i64().unwrap_or(0) as usize)
        }
        Some(other) => {
            return Err(v.err(
                "depth",
                format!(
                    "{} is neither an integer in 0..={MAX_DEPTH} nor \"full\"",
                    show(&other)
                ),
            ))
        }
    };
    Ok(Bounds {
        records,
        transactions,
        depth,
    })
}

fn tiers(v: &Validator, raw: Option<Vec<Tier>>) -> Result<Vec<Tier>, ConfigError> {
    let Some(tiers) = raw else {
        return Ok(Tier::ALL.to_vec());
    };
    if tiers.is_empty() {
        return Err(v.err("tiers", "[] is empty (allow at least one risk tier)"));
    }
    for (i, tier) in tiers.iter().enumerate() {
        if tiers[..i].contains(tier) {
            return Err(v.err(
                &index("tiers", i),
                format!("\"{}\" is listed twice", tier.name()),
            ));
        }
    }
    Ok(tiers)
}

fn tools(v: &Validator, raw: Vec<RawTool>) -> Result<Vec<ToolConfig>, ConfigError> {
    if raw.len() > MAX_TOOLS {
        return Err(v.err(
            "tools",
            format!("{} tools is more than the {MAX_TOOLS} allowed", raw.len()),
        ));
    }
    let mut seen = HashSet::new();
    let mut tools = Vec::with_capacity(raw.len());
    for (i, tool) in raw.into_iter().enumerate() {
        let t = v.child(&index("tools", i));
        let name = t.name("name", tool.name)?;
        if !seen.insert(name.clone()) {
            return Err(t.err("name", format!("\"{name}\" is a duplicate tool name")));
        }
        let irreversible = t.required("irreversible", tool.irreversible)?;
        tools.push(ToolConfig { name, irreversible });
    }
    Ok(tools)
}

fn validate_templates(
    v: &Validator,
    raw: Vec<RawTemplate>,
    agents: u8,
) -> Result<Vec<Template>, ConfigError> {
    if raw.len() > MAX_TEMPLATES {
        return Err(v.err(
            "templates",
            format!(
                "{} templates is more than the {MAX_TEMPLATES} allowed",
                raw.len()
            ),
        ));
    }
    let mut seen = HashSet::new();
    let mut templates = Vec::with_capacity(raw.len());
    for (i, raw) in raw.into_iter().enumerate() {
        let t = v.child(&index("templates", i));
        let template = template(&t, raw, agents)?;
        if !seen.insert(template.name.clone()) {
            return Err(t.err(
                "name",
                format!("\"{}\" is a duplicate template name", template.name),
            ));
        }
        templates.push(template);
    }
    Ok(templates)
}

fn template(t: &Validator, raw: RawTemplate, agents: u8) -> Result<Template, ConfigError> {
    let name = t.name("name", raw.name)?;
    if raw.kind == Some(Kind::ToolAction) {
        return Err(t.err(
            "kind",
            "\"tool_action\" cannot be a template (only an executed tool call creates one)",
        ));
    }
    let fields = RawFields {
        kind: raw.kind,
        entity: raw.entity,
        attribute: raw.attribute,
        value: raw.value,
        source: raw.source,
        authority: raw.authority,
        confidence: raw.confidence,
        scope: raw.scope,
        valid_from: raw.valid_from,
        valid_to: raw.valid_to,
        owner: raw.owner,
    };
    Ok(Template {
        name,
        record: record_spec(t, fields, Vec::new(), agents)?,
        parent: raw.parent.unwrap_or_default(),
    })
}

/// The fields a template and a trace's staged record share, as read.
pub(crate) struct RawFields {
    pub kind: Option<Kind>,
    pub entity: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub source: Option<String>,
    pub authority: Option<f64>,
    pub confidence: Option<f64>,
    pub scope: Option<Scope>,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub owner: Option<i64>,
}

/// A record spec from its raw fields and already-checked parents:
/// `authority` defaults to 0.5 (a missing source's), decimals are on the
/// hundredths grid, the window is ordered, the owner is an agent.
pub(crate) fn record_spec(
    v: &Validator,
    raw: RawFields,
    derived_from: Vec<u8>,
    agents: u8,
) -> Result<RecordSpec, ConfigError> {
    let kind = v.required("kind", raw.kind)?;
    let authority = match raw.authority {
        Some(a) => decimal(v, "authority", a)?,
        None => Hundredths::MISSING_SOURCE_AUTHORITY,
    };
    let confidence = decimal(v, "confidence", v.required("confidence", raw.confidence)?)?;
    let (valid_from, valid_to) = v.window(raw.valid_from, raw.valid_to)?;
    Ok(RecordSpec {
        kind,
        entity: v.required("entity", raw.entity)?,
        attribute: v.required("attribute", raw.attribute)?,
        value: v.required("value", raw.value)?,
        source: raw.source,
        authority,
        confidence,
        scope: v.required("scope", raw.scope)?,
        derived_from,
        valid_from,
        valid_to,
        owner: raw.owner.map(|o| v.agent("owner", o, agents)).transpose()?,
    })
}

fn variant(v: &Validator, raw: Option<RawVariant>) -> Result<Variant, ConfigError> {
    let raw = raw.unwrap_or_default();
    let mut variant = Variant::default();
    if let Some(tie) = raw.same_source_tie {
        variant.same_source_tie = tie;
    }
    if let Some(stale) = raw.stale_check_empty_snapshot {
        variant.stale_check_empty_snapshot = stale;
    }
    if let Some(parents) = raw.laundering_parents {
        variant.laundering_parents = parents;
    }
    if let Some(basis) = raw.tool_basis {
        variant.tool_basis = basis;
    }
    for (i, ablation) in raw.ablate.unwrap_or_default().into_iter().enumerate() {
        if !variant.has(ablation) {
            return Err(v.err(
                &index("ablate", i),
                format!("\"{}\" is listed twice", ablation.name()),
            ));
        }
        variant = variant.without(ablation);
    }
    Ok(variant)
}

fn expectations(raw: Option<RawExpect>) -> Expectations {
    let raw = raw.unwrap_or_default();
    Expectations {
        i1: raw.i1,
        i2: raw.i2,
        g3: raw.g3,
    }
}
