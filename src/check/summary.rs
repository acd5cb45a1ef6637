//! What a check writes: `growth.csv` (one row per depth), the series of
//! `growth.svg`, `coverage.csv` (one row per protocol branch) and
//! `summary.json`, through serialize-only wire types kept apart from the
//! logic, and the short human summary printed on stdout.

use super::{CheckReport, Outcome, PropertyOutcome};
use crate::build_info::BuildInfo;
use crate::config::{ExpectCoverage, ModelConfig};
use crate::engine::{MemoryLimit, Stopped};
use crate::human;
use crate::model::coverage::Coverage;
use crate::model::PropertyKind;
use crate::outputs::GrowthSeries;
use crate::protocol::Variant;
use serde::Serialize;
use std::fmt::Write as _;

/// The exact header of `growth.csv` (DESIGN.md "Bounded enumeration").
pub const GROWTH_HEADER: [&str; 6] = [
    "depth",
    "new_states",
    "total_states",
    "transitions",
    "total_transitions",
    "elapsed_ms",
];

/// `growth.csv`: one row per depth 0..=D.
pub fn growth_csv(report: &CheckReport) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(GROWTH_HEADER)?;
    for l in &report.levels {
        w.write_record([
            l.depth.to_string(),
            l.new_states.to_string(),
            l.total_states.to_string(),
            l.transitions.to_string(),
            l.total_transitions.to_string(),
            l.elapsed_ms.to_string(),
        ])?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// The exact header of `coverage.csv` (DESIGN.md "Bounded enumeration").
pub const COVERAGE_HEADER: [&str; 3] = ["branch", "transitions", "first_depth"];

/// `coverage.csv`: one row per branch, the same rows in the same order for
/// every model; `first_depth` empty when unreached.
pub fn coverage_csv(coverage: &Coverage) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COVERAGE_HEADER)?;
    for b in &coverage.branches {
        w.write_record([
            b.name.to_owned(),
            b.transitions.to_string(),
            b.first_depth.map_or(String::new(), |d| d.to_string()),
        ])?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// The exact header of `coverage-depths.csv`.
pub const COVERAGE_DEPTHS_HEADER: [&str; 3] = ["depth", "branch", "transitions"];

/// `coverage-depths.csv`: per depth, every branch some transition of that
/// depth took and how many did (depths ascending, branches in
/// `coverage.csv`'s order), so that two runs of different depths can be
/// compared branch by branch on the depths both explored. `None` when the
/// counts per depth are not known (a run resumed from a checkpoint of an
/// older build).
pub fn coverage_depths_csv(coverage: &Coverage) -> Option<Result<Vec<u8>, csv::Error>> {
    if !coverage.has_depths() {
        return None;
    }
    let deepest = coverage
        .branches
        .iter()
        .filter_map(|b| b.by_depth.as_ref().map(Vec::len))
        .max()
        .unwrap_or(0);
    let write = || {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(COVERAGE_DEPTHS_HEADER)?;
        for depth in 0..deepest {
            for b in &coverage.branches {
                let n = b.by_depth.as_ref().and_then(|d| d.get(depth)).copied();
                if let Some(n) = n.filter(|&n| n > 0) {
                    w.write_record([depth.to_string(), b.name.to_owned(), n.to_string()])?;
                }
            }
        }
        w.into_inner().map_err(|e| e.into_error().into())
    };
    Some(write())
}

/// Coverage in summary.json (and random-summary.json).
#[derive(Serialize)]
pub struct CoverageJson {
    reached: usize,
    branches: usize,
    unreached: Vec<&'static str>,
    /// `expect.coverage` as written: `"all"` or the branch names.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<serde_json::Value>,
    /// The expected branches no transition took.
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<Vec<String>>,
}

impl CoverageJson {
    pub fn of(coverage: &Coverage, expect: Option<&ExpectCoverage>) -> Self {
        CoverageJson {
            reached: coverage.reached(),
            branches: coverage.branches.len(),
            unreached: coverage.unreached(),
            expected: expect.map(|e| match e {
                ExpectCoverage::All => serde_json::Value::from("all"),
                ExpectCoverage::Branches(names) => serde_json::Value::from(names.clone()),
            }),
            missing: expect.map(|e| coverage.missing(e)),
        }
    }
}

/// `coverage: N of M branches` and the unreached ones, a line each; with
/// `(union)` after it for a suite.
pub fn coverage_lines(coverage: &Coverage, suffix: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "coverage: {} of {} branches{suffix}",
        coverage.reached(),
        coverage.branches.len()
    );
    let unreached = coverage.unreached();
    if !unreached.is_empty() {
        let _ = writeln!(out, "  unreached: {}", unreached.join(", "));
    }
    out
}

