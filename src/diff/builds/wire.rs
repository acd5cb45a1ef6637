//! `behaviour.json` of a diff across builds, for programs (serialize-only
//! wire types, `"kind": "builds"`): the model, the depth, both builds, the
//! walk's size and speed, the memory guard's stop if it stopped the walk,
//! and the parting with both builds' answer to
//! every step and the differing fields of the last, or `null`.

use super::walk::BuildsReport;
use crate::build_info::BuildInfo;
use crate::driver::compare::decision_change;
use serde::Serialize;
use serde_json::Value;

/// The format's version.
const FORMAT: u32 = 1;

#[derive(Serialize)]
struct BuildsJson<'a> {
    format: u32,
    kind: &'static str,
    model: &'a str,
    depth: usize,
    before: BeforeJson<'a>,
    now: &'a BuildInfo,
    states: u64,
    transitions_checked: u64,
    driver_steps: u64,
    driver_resets: u64,
    steps_per_second: f64,
    complete: bool,
    /// The memory guard stopped the walk: no parting up to the last level
    /// compared, nothing concluded beyond it.
    memory_bound: Option<MemoryBoundJson>,
    elapsed_ms: u128,
    parted: Option<PartedJson<'a>>,
}

#[derive(Serialize)]
struct MemoryBoundJson {
    /// The depth whose states' traces were being gathered.
    depth: usize,
    needed_bytes: u64,
    limit_bytes: u64,
}

#[derive(Serialize)]
struct BeforeJson<'a> {
    /// The command that served it.
    driver: String,
    build: Option<&'a Value>,
}

#[derive(Serialize)]
struct PartedJson<'a> {
    /// The parting step, 0-based as in replay.
    step: usize,
    actions: &'a [String],
    /// Each step's answer from the other build and from this one.
    before: &'a [Value],
    now: &'a [Value],
    decision: Option<String>,
    differences: Vec<DifferenceJson<'a>>,
    trace: Option<&'a str>,
}

#[derive(Serialize)]
struct DifferenceJson<'a> {
    path: &'a str,
    before: &'a Option<Value>,
    now: &'a Option<Value>,
}

/// `behaviour.json`; `trace` is where the parting trace was written.
pub fn builds_json(r: &BuildsReport, trace: Option<&str>) -> String {
    let parted = r.parting.as_ref().map(|p| {
        let last = p.steps.len() - 1;
        PartedJson {
            step: last,
            actions: &p.labels,
            before: &p.before,
            now: &p.now,
            decision: decision_change(&p.before[last], &p.now[last]),
            differences: p
                .comparison
                .differences
                .iter()
                .map(|d| DifferenceJson {
                    path: &d.path,
                    before: &d.before,
                    now: &d.now,
                })
                .collect(),
            trace,
        }
    });
    let json = BuildsJson {
        format: FORMAT,
        kind: "builds",
        model: &r.config.name,
        depth: r.depth,
        before: BeforeJson {
            driver: std::iter::once(r.other.program.as_str())
                .chain(r.other.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            build: r.other_build.as_ref(),
        },
        now: &r.this_build,
        states: r.levels.last().map_or(0, |l| l.total_states),
        transitions_checked: r.transitions_checked,
        driver_steps: r.steps,
        driver_resets: r.resets,
        steps_per_second: r.steps_per_second().round(),
        complete: r.complete,
        memory_bound: r.stopped.map(|m| MemoryBoundJson {
            depth: m.depth,
            needed_bytes: m.needed,
            limit_bytes: m.limit,
        }),
        elapsed_ms: r.elapsed.as_millis(),
        parted,
    };
    let mut text = serde_json::to_string_pretty(&json).expect("plain data serialises");
    text.push('\n');
    text
}
