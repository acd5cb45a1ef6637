//! Two answers to one step compared field by field, as the driver protocol
//! writes them (`docs/driver-protocol.md`): whether the step was refused
//! (the error's words are free, so only its presence counts), then every
//! field of the outcome, the records and the rollback log, each difference
//! named by its path (`records[2].state`) with both values. With
//! [`Fields::Shared`] a field one side leaves out is not compared but
//! noted, so a driver that does not model `verifier_calls` is compared on
//! the rest and the report can say which fields were and were not read.

use serde_json::Value;
use std::collections::BTreeSet;

/// Which fields are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fields {
    /// Every field: a field only one side has is a difference (two builds
    /// of memtx-check speak the same version of the protocol).
    All,
    /// The fields both sides report (an implementation may leave out
    /// the optional ones).
    Shared,
}

/// One field whose values differ; `None` is a field one side lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDifference {
    pub path: String,
    pub before: Option<Value>,
    pub now: Option<Value>,
}

impl FieldDifference {
    /// `records[2].state: before "committed", now "quarantined"`.
    pub fn line(&self, before: &str, now: &str) -> String {
        let show = |v: &Option<Value>| match v {
            None => "absent".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
        };
        format!(
            "{}: {before} {}, {now} {}",
            self.path,
            show(&self.before),
            show(&self.now)
        )
    }
}

/// What comparing two answers found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub differences: Vec<FieldDifference>,
    /// Field paths (indices written `[]`) compared on both sides.
    pub compared: BTreeSet<String>,
    /// Field paths one side left out, not compared ([`Fields::Shared`]).
    pub not_compared: BTreeSet<String>,
}

impl Comparison {
    pub fn agree(&self) -> bool {
        self.differences.is_empty()
    }

    fn differ(&mut self, path: String, before: Option<Value>, now: Option<Value>) {
        self.differences.push(FieldDifference { path, before, now });
    }
}

/// Whether two step answers agree: equal but for the words of an error
/// (the walks' fast path: it allocates nothing; [`compare_answers`] says
/// what differs).
pub fn same_answer(before: &Value, now: &Value) -> bool {
    match (before, now) {
        (Value::Object(b), Value::Object(n)) if b.len() == n.len() => {
            b.iter().all(|(k, v)| match n.get(k) {
                Some(w) if k == "error" => v.is_string() == w.is_string(),
                Some(w) => v == w,
                None => false,
            })
        }
        _ => false,
    }
}

/// The lists whose order the card leaves open: an abort's or a revoke's
/// `repairs` (the card repairs each root's descendants in no stated
/// order, and states none between roots) and the `rollback_log` (its
/// entries of one step come in that same open order). Compared in a
/// canonical order — by record id, then by the entry's text — so they
/// are compared as multisets. For the log that loses nothing: answers
/// are compared after every step from the empty store, so two logs equal
/// as multisets after each step added the same entries at each step.
const UNORDERED: [(&str, &str); 2] = [("outcome", "repairs"), ("", "rollback_log")];

