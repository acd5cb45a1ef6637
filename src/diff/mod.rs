//! Regression checks when the spec changes (DESIGN.md, users' third need):
//! two check results side by side. A changed rule shows up as a changed
//! state space (totals, or the first depth whose level differs), a new
//! violation, a lost one, or a companion reached or lost.
//!
//! A side is a saved check (`reports/NAME/` or its `summary.json`, with
//! `growth.csv` beside it) or a model configuration, checked now. State
//! spaces are compared by their counts, level by level (what a report
//! keeps): two different spaces with equal counts at every depth differ
//! only through their verdicts.

pub mod behaviour;
pub mod builds;
pub mod coverage;
mod load;
pub mod states;

pub use load::{load_side, Level, Side, Verdict};

use crate::build_info::BuildInfo;
use crate::human;
use std::fmt::Write as _;

/// What the two sides disagree on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Differences {
    pub setup: Vec<String>,
    pub state_space: Vec<String>,
    pub verdicts: Vec<String>,
    /// Branches reached or first reached elsewhere, and the branches
    /// whose transition counts moved most.
    pub coverage: Vec<String>,
    /// What is worth knowing but no difference of the results: the
    /// protocol's sources changed between the runs, the depths compared.
    pub notes: Vec<String>,
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.setup.is_empty()
            && self.state_space.is_empty()
            && self.verdicts.is_empty()
            && self.coverage.is_empty()
    }
}

/// Compares side `a` (before) with side `b` (after). When one explored
/// deeper, its set-up and totals are told as they are, and the rest
/// (levels, verdicts, coverage) on the depths both explored: the deeper
/// side is capped to the other's deepest level ([`Side::capped`]), as
/// `ci --max-depth` caps a baseline, so a violation beyond the other's
/// reach is not told as lost.
pub fn compare(a: &Side, b: &Side) -> Differences {
    let cap = a.deepest().min(b.deepest());
    if a.deepest() == b.deepest() {
        return compare_capped(a, b);
    }
    let mut d = compare_capped(&a.capped(cap), &b.capped(cap));
    d.setup = setup_changes(a, b);
    let shared = std::mem::take(&mut d.state_space);
    d.state_space = totals_changes(a, b);
    d.state_space
        .push(format!("levels: {} → {}", a.levels.len(), b.levels.len()));
    if shared.is_empty() {
        d.state_space.push(format!(
            "depths 0..={cap}, the levels both explored: the same, level by level"
        ));
    } else {
        d.state_space
            .extend(shared.into_iter().map(|l| format!("depths 0..={cap}: {l}")));
    }
    d.notes.push(format!(
        "verdicts and coverage compared on depths 0..={cap}, the levels both runs explored"
    ));
    d
}

/// Model, bounds and variant changes.
fn setup_changes(a: &Side, b: &Side) -> Vec<String> {
    let mut setup = Vec::new();
    if a.model != b.model {
        setup.push(format!("model: {} → {}", a.model, b.model));
    }
    if a.bounds != b.bounds {
        setup.push(format!("bounds: {} → {}", a.bounds, b.bounds));
    }
    if a.variant != b.variant {
        setup.push(format!("variant: {} → {}", a.variant, b.variant));
    }
    setup
}

/// State and transition totals that differ.
fn totals_changes(a: &Side, b: &Side) -> Vec<String> {
    [
        ("states", a.states, b.states),
        ("transitions", a.transitions, b.transitions),
    ]
    .into_iter()
    .filter(|(_, x, y)| x != y)
    .map(|(what, x, y)| {
        let (x_text, y_text) = (human::count(x), human::count(y));
        format!("{what}: {x_text} → {y_text} ({})", change(x, y))
    })
    .collect()
}

/// `+1,234` or `-1,234`: `b` less `a`.
fn change(a: u64, b: u64) -> String {
    if b >= a {
        format!("+{}", human::count(b - a))
    } else {
        format!("-{}", human::count(a - b))
    }
}

/// Compares two sides of the same depths.
fn compare_capped(a: &Side, b: &Side) -> Differences {
    let mut d = Differences {
        setup: setup_changes(a, b),
        state_space: totals_changes(a, b),
        ..Differences::default()
    };
    if let Some((la, lb)) = a.levels.iter().zip(&b.levels).find(|(x, y)| x != y) {
        d.state_space.push(format!(
            "first differing level: depth {}: {} new states and {} transitions → {} and {}",
            la.0,
            human::count(la.1),
            human::count(la.3),
            human::count(lb.1),
            human::count(lb.3)
        ));
    } else if a.levels.len() != b.levels.len() {
        d.state_space
            .push(format!("levels: {} → {}", a.levels.len(), b.levels.len()));
    }
    if a.complete != b.complete {
        d.state_space
            .push(format!("complete: {} → {}", a.complete, b.complete));
    }
    d.verdicts = verdict_changes(a, b).into_iter().map(|c| c.line).collect();
    if let (Some(x), Some(y)) = (&a.coverage, &b.coverage) {
        d.coverage = coverage::compare(x, y).lines();
    }
    d.notes
        .extend(protocol_note(a.build.as_ref(), b.build.as_ref()));
    d
}

