//! Branch coverage: which outcome branches of the protocol a transition
//! took, read off the protocol's structured [`Outcome`] (and the record
//! states around the step), never from counters inside `protocol/`. Each
//! branch is one bit of the transition's label (`engine::LabelledModel`),
//! so the engine counts, per branch, the transitions that took it and the
//! first depth at which one did; random walks count the same bits.
//!
//! [`BRANCHES`] is the one list, the same rows in the same order for every
//! model. It names every branch the protocol can take and no other:
//!
//! - `open.*`: the tier a transaction opens at;
//! - `stage.*`: the kind and the scope of a staged record (tool actions are
//!   never staged);
//! - `commit.*`: a commit's status; `record.*`: each staged record's result
//!   with its reason (quarantined by one of the eight checks, or skipped
//!   because a cascade got there first), and for a record that commits, how
//!   it stood against its slot (`record.admitted.*`, the protocol's
//!   [`Admission`]);
//! - `gate.*`: a reversible call passing, an irreversible one allowed (with
//!   every tentative record outside the caller's snapshot, or with a
//!   tentative record the snapshot clause let pass), blocked for either
//!   reason, and a call refused because its transaction aborted. That
//!   refusal is a protocol error, not a transition: it is counted as an
//!   *attempt* (the engine's refused labels), so it never changes the
//!   transition counts of `growth.csv`. A committed transaction may still
//!   call tools ("commit, then retry"), so no refusal exists for a closed
//!   one;
//! - `repair.*`: a retracted record revoked, a retracted tool action
//!   compensated or leaked, and each typed repair of a descendant;
//! - `move.*`: every lifecycle move observable across one transition
//!   (before and after it; see [`MOVES`] for which and why);
//! - `revalidate.*`: revalidating a record a commit check quarantined, or a
//!   view a cascade held back.
//!
//! `label` computes a transition's bits (allocating nothing: it walks the
//! outcome's lists and the two stores' record arrays); `tally` holds a
//! run's counts per branch, the same for the exhaustive check and random
//! walks, and judges a model's `expect.coverage` against them.

mod label;
mod tally;

pub use label::{refusal_labels, transition_labels};
pub use tally::{unknown_branch, BranchCount, Coverage};

use crate::protocol::Lifecycle;

/// Every branch, in the order of `coverage.csv`. Sections start at the
/// `*_BASE` indices below; within a section the order follows the
/// protocol's own enumerations (checked by a test).
pub const BRANCHES: [&str; 62] = [
    // Tiers, in `Tier` order.
    "open.low",
    "open.medium",
    "open.high",
    "open.external_action",
    // Kinds staged, in `Kind` order (tool actions are never staged).
    "stage.belief",
    "stage.summary",
    "stage.profile",
    "stage.index_entry",
    "stage.shared_copy",
    // Scopes staged, in `Scope` order.
    "stage.private",
    "stage.shared",
    "stage.public",
    // Commit status, in `CommitStatus` order.
    "commit.committed",
    "commit.partial",
    "commit.aborted",
    // Each staged record's result.
    "record.committed",
    "record.action_safe",
    // Quarantined by a commit check, in `Reason` order (= check order).
    "record.quarantined.low_evidence",
    "record.quarantined.outside_validity",
    "record.quarantined.revoked_parent",
    "record.quarantined.permission_laundering",
    "record.quarantined.stale_write",
    "record.quarantined.lower_authority",
    "record.quarantined.needs_review",
    "record.quarantined.unstable_dependency",
    // Skipped at commit: a cascade revoked it, or held a view back.
    "record.skipped.revoked",
    "record.skipped.quarantined",
    // How a committed record stood against its slot, in `Admission` order.
    "record.admitted.no_rival",
    "record.admitted.same_value",
    "record.admitted.superseded_by_authority",
    "record.admitted.superseded_by_same_source",
    "record.admitted.coexisting_windows",
    // The gate.
    "gate.reversible_pass",
    "gate.irreversible_allowed",
    "gate.irreversible_allowed.tentative_in_snapshot",
    "gate.blocked.tentative_in_flight",
    "gate.blocked.no_action_safe_support",
    "gate.refused.aborted_transaction",
    // Repairs: the retracted records themselves, then descendants by type.
    "repair.root_revoked",
    "repair.root_compensated",
    "repair.root_leaked",
    "repair.belief_revoked",
    "repair.view_quarantined",
    "repair.view_revoked",
    "repair.tool_action_compensated",
    "repair.tool_action_leaked",
    // Lifecycle moves, in the order of `MOVES`.
    "move.raw_to_tentative",
    "move.tentative_to_committed",
    "move.tentative_to_action_safe",
    "move.tentative_to_quarantined",
    "move.tentative_to_revoked",
    "move.tentative_to_superseded",
    "move.committed_to_superseded",
    "move.committed_to_quarantined",
    "move.committed_to_revoked",
    "move.action_safe_to_superseded",
    "move.action_safe_to_revoked",
    "move.quarantined_to_tentative",
    "move.quarantined_to_revoked",
    "move.superseded_to_revoked",
    // Revalidation: what had quarantined the record.
    "revalidate.after_commit_check",
    "revalidate.after_cascade",
];