/// `answer` with the [`UNORDERED`] lists in canonical order (borrowed
/// when they already are).
fn canonical(answer: &Value) -> std::borrow::Cow<'_, Value> {
    let id = |v: &Value| {
        let n = v.get("record").or_else(|| v.get("id"));
        (n.and_then(Value::as_u64).unwrap_or(u64::MAX), v.to_string())
    };
    let list = |v: &Value, (outer, key): (&str, &str)| {
        let v = if outer.is_empty() {
            Some(v)
        } else {
            v.get(outer)
        };
        v.and_then(|v| v.get(key))
            .and_then(Value::as_array)
            .cloned()
    };
    let sorted = |items: &[Value]| items.windows(2).all(|w| id(&w[0]) <= id(&w[1]));
    if UNORDERED
        .iter()
        .all(|&at| list(answer, at).is_none_or(|l| sorted(&l)))
    {
        return std::borrow::Cow::Borrowed(answer);
    }
    let mut out = answer.clone();
    for (outer, key) in UNORDERED {
        let holder = if outer.is_empty() {
            Some(&mut out)
        } else {
            out.get_mut(outer)
        };
        if let Some(Value::Array(items)) = holder.and_then(|h| h.get_mut(key)) {
            items.sort_by_cached_key(|v| id(v));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Compares two step answers (`{"outcome"|"error", "records",
/// "rollback_log"}`), the lists the card leaves unordered as multisets
/// ([`UNORDERED`]).
pub fn compare_answers(before: &Value, now: &Value, fields: Fields) -> Comparison {
    let (before, now) = (&*canonical(before), &*canonical(now));
    let mut c = Comparison::default();
    let refused = |v: &Value| v.get("error").is_some();
    c.compared.insert("refused".to_owned());
    if refused(before) != refused(now) {
        c.differ(
            "refused".to_owned(),
            Some(Value::Bool(refused(before))),
            Some(Value::Bool(refused(now))),
        );
    }
    for key in ["outcome", "records", "rollback_log"] {
        match (before.get(key), now.get(key)) {
            (None, None) => {}
            // An outcome on one side only is the refusal, reported above.
            (Some(_), None) | (None, Some(_)) if key == "outcome" => {}
            (b, n) => walk(key, b, n, fields, &mut c),
        }
    }
    c
}

/// `path` with every `[i]` written `[]`.
pub fn pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for ch in path.chars() {
        match ch {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(ch),
        }
    }
    out
}

fn walk(
    path: &str,
    before: Option<&Value>,
    now: Option<&Value>,
    fields: Fields,
    c: &mut Comparison,
) {
    match (before, now) {
        (Some(Value::Object(b)), Some(Value::Object(n))) => {
            let keys: BTreeSet<&String> = b.keys().chain(n.keys()).collect();
            for key in keys {
                walk(&format!("{path}.{key}"), b.get(key), n.get(key), fields, c);
            }
        }
        (Some(Value::Array(b)), Some(Value::Array(n))) => {
            let len = b.len().max(n.len());
            if b.len() != n.len() {
                c.compared.insert(format!("{} (length)", pattern(path)));
                c.differ(
                    format!("{path} (length)"),
                    Some(Value::from(b.len())),
                    Some(Value::from(n.len())),
                );
            }
            // Arrays of plain values (ids, snapshots) are one field.
            if b.iter().chain(n).all(|v| !v.is_object() && !v.is_array()) {
                c.compared.insert(pattern(path));
                if b != n && b.len() == n.len() {
                    c.differ(
                        path.to_owned(),
                        Some(b.clone().into()),
                        Some(n.clone().into()),
                    );
                }
                return;
            }
            for i in 0..len {
                walk(&format!("{path}[{i}]"), b.get(i), n.get(i), fields, c);
            }
        }
        (Some(b), Some(n)) => {
            c.compared.insert(pattern(path));
            if b != n {
                c.differ(path.to_owned(), Some(b.clone()), Some(n.clone()));
            }
        }
        (None, None) => {}
        (b, n) => {
            // A whole entry (a record, a verdict) on one side only is a
            // difference whatever the mode: its parent array's length
            // already says so, and its fields say what it is.
            let in_array = path.ends_with(']');
            if fields == Fields::Shared && !in_array {
                c.not_compared.insert(pattern(path));
                return;
            }
            c.compared.insert(pattern(path));
            c.differ(path.to_owned(), b.cloned(), n.cloned());
        }
    }
}

/// What differs in an operation's decision, in a few words:
/// `r1 before committed, superseding {r0}; now quarantined
/// (uncommitted_parent)`, `before allowed; now blocked
/// (tentative_in_flight)`, `before refused; now accepted`.
pub fn decision_change(before: &Value, now: &Value) -> Option<String> {
    let (b, n) = match (before.get("outcome"), now.get("outcome")) {
        (None, None) => return None,
        (None, Some(_)) => return Some("before refused; now accepted".to_owned()),
        (Some(_), None) => return Some("before accepted; now refused".to_owned()),
        (Some(b), Some(n)) if b == n => return None,
        (Some(b), Some(n)) => (b, n),
    };
    if let (Some(vb), Some(vn)) = (b.get("records"), n.get("records")) {
        let (vb, vn) = (as_list(vb), as_list(vn));
        let mut parts = Vec::new();
        let ids: BTreeSet<u64> = vb
            .iter()
            .chain(&vn)
            .filter_map(|v| v["id"].as_u64())
            .collect();
        for id in ids {
            let find = |l: &[Value]| l.iter().find(|v| v["id"].as_u64() == Some(id)).cloned();
            let (x, y) = (find(&vb), find(&vn));
            if x != y {
                parts.push(format!(
                    "r{id} before {}; now {}",
                    x.as_ref().map_or("not judged".to_owned(), verdict_text),
                    y.as_ref().map_or("not judged".to_owned(), verdict_text)
                ));
            }
        }
        if b.get("status") != n.get("status") {
            parts.push(format!(
                "status before {}, now {}",
                text(b.get("status")),
                text(n.get("status"))
            ));
        }
        if !parts.is_empty() {
            return Some(parts.join("; "));
        }
    }
    if let (Some(ab), Some(an)) = (b.get("allowed"), n.get("allowed")) {
        let gate = |v: &Value, allowed: &Value| {
            if allowed.as_bool() == Some(true) {
                "allowed".to_owned()
            } else {
                format!("blocked ({})", text(v.get("reason")))
            }
        };
        if ab != an || b.get("reason") != n.get("reason") {
            return Some(format!("before {}; now {}", gate(b, ab), gate(n, an)));
        }
    }
    if let (Some(rb), Some(rn)) = (b.get("repairs"), n.get("repairs")) {
        if rb != rn {
            let repairs = |v: &Value| {
                as_list(v)
                    .iter()
                    .map(|r| format!("r{} {}", text(r.get("id")), text(r.get("repair"))))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Some(format!(
                "repairs before [{}]; now [{}]",
                repairs(rb),
                repairs(rn)
            ));
        }
    }
    Some(format!("outcome before {b}; now {n}"))
}

/// The entries of a JSON list (none for anything else).
pub fn as_list(v: &Value) -> Vec<Value> {
    v.as_array().cloned().unwrap_or_default()
}

/// A field's value in words: a string as it is, `none` for null or absent.
pub fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "none".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// A list of record ids as `{r0, r2}`.
pub fn id_set(v: &Value) -> String {
    let ids: Vec<String> = as_list(v)
        .iter()
        .map(|i| format!("r{}", text(Some(i))))
        .collect();
    format!("{{{}}}", ids.join(", "))
}

/// A commit verdict in words: `committed, superseding {r0}` or
/// `quarantined (stale_write)`.
pub fn verdict_text(v: &Value) -> String {
    let mut t = text(v.get("result"));
    if let Some(reason) = v.get("reason").filter(|r| !r.is_null()) {
        t.push_str(&format!(" ({})", text(Some(reason))));
    }
    let superseded = v.get("superseded").map(as_list).unwrap_or_default();
    if !superseded.is_empty() {
        t.push_str(&format!(
            ", superseding {}",
            id_set(&Value::Array(superseded))
        ));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(outcome: Value, states: &[&str]) -> Value {
        json!({
            "outcome": outcome,
            "records": states.iter().enumerate().map(|(i, s)| json!({"id": i, "state": s, "reason": null})).collect::<Vec<_>>(),
            "rollback_log": []
        })
    }

    #[test]
    fn repairs_and_log_entries_are_compared_in_any_order() {
        let entry = |r: u64, repair: &str| json!({"record": r, "repair": repair, "root": r == 0});
        let repairs = |ids: &[u64]| json!({"roots": [0, 1], "repairs": ids.iter().map(|&i| json!({"id": i, "repair": "revoked"})).collect::<Vec<_>>()});
        let mut a = answer(repairs(&[0, 1, 2]), &["revoked", "revoked", "revoked"]);
        a["rollback_log"] = json!([entry(0, "compensated"), entry(1, "leaked")]);
        let mut b = answer(repairs(&[2, 0, 1]), &["revoked", "revoked", "revoked"]);
        b["rollback_log"] = json!([entry(1, "leaked"), entry(0, "compensated")]);
        for fields in [Fields::All, Fields::Shared] {
            assert!(compare_answers(&a, &b, fields).agree(), "{fields:?}");
        }
        // Another multiset still differs.
        b["rollback_log"] = json!([entry(1, "compensated"), entry(0, "compensated")]);
        let c = compare_answers(&a, &b, Fields::All);
        let paths: Vec<&str> = c.differences.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["rollback_log[1].repair"]);
        b["outcome"] = repairs(&[2, 0]);
        assert!(!compare_answers(&a, &b, Fields::All).agree());
    }

    #[test]
    fn equal_answers_agree_and_every_field_is_compared() {
        let a = answer(json!({"tx": 0, "snapshot": [0]}), &["committed"]);
        let c = compare_answers(&a, &a, Fields::All);
        assert!(c.agree());
        let compared: Vec<&str> = c.compared.iter().map(String::as_str).collect();
        assert_eq!(
            compared,
            [
                "outcome.snapshot",
                "outcome.tx",
                "records[].id",
                "records[].reason",
                "records[].state",
                "refused",
                "rollback_log"
            ]
        );
    }

    #[test]
    fn a_commit_that_now_quarantines_is_named_field_by_field() {
        let before = answer(
            json!({"status": "committed", "records": [{"id": 1, "result": "committed", "reason": null, "superseded": [0]}], "verifier_calls": 1}),
            &["superseded", "committed"],
        );
        let now = answer(
            json!({"status": "aborted", "records": [{"id": 1, "result": "quarantined", "reason": "uncommitted_parent", "superseded": [0]}], "verifier_calls": 1}),
            &["superseded", "quarantined"],
        );
        assert!(!same_answer(&before, &now) && same_answer(&now, &now));
        let c = compare_answers(&before, &now, Fields::All);
        let lines: Vec<String> = c
            .differences
            .iter()
            .map(|d| d.line("before", "now"))
            .collect();
        assert_eq!(
            lines,
            [
                "outcome.records[0].reason: before null, now uncommitted_parent",
                "outcome.records[0].result: before committed, now quarantined",
                "outcome.status: before committed, now aborted",
                "records[1].state: before committed, now quarantined",
            ]
        );
        assert_eq!(
            decision_change(&before, &now).as_deref(),
            Some("r1 before committed, superseding {r0}; now quarantined (uncommitted_parent), superseding {r0}; status before committed, now aborted")
        );
    }

    #[test]
    fn a_refusal_on_one_side_is_the_difference_not_its_words() {
        let refused = json!({"error": "no", "records": [], "rollback_log": []});
        let refused_too = json!({"error": "other words", "records": [], "rollback_log": []});
        assert!(compare_answers(&refused, &refused_too, Fields::All).agree());
        assert!(same_answer(&refused, &refused_too));
        let accepted = answer(json!({"record": 0}), &["tentative"]);
        let c = compare_answers(&refused, &accepted, Fields::All);
        assert_eq!(c.differences[0].path, "refused");
        assert_eq!(
            decision_change(&refused, &accepted).as_deref(),
            Some("before refused; now accepted")
        );
    }

    #[test]
    fn shared_fields_skip_what_one_side_leaves_out() {
        let full = answer(
            json!({"status": "committed", "records": [], "verifier_calls": 2}),
            &["committed"],
        );
        let lean = answer(
            json!({"status": "committed", "records": []}),
            &["committed"],
        );
        let c = compare_answers(&full, &lean, Fields::Shared);
        assert!(c.agree(), "{:?}", c.differences);
        assert!(c.not_compared.contains("outcome.verifier_calls"));
        assert!(!compare_answers(&full, &lean, Fields::All).agree());
        // A record missing on one side is a difference even then.
        let fewer = answer(json!({"status": "committed", "records": []}), &[]);
        let c = compare_answers(&full, &fewer, Fields::Shared);
        assert!(c.differences.iter().any(|d| d.path == "records (length)"));
    }
}