/// The run's growth for `growth.svg`: new states and transitions per
/// depth.
pub fn growth_series(report: &CheckReport) -> GrowthSeries {
    GrowthSeries {
        name: report.config.name.clone(),
        levels: report
            .levels
            .iter()
            .map(|l| (l.depth, l.new_states, l.transitions))
            .collect(),
    }
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    model: &'a str,
    description: &'a str,
    /// The build that ran the check (`src/build_info.rs`).
    build: BuildInfo,
    bounds: BoundsJson,
    variant: serde_json::Value,
    states: u64,
    transitions: u64,
    /// The last level added no new state: the whole space was explored.
    complete: bool,
    deepest_level: usize,
    /// The invariants judged (`--properties`), comma-separated.
    selected: String,
    properties: Vec<PropertyJson<'a>>,
    companions_reached: usize,
    companions_total: usize,
    coverage: CoverageJson,
    as_expected: bool,
    counterexamples: Vec<CounterexampleJson>,
    threads: usize,
    elapsed_ms: u128,
    collision_probability: CollisionJson,
    /// Present when the run stopped before its bound: why, and from which
    /// depth on nothing was explored.
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<StoppedJson>,
    /// Present for a `--disk` run: the bytes it wrote to and read from
    /// its folder (docs/disk.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    disk: Option<DiskJson>,
    /// Present under `--symmetry`: `states` and `transitions` then count
    /// canonical states (classes) and the transitions out of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    symmetry: Option<SymmetryJson>,
}

#[derive(Serialize)]
struct DiskJson {
    written_bytes: u64,
    read_bytes: u64,
}

#[derive(Serialize)]
struct SymmetryJson {
    /// What a class's states differ by.
    renames: &'static str,
    /// What `states` counts.
    states: &'static str,
    /// The most states of the unreduced model one class can hold (the
    /// orderings of the transaction bound): the reduction factor's bound.
    /// The exact factor needs the unreduced count, from a run without
    /// symmetry.
    reduction_factor_at_most: u64,
}

/// The most states one class can hold: `transactions!` (saturating).
pub fn reduction_bound(transactions: usize) -> u64 {
    (1..=transactions as u64).fold(1u64, |f, k| f.saturating_mul(k))
}

#[derive(Serialize, Default)]
struct StoppedJson {
    reason: &'static str,
    /// The first depth not explored.
    depth: Option<usize>,
    needed_bytes: Option<u64>,
    max_memory_bytes: Option<u64>,
    /// `memory_bound`: the bound passed, `max_memory` (`needed_bytes` of
    /// resident memory, past `max_memory_bytes`) or `address_space`
    /// (`needed_bytes` of address space, past `address_space_bytes`,
    /// what `ulimit -v`/`-d` leave the run).
    #[serde(skip_serializing_if = "Option::is_none")]
    bound: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address_space_bytes: Option<u64>,
    /// `memory_bound`: the disk a `--disk` run would need (docs/disk.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    disk_needed_bytes: Option<u64>,
    /// `write_failed`: the file that could not be written, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct BoundsJson {
    records: usize,
    transactions: usize,
    depth: String,
}

#[derive(Serialize)]
struct PropertyJson<'a> {
    name: &'a str,
    kind: &'static str,
    verdict: &'static str,
    /// Actions in a shortest counterexample or example.
    depth: Option<usize>,
    /// For a violated invariant, the clause its shortest counterexample
    /// breaks.
    clause: Option<&'static str>,
    expected: Option<&'static str>,
    /// The clause the configuration expects a violation to break.
    expected_clause: Option<&'static str>,
    /// The length the configuration expects a shortest counterexample to
    /// have.
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_depth: Option<usize>,
    as_expected: bool,
}

#[derive(Serialize)]
struct CounterexampleJson {
    property: &'static str,
    clause: &'static str,
    depth: usize,
    trace: String,
    itf: String,
}

