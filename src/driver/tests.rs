use super::session::MAX_REMEMBERED_BYTES;
use super::*;
use crate::trace::Trace;
use serde_json::{json, Value};

/// Serves `requests` (one per line) and returns the answers, parsed.
fn serve_lines(requests: &[String]) -> Vec<Value> {
    let input = requests.join("\n") + "\n";
    let mut out = Vec::new();
    serve(input.as_bytes(), &mut out).expect("in-memory I/O");
    String::from_utf8(out)
        .expect("UTF-8 answers")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each answer is one JSON line"))
        .collect()
}

fn config_of(trace: &Trace) -> Value {
    trace.config.to_json()
}

#[test]
fn every_shipped_trace_answers_as_replay_reports_it() {
    let mut checked = 0;
    for entry in std::fs::read_dir("traces").expect("traces/ is readable") {
        let path = entry.expect("an entry").path();
        let name = path.to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.ends_with(".itf.json") {
            continue;
        }
        let trace = Trace::load(&path).expect("a shipped trace loads");
        let report = crate::replay::replay(&trace).expect("a shipped trace replays");
        let replayed: Value =
            serde_json::from_str(&crate::replay::render_json(&report)).expect("replay's JSON");
        let raw: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).unwrap();
        let mut requests = vec![json!({"reset": config_of(&trace)}).to_string()];
        for step in raw["steps"].as_array().expect("steps") {
            requests.push(json!({ "step": step }).to_string());
        }
        let answers = serve_lines(&requests);
        assert_eq!(answers[0]["ok"], json!(true), "{name}");
        assert_eq!(answers[0]["driver_protocol"], json!(PROTOCOL_VERSION));
        for (i, answer) in answers[1..].iter().enumerate() {
            let step = &replayed["steps"][i];
            assert_eq!(
                answer.get("outcome"),
                step.get("outcome"),
                "{name} step {i}"
            );
            assert_eq!(answer.get("error"), step.get("error"), "{name} step {i}");
        }
        let last = answers.last().expect("answers");
        if answers.len() > 1 {
            assert_eq!(last["records"], replayed["records"], "{name}");
            assert_eq!(last["rollback_log"], replayed["rollback_log"], "{name}");
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} traces");
}

#[test]
fn a_refused_step_leaves_the_store_and_says_why() {
    let answers = serve_lines(&[
        json!({"reset": {}}).to_string(),
        json!({"step": {"op": "commit", "tx": 0}}).to_string(),
        json!({"step": {"op": "open", "agent": 0, "tier": "low"}}).to_string(),
        json!({"step": {"op": "revoke", "record": 0}}).to_string(),
    ]);
    assert_eq!(answers[1]["error"], json!("unknown transaction T0"));
    assert_eq!(answers[1]["records"], json!([]));
    assert_eq!(answers[2]["outcome"], json!({"tx": 0, "snapshot": []}));
    assert_eq!(answers[3]["error"], json!("unknown record r0"));
    assert!(answers[3].get("outcome").is_none());
}

#[test]
fn bad_requests_are_answered_in_one_line_and_change_nothing() {
    let long = format!("{{\"reset\": \"{}\"}}", "x".repeat(MAX_REQUEST_BYTES));
    let answers = serve_lines(&[
        "not json".to_owned(),
        json!({"step": {"op": "commit", "tx": 0}}).to_string(),
        json!([1, 2]).to_string(),
        json!({"reset": {}, "step": {}}).to_string(),
        json!({"rest": {}}).to_string(),
        json!({"reset": {"bounds": {"records": 0}}}).to_string(),
        json!({"reset": {}}).to_string(),
        json!({"step": {"op": "fly"}}).to_string(),
        json!({"step": {"op": "open", "agent": 0, "tier": "high", "tx": 1}}).to_string(),
        json!({"step": {"op": "tool_call", "tx": 0, "tool": "nope", "basis": []}}).to_string(),
        long,
        r#"{"reset": {}, "reset": {}}"#.to_owned(),
        json!({"step": {"op": "open", "agent": 0, "tier": "low"}}).to_string(),
    ]);
    let bad: Vec<&str> = answers[..answers.len() - 1]
        .iter()
        .filter_map(|a| a["bad_request"].as_str())
        .collect();
    assert_eq!(bad.len(), answers.len() - 2, "{answers:?}");
    assert_eq!(answers[6]["ok"], json!(true));
    for (i, why) in bad.iter().enumerate() {
        assert!(!why.contains('\n'), "{why}");
        assert!(why.starts_with("request "), "{i}: {why}");
    }
    assert!(bad[1].contains("before any reset"), "{}", bad[1]);
    assert!(bad[4].contains("\"rest\" is not a request"), "{}", bad[4]);
    assert!(bad[5].contains("reset.bounds.records"), "{}", bad[5]);
    assert!(
        bad[6].contains("step.op") && bad[6].contains("fly"),
        "{}",
        bad[6]
    );
    assert!(bad[7].contains("step.tx"), "{}", bad[7]);
    assert!(bad[8].contains("nope"), "{}", bad[8]);
    assert!(bad[9].contains("longer than"), "{}", bad[9]);
    assert!(bad[10].contains("reset"), "{}", bad[10]);
    // Nothing above changed the store: the first open is T0.
    assert_eq!(
        answers.last().unwrap()["outcome"],
        json!({"tx": 0, "snapshot": []})
    );
}

