//! The behavioural diff of two builds in text: who the two builds are, how
//! far the walk went and at what speed, then — where they part — every
//! step both take alike on one line, the parting step's two answers side
//! by side, the decision that changed and every differing field.

use super::walk::{BuildsReport, Parting};
use crate::driver::answer_text::{account, brief, side_by_side};
use crate::driver::compare::decision_change;
use crate::outcome_text::steps_to;
use serde_json::Value;
use std::fmt::Write as _;

/// The readable report; `trace` is where the parting trace was written.
pub fn render(r: &BuildsReport, trace: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "behaviour across builds: {} ({}), lockstep to depth {}",
        r.config.name,
        r.config.source_or("inline"),
        r.depth
    );
    let _ = writeln!(out, "  before: {} — {}", r.other.shown, other_build(r));
    let _ = writeln!(out, "  now:    this build — {}", r.this_build.describe());
    let speed = format!(
        "{} transitions checked, {} steps through the driver in {:.2} s ({:.0} steps/s)",
        r.transitions_checked,
        r.steps,
        r.elapsed.as_secs_f64(),
        r.steps_per_second()
    );
    let Some(p) = &r.parting else {
        let reached = r.levels.last().map_or(0, |l| l.depth);
        if let Some(m) = &r.stopped {
            let _ = writeln!(
                out,
                "inconclusive: the walk would need {} of memory gathering the traces out of depth {}, more than the bound of {}; no behavioural difference up to depth {reached} ({} states; {speed}) (--depth smaller, or more memory)",
                crate::human::bytes(m.needed),
                m.depth,
                crate::human::bytes(m.limit),
                r.levels.last().map_or(0, |l| l.total_states),
            );
            return out;
        }
        let _ = writeln!(
            out,
            "no behavioural difference up to depth {reached} ({} states; {speed}{})",
            r.levels.last().map_or(0, |l| l.total_states),
            if r.complete {
                "; complete: every reachable store was walked"
            } else {
                ""
            }
        );
        return out;
    };
    let _ = writeln!(
        out,
        "the builds part after {} steps ({speed}):",
        p.steps.len()
    );
    let last = p.steps.len() - 1;
    let said = |i: usize| brief(&p.now[i]);
    out.push_str(&steps_to(&p.labels, last, said, "← the builds part here"));
    let left = account("before", &p.before[last]);
    let right = account("now", &p.now[last]);
    out.push_str(&side_by_side(&left, &right));
    out.push_str(&differences(p));
    if let Some(path) = trace {
        let _ = writeln!(
            out,
            "wrote {path}; replay it with each build:\n  memtx-check replay {path}\n  {} replay {path}",
            r.other.program
        );
    }
    out
}

/// What the other build says it is.
fn other_build(r: &BuildsReport) -> String {
    let Some(b) = &r.other_build else {
        return "says nothing of its build".to_owned();
    };
    let field = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
    let mut text = format!("{} {}", field("name"), field("version"));
    let commit = field("commit");
    if !commit.is_empty() {
        text.push_str(&format!(
            " (commit {}",
            crate::build_info::prefix(commit, 10)
        ));
        if b.get("dirty") == Some(&Value::Bool(true)) {
            text.push_str(", dirty");
        }
        let protocol = field("protocol");
        text.push_str(&format!(
            "; protocol {}",
            crate::build_info::prefix(protocol, 12)
        ));
        let features = field("features");
        if !features.is_empty() {
            text.push_str(&format!("; features {features}"));
        }
        text.push(')');
    }
    text.trim().to_owned()
}

/// The decision and the differing fields at the parting step.
fn differences(p: &Parting) -> String {
    let mut out = String::new();
    let last = p.steps.len() - 1;
    let op = p.steps[last].op_name();
    if let Some(change) = decision_change(&p.before[last], &p.now[last]) {
        let _ = writeln!(out, "differs: step {last} {op}: {change}");
    }
    for d in &p.comparison.differences {
        let _ = writeln!(out, "  {}", d.line("before", "now"));
    }
    out
}