#[derive(Serialize)]
struct CollisionJson {
    /// TLC's optimistic estimate: states · (transitions − states) / 2^bits.
    tlc_optimistic: f64,
    /// The birthday bound for this many distinct fingerprints:
    /// n(n−1)/2^(bits+1).
    birthday: f64,
    /// The fingerprint width the run used (64 or 128).
    fingerprint_bits: u32,
}

/// Where a trace and its ITF twin were written (a counterexample's, a
/// random walk's failure, a conformance departure's), in report order.
pub struct Written {
    pub trace: String,
    pub itf: String,
}

/// `summary.json`.
pub fn summary_json(report: &CheckReport, written: &[Written]) -> String {
    let config = &report.config;
    let properties = report.properties.iter().map(property_json).collect();
    let summary = SummaryJson {
        model: &config.name,
        description: &config.description,
        build: BuildInfo::this(),
        bounds: BoundsJson {
            records: config.bounds.records,
            transactions: config.bounds.transactions,
            depth: config.bounds.depth.to_string(),
        },
        variant: config.to_json()["variant"].clone(),
        states: report.unique_states,
        transitions: report.transitions,
        complete: report.complete,
        deepest_level: report.levels.last().map_or(0, |l| l.depth),
        selected: report.model.spec.context().selection().names(),
        properties,
        companions_reached: report.companions_reached(),
        companions_total: report.companions().count(),
        coverage: CoverageJson::of(&report.coverage, config.expect.coverage.as_ref()),
        as_expected: report.as_expected(),
        counterexamples: report
            .counterexamples
            .iter()
            .zip(written)
            .map(|(c, w)| CounterexampleJson {
                property: c.invariant.name(),
                clause: c.clause,
                depth: c.depth,
                trace: w.trace.clone(),
                itf: w.itf.clone(),
            })
            .collect(),
        threads: report.threads,
        elapsed_ms: report.elapsed.as_millis(),
        collision_probability: CollisionJson {
            tlc_optimistic: report.collision_probability,
            birthday: report.collision_probability_birthday,
            fingerprint_bits: report.fingerprint_bits,
        },
        stopped: report.stopped.as_ref().map(stopped_json),
        disk: report.disk_io.map(|io| DiskJson {
            written_bytes: io.written,
            read_bytes: io.read,
        }),
        symmetry: config.symmetry.then(|| SymmetryJson {
            renames: "transaction ids",
            states: "canonical: one per class of states equal up to a renaming of transaction ids",
            reduction_factor_at_most: reduction_bound(config.bounds.transactions),
        }),
    };
    let mut text = serde_json::to_string_pretty(&summary).expect("plain data serialises");
    text.push('\n');
    text
}

fn stopped_json(stopped: &Stopped) -> StoppedJson {
    match stopped {
        &Stopped::MemoryBound {
            depth,
            needed,
            limit,
            by,
            disk_needed,
        } => {
            let space = by == MemoryLimit::AddressSpace;
            StoppedJson {
                reason: "memory_bound",
                depth: Some(depth),
                needed_bytes: Some(needed),
                max_memory_bytes: (!space).then_some(limit),
                bound: Some(if space { "address_space" } else { "max_memory" }),
                address_space_bytes: space.then_some(limit),
                disk_needed_bytes: disk_needed,
                ..StoppedJson::default()
            }
        }
        Stopped::LevelLimit => StoppedJson {
            reason: "level_limit",
            ..StoppedJson::default()
        },
        Stopped::WriteFailed { depth, error } => StoppedJson {
            reason: "write_failed",
            depth: Some(*depth),
            error: Some(error.clone()),
            ..StoppedJson::default()
        },
    }
}

/// Why the run stopped early, in one sentence, if it did.
pub fn stopped_line(report: &CheckReport) -> Option<String> {
    let deepest = report.levels.last().map_or(0, |l| l.depth);
    Some(match report.stopped.as_ref()? {
        Stopped::MemoryBound {
            depth,
            needed,
            limit,
            by,
            disk_needed,
        } => format!(
            "stopped before depth {depth}: exploring it needs about {}, more than {}{}; depths 0..={} are complete and checked, the bound was NOT reached",
            human::bytes(*needed),
            match by {
                MemoryLimit::MaxMemory => format!("--max-memory {}", human::bytes(*limit)),
                MemoryLimit::AddressSpace => format!(
                    "the {} of address space the address-space limit (ulimit -v/-d) leaves it",
                    human::bytes(*limit)
                ),
            },
            disk_needed.map_or(String::new(), |d| format!(
                "; a --disk run would need at most about {} of disk",
                human::bytes(d)
            )),
            depth - 1
        ),
        Stopped::LevelLimit => format!(
            "stopped after {} levels (--max-levels): depths 0..={deepest} were discovered, the bound was NOT reached",
            report.levels.len()
        ),
        Stopped::WriteFailed { depth: 0, error } => format!(
            "stopped at depth 0: {error}; no depth is complete, the bound was NOT reached"
        ),
        Stopped::WriteFailed { depth, error } => format!(
            "stopped before depth {depth}: {error}; depths 0..={} are complete and checked, the bound was NOT reached",
            depth - 1
        ),
    })
}

