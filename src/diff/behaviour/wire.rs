//! `behaviour.json`, the behavioural diff for programs (serialize-only
//! wire types): the two models, the depth, the pairs of states explored,
//! and the parting step with both answers, or `null`.

use super::{answer, differs_in, BehaviourReport};
use serde::Serialize;

#[derive(Serialize)]
struct BehaviourJson<'a> {
    a: &'a str,
    b: &'a str,
    /// The depth bound, or `full`.
    depth: String,
    pairs: u64,
    complete: bool,
    elapsed_ms: u128,
    parted: Option<PartedJson<'a>>,
}

#[derive(Serialize)]
struct PartedJson<'a> {
    /// The parting step, 0-based as in replay; the trace has `step + 1`
    /// steps.
    step: usize,
    actions: &'a [String],
    a: String,
    b: String,
    differs_in: String,
    trace: Option<&'a str>,
}

/// `behaviour.json`; `trace` is where the parting trace was written.
pub fn behaviour_json(r: &BehaviourReport, trace: Option<&str>) -> String {
    let parted = r.parting.as_ref().map(|p| {
        let (on_a, on_b) = p.answers();
        PartedJson {
            step: p.step(),
            actions: &p.labels,
            a: answer(on_a),
            b: answer(on_b),
            differs_in: differs_in(on_a, on_b),
            trace,
        }
    });
    let json = BehaviourJson {
        a: &r.a.name,
        b: &r.b.name,
        depth: r.depth.map_or_else(|| "full".to_owned(), |d| d.to_string()),
        pairs: r.pairs,
        complete: r.complete,
        elapsed_ms: r.elapsed.as_millis(),
        parted,
    };
    let mut text = serde_json::to_string_pretty(&json).expect("plain data serialises");
    text.push('\n');
    text
}
