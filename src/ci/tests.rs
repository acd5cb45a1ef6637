use super::junit::{escape, render};
use super::markdown::step_summary;
use super::suite::unique_names;
use super::{Case, Failure, ModelResult};
use crate::diff::{Side, Verdict};
use std::path::PathBuf;

#[test]
fn escaping_leaves_text_that_parses_back_to_itself() {
    let nasty = "a<b & \"c\" 'd' > e\nline two\r\ttab \u{1}\u{1b}end";
    let doc = format!("<x a=\"{}\">{}</x>", escape(nasty), escape(nasty));
    let parsed = roxmltree::Document::parse(&doc).unwrap();
    let x = parsed.root_element();
    let want = nasty.replace(['\u{1}', '\u{1b}'], "\u{FFFD}");
    assert_eq!(x.attribute("a"), Some(want.as_str()));
    assert_eq!(x.text(), Some(want.as_str()));
}

fn result(model: &str, failing: bool) -> ModelResult {
    ModelResult {
        model: model.to_owned(),
        file: format!("models/{model}.json"),
        states: 42,
        seconds: 1.5,
        verdicts: "I1 holds | odd".to_owned(),
        baseline: "same",
        cases: vec![
            Case {
                name: "I1".to_owned(),
                failure: failing.then(|| Failure {
                    message: "I1 violated <here>".to_owned(),
                    detail: "line 1\nline 2".to_owned(),
                    changes: vec!["I1 violated".to_owned()],
                }),
                output: None,
            },
            Case {
                name: "baseline reports/x".to_owned(),
                failure: None,
                output: Some("ok & fine".to_owned()),
            },
        ],
    }
}

#[test]
fn junit_counts_cases_and_failures_per_suite() {
    let xml = render("memtx-check ci", &[result("a", true), result("b", false)]);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some("4"));
    assert_eq!(root.attribute("failures"), Some("1"));
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites[0].attribute("failures"), Some("1"));
    assert_eq!(suites[1].attribute("failures"), Some("0"));
    let failure = suites[0]
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(failure.attribute("message"), Some("I1 violated <here>"));
    assert_eq!(failure.text(), Some("line 1\nline 2"));
}

#[test]
fn the_step_summary_has_a_row_per_model_and_lists_failures() {
    let md = step_summary("memtx-check ci", &[result("a", true), result("b", false)]);
    let rows: Vec<_> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 3, "{md}");
    assert!(
        rows[1].starts_with("| ❌ | a | I1 holds \\| odd | 42 |"),
        "{md}"
    );
    assert!(md.contains("- **a** I1: I1 violated <here>"), "{md}");
}

#[test]
fn a_capped_baseline_is_its_first_levels_and_the_verdicts_found_by_then() {
    let verdict = |name: &str, verdict: &str, depth| Verdict {
        name: name.to_owned(),
        kind: "invariant".to_owned(),
        verdict: verdict.to_owned(),
        depth,
        clause: None,
    };
    let side = Side {
        origin: "reports/m".to_owned(),
        model: "m".to_owned(),
        bounds: "records 4, transactions 3, depth 10".to_owned(),
        variant: "{}".to_owned(),
        states: 111,
        transitions: 222,
        complete: false,
        levels: (0..=10)
            .map(|d| (d, 10, 10 * (d as u64 + 1), 20, 20 * (d as u64 + 1)))
            .collect(),
        properties: vec![
            verdict("I1", "violated", Some(4)),
            verdict("I2", "violated", Some(9)),
            verdict("reach", "reached", Some(7)),
        ],
        warnings: Vec::new(),
        build: None,
        coverage: None,
    };
    let c = side.capped(6);
    assert_eq!(c.bounds, "records 4, transactions 3, depth 6");
    assert_eq!((c.levels.len(), c.states, c.transitions), (7, 70, 140));
    assert_eq!(c.properties[0], side.properties[0]);
    assert_eq!(c.properties[1], verdict("I2", "holds", None));
    assert_eq!(c.properties[2], verdict("reach", "not_reached", None));
}

#[test]
fn two_models_of_one_name_are_refused() {
    let m = |p: &str, n: &str| (PathBuf::from(p), n.to_owned());
    assert!(unique_names(&[m("a.json", "a"), m("b.json", "b")]).is_ok());
    let e = unique_names(&[m("a.json", "a"), m("x/a.json", "a")]).unwrap_err();
    assert!(e.contains("a.json and x/a.json"), "{e}");
}
