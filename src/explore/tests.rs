//! The explorer views on a hand-built no-gate counterexample: the SVG is
//! well-formed (balanced tags, escaped text), deterministic, highlights the
//! records the violation names; `format_step` tells the gate's decision;
//! deep links encode positions in `actions()`.

use super::picture::render;
use super::{deep_link, format_step, states_path};
use crate::config::ModelConfig;
use crate::model::{Action, MemtxModel, ModelSpec, ModelState, Opening, Staged};
use crate::protocol::Tier;
use stateright::Model;
use std::path::Path;

fn no_gate(edit: impl FnOnce(&mut ModelConfig)) -> MemtxModel {
    let mut config = ModelConfig::load(Path::new("models/ablations/no-gate.json"))
        .expect("models/ablations/no-gate.json loads");
    edit(&mut config);
    MemtxModel::new(ModelSpec::from_config(&config))
}

/// Open at external_action, stage `private_note`, commit, then call the
/// irreversible tool on it: I1 breaks (the snapshot was empty).
fn counterexample() -> Vec<Action> {
    vec![
        Action::Open {
            agent: Opening { agent: 0, tx: 0 },
            tier: Tier::ExternalAction,
        },
        Action::Stage {
            tx: 0,
            proposal: Staged {
                template: 2,
                parent: None,
                second: None,
            },
        },
        Action::Commit { tx: 0 },
        Action::ToolCall {
            tx: 0,
            tool: 0,
            basis: Some(0),
        },
    ]
}

fn path(model: &MemtxModel, actions: &[Action]) -> Vec<(ModelState, Option<Action>)> {
    let mut state = model.init_states().remove(0);
    let mut out = Vec::new();
    for a in actions {
        let (next, _) = model.step(&state, a).expect("a model transition");
        out.push((state, Some(*a)));
        state = next;
    }
    out.push((state, None));
    out
}

/// Balanced tags, quoted attributes, and only entity-escaped `&` and no
/// stray `<`/`>` in text and attribute values.
fn assert_well_formed(doc: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = doc;
    let check_text = |t: &str| {
        assert!(!t.contains('>'), "raw > in text: {t:?}");
        for (i, _) in t.match_indices('&') {
            let tail = &t[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .iter()
                    .any(|e| tail.starts_with(e)),
                "unescaped & in {t:?}"
            );
        }
    };
    while let Some(open) = rest.find('<') {
        check_text(&rest[..open]);
        let close = rest[open..].find('>').expect("a tag ends") + open;
        let tag = &rest[open + 1..close];
        assert!(!tag.contains('<'), "< inside a tag: {tag:?}");
        assert_eq!(tag.matches('"').count() % 2, 0, "quotes balance: {tag:?}");
        let mut in_quotes = false;
        for part in tag.split('"') {
            if in_quotes {
                check_text(part);
            }
            in_quotes = !in_quotes;
        }
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing </{name}>");
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().expect("a tag name");
            stack.push(name.to_owned());
        }
        rest = &rest[close + 1..];
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

#[test]
fn the_svg_is_well_formed_and_highlights_the_violation() {
    let model = no_gate(|_| {});
    let svg = render(&model, &path(&model, &counterexample()));
    assert_well_formed(&svg);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("I1 VIOLATED (action-safety gating) — highlighted: r1"));
    assert!(svg.contains(
        "data-record=\"r1\" data-kind=\"tool_action\" data-state=\"committed\" data-violation=\"I1\""
    ));
    assert!(svg.contains("data-record=\"r0\" data-kind=\"belief\" data-state=\"action_safe\">"));
    assert!(svg.contains("data-edge=\"r1-&gt;r0\""));
    assert!(svg.contains("data-invariant=\"I1\" data-verdict=\"violated\""));
    assert!(svg.contains("data-invariant=\"G3\" data-verdict=\"holds\""));
    assert!(svg.contains("sometimes: irreversible call executes"));
    for external in ["href", "<script", "@import", "url(http", "<image"] {
        assert!(
            !svg.contains(external),
            "self-contained, yet has {external}"
        );
    }
    assert_eq!(svg, render(&model, &path(&model, &counterexample())));
}

#[test]
fn configuration_text_is_escaped() {
    let model = no_gate(|c| {
        c.templates[2].record.attribute = "a<b & \"c\"".to_owned();
    });
    let svg = render(&model, &path(&model, &counterexample()[..2]));
    assert_well_formed(&svg);
    assert!(svg.contains("a&lt;b &amp; &quot;c&quot;=no"), "{svg}");
    assert!(svg.contains("data-in-flight=\"T0\""));
    assert!(svg.contains("in flight · staged by T0"));
}

#[test]
fn the_initial_state_draws_an_empty_store() {
    let model = no_gate(|_| {});
    let svg = render(&model, &path(&model, &[]));
    assert_well_formed(&svg);
    assert!(svg.contains("Initial store") && svg.contains("(no records yet)"));
}

#[test]
fn format_step_tells_the_decisions() {
    let model = no_gate(|_| {});
    let p = path(&model, &counterexample());
    let commit = format_step(&model, &p[2].0, &Action::Commit { tx: 0 }).unwrap();
    assert!(
        commit.contains("commit verdict: committed (1 verifier call)"),
        "{commit}"
    );
    assert!(
        commit.contains("r0 (belief) → action_safe, every check passed"),
        "{commit}"
    );
    let call = format_step(&model, &p[3].0, &counterexample()[3]).unwrap();
    assert!(call.starts_with("T0 calls issue_refund on r0\n"), "{call}");
    assert!(call.contains("gate decision: allowed (irreversible call) → tool_action r1"));
    assert!(
        call.contains("I1 (action-safety gating) VIOLATED"),
        "{call}"
    );
    let revoke = format_step(&model, &p[4].0, &Action::Revoke { record: 0 }).unwrap();
    assert!(
        revoke.contains("r0 (belief) → revoked (retracted)"),
        "{revoke}"
    );
    assert!(
        revoke.contains("r1 (tool_action) → leaked (descendant reached by the cascade)"),
        "{revoke}"
    );
    assert_eq!(
        format_step(&model, &p[0].0, &Action::Commit { tx: 0 }),
        None,
        "a refused action has no step"
    );
}

#[test]
fn deep_links_use_positions_in_actions() {
    let model = no_gate(|_| {});
    let actions = counterexample();
    let p = path(&model, &actions);
    let mut expected = vec!["0".to_owned()];
    for (state, action) in &p {
        if let Some(a) = action {
            let mut offered = Vec::new();
            model.actions(state, &mut offered);
            expected.push(offered.iter().position(|o| o == a).unwrap().to_string());
        }
    }
    assert_eq!(states_path(&model, &actions), Some(expected.join("/")));
    assert_eq!(
        deep_link(&model, &actions, "127.0.0.1:3000"),
        Some(format!(
            "http://127.0.0.1:3000/#/steps/{}",
            expected.join("/")
        ))
    );
    assert_eq!(
        states_path(&model, &[Action::Commit { tx: 0 }]),
        None,
        "not a transition"
    );
}
