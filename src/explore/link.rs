//! Deep links into stateright's explorer, and trace steps as model actions.
//!
//! The explorer's UI (stateright 0.31, `ui/app.js`) reads the URL fragment
//! `#/steps/<init index>/<action index>/…`; each action index is a position
//! in the list `Model::actions` writes for the state reached so far, actions
//! that `next_state` refuses included (`Path::from_action_indices` and
//! `Path::encode` in `checker/path.rs`). The model lists its actions in a
//! stable order, so a path of actions has exactly one such encoding, which
//! we let stateright itself compute.

use crate::model::{Action, MemtxModel, ModelState};
use crate::replay::text::say_step;
use crate::trace::Trace;
use stateright::{Model, Path};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Where `explore` listens unless told otherwise, and the address the
/// links printed beside counterexamples use.
pub const DEFAULT_ADDR: &str = "127.0.0.1:3000";

/// The explorer's path for `actions` taken from the initial state, as
/// `Path::encode` writes it: `0/i1/i2/…`. `None` when some action is not a
/// transition of the model at its point on the path.
pub fn states_path(model: &MemtxModel, actions: &[Action]) -> Option<String> {
    let init = model.init_states().into_iter().next()?;
    let path = Path::from_actions(model, init, actions)?;
    Some(path.encode(model))
}

/// What `check` and `random` print beside a counterexample written to
/// `trace`: the command that serves it and the link to its last state.
pub fn hint(model: &MemtxModel, actions: &[Action], trace: &str) -> Option<String> {
    let link = deep_link(model, actions, DEFAULT_ADDR)?;
    Some(format!(
        "explore it: memtx-check explore --trace {trace}\n  then open {link}\n"
    ))
}

/// The link that opens the explorer served at `addr` on the state the
/// `actions` reach. An unspecified listening address (`0.0.0.0`, `::`) is
/// linked through the loopback address, which a browser can open.
pub fn deep_link(model: &MemtxModel, actions: &[Action], addr: &str) -> Option<String> {
    let path = states_path(model, actions)?;
    Some(format!("http://{}/#/steps/{path}", link_host(addr)))
}

fn link_host(addr: &str) -> String {
    match addr.parse::<SocketAddr>() {
        Ok(sa) if sa.ip().is_unspecified() => {
            let ip = match sa.ip() {
                IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
            };
            SocketAddr::new(ip, sa.port()).to_string()
        }
        _ => addr.to_owned(),
    }
}

/// The model's actions that a trace's steps stand for: at each step, the
/// action whose protocol operation equals the step's. An error names the
/// first step that is no action of the model there (a step outside the
/// model's bounds or templates, a tool call on several basis records) or
/// that the protocol refuses.
pub fn trace_actions(model: &MemtxModel, trace: &Trace) -> Result<Vec<Action>, String> {
    let mut compiled = model.spec.compiled.clone();
    let mut state: ModelState = model.init_states().into_iter().next().unwrap_or_default();
    let mut found = Vec::with_capacity(trace.steps.len());
    for (i, step) in trace.steps.iter().enumerate() {
        let op = step
            .to_op(&mut compiled)
            .map_err(|e| format!("steps[{i}]: {e}"))?;
        let mut offered = Vec::new();
        model.actions(&state, &mut offered);
        let action = offered
            .into_iter()
            .find(|a| model.op(a) == op)
            .ok_or_else(|| {
                format!(
                    "steps[{i}] ({}) is not an action of the model there: a model action \
                     stages a configured template with at most one parent, calls a tool on \
                     one basis record, and stays within the bounds",
                    say_step(step, &compiled)
                )
            })?;
        // A refusal no rule gives is a step of the model too (`refusals`).
        let next = match model.step(&state, &action) {
            Ok((next, _)) => next,
            Err(why) => model.next_state(&state, action).ok_or_else(|| {
                format!(
                    "steps[{i}] ({}) is refused: {why}",
                    say_step(step, &compiled)
                )
            })?,
        };
        state = next;
        found.push(action);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_addresses_link_through_loopback() {
        assert_eq!(link_host("0.0.0.0:3000"), "127.0.0.1:3000");
        assert_eq!(link_host("[::]:8080"), "[::1]:8080");
        assert_eq!(link_host("127.0.0.1:3000"), "127.0.0.1:3000");
        assert_eq!(link_host("localhost:3000"), "localhost:3000");
    }
}
