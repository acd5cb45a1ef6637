//! The behavioural diff in text: the steps both models take alike, one
//! line each with the protocol's outcome ([`brief`]), then the parting
//! step with A's and B's full accounts ([`account`]) side by side.

use super::{answer, differs_in, BehaviourReport, Parting};
use crate::driver::answer_text::side_by_side;
use crate::outcome_text::{account, steps_to, StepStores};
use crate::protocol::{Outcome, ProtocolError};
use crate::replay::ReplayReport;
use std::fmt::Write as _;

/// The readable report; `trace` is where the parting trace was written.
pub fn render(r: &BehaviourReport, trace: Option<&str>) -> String {
    let mut out = String::new();
    let depth = r.depth.map_or_else(|| "full".to_owned(), |d| d.to_string());
    let _ = writeln!(
        out,
        "behaviour: A = {}, B = {}; one action alphabet; lockstep to depth {depth}",
        r.a.name, r.b.name
    );
    let secs = r.elapsed.as_secs_f64();
    let Some(p) = &r.parting else {
        let reached = r.levels.last().map_or(0, |l| l.depth);
        let up_to = r.depth.unwrap_or(reached);
        let _ = writeln!(
            out,
            "no behavioural difference up to depth {up_to} ({} pairs of states in {secs:.2} s{})",
            r.pairs,
            if r.complete {
                "; complete: every reachable pair was explored"
            } else {
                ""
            }
        );
        return out;
    };
    let _ = writeln!(
        out,
        "the outcomes part after {} actions ({} pairs of states in {secs:.2} s):",
        p.actions.len(),
        r.pairs
    );
    let said = |i: usize| answer(&p.replay_a.steps[i].result);
    out.push_str(&steps_to(
        &p.labels,
        p.step(),
        said,
        "← the outcomes part here",
    ));
    let (on_a, on_b) = p.answers();
    let left = lines(&format!("A: {}", r.a.name), on_a, &p.replay_a, p);
    let right = lines(&format!("B: {}", r.b.name), on_b, &p.replay_b, p);
    out.push_str(&side_by_side(&left, &right));
    let _ = writeln!(out, "differs in: {}", differs_in(on_a, on_b));
    if let Some(path) = trace {
        let b_model = r.b.source_or("B.json");
        let _ = writeln!(
            out,
            "wrote {path}; replay it under each model:\n  memtx-check replay {path}\n  memtx-check replay {path} --model {b_model}"
        );
    }
    out
}

/// A side's account of the parting step, title first.
fn lines(
    title: &str,
    answer: &Result<Outcome, ProtocolError>,
    replay: &ReplayReport,
    p: &Parting,
) -> Vec<String> {
    let i = p.step();
    let text = match answer {
        Ok(outcome) => account(
            outcome,
            &StepStores {
                after: &replay.stores[i + 1],
                symbols: &replay.compiled.symbols,
                irreversible_tool: match p.actions[i] {
                    crate::model::Action::ToolCall { tool, .. } => {
                        replay.compiled.invariant_context.is_irreversible(tool)
                    }
                    _ => true,
                },
            },
        ),
        Err(e) => format!("refused: {e}\n"),
    };
    std::iter::once(title.to_owned())
        .chain(text.lines().map(str::to_owned))
        .collect()
}
