//! Reading a configuration ([`ModelConfig::load`], [`ModelConfig::parse`]):
//! raw configuration to validated [`ModelConfig`], defaults filled in and
//! every rule checked against [`super::limits`], each failure one line
//! naming file, field path and value. A template's record fields are
//! judged by [`record_spec`], as a trace's staged record is.

use super::limits::{
    MAX_AGENTS, MAX_DEPTH, MAX_RECORDS, MAX_TEMPLATES, MAX_TOOLS, MAX_TRANSACTIONS,
};
use super::model_config::{
    Bounds, Depth, ExpectCoverage, Expectations, ModelConfig, ParentRule, Template, ToolConfig,
};
use super::raw::{RawBounds, RawConfig, RawExpect, RawTemplate, RawTool, RawVariant};
use super::record::record_spec;
use super::verdicts::expected_verdicts;
use crate::input::locate::{index, show};
use crate::input::{parse_json, read_text, stem, InputError, Validator};
use crate::protocol::{Kind, Tier, Variant};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

impl ModelConfig {
    /// Reads and validates `models/NAME.json`; the name defaults to the
    /// file stem.
    pub fn load(path: &Path) -> Result<ModelConfig, InputError> {
        let origin = path.display().to_string();
        let text = read_text(path)?;
        let mut config = ModelConfig::parse(&text, &origin)?;
        config.source_path = Some(path.to_path_buf());
        Ok(config)
    }

    /// The file it was loaded from, as shown in text, or `otherwise`.
    pub fn source_or(&self, otherwise: &str) -> String {
        let shown = |p: &std::path::PathBuf| p.display().to_string();
        self.source_path
            .as_ref()
            .map_or_else(|| otherwise.to_owned(), shown)
    }

    /// Parses configuration text; `origin` names the file in messages and
    /// gives the default name (its stem).
    pub fn parse(text: &str, origin: &str) -> Result<ModelConfig, InputError> {
        let value = parse_json(text, origin)?;
        validate_config(&value, &Validator::new(origin, ""), &stem(origin))
    }

    /// What is allowed but probably not meant, one line each: a model with
    /// no templates stages no record, so its checks are vacuous.
    pub fn warnings(&self) -> Vec<String> {
        let origin = self.source_or(&self.name);
        let mut warnings = Vec::new();
        if self.templates.is_empty() {
            warnings.push(format!(
                "{origin}: templates: none, so no record is ever staged and no tool call has a \
                 basis: every invariant holds vacuously"
            ));
        }
        warnings
    }
}

/// Validates the configuration `value`; `default_name` applies when it
/// has no `name`.
pub(crate) fn validate_config(
    value: &Value,
    v: &Validator,
    default_name: &str,
) -> Result<ModelConfig, InputError> {
    let raw: RawConfig = v.raw(value)?;
    // The name becomes `reports/NAME/` and `traces/NAME-*.json`.
    let name = v.model_name("name", raw.name, default_name)?;
    let agents = match raw.agents {
        Some(a) => v.int_in("agents", a, 1, MAX_AGENTS as i64)? as u8,
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
        revalidate: raw.revalidate.unwrap_or(false),
        rebuild: raw.rebuild.unwrap_or(false),
        variant: variant(&v.child("variant"), raw.variant)?,
        expect: expectations(&v.child("expect"), raw.expect)?,
        symmetry: raw.symmetry.unwrap_or(false),
        source_path: None,
    })
}

fn bounds(v: &Validator, raw: Option<RawBounds>) -> Result<Bounds, InputError> {
    let raw = raw.unwrap_or_default();
    let default = Bounds::default();
    let records = match raw.records {
        Some(r) => v.int_in("records", r, 1, MAX_RECORDS as i64)? as usize,
        None => default.records,
    };
    let transactions = match raw.transactions {
        Some(t) => v.int_in("transactions", t, 1, MAX_TRANSACTIONS as i64)? as usize,
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

fn tiers(v: &Validator, raw: Option<Vec<Tier>>) -> Result<Vec<Tier>, InputError> {
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

fn tools(v: &Validator, raw: Vec<RawTool>) -> Result<Vec<ToolConfig>, InputError> {
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
) -> Result<Vec<Template>, InputError> {
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
    parents_can_exist(v, &templates)?;
    Ok(templates)
}

/// A template that requires a parent (or two) needs existing records, and
/// only a template staged without a parent makes the first (a tool call
/// needs a visible record as its basis too). When every template requires
/// one, none can ever be staged: refused, naming the first, rather than
/// shown only as companions not reached.
fn parents_can_exist(v: &Validator, templates: &[Template]) -> Result<(), InputError> {
    let needs_parents = |t: &Template| matches!(t.parent, ParentRule::Required | ParentRule::Two);
    if !templates.iter().all(needs_parents) {
        return Ok(());
    }
    match templates.first() {
        Some(first) => Err(v.err(
            &format!("{}.parent", index("templates", 0)),
            format!(
                "\"{}\", but no record can ever exist to be the parent of template \"{}\": \
                 every template requires a parent (make one \"none\" or \"optional\")",
                first.parent.name(),
                first.name
            ),
        )),
        None => Ok(()),
    }
}

fn template(t: &Validator, raw: RawTemplate, agents: u8) -> Result<Template, InputError> {
    let name = t.name("name", raw.name)?;
    if raw.record.kind == Some(Kind::ToolAction) {
        return Err(t.err(
            "kind",
            "\"tool_action\" cannot be a template (only an executed tool call creates one)",
        ));
    }
    Ok(Template {
        name,
        record: record_spec(t, raw.record, Vec::new(), agents)?,
        parent: raw.parent.unwrap_or(ParentRule::None),
    })
}

fn variant(v: &Validator, raw: Option<RawVariant>) -> Result<Variant, InputError> {
    let raw = raw.unwrap_or_default();
    // A switch not given keeps its default (the authors' code).
    let mut variant = Variant::default();
    variant.same_source_tie = raw.same_source_tie.unwrap_or_default();
    variant.stale_check_empty_snapshot = raw.stale_check_empty_snapshot.unwrap_or_default();
    variant.laundering_parents = raw.laundering_parents.unwrap_or_default();
    variant.tool_basis = raw.tool_basis.unwrap_or_default();
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

fn expectations(v: &Validator, raw: Option<RawExpect>) -> Result<Expectations, InputError> {
    let raw = raw.unwrap_or_default();
    Ok(Expectations {
        verdicts: expected_verdicts(v, &raw)?,
        coverage: raw.coverage.map(|c| expect_coverage(v, &c)).transpose()?,
    })
}

/// `expect.coverage`: `"all"`, or a list of distinct branch names.
fn expect_coverage(v: &Validator, value: &Value) -> Result<ExpectCoverage, InputError> {
    let names = match value {
        Value::String(s) if s == "all" => return Ok(ExpectCoverage::All),
        Value::Array(names) => names,
        other => {
            return Err(v.err(
                "coverage",
                format!(
                    "{} is neither \"all\" nor a list of branch names",
                    show(other)
                ),
            ))
        }
    };
    let mut branches: Vec<String> = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let path = index("coverage", i);
        let Value::String(name) = name else {
            return Err(v.err(&path, format!("{} is not a branch name", show(name))));
        };
        if branches.contains(name) {
            return Err(v.err(&path, format!("\"{name}\" is listed twice")));
        }
        branches.push(name.clone());
    }
    Ok(ExpectCoverage::Branches(branches))
}
