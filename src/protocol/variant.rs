//! Spec variants: the card's "Paper vs code" switches, the tool-call basis
//! reading, and ablations that each remove one [`Mechanism`] (DESIGN.md
//! "Spec variants"). Defaults follow the authors' code where the card says
//! what it does, with every mechanism in force.

use super::enumerated::enumerated;
#[cfg(test)]
use super::faults::Fault;
use serde::{Deserialize, Serialize};

/// Equal authority from the same source (card "Paper vs code").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SameSourceTie {
    /// The code: the newer write supersedes the old one.
    #[default]
    Supersede,
    /// The paper's tie rule regardless of source: user review.
    Review,
}

/// The stale-write check when the snapshot is empty (card "Paper vs code").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaleCheckEmptySnapshot {
    /// The code: skip the check on an empty snapshot.
    #[default]
    Skip,
    /// The paper: apply it always.
    Apply,
}

/// Which parents the permission-laundering check looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunderingParents {
    /// The code: active parents only.
    #[default]
    Active,
    /// The paper: any parent.
    Any,
}

/// Which records a tool call may name as its basis (DESIGN.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolBasis {
    /// Visible to the transaction and active now.
    #[default]
    Active,
    /// In the snapshot or the caller's own staging, whatever its state now.
    Snapshot,
}

enumerated! {
    /// One mechanism of the protocol. Every one is in force unless a variant
    /// ablates it: `Variant::has(Mechanism::Gate)` reads "the gate is in
    /// force". Model files name the ablated ones (`"ablate": ["gate"]`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Mechanism {
        /// The action gate: every tool call executes.
        Gate = "gate",
        /// Commit check 1.
        Evidence = "evidence",
        /// Commit check 2.
        Validity = "validity",
        /// The same-slot rules of check 3 (revoked parent and laundering stay).
        Conflict = "conflict",
        /// The permission-laundering rule of check 3.
        PermissionInheritance = "permission_inheritance",
        /// Commit check 4.
        DependencyStability = "dependency_stability",
        /// Retraction repairs the retracted records only, no descendant.
        Cascade = "cascade",
        /// Every descendant is repaired as a belief.
        TypedRepair = "typed_repair",
    }
}

impl Mechanism {
    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The variant a protocol runs: every switch plus the mechanisms it ablates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    pub same_source_tie: SameSourceTie,
    pub stale_check_empty_snapshot: StaleCheckEmptySnapshot,
    pub laundering_parents: LaunderingParents,
    pub tool_basis: ToolBasis,
    /// One bit per ablated mechanism.
    pub(in crate::protocol) ablated: u8,
    /// A deliberate bug (test builds only): the rule book entry it
    /// replaces (`protocol/faults.rs`).
    #[cfg(test)]
    pub(in crate::protocol) fault: Option<Fault>,
}

impl Variant {
    /// This variant with `mechanism` ablated.
    pub fn without(mut self, mechanism: Mechanism) -> Self {
        self.ablated |= mechanism.bit();
        self
    }

    /// Whether `mechanism` is in force (not ablated).
    pub fn has(&self, mechanism: Mechanism) -> bool {
        self.ablated & mechanism.bit() == 0
    }

    /// The ablated mechanisms, in [`Mechanism::ALL`] order.
    pub fn ablated(&self) -> Vec<Mechanism> {
        Mechanism::ALL
            .into_iter()
            .filter(|m| !self.has(*m))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Variant {
        /// This variant with the deliberate bug `fault` (test builds only).
        pub(crate) fn with_fault(mut self, fault: Fault) -> Self {
            self.fault = Some(fault);
            self
        }
    }

    #[test]
    fn defaults_follow_the_authors_code() {
        let v = Variant::default();
        assert_eq!(v.same_source_tie, SameSourceTie::Supersede);
        assert_eq!(v.stale_check_empty_snapshot, StaleCheckEmptySnapshot::Skip);
        assert_eq!(v.laundering_parents, LaunderingParents::Active);
        assert_eq!(v.tool_basis, ToolBasis::Active);
        assert!(v.ablated().is_empty());
    }

    #[test]
    fn each_ablation_is_independent() {
        for a in Mechanism::ALL {
            let v = Variant::default().without(a);
            assert_eq!(v.ablated(), vec![a]);
            for b in Mechanism::ALL {
                assert_eq!(v.has(b), a != b);
            }
        }
    }
}