const OPEN_BASE: usize = 0;
const KIND_BASE: usize = 4;
const SCOPE_BASE: usize = 9;
const STATUS_BASE: usize = 12;
const RECORD_COMMITTED: usize = 15;
const RECORD_ACTION_SAFE: usize = 16;
const REASON_BASE: usize = 17;
const SKIPPED_REVOKED: usize = 25;
const SKIPPED_QUARANTINED: usize = 26;
const ADMISSION_BASE: usize = 27;
const GATE_REVERSIBLE: usize = 32;
const GATE_ALLOWED: usize = 33;
const GATE_ALLOWED_IN_SNAPSHOT: usize = 34;
const GATE_BLOCKED_IN_FLIGHT: usize = 35;
const GATE_BLOCKED_NO_SUPPORT: usize = 36;
const GATE_REFUSED_ABORTED: usize = 37;
const ROOT_REVOKED: usize = 38;
const ROOT_COMPENSATED: usize = 39;
const ROOT_LEAKED: usize = 40;
const BELIEF_REVOKED: usize = 41;
const VIEW_QUARANTINED: usize = 42;
const VIEW_REVOKED: usize = 43;
const TOOL_ACTION_COMPENSATED: usize = 44;
const TOOL_ACTION_LEAKED: usize = 45;
const MOVE_BASE: usize = 46;
const REVALIDATE_CHECK: usize = 60;
const REVALIDATE_CASCADE: usize = 61;

/// The lifecycle moves observable across one transition: a record's state
/// before and after one operation (a record created by the step counts as
/// `raw`, which staging passes through). Of the card's sixteen allowed
/// moves, these cannot be seen and are not listed:
/// - every move into or out of `validated`: commit promotes a record
///   through `validated` within one step, and nothing stops there;
/// - `committed -> action_safe`: only commit marks a record action_safe,
///   in the same step that commits it, so it shows as
///   `tentative -> action_safe`.
///
/// Three composite moves are listed because one step does make them:
/// `tentative -> committed` and `tentative -> action_safe` (through
/// `validated`), and `tentative -> superseded`, a record that commits and
/// is superseded by a later record of the same commit (possible only when
/// that transaction's snapshot is empty, since otherwise the later record
/// is a stale write).
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
        table[from as usize][to as usize] = 1 << (MOVE_BASE + i);
        i += 1;
    }
    table
}

/// The branch called `name`, if there is one.
pub fn branch_index(name: &str) -> Option<usize> {
    BRANCHES.iter().position(|b| *b == name)
}

#[cfg(test)]
mod tests {
    use super::label::{admission_index, status_index};
    use super::*;
    use crate::protocol::{Admission, CommitStatus, Kind, Reason, Scope, Tier};

    fn section(base: usize, names: impl IntoIterator<Item = String>) {
        for (i, name) in names.into_iter().enumerate() {
            assert_eq!(BRANCHES[base + i], name, "row {}", base + i);
        }
    }

    /// The sections follow the protocol's own enumerations, so an index
    /// computed from an enum's discriminant names the right row.
    #[test]
    fn sections_follow_the_protocols_enumerations() {
        section(OPEN_BASE, Tier::ALL.map(|t| format!("open.{}", t.name())));
        section(
            KIND_BASE,
            Kind::ALL[..5].iter().map(|k| format!("stage.{}", k.name())),
        );
        assert_eq!(Kind::ALL[5], Kind::ToolAction);
        section(
            SCOPE_BASE,
            [Scope::Private, Scope::Shared, Scope::Public].map(|s| format!("stage.{}", s.name())),
        );
        section(
            STATUS_BASE,
            [
                CommitStatus::Committed,
                CommitStatus::Partial,
                CommitStatus::Aborted,
            ]
            .map(|s| format!("commit.{}", s.name())),
        );
        for (i, s) in [
            CommitStatus::Committed,
            CommitStatus::Partial,
            CommitStatus::Aborted,
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(status_index(s), i);
        }
        section(
            REASON_BASE,
            Reason::ALL.map(|r| format!("record.quarantined.{}", r.name())),
        );
        section(
            ADMISSION_BASE,
            Admission::ALL.map(|a| format!("record.admitted.{}", a.name())),
        );
        for (i, a) in Admission::ALL.into_iter().enumerate() {
            assert_eq!(admission_index(a), i);
        }
        section(
            MOVE_BASE,
            MOVES.map(|(from, to)| format!("move.{}_to_{}", from.name(), to.name())),
        );
        assert_eq!(REVALIDATE_CASCADE + 1, BRANCHES.len());
    }

    #[test]
    fn branch_names_are_unique_and_fit_a_label() {
        assert!(BRANCHES.len() <= crate::engine::MAX_LABELS);
        for (i, b) in BRANCHES.iter().enumerate() {
            assert_eq!(branch_index(b), Some(i), "{b}");
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
