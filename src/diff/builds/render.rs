//! The behavioural diff of two builds in text: who the two builds are, how
//! far the walk went and at what speed, then — where they part — every
//! step both take alike on one line, the parting step's two answers side
//! by side, the decision that changed and every differing field.

use super::walk::{BuildsReport, Parting};
use crate::driver::compare::{
    as_list, decision_change, id_set as ids, text, verdict_text as verdict,
};
use serde_json::Value;
use std::fmt::Write as _;

/// The readable report; `trace` is where the parting trace was written.
pub fn render(r: &BuildsReport, trace: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "behaviour across builds: {} ({}), lockstep to depth {}",
        r.config.name,
        r.config
            .source_path
            .as_deref()
            .map_or_else(|| "inline".to_owned(), |p| p.display().to_string()),
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
    let width = p
        .labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let last = p.steps.len() - 1;
    for (i, label) in p.labels.iter().enumerate().take(last) {
        let _ = writeln!(out, "step {i:<2} {label:<width$}  {}", brief(&p.now[i]));
    }
    let _ = writeln!(
        out,
        "step {last:<2} {:<width$}  ← the builds part here",
        p.labels[last]
    );
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
        text.push_str(&format!(" (commit {}", &commit[..commit.len().min(10)]));
        if b.get("dirty") == Some(&Value::Bool(true)) {
            text.push_str(", dirty");
        }
        let protocol = field("protocol");
        text.push_str(&format!(
            "; protocol {}",
            &protocol[..protocol.len().min(12)]
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

/// A step's answer in a few words, read off its JSON.
fn brief(answer: &Value) -> String {
    let Some(o) = answer.get("outcome") else {
        return format!("refused: {}", text(answer.get("error")));
    };
    if let Some(status) = o.get("status") {
        let verdicts: Vec<String> = list(o.get("records"))
            .iter()
            .map(|v| format!("r{} {}", text(v.get("id")), verdict(v)))
            .collect();
        return format!("{} — {}", text(Some(status)), verdicts.join("; "));
    }
    if let Some(allowed) = o.get("allowed") {
        return if allowed.as_bool() == Some(true) {
            match o.get("record").filter(|r| !r.is_null()) {
                Some(r) => format!("allowed → r{}", text(Some(r))),
                None => "allowed".to_owned(),
            }
        } else {
            format!("blocked ({})", text(o.get("reason")))
        };
    }
    if let Some(repairs) = o.get("repairs") {
        let repairs: Vec<String> = list(Some(repairs))
            .iter()
            .map(|r| format!("r{} {}", text(r.get("id")), text(r.get("repair"))))
            .collect();
        return format!("retracted: {}", repairs.join(", "));
    }
    if let Some(snapshot) = o.get("snapshot") {
        return format!("T{}, snapshot {}", text(o.get("tx")), ids(snapshot));
    }
    if let Some(r) = o.get("revalidated") {
        return format!(
            "r{} back to tentative in T{}",
            text(Some(r)),
            text(o.get("tx"))
        );
    }
    if let Some(r) = o.get("record") {
        return format!("r{} tentative", text(Some(r)));
    }
    o.to_string()
}

/// The answer one fact a line: the decision, then every record and log
/// entry.
fn account(title: &str, answer: &Value) -> Vec<String> {
    let mut lines = vec![title.to_owned(), brief(answer)];
    for r in list(answer.get("records")) {
        let mut line = format!(
            "r{} {} {} {}",
            text(r.get("id")),
            text(r.get("kind")),
            text(r.get("scope")),
            text(r.get("state"))
        );
        if let Some(reason) = r.get("reason").filter(|x| !x.is_null()) {
            line.push_str(&format!(" ({})", text(Some(reason))));
        }
        let parents = list(r.get("derived_from"));
        if !parents.is_empty() {
            line.push_str(&format!(" ← {}", ids(&Value::Array(parents))));
        }
        lines.push(line);
    }
    for e in list(answer.get("rollback_log")) {
        lines.push(format!(
            "log r{} {}{}",
            text(e.get("record")),
            text(e.get("repair")),
            if e.get("root") == Some(&Value::Bool(true)) {
                " (retracted)"
            } else {
                ""
            }
        ));
    }
    lines
}

fn list(v: Option<&Value>) -> Vec<Value> {
    v.map(as_list).unwrap_or_default()
}

/// Two columns, `│` between them.
fn side_by_side(left: &[String], right: &[String]) -> String {
    let width = left.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for i in 0..left.len().max(right.len()) {
        let l = left.get(i).map_or("", String::as_str);
        let r = right.get(i).map_or("", String::as_str);
        let pad = width - l.chars().count();
        let _ = writeln!(out, "    {l}{} │ {r}", " ".repeat(pad));
    }
    out
}
