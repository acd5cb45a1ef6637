//! Branch coverage: which outcome branches of the protocol a transition
//! took, read off the protocol's structured [`Outcome`] (and the record
//! states around the step), never from counters inside `protocol/`. Each
//! branch is one bit of the transition's label (`engine::LabelledModel`),
//! so the engine counts, per branch, the transitions that took it and the
//! first depth at which one did; random walks count the same bits. A
//! refusal is no transition: the refusals coverage counts (a tool call by
//! an aborted transaction, each refused rebuild the model offers) are
//! *attempts*, the engine's refused labels, so they never change the
//! transition counts of `growth.csv`. The rows, and what is left out and
//! why, are in docs/coverage.md.
//!
//! [`Branch`] is the one list, the same rows in the same order for every
//! model, derived from the protocol's own enumerations (`branch.rs`), so
//! a new reason, refusal or result gets its row by construction and a new
//! kind of outcome is a compile error until `label.rs` names its branch.
//! `label` computes a transition's bits (allocating nothing: it walks the
//! outcome's lists and the two stores' record arrays); `tally` holds a
//! run's counts per branch, the same for the exhaustive check and random
//! walks, and judges a model's `expect.coverage` against them.

mod branch;
mod label;
mod tally;

pub use branch::{
    Branch, GateBranch, RebuildBranch, RepairBranch, RevalidateBranch, COUNT as BRANCH_COUNT,
};
pub use label::{refusal_labels, transition_labels};
pub use tally::{unknown_branch, BranchCount, Coverage};

use crate::protocol::Lifecycle;
use std::sync::LazyLock;

/// Every branch's name, in the order of `coverage.csv` ([`Branch::all`]).
pub static BRANCHES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    Branch::all()
        .into_iter()
        .map(|b| &*Box::leak(b.name().into_boxed_str()))
        .collect()
});

/// The lifecycle moves observable across one transition: a record's state
/// before and after one operation (a record created by the step counts as
/// `raw`). Commit passes through `validated` and makes action_safe within
/// one step, so no move into or out of `validated` and no `committed ->
/// action_safe` is seen, and three composite moves are (docs/coverage.md,
/// "Moves nobody can see").
pub const MOVES: [(Lifecycle, Lifecycle); 14] = [
    (Lifecycle::Raw, Lifecycle::Tentative),
    (Lifecycle::Tentative, Lifecycle::Committed),
    (Lifecycle::Tentative, Lifecycle::ActionSafe),
    (Lifecycle::Tentative, Lifecycle::Quarantined),
    (Lifecycle::Tentative, Lifecycle::Revoked),
    (Lifecycle::Tentative, Lifecycle::Superseded),
    (Lifecycle::Committed, Lifecycle::Superseded),
    (Lifecycle::Committed, Lifecycle::Quarantined),
    (Lifecycle::Committed, Lifecycle::Revoked),
    (Lifecycle::ActionSafe, Lifecycle::Superseded),
    (Lifecycle::ActionSafe, Lifecycle::Revoked),
    (Lifecycle::Quarantined, Lifecycle::Tentative),
    (Lifecycle::Quarantined, Lifecycle::Revoked),
    (Lifecycle::Superseded, Lifecycle::Revoked),
];

/// The bit of `move_index(from, to)`, 0 for a move not in [`MOVES`]; the
/// table is indexed by the two states' declaration order.
const MOVE_BITS: [[u128; 8]; 8] = move_bits();

const fn move_bits() -> [[u128; 8]; 8] {
    let mut table = [[0u128; 8]; 8];
    let mut i = 0;
    while i < MOVES.len() {
        let (from, to) = MOVES[i];
        table[from as usize][to as usize] = Branch::Move(i).bit();
        i += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names_are_unique_and_fit_a_label() {
        assert!(BRANCHES.len() <= crate::engine::MAX_LABELS);
        assert_eq!(BRANCHES.len(), BRANCH_COUNT);
        for (i, b) in BRANCHES.iter().enumerate() {
            assert_eq!(BRANCHES.iter().position(|n| n == b), Some(i), "{b}");
        }
    }

    /// Whether `to` is reached from `from` by one or more allowed moves.
    fn path(from: Lifecycle, to: Lifecycle) -> bool {
        from != to && from.reachable().contains(&to)
    }

    /// Every listed move is a path of allowed moves, and every allowed
    /// move left out is one the docs of `MOVES` say cannot be seen.
    #[test]
    fn the_listed_moves_are_the_observable_allowed_ones() {
        for (from, to) in MOVES {
            assert!(path(from, to), "{from} -> {to}");
        }
        for from in Lifecycle::ALL {
            for to in Lifecycle::ALL {
                let hidden = from == Lifecycle::Validated
                    || to == Lifecycle::Validated
                    || (from, to) == (Lifecycle::Committed, Lifecycle::ActionSafe);
                if from.may_move_to(to) {
                    assert_eq!(MOVES.contains(&(from, to)), !hidden, "{from} -> {to}");
                }
            }
        }
    }
}
