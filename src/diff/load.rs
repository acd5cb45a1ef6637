//! One side of a diff, [`Side`] with its levels and verdicts, and loading
//! it: a saved check (`summary.json` and the `growth.csv` beside it, read
//! with this module's own types, checked to be of one whole run: the
//! folder's manifest, a well-formed growth.csv, the same totals) or a
//! model configuration, checked now.

use super::coverage::RunCoverage;
use crate::build_info::BuildInfo;
use crate::check::summary::GROWTH_HEADER;
use crate::check::{self, CheckOptions, CheckReport};
use crate::config::{Depth, ModelConfig};
use crate::input::{from_value, parse_json, read_bytes, read_text, InputError};
use crate::outputs::{verify_set, GrowthSeries};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One property's verdict as a check reports it (and summary.json
/// spells it).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Verdict {
    pub name: String,
    /// `invariant` or `companion`.
    pub kind: String,
    /// `holds`, `violated`, `reached` or `not_reached`.
    pub verdict: String,
    pub depth: Option<usize>,
    /// For a violated invariant, the clause its shortest counterexample
    /// breaks (when the summary says).
    #[serde(default)]
    pub clause: Option<String>,
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
    /// The build that ran it: this one for a model checked now; for a
    /// saved report, what its summary records (`None` before summaries
    /// recorded it).
    pub build: Option<BuildInfo>,
    /// Its branch coverage: `None` for a saved report without
    /// `coverage.csv`.
    pub coverage: Option<RunCoverage>,
}

impl Side {
    pub fn summary_line(&self) -> String {
        format!("model {}, {}", self.model, self.bounds)
    }

    /// Its growth for a chart, named `LETTER: model`.
    pub fn growth(&self, letter: &str) -> GrowthSeries {
        GrowthSeries {
            name: format!("{letter}: {}", self.model),
            levels: self.levels.iter().map(|l| (l.0, l.1, l.3)).collect(),
        }
    }
}

#[derive(Deserialize)]
struct SummaryIn {
    model: String,
    #[serde(default)]
    build: Option<BuildInfo>,
    bounds: BoundsIn,
    variant: serde_json::Value,
    states: u64,
    transitions: u64,
    complete: bool,
    deepest_level: usize,
    properties: Vec<Verdict>,
}

#[derive(Deserialize)]
struct BoundsIn {
    records: usize,
    transactions: usize,
    depth: String,
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
    let dir = match summary_path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Both files of one whole check run, or an error.
    verify_set(dir, "check", &["summary.json", "growth.csv"]).map_err(InputError::new)?;
    let text = read_text(&summary_path)?;
    // Parsed as every input is: each key once, structs from objects only.
    let s: SummaryIn = from_value(&parse_json(&text, &origin)?)
        .map_err(|e| InputError::new(format!("{origin}: not a check summary: {e}")))?;
    let growth = summary_path.with_file_name("growth.csv");
    let levels = read_growth(&growth)?;
    agree(&origin, &s, &levels, &growth)?;
    Ok(Side {
        origin: path.display().to_string(),
        model: s.model,
        bounds: bounds_text(s.bounds.records, s.bounds.transactions, &s.bounds.depth),
        variant: s.variant.to_string(),
        states: s.states,
        transitions: s.transitions,
        complete: s.complete,
        levels,
        properties: s.properties,
        warnings: Vec::new(),
        build: s.build,
        coverage: read_coverage(dir)?,
    })
}

/// `coverage.csv` and `coverage-depths.csv` beside a summary, when there
/// (a run's report set lists them: they are checked to be of its run).
fn read_coverage(dir: &Path) -> Result<Option<RunCoverage>, InputError> {
    let totals = dir.join("coverage.csv");
    if !totals.exists() {
        return Ok(None);
    }
    let depths = dir.join("coverage-depths.csv");
    let with_depths = depths.exists();
    let mut files = vec!["coverage.csv"];
    if with_depths {
        files.push("coverage-depths.csv");
    }
    verify_set(dir, "check", &files).map_err(InputError::new)?;
    let origin = totals.display().to_string();
    let totals = read_text(&totals)?;
    let depths = with_depths.then(|| read_text(&depths)).transpose()?;
    RunCoverage::parse(&totals, depths.as_deref())
        .map(Some)
        .map_err(|e| InputError::new(format!("{origin}: {e}")))
}

