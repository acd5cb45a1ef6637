//! One broken invariant, as every checker reports it.

use super::invariant::Invariant;
use crate::protocol::RecordSet;
use std::fmt;

/// One broken invariant: which, the clause that failed, the records it
/// names, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: Invariant,
    /// One of `invariant.clauses()`.
    pub clause: &'static str,
    pub records: RecordSet,
    pub detail: String,
}

impl Violation {
    pub fn new(
        invariant: Invariant,
        clause: &'static str,
        records: RecordSet,
        detail: String,
    ) -> Violation {
        debug_assert!(
            invariant.clause(clause).is_some(),
            "{clause} is no clause of {invariant}"
        );
        Violation {
            invariant,
            clause,
            records,
            detail,
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} violated [{}]: {}",
            self.invariant, self.clause, self.detail
        )
    }
}
