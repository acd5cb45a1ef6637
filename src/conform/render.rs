//! A conformance run in text: what was driven with what, how much at what
//! speed, the fields compared and those left out, then either the
//! agreement (per branch for the branch suite) or each kind of departure:
//! its shrunk trace one step a line, the departing step's two answers side
//! by side, the decision that differs and every differing field path
//! (`records[2].state: model quarantined, implementation committed`).

use super::{ConformReport, Divergence, Suite};
use crate::driver::answer_text::{account, brief, side_by_side};
use crate::driver::compare::decision_change;
use crate::human;
use crate::outcome_text::steps_to;
use std::fmt::Write as _;

/// The suite as given: `branches to depth 7`, `random: 100 walks of at
/// most 20 steps, seed 0`.
pub fn suite_line(r: &ConformReport) -> String {
    match r.suite {
        Suite::Branches { depth } => format!(
            "branches to depth {}",
            depth.map_or_else(|| "full".to_owned(), |d| d.to_string())
        ),
        Suite::Transitions { depth } => format!("transitions to depth {depth}"),
        Suite::Random { walks, steps, seed } => {
            format!("random: {walks} walks of at most {steps} steps, seed {seed}")
        }
    }
}

/// The readable report; `written[k]` is where divergence `k`'s trace went.
pub fn render(r: &ConformReport, written: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "conform: {} ({}), suite {}, driver `{}`{}",
        r.config.name,
        r.config.source_or("inline"),
        suite_line(r),
        r.driver,
        implementation(r)
    );
    let _ = writeln!(
        out,
        "  {} traces, {} steps sent in {} ({} steps/s; the traces cut in {}, {} in all)",
        human::count(r.traces.traces.len() as u64),
        human::count(r.steps),
        human::duration(r.driving),
        human::rate(r.steps_per_second()),
        human::duration(r.cutting),
        human::duration(r.elapsed)
    );
    if let Some(w) = r.traces.walked {
        if matches!(r.suite, Suite::Branches { .. }) {
            let _ = writeln!(
                out,
                "  {} of {} branches reached within {} actions ({} states{}){}",
                r.traces.covers.len(),
                r.traces.covers.len() + r.traces.unreached.len(),
                w.depth,
                human::count(w.states),
                if w.complete { ", every one" } else { "" },
                if r.traces.unreached.is_empty() {
                    String::new()
                } else {
                    format!("; not reached: {}", r.traces.unreached.join(", "))
                }
            );
        }
    }
    let this = crate::build_info::BuildInfo::this();
    let theirs = r
        .implementation
        .as_ref()
        .and_then(|i| i.get("protocol"))
        .and_then(|p| p.as_str());
    if theirs == Some(this.protocol.as_str()) {
        let _ = writeln!(
            out,
            "  note: the driver reports this build's own protocol sources ({}): {}",
            this.protocol_short(),
            if r.agrees() {
                "it agrees by construction"
            } else {
                "yet it departs, so something alters its answers on the way"
            }
        );
    }
    let list =
        |s: &std::collections::BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
    let _ = writeln!(out, "  fields compared: {}", list(&r.fields.compared));
    if !r.fields.not_compared.is_empty() {
        let _ = writeln!(
            out,
            "  not compared (one side leaves them out): {}",
            list(&r.fields.not_compared)
        );
    }
    if r.agrees() {
        let what = match r.suite {
            Suite::Branches { .. } => format!("on all {} branches", r.traces.covers.len()),
            _ => format!("on all {} traces", r.traces.traces.len()),
        };
        let _ = writeln!(
            out,
            "agrees {what}: every step answered as the model answers it"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "departs from the model on {} of {} traces, {} kind{} of departure{}",
        r.departed(),
        r.traces.traces.len(),
        r.divergences.len() + usize::from(r.unshrunk > 0),
        if r.divergences.len() == 1 && r.unshrunk == 0 {
            ""
        } else {
            "s"
        },
        if r.unshrunk > 0 {
            format!(
                " ({} traces of kinds past the first {} are not shrunk)",
                r.unshrunk,
                super::MAX_SHRUNK
            )
        } else {
            String::new()
        }
    );
    if matches!(r.suite, Suite::Branches { .. }) {
        let failing: Vec<&str> = r
            .traces
            .covers
            .iter()
            .filter(|c| !r.covered(c))
            .map(|c| c.branch)
            .collect();
        let _ = writeln!(
            out,
            "  branches departing: {} of {} ({})",
            failing.len(),
            r.traces.covers.len(),
            failing.join(", ")
        );
    }
    for (k, d) in r.divergences.iter().enumerate() {
        out.push_str(&divergence(k, d, written.get(k).map(String::as_str)));
    }
    out
}

fn implementation(r: &ConformReport) -> String {
    let Some(i) = &r.implementation else {
        return String::new();
    };
    let field = |k: &str| i.get(k).and_then(|v| v.as_str()).unwrap_or("");
    let text = format!("{} {}", field("name"), field("version"));
    if text.trim().is_empty() {
        String::new()
    } else {
        format!(" ({})", text.trim())
    }
}

fn divergence(k: usize, d: &Divergence, written: Option<&str>) -> String {
    let mut out = String::new();
    let fields: Vec<&str> = d.kind.fields.iter().map(String::as_str).collect();
    let shown: Vec<String> = d.traces.iter().take(8).map(|t| t.to_string()).collect();
    let _ = writeln!(
        out,
        "divergence {}: at a step `{}`, in {} ({} trace{}: {}{}); shrunk from {} to {} steps",
        k + 1,
        d.kind.op,
        fields.join(", "),
        d.traces.len(),
        if d.traces.len() == 1 { "" } else { "s" },
        shown.join(", "),
        if d.traces.len() > 8 { ", …" } else { "" },
        d.original_steps,
        d.actions.len()
    );
    let last = d.departure.step;
    let said = |i: usize| brief(&d.answers[i]);
    out.push_str(&steps_to(&d.labels, last, said, "← departs here"));
    out.push_str(&side_by_side(
        &account("model", &d.departure.model),
        &account("implementation", &d.departure.implementation),
    ));
    if let Some(change) = decision_change(&d.departure.model, &d.departure.implementation) {
        let change = change
            .replace("before ", "model ")
            .replace("; now ", "; implementation ")
            .replace(", now ", ", implementation ");
        let _ = writeln!(out, "differs: step {last} {}: {change}", d.kind.op);
    }
    for f in &d.departure.comparison.differences {
        let _ = writeln!(out, "  {}", f.line("model", "implementation"));
    }
    if let Some(path) = written {
        let _ = writeln!(out, "wrote {path}; replay it:\n  memtx-check replay {path}");
    }
    out
}
