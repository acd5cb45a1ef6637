//! Spec variants: the card's "Paper vs code" switches, the tool-call basis
//! reading, and ablations that each remove one mechanism (DESIGN.md "Spec
//! variants"). Defaults follow the authors' code where the card says what
//! it does.

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

/// One mechanism an ablation removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ablation {
    /// The action gate: every tool call executes.
    Gate,
    /// Commit check 1.
    Evidence,
    /// Commit check 2.
    Validity,
    /// The same-slot rules of check 3 (revoked parent and laundering stay).
    Conflict,
    /// The permission-laundering rule of check 3.
    PermissionInheritance,
    /// Commit check 4.
    DependencyStability,
    /// Retraction repairs the retracted records only, no descendant.
    Cascade,
    /// Every descendant is repaired as a belief.
    TypedRepair,
}

impl Ablation {
    pub const ALL: [Ablation; 8] = [
        Ablation::Gate,
        Ablation::Evidence,
        Ablation::Validity,
        Ablation::Conflict,
        Ablation::PermissionInheritance,
        Ablation::DependencyStability,
        Ablation::Cascade,
        Ablation::TypedRepair,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ablation::Gate => "gate",
            Ablation::Evidence => "evidence",
            Ablation::Validity => "validity",
            Ablation::Conflict => "conflict",
            Ablation::PermissionInheritance => "permission_inheritance",
            Ablation::DependencyStability => "dependency_stability",
            Ablation::Cascade => "cascade",
            Ablation::TypedRepair => "typed_repair",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// The variant a protocol runs: every switch plus the set of ablations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Variant {
    pub same_source_tie: SameSourceTie,
    pub stale_check_empty_snapshot: StaleCheckEmptySnapshot,
    pub laundering_parents: LaunderingParents,
    pub tool_basis: ToolBasis,
    pub(in crate::protocol) ablated: u8,
}

impl Variant {
    pub fn with_ablation(mut self, ablation: Ablation) -> Self {
        self.ablated |= ablation.bit();
        self
    }

    pub fn is_ablated(&self, ablation: Ablation) -> bool {
        self.ablated & ablation.bit() != 0
    }

    /// Whether the mechanism is in force (not ablated).
    pub fn has(&self, ablation: Ablation) -> bool {
        !self.is_ablated(ablation)
    }

    pub fn ablations(&self) -> Vec<Ablation> {
        Ablation::ALL
            .into_iter()
            .filter(|a| self.is_ablated(*a))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_authors_code() {
        let v = Variant::default();
        assert_eq!(v.same_source_tie, SameSourceTie::Supersede);
        assert_eq!(v.stale_check_empty_snapshot, StaleCheckEmptySnapshot::Skip);
        assert_eq!(v.laundering_parents, LaunderingParents::Active);
        assert_eq!(v.tool_basis, ToolBasis::Active);
        assert!(v.ablations().is_empty());
    }

    #[test]
    fn each_ablation_is_independent() {
        for a in Ablation::ALL {
            let v = Variant::default().with_ablation(a);
            assert_eq!(v.ablations(), vec![a]);
            for b in Ablation::ALL {
                assert_eq!(v.has(b), a != b);
            }
        }
    }
}