/// `growth.csv`, well formed: the documented header, one row per depth
/// from 0, six counts a row, each total the previous total plus the
/// level's own count.
fn read_growth(path: &Path) -> Result<Vec<Level>, InputError> {
    let origin = path.display().to_string();
    let bytes = read_bytes(path)?;
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let header = reader
        .headers()
        .map_err(|e| InputError::new(format!("{origin}: {e}")))?;
    if header.iter().ne(GROWTH_HEADER) {
        return Err(InputError::new(format!(
            "{origin}: header: {:?} is not {:?}",
            header.iter().collect::<Vec<_>>().join(","),
            GROWTH_HEADER.join(",")
        )));
    }
    let mut levels: Vec<Level> = Vec::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| InputError::new(format!("{origin}: {e}")))?;
        let at = |field: usize| format!("{origin}: row {}: {}", i + 1, GROWTH_HEADER[field]);
        let count = |k: usize| -> Result<u64, InputError> {
            let value = row.get(k).unwrap_or("");
            value
                .parse()
                .map_err(|_| InputError::new(format!("{}: {value:?} is not a count", at(k))))
        };
        let level: Level = (
            count(0)? as usize,
            count(1)?,
            count(2)?,
            count(3)?,
            count(4)?,
        );
        count(5)?;
        let (before_states, before_transitions) = levels.last().map_or((0, 0), |l| (l.2, l.4));
        let rules = [
            (0, level.0 as u64, i as u64, "the row's depth"),
            (
                2,
                level.2,
                before_states.saturating_add(level.1),
                "the previous total plus new_states",
            ),
            (
                4,
                level.4,
                before_transitions.saturating_add(level.3),
                "the previous total plus transitions",
            ),
        ];
        if let Some((field, found, want, why)) = rules.into_iter().find(|r| r.1 != r.2) {
            return Err(InputError::new(format!(
                "{}: {found} is not {want} ({why})",
                at(field)
            )));
        }
        levels.push(level);
    }
    if levels.is_empty() {
        return Err(InputError::new(format!(
            "{origin}: no row (depth 0 at least)"
        )));
    }
    Ok(levels)
}

/// A summary and its growth.csv tell of one run: the same totals and the
/// same deepest level.
fn agree(origin: &str, s: &SummaryIn, levels: &[Level], growth: &Path) -> Result<(), InputError> {
    let Some(&(depth, _, states, _, transitions)) = levels.last() else {
        return Ok(());
    };
    for (field, summary, last) in [
        ("states", s.states, states),
        ("transitions", s.transitions, transitions),
        ("deepest_level", s.deepest_level as u64, depth as u64),
    ] {
        if summary != last {
            return Err(InputError::new(format!(
                "{origin}: {field}: {summary}, but the last row of {} says {last}: \
                 the two files are not of one run",
                growth.display()
            )));
        }
    }
    Ok(())
}

fn checked_now(config: &ModelConfig, threads: usize, path: &Path) -> Side {
    let report = check::run(config, CheckOptions::quiet(threads));
    Side::of_report(&report, format!("{} (checked now)", path.display()))
}

impl Side {
    /// The side a check run gives, `origin` naming it.
    pub fn of_report(report: &CheckReport, origin: String) -> Side {
        let config = &report.config;
        let b = &config.bounds;
        Side {
            origin,
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
                    clause: p.clause.map(str::to_owned),
                })
                .collect(),
            warnings: Vec::new(),
            build: Some(BuildInfo::this()),
            coverage: Some(RunCoverage::of(&report.coverage)),
        }
    }

    /// The deepest level it explored.
    pub fn deepest(&self) -> usize {
        self.levels.last().map_or(0, |l| l.0)
    }

    /// This side as a run of the same model to depth `cap` would report
    /// it: its levels 0..=cap, the verdicts found by then (a violation or
    /// example deeper reads as holds, or not reached), its coverage of
    /// those depths. Breadth-first levels do not depend on how deep a run
    /// goes, so this is exact, not an estimate.
    pub fn capped(&self, cap: usize) -> Side {
        if cap >= self.deepest() {
            return self.clone();
        }
        let levels: Vec<_> = self.levels.iter().take(cap + 1).copied().collect();
        let (states, transitions) = levels.last().map_or((0, 0), |l| (l.2, l.4));
        let bounds = match self.bounds.rfind(", depth ") {
            Some(at) => format!("{}, depth {cap}", &self.bounds[..at]),
            None => self.bounds.clone(),
        };
        Side {
            origin: format!("{} (depths 0..={cap})", self.origin),
            bounds,
            states,
            transitions,
            complete: false,
            properties: self.properties.iter().map(|p| p.seen_by(cap)).collect(),
            levels,
            coverage: self.coverage.as_ref().map(|c| c.capped(cap)),
            ..self.clone()
        }
    }
}

impl Verdict {
    /// The verdict a run to depth `cap` finds.
    fn seen_by(&self, cap: usize) -> Verdict {
        match self.depth {
            Some(d) if d > cap => Verdict {
                verdict: if self.verdict == "violated" {
                    "holds"
                } else {
                    "not_reached"
                }
                .to_owned(),
                depth: None,
                clause: None,
                ..self.clone()
            },
            _ => self.clone(),
        }
    }
}