#[test]
fn a_reset_starts_over() {
    let open = json!({"step": {"op": "open", "agent": 0, "tier": "low"}}).to_string();
    let answers = serve_lines(&[
        json!({"reset": {}}).to_string(),
        open.clone(),
        json!({"reset": {}}).to_string(),
        open,
    ]);
    assert_eq!(answers[1]["outcome"], answers[3]["outcome"]);
    assert_eq!(answers[2]["implementation"]["name"], json!("memtx-check"));
    assert_eq!(
        answers[2]["implementation"]["protocol"]
            .as_str()
            .map(str::len),
        Some(32)
    );
}

/// A stage of record `n`, each naming strings no other does.
fn distinct_stage(n: usize, tx: u8) -> String {
    json!({"step": {"op": "stage", "tx": tx, "record": {
        "kind": "belief", "entity": format!("e{n}"), "attribute": format!("a{n}"),
        "value": format!("v{n}"), "source": format!("s{n}"), "authority": 0.7,
        "confidence": 0.8, "scope": "shared", "derived_from": [],
        "valid_from": null, "valid_to": null, "owner": null}}})
    .to_string()
}

#[test]
fn refused_steps_keep_nothing_and_the_cache_is_bounded_in_bytes() {
    // Issue 38.1: 200 MB of refused steps grew the step cache to ~600 MB,
    // and their names stayed interned: after 16,384 stages of four new
    // names each the symbol table was full, and every later stage naming
    // a new string was answered as a bad request.
    let mut session = Session::new();
    assert!(session
        .answer(&json!({"reset": {}}).to_string(), 1)
        .line()
        .contains("\"ok\":true"));
    let base = session.remembered();
    for n in 0..20_000 {
        let answer = session.answer(&distinct_stage(n, 0), n as u64 + 2);
        assert!(
            answer.line().contains("unknown transaction T0"),
            "{}",
            answer.line()
        );
    }
    assert_eq!(session.remembered(), base, "refused steps are not kept");
    // Accepted steps are remembered up to the byte budget, never past it:
    // distinct opens (padded apart), each after a reset so each is taken.
    let reset = json!({"reset": {}}).to_string();
    let line = |n: usize| {
        format!(
            "{{{:width$}\"step\": {{\"op\": \"open\", \"agent\": 0, \"tier\": \"low\"}}}}",
            "",
            width = 3000 + n % 1000
        ) + &" ".repeat(n / 1000)
    };
    let mut sent = 0;
    for n in 0..22_000 {
        session.answer(&reset, 1);
        let open = line(n);
        sent += open.len();
        let answer = session.answer(&open, 2);
        assert!(answer.line().contains("\"outcome\""), "{}", answer.line());
    }
    let (lines, bytes) = session.remembered();
    assert!(sent > 2 * MAX_REMEMBERED_BYTES, "{sent}");
    assert!(bytes <= MAX_REMEMBERED_BYTES, "{bytes} bytes kept");
    assert!(
        bytes > MAX_REMEMBERED_BYTES - 5000,
        "{bytes}: the budget is used"
    );
    assert!(lines > 1000, "{lines}");
}

#[test]
fn a_reset_frees_what_the_last_store_interned() {
    // Accepted stages intern their names; resets with the same
    // configuration used to keep them all, so after enough traces of
    // distinct names a valid stage was answered as a bad request ("too
    // many distinct strings to intern").
    let mut session = Session::new();
    let reset = json!({"reset": {"bounds": {"records": 4}}}).to_string();
    let open = json!({"step": {"op": "open", "agent": 0, "tier": "low"}}).to_string();
    for n in 0..20_000 {
        session.answer(&reset, 1);
        session.answer(&open, 2);
        let answer = session.answer(&distinct_stage(n, 0), 3);
        assert!(answer.line().contains("\"outcome\""), "{}", answer.line());
    }
}

#[test]
fn a_ready_answer_of_another_protocol_version_is_refused() {
    // Issue 38.4: nothing read the version, so a driver saying version 2
    // "agreed on all branches".
    assert!(
        check_ready(&json!({"ok": true})).is_ok(),
        "the version is optional"
    );
    assert!(check_ready(&json!({"ok": true, "driver_protocol": 1})).is_ok());
    assert!(check_ready(&json!({"ok": 1})).is_err());
    for version in [json!(2), json!("1"), json!(0), json!(1.5), json!(null)] {
        let why = check_ready(&json!({"ok": true, "driver_protocol": version})).unwrap_err();
        assert!(why.contains("speaks driver protocol"), "{why}");
        assert!(why.contains(&version.to_string()), "{why}");
    }
    // This build's own driver passes its own check.
    let ready = serve_lines(&[json!({"reset": {}}).to_string()]);
    assert!(check_ready(&ready[0]).is_ok());
}
