//! `format_step`: what the protocol decided at one step, in plain text for
//! the explorer (which shows it in place of the state's `Debug` dump): the
//! operation, then the protocol's outcome one fact a line (each record's
//! commit verdict and reason, the gate's decision and reason, or each
//! repair with the record's type, as [`crate::outcome_text::account`]
//! tells them), and last the invariants after the step.

use super::store;
use crate::invariants::{self, Violation};
use crate::model::{Action, MemtxModel, ModelState, StepRefusal};
use crate::outcome_text::{account, StepStores};
use crate::protocol::ProtocolError;

/// The step `action` from `last_state`; `None` when the model refuses it
/// (the explorer then lists the action as ignored), unless the refusal is
/// one no rule gives: that attempt is a step ([`misjudged_refusal`]).
pub fn format_step(model: &MemtxModel, last_state: &ModelState, action: &Action) -> Option<String> {
    let (next, outcome) = match model.step(last_state, action) {
        Ok(step) => step,
        Err(StepRefusal::Protocol(error)) => {
            return misjudged_refusal(model, last_state, action, &error)
        }
        Err(_) => return None,
    };
    let before = store(last_state);
    let after = store(&next);
    let ctx = model.spec.context();
    let mut out = format!("{}\n", action.describe(&model.spec));
    out.push_str(&account(
        &outcome,
        &StepStores {
            after,
            symbols: model.spec.symbols(),
            // Only a tool call's outcome reads it.
            irreversible_tool: match *action {
                Action::ToolCall { tool, .. } => ctx.is_irreversible(tool),
                _ => true,
            },
        },
    ));
    let op = model.op(action);
    let (seen_before, seen_after) = (before.view(), after.view());
    let step = last_state
        .monitor
        .transition(seen_before, &op, &outcome, seen_after);
    let mut broken: Vec<String> = invariants::check_transition(ctx, step)
        .into_iter()
        .chain(invariants::check_state(ctx, seen_after, &next.monitor))
        .map(|v| violated(&v))
        .collect();
    if broken.is_empty() {
        let names: Vec<_> = ctx.selection().iter().map(|i| i.name()).collect();
        out.push_str(&format!(
            "\ninvariants after this step: all hold ({})\n",
            names.join(", ")
        ));
    } else {
        broken.insert(0, "\ninvariants after this step:".to_owned());
        out.push_str(&broken.join("\n"));
        out.push('\n');
    }
    Some(out)
}

/// A refused attempt the `refusals` property judges misjudged: the
/// operation, the protocol's refusal and the violation; `None` for a
/// refusal the rules give.
fn misjudged_refusal(
    model: &MemtxModel,
    state: &ModelState,
    action: &Action,
    error: &ProtocolError,
) -> Option<String> {
    let ctx = model.spec.context();
    let op = model.op(action);
    let v = invariants::check_refusal(ctx, store(state).view(), &state.monitor, &op, error)?;
    Some(format!(
        "{}\nrefused: {error}\n\ninvariants after this step:\n{}\n",
        action.describe(&model.spec),
        violated(&v)
    ))
}

/// One violation's line under "invariants after this step".
fn violated(v: &Violation) -> String {
    format!(
        "  {} ({}) VIOLATED [{}]: {}",
        v.invariant,
        v.invariant.title(),
        v.clause,
        v.detail
    )
}