fn property_json(p: &PropertyOutcome) -> PropertyJson<'_> {
    PropertyJson {
        name: p.name,
        kind: p.kind.label(),
        verdict: p.outcome.name(),
        depth: p.outcome.depth(),
        clause: p.clause,
        expected: p.expected.map(|e| e.name()),
        expected_clause: p.expected.and_then(|e| e.clause()),
        expected_depth: p.expected.and_then(|e| e.depth()),
        as_expected: p.as_expected(),
    }
}

/// The short human summary.
pub fn human_summary(report: &CheckReport, written: &[Written]) -> String {
    let c = &report.config;
    let mut out = String::new();
    let variant = variant_label(c);
    let _ = writeln!(
        out,
        "model {} — {} records, {} transactions, depth {}; variant: {variant}",
        c.name, c.bounds.records, c.bounds.transactions, c.bounds.depth
    );
    let secs = report.elapsed.as_secs_f64();
    let _ = writeln!(
        out,
        "explored {} {}states and {} transitions to depth {} in {} with {} thread{} ({} states/s); {}",
        human::count(report.unique_states),
        if c.symmetry { "canonical " } else { "" },
        human::count(report.transitions),
        report.levels.last().map_or(0, |l| l.depth),
        human::duration(report.elapsed),
        report.threads,
        if report.threads == 1 { "" } else { "s" },
        human::rate(report.unique_states as f64 / secs.max(1e-9)),
        if report.complete {
            "complete: the last level added no state, so this covers every reachable state"
        } else if report.stopped.is_some() {
            "stopped early (see below)"
        } else {
            "bounded: deeper states exist"
        }
    );
    if let Some(line) = stopped_line(report) {
        let _ = writeln!(out, "{line}");
    }
    if c.symmetry {
        let _ = writeln!(
            out,
            "symmetry: one canonical state per class of states equal up to a renaming of transaction ids; a class holds at most {}! = {} states, so the reduction factor is at most {}, and a run without --symmetry counts the unreduced states exactly",
            c.bounds.transactions,
            reduction_bound(c.bounds.transactions),
            reduction_bound(c.bounds.transactions)
        );
    }
    for p in report.invariants() {
        let PropertyKind::Invariant(inv) = p.kind else {
            continue;
        };
        let verdict = match p.outcome {
            Outcome::Violated { depth } => {
                let file = report
                    .counterexamples
                    .iter()
                    .position(|x| x.invariant == inv)
                    .and_then(|i| written.get(i))
                    .map_or(String::new(), |w| format!(" → {}", w.trace));
                let clause = p.clause.map_or(String::new(), |c| format!(" [{c}]"));
                format!("VIOLATED{clause} (shortest counterexample: {depth} steps){file}")
            }
            other => other.name().to_owned(),
        };
        // An expectation the block does not write (holds) is shown only
        // when it is not met.
        let written = report.config.expect.get(inv).is_some();
        let expectation = match p.expected {
            Some(e) if p.as_expected() && written => format!("  (expected: {})", e.describe()),
            Some(_) if p.as_expected() => String::new(),
            Some(e) if written => format!("  (UNEXPECTED: expected {})", e.describe()),
            Some(e) => format!(
                "  (UNEXPECTED: expected {}, as every property expect does not name)",
                e.describe()
            ),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  {:<18} {:<44} {verdict}{expectation}",
            inv.name(),
            inv.title()
        );
    }
    let _ = writeln!(
        out,
        "companions reached: {} of {}",
        report.companions_reached(),
        report.companions().count()
    );
    for p in report.companions() {
        let what = match p.outcome {
            Outcome::Reached { depth } => format!("reached at depth {depth}"),
            _ => "NOT REACHED — the invariants it guards may be vacuous here".to_owned(),
        };
        let _ = writeln!(
            out,
            "  - {:<32} {what} (guards {})",
            p.name,
            p.kind.concerns()
        );
    }
    out.push_str(&coverage_lines(&report.coverage, ""));
    let missing = report.coverage_missing();
    if !missing.is_empty() {
        let _ = writeln!(
            out,
            "  UNEXPECTED: expect.coverage names branches not reached: {}",
            missing.join(", ")
        );
    }
    if let Some(io) = report.disk_io {
        let per_state = |b: u64| b as f64 / report.unique_states.max(1) as f64;
        let _ = writeln!(
            out,
            "disk: wrote {} and read {} ({:.0} and {:.0} bytes a state)",
            human::bytes(io.written),
            human::bytes(io.read),
            per_state(io.written),
            per_state(io.read)
        );
    }
    let _ = writeln!(
        out,
        "fingerprint collision probability ({}-bit): {:.1e} (TLC's optimistic estimate), {:.1e} (birthday bound)",
        report.fingerprint_bits, report.collision_probability, report.collision_probability_birthday
    );
    if report.fingerprint_bits == 64 && report.collision_probability_birthday > HINT_ABOVE {
        let _ = writeln!(
            out,
            "hint: above {HINT_ABOVE:.0e}; --fingerprint 128 makes a collision negligible (16 bytes a state instead of 8)"
        );
    }
    out
}

