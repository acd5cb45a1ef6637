//! One side of a diff, [`Side`] with its levels and verdicts, and loading
//! it: a saved check (`summary.json` and the `growth.csv` beside it, read
//! with this module's own types) or a model configuration, checked now.

use crate::check::{self, CheckOptions};
use crate::config::{Depth, ModelConfig};
use crate::input::{from_value, parse_json, read_bytes, read_text, InputError};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One property's verdict as a check reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub name: String,
    /// `invariant` or `companion`.
    pub kind: String,
    /// `holds`, `violated`, `reached` or `not_reached`.
    pub verdict: String,
    pub depth: Option<usize>,
}

/// Per depth: new states, total states, transitions, total transitions.
pub type Level = (usize, u64, u64, u64, u64);

/// One check result, whatever it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// Where it came from, for the report.
    pub origin: String,
    pub model: String,
    /// `records r, transactions t, depth d`.
    pub bounds: String,
    /// The variant as JSON text.
    pub variant: String,
    pub states: u64,
    pub transitions: u64,
    pub complete: bool,
    pub levels: Vec<Level>,
    pub properties: Vec<Verdict>,
    /// A model file's warnings ([`ModelConfig::warnings`]); none for a
    /// saved report.
    pub warnings: Vec<String>,
}

impl Side {
    pub fn summary_line(&self) -> String {
        format!("model {}, {}", self.model, self.bounds)
    }
}

#[derive(Deserialize)]
struct SummaryIn {
    model: String,
    bounds: BoundsIn,
    variant: serde_json::Value,
    states: u64,
    transitions: u64,
    complete: bool,
    properties: Vec<PropertyIn>,
}

#[derive(Deserialize)]
struct BoundsIn {
    records: usize,
    transactions: usize,
    depth: String,
}

#[derive(Deserialize)]
struct PropertyIn {
    name: String,
    kind: String,
    verdict: String,
    depth: Option<usize>,
}

fn bounds_text(records: usize, transactions: usize, depth: &str) -> String {
    format!("records {records}, transactions {transactions}, depth {depth}")
}

/// Loads a side: a report directory, a `summary.json`, or a model file
/// (any other `.json`), which is checked now with `threads` threads, to
/// `depth` when given.
pub fn load_side(path: &Path, threads: usize, depth: Option<Depth>) -> Result<Side, InputError> {
    let summary_path: PathBuf = if path.is_dir() {
        path.join("summary.json")
    } else {
        path.to_path_buf()
    };
    let is_summary = summary_path
        .file_name()
        .is_some_and(|n| n == "summary.json");
    if !is_summary {
        let mut config = ModelConfig::load(path)?;
        if let Some(depth) = depth {
            config.bounds.depth = depth;
        }
        let mut side = checked_now(&config, threads, path);
        side.warnings = config.warnings();
        return Ok(side);
    }
    let origin = summary_path.display().to_string();
    let text = read_text(&summary_path)?;
    // Parsed as every input is: each key once, structs from objects only.
    let s: SummaryIn = from_value(&parse_json(&text, &origin)?)
        .map_err(|e| InputError::new(format!("{origin}: not a check summary: {e}")))?;
    let growth = summary_path.with_file_name("growth.csv");
    Ok(Side {
        origin: path.display().to_string(),
        model: s.model,
        bounds: bounds_text(s.bounds.records, s.bounds.transactions, &s.bounds.depth),
        variant: s.variant.to_string(),
        states: s.states,
        transitions: s.transitions,
        complete: s.complete,
        levels: read_growth(&growth)?,
        properties: s
            .properties
            .into_iter()
            .map(|p| Verdict {
                name: p.name,
                kind: p.kind,
                verdict: p.verdict,
                depth: p.depth,
            })
            .collect(),
        warnings: Vec::new(),
    })
}

fn read_growth(path: &Path) -> Result<Vec<Level>, InputError> {
    let origin = path.display().to_string();
    let bytes = read_bytes(path)?;
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let mut levels = Vec::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| InputError::new(format!("{origin}: {e}")))?;
        let field = |k: usize| -> Result<u64, InputError> {
            let value = row.get(k).unwrap_or("");
            value.parse().map_err(|_| {
                InputError::new(format!(
                    "{origin}: row {}: field {k}: {value:?} is not a count",
                    i + 1
                ))
            })
        };
        levels.push((
            field(0)? as usize,
            field(1)?,
            field(2)?,
            field(3)?,
            field(4)?,
        ));
    }
    Ok(levels)
}

fn checked_now(config: &ModelConfig, threads: usize, path: &Path) -> Side {
    let report = check::run(config, CheckOptions::quiet(threads));
    let b = &config.bounds;
    Side {
        origin: format!("{} (checked now)", path.display()),
        model: config.name.clone(),
        bounds: bounds_text(b.records, b.transactions, &b.depth.to_string()),
        variant: config.to_json()["variant"].to_string(),
        states: report.unique_states,
        transitions: report.transitions,
        complete: report.complete,
        levels: report.levels.iter().map(|l| l.counts()).collect(),
        properties: report
            .properties
            .iter()
            .map(|p| Verdict {
                name: p.name.to_owned(),
                kind: p.kind.label().to_owned(),
                verdict: p.outcome.name().to_owned(),
                depth: p.outcome.depth(),
            })
            .collect(),
        warnings: Vec::new(),
    }
}
