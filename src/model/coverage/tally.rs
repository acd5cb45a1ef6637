//! A run's branch coverage: per branch of [`BRANCHES`], the transitions
//! (or, for a refusal, the attempts) that took it and the first depth at
//! which one did. The exhaustive check builds it from the engine's label
//! counts, random walks add their steps' labels, a suite unites its
//! models'; a model's `expect.coverage` is judged against it.

use super::BRANCHES;
use crate::config::ExpectCoverage;
use crate::engine::LabelCount;

/// One branch's count: the engine's count of its label, whoever counts
/// (for a refusal, its transitions are attempts; a depth is the number of
/// actions up to and including the step).
pub type BranchCount = LabelCount;

/// Counts for every branch, in [`BRANCHES`] order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    pub branches: Vec<BranchCount>,
}

impl Default for Coverage {
    fn default() -> Self {
        Coverage::new()
    }
}

impl Coverage {
    /// Every branch unreached.
    pub fn new() -> Coverage {
        Coverage {
            branches: BRANCHES
                .iter()
                .map(|&name| BranchCount {
                    name,
                    transitions: 0,
                    first_depth: None,
                    by_depth: Some(Vec::new()),
                })
                .collect(),
        }
    }

    /// The engine's counts of the model's labels (`label_names` is
    /// [`BRANCHES`], so they come in the same order).
    pub fn from_labels(labels: &[LabelCount]) -> Coverage {
        let mut coverage = Coverage::new();
        for (branch, label) in coverage.branches.iter_mut().zip(labels) {
            assert_eq!(branch.name, label.name, "labels in BRANCHES order");
            branch.clone_from(label);
        }
        coverage
    }

    /// Counts one transition (or attempt) with branch bits `labels` taken
    /// as action number `depth` of its path.
    pub fn add(&mut self, labels: u128, depth: usize) {
        let mut bits = labels;
        while bits != 0 {
            let branch = &mut self.branches[bits.trailing_zeros() as usize];
            branch.transitions += 1;
            branch.first_depth = Some(branch.first_depth.map_or(depth, |d| d.min(depth)));
            if let Some(by_depth) = branch.by_depth.as_mut() {
                if by_depth.len() <= depth {
                    by_depth.resize(depth + 1, 0);
                }
                by_depth[depth] += 1;
            }
            bits &= bits - 1;
        }
    }

    /// Adds `other`'s counts: sums of transitions, the smaller first depth.
    pub fn merge(&mut self, other: &Coverage) {
        for (mine, theirs) in self.branches.iter_mut().zip(&other.branches) {
            mine.transitions += theirs.transitions;
            mine.first_depth = match (mine.first_depth, theirs.first_depth) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            mine.by_depth = match (mine.by_depth.take(), &theirs.by_depth) {
                (Some(mut a), Some(b)) => {
                    if a.len() < b.len() {
                        a.resize(b.len(), 0);
                    }
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    Some(a)
                }
                _ => None,
            };
        }
    }

    /// Whether every branch's counts per depth are known.
    pub fn has_depths(&self) -> bool {
        self.branches.iter().all(|b| b.by_depth.is_some())
    }

    /// How many branches some transition took.
    pub fn reached(&self) -> usize {
        self.branches.iter().filter(|b| b.transitions > 0).count()
    }

    /// The branches no transition took, in order.
    pub fn unreached(&self) -> Vec<&'static str> {
        self.branches
            .iter()
            .filter(|b| b.transitions == 0)
            .map(|b| b.name)
            .collect()
    }

    /// The branches `expect` names (every one, for `All`) that no
    /// transition took; a name that is no branch counts as unreached
    /// ([`unknown_branch`] reports it as bad input beforehand).
    pub fn missing(&self, expect: &ExpectCoverage) -> Vec<String> {
        match expect {
            ExpectCoverage::All => self.unreached().iter().map(|s| s.to_string()).collect(),
            ExpectCoverage::Branches(names) => names
                .iter()
                .filter(|name| {
                    !self
                        .branches
                        .iter()
                        .any(|b| b.name == name.as_str() && b.transitions > 0)
                })
                .cloned()
                .collect(),
        }
    }
}

/// The first name in `expect` that is no branch, with its position.
pub fn unknown_branch(expect: &ExpectCoverage) -> Option<(usize, &str)> {
    match expect {
        ExpectCoverage::All => None,
        ExpectCoverage::Branches(names) => names
            .iter()
            .enumerate()
            .find(|(_, n)| !BRANCHES.contains(&n.as_str()))
            .map(|(i, n)| (i, n.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_and_merging_sum_transitions_and_keep_the_first_depth() {
        let mut a = Coverage::new();
        a.add(0b101, 4);
        a.add(0b001, 2);
        let mut b = Coverage::new();
        b.add(0b110, 3);
        a.merge(&b);
        let first: Vec<_> = a.branches[..3]
            .iter()
            .map(|c| (c.transitions, c.first_depth))
            .collect();
        assert_eq!(first, vec![(2, Some(2)), (1, Some(3)), (2, Some(3))]);
        assert_eq!(a.reached(), 3);
        assert_eq!(a.unreached().len(), BRANCHES.len() - 3);
    }

    #[test]
    fn expectations_name_what_is_missing() {
        let mut c = Coverage::new();
        c.add(1, 1);
        let named = ExpectCoverage::Branches(vec![BRANCHES[0].into(), BRANCHES[1].into()]);
        assert_eq!(c.missing(&named), vec![BRANCHES[1].to_owned()]);
        assert_eq!(c.missing(&ExpectCoverage::All).len(), BRANCHES.len() - 1);
        let bad = ExpectCoverage::Branches(vec![BRANCHES[0].into(), "gate.maybe".into()]);
        assert_eq!(unknown_branch(&bad), Some((1, "gate.maybe")));
        assert_eq!(unknown_branch(&named), None);
    }
}