/// The collision probability past which the summary suggests 128-bit
/// fingerprints.
pub const HINT_ABOVE: f64 = 1e-6;

/// The variant in a few words: the authors' code, or each switch that
/// differs from it as `key=value`, keys and values spelled and ordered as
/// in summary.json's `variant`.
fn variant_label(config: &ModelConfig) -> String {
    let mut authors = config.clone();
    authors.variant = Variant::default();
    let theirs = authors.to_json()["variant"].clone();
    let ours = config.to_json()["variant"].clone();
    let parts: Vec<String> = ours
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| theirs.get(k.as_str()) != Some(v))
        .map(|(k, v)| format!("{k}={}", v.to_string().replace('"', "")))
        .collect();
    if parts.is_empty() {
        return "the authors' code (defaults)".to_owned();
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        LaunderingParents, Mechanism, SameSourceTie, StaleCheckEmptySnapshot, ToolBasis,
    };

    /// The label of the default model with variant `v`.
    fn label(v: Variant) -> String {
        let mut config = ModelConfig::parse("{}", "default.json").expect("the empty model parses");
        config.variant = v;
        variant_label(&config)
    }

    #[test]
    fn the_variant_label_names_what_differs_from_the_authors_code() {
        assert_eq!(label(Variant::default()), "the authors' code (defaults)");
        let mut v = Variant::default()
            .without(Mechanism::Cascade)
            .without(Mechanism::Gate);
        v.same_source_tie = SameSourceTie::Review;
        v.tool_basis = ToolBasis::Snapshot;
        assert_eq!(
            label(v),
            "ablate=[gate,cascade], same_source_tie=review, tool_basis=snapshot"
        );
    }

    #[test]
    fn the_variant_label_reads_as_summary_json_spells_the_variant() {
        // Written out here, not recomputed from summary.json's object the
        // way the label is made, so that this test can fail.
        for a in Mechanism::ALL {
            let v = Variant::default().without(a);
            assert_eq!(label(v), format!("ablate=[{}]", a.name()), "{v:?}");
        }
        let mut v = Variant::default();
        v.laundering_parents = LaunderingParents::Any;
        assert_eq!(label(v), "laundering_parents=any");
        let mut v = Variant::default();
        v.stale_check_empty_snapshot = StaleCheckEmptySnapshot::Apply;
        assert_eq!(label(v), "stale_check_empty_snapshot=apply");
        let mut all = Variant::default();
        for a in Mechanism::ALL {
            all = all.without(a);
        }
        all.laundering_parents = LaunderingParents::Any;
        all.same_source_tie = SameSourceTie::Review;
        all.stale_check_empty_snapshot = StaleCheckEmptySnapshot::Apply;
        all.tool_basis = ToolBasis::Snapshot;
        assert_eq!(
            label(all),
            "ablate=[gate,evidence,validity,conflict,permission_inheritance,\
             dependency_stability,cascade,typed_repair], laundering_parents=any, \
             same_source_tie=review, stale_check_empty_snapshot=apply, tool_basis=snapshot"
        );
    }
}
