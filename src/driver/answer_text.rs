//! A step's answer as the driver protocol writes it, in words, read off
//! its JSON (so any implementation's answer reads alike): the decision in
//! a few words ([`brief`]), the whole answer one fact a line
//! ([`account`]), and two accounts side by side ([`side_by_side`]).

use super::compare::{as_list, id_set as ids, text, verdict_text as verdict};
use serde_json::Value;
use std::fmt::Write as _;

/// A step's answer in a few words, read off its JSON.
pub fn brief(answer: &Value) -> String {
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
    if let Some(r) = o.get("rebuilt") {
        return format!(
            "r{} rebuilt into T{}, dropped {}",
            text(Some(r)),
            text(o.get("tx")),
            ids(o.get("dropped").unwrap_or(&Value::Null))
        );
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
pub fn account(title: &str, answer: &Value) -> Vec<String> {
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
pub fn side_by_side(left: &[String], right: &[String]) -> String {
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