/// "protocol changed between these runs" when builds `a` and `b` (either
/// may be unknown) have different protocol hashes.
pub fn protocol_note(a: Option<&BuildInfo>, b: Option<&BuildInfo>) -> Option<String> {
    match (a, b) {
        (Some(x), Some(y)) if !x.same_protocol(y) => Some(format!(
            "protocol changed between these runs: {} → {}",
            x.describe(),
            y.describe()
        )),
        _ => None,
    }
}

/// The name of a comparison of `a` and `b`, for its output folder:
/// `A-vs-B` of two models, `NAME-BUILD_A-vs-BUILD_B` of one model run by
/// two builds (`NAME-before-vs-after` where a build is unknown).
pub fn pair_name(a: &Side, b: &Side) -> String {
    if a.model != b.model {
        return format!("{}-vs-{}", a.model, b.model);
    }
    match (&a.build, &b.build) {
        (Some(x), Some(y)) if x.short() != y.short() => {
            format!("{}-{}-vs-{}", a.model, x.short(), y.short())
        }
        (Some(x), Some(_)) => format!("{}-{}", a.model, x.short()),
        _ => format!("{}-before-vs-after", a.model),
    }
}

/// One property whose verdict differs between the sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictChange {
    pub name: String,
    /// `I2: holds → violated [view] at depth 5   ← NEW VIOLATION`.
    pub line: String,
}

impl VerdictChange {
    /// The line without its comment: `I2: holds → violated [view] at
    /// depth 5`.
    pub fn neutral(&self) -> String {
        self.line
            .split("   ← ")
            .next()
            .unwrap_or(&self.line)
            .to_owned()
    }
}

/// Every property whose verdict (or its depth) differs, or that only one
/// side has: A's properties in order, then B's own.
pub fn verdict_changes(a: &Side, b: &Side) -> Vec<VerdictChange> {
    let mut changes = Vec::new();
    for va in &a.properties {
        let line = match b.properties.iter().find(|vb| vb.name == va.name) {
            None => format!("{}: {} → absent", va.name, describe(va)),
            Some(vb)
                if (&va.verdict, va.depth, &va.clause) != (&vb.verdict, vb.depth, &vb.clause) =>
            {
                format!(
                    "{}: {} → {}{}",
                    va.name,
                    describe(va),
                    describe(vb),
                    label(va, vb)
                )
            }
            Some(_) => continue,
        };
        changes.push(VerdictChange {
            name: va.name.clone(),
            line,
        });
    }
    for vb in b
        .properties
        .iter()
        .filter(|vb| a.properties.iter().all(|va| va.name != vb.name))
    {
        changes.push(VerdictChange {
            name: vb.name.clone(),
            line: format!("{}: absent → {}", vb.name, describe(vb)),
        });
    }
    changes
}

fn describe(v: &Verdict) -> String {
    let mut text = v.verdict.clone();
    if let Some(clause) = &v.clause {
        text.push_str(&format!(" [{clause}]"));
    }
    if let Some(depth) = v.depth {
        text.push_str(&format!(" at depth {depth}"));
    }
    text
}

/// What a verdict change means, for the changes that matter most.
fn label(a: &Verdict, b: &Verdict) -> &'static str {
    match (a.verdict.as_str(), b.verdict.as_str()) {
        ("holds", "violated") => "   ← NEW VIOLATION",
        ("violated", "holds") => "   ← violation lost",
        ("reached", "not_reached") => {
            "   ← companion no longer reached: the invariants it guards may be vacuous"
        }
        ("not_reached", "reached") => "   ← companion now reached",
        _ => "",
    }
}

/// The readable report.
pub fn render(a: &Side, b: &Side, d: &Differences) -> String {
    let mut out = String::new();
    for (side, s) in [("before:", a), ("after: ", b)] {
        let states = human::count(s.states);
        let _ = writeln!(
            out,
            "{side} {} — {}, {states} states",
            s.origin,
            s.summary_line()
        );
    }
    for note in &d.notes {
        let _ = writeln!(out, "{note}");
    }
    if d.is_empty() {
        out.push_str("identical: same state space, level by level, and the same verdicts\n");
        return out;
    }
    for (title, lines) in [
        ("set-up", &d.setup),
        ("state space", &d.state_space),
        ("verdicts", &d.verdicts),
        ("coverage", &d.coverage),
    ] {
        if !lines.is_empty() {
            let _ = writeln!(out, "{title}:");
            for l in lines.iter() {
                let _ = writeln!(out, "  {l}");
            }
        }
    }
    if d.verdicts.is_empty() {
        out.push_str(if d.state_space.is_empty() {
            "same verdicts and state space; the branches taken changed\n"
        } else {
            "same verdicts; the state space changed\n"
        });
    }
    out
}

#[cfg(test)]
mod tests;
