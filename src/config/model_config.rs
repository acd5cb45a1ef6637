//! [`ModelConfig`] and its parts as validated: bounds, tools, templates
//! with their parent rule, expected verdicts. Reading one is
//! [`super::validate`]'s, writing one [`super::wire`]'s, compiling one
//! [`super::compile`]'s; this file only defines them.

use super::record::RecordSpec;
use crate::invariants::Invariant;
use crate::protocol::{enumerated, Tier, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// A validated model configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    pub name: String,
    pub description: String,
    pub bounds: Bounds,
    pub agents: u8,
    /// The risk tiers transactions may open at; non-empty, no duplicates.
    pub tiers: Vec<Tier>,
    pub tools: Vec<ToolConfig>,
    /// The logical now of the validity check; `None` turns the check off.
    pub clock: Option<i32>,
    pub templates: Vec<Template>,
    /// Whether the model offers `revalidate` (a quarantined record taken
    /// back to tentative by an open transaction); off by default.
    pub revalidate: bool,
    /// Whether the model offers `rebuild` (a view a cascade held back
    /// rebuilt from its surviving sources by an open transaction); off by
    /// default.
    pub rebuild: bool,
    pub variant: Variant,
    pub expect: Expectations,
    /// Explore one state per class of states equal up to a renaming of
    /// transaction ids (`model::symmetry`); counts are then of classes.
    pub symmetry: bool,
    /// The file it was loaded from, if any.
    pub source_path: Option<PathBuf>,
}

/// How far an exhaustive run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bounds {
    /// At most this many records (1..=[`super::limits::MAX_RECORDS`]).
    pub records: usize,
    /// At most this many transactions opened
    /// (1..=[`super::limits::MAX_TRANSACTIONS`]).
    pub transactions: usize,
    pub depth: Depth,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            records: 4,
            transactions: 3,
            depth: Depth::Bounded(10),
        }
    }
}

/// The number of actions from the initial store, or the whole (finite)
/// state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Depth {
    Bounded(usize),
    Full,
}

impl Depth {
    /// The bound, none for `full`.
    pub fn bound(self) -> Option<usize> {
        match self {
            Depth::Bounded(d) => Some(d),
            Depth::Full => None,
        }
    }

    /// The bound, at most `cap` (`cap` for `full`).
    pub fn capped(self, cap: usize) -> usize {
        self.bound().map_or(cap, |d| d.min(cap))
    }
}

impl fmt::Display for Depth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Depth::Bounded(d) => write!(f, "{d}"),
            Depth::Full => f.write_str("full"),
        }
    }
}

/// A domain tool and whether its effect can be undone (card §3.3).
/// Serialized as a configuration writes it (`wire`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ToolConfig {
    pub name: String,
    pub irreversible: bool,
}

enumerated! {
    /// Whether a record staged from a template may, or must, name a parent,
    /// or must name two (distinct existing records); a template that says
    /// nothing takes `none`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ParentRule {
        None = "none",
        Optional = "optional",
        Required = "required",
        Two = "two",
    }
}

/// A record the model may stage: every field but the parents, which the
/// model picks among existing records as `parent` allows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Template {
    pub name: String,
    /// The record's fields; `derived_from` is always empty.
    pub record: RecordSpec,
    pub parent: ParentRule,
}

/// The verdict a configuration expects for one invariant
/// (`"holds"`, `"violated"`, `{"violated": CLAUSE}`, or `"any"`). An
/// invariant the `expect` block does not name is expected to hold
/// ([`Expectations::judged`]), as TLC expects every listed invariant to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expect {
    Holds,
    /// Either verdict passes: said only for a property whose verdict the
    /// model does not mean to pin (docs/models.md).
    Any,
    /// Violated; with a clause, the shortest counterexample must break
    /// that clause (one of the invariant's [`Invariant::clauses`]); with a
    /// depth, it must be exactly that many actions long, so that a bug
    /// that makes a known violation shorter is caught.
    Violated {
        clause: Option<&'static str>,
        depth: Option<usize>,
    },
}

impl Expect {
    pub fn name(self) -> &'static str {
        match self {
            Expect::Holds => "holds",
            Expect::Any => "any",
            Expect::Violated { .. } => "violated",
        }
    }

    /// The clause a violation must break, if one is named.
    pub fn clause(self) -> Option<&'static str> {
        match self {
            Expect::Holds | Expect::Any => None,
            Expect::Violated { clause, .. } => clause,
        }
    }

    /// The length a shortest counterexample must have, if one is named.
    pub fn depth(self) -> Option<usize> {
        match self {
            Expect::Holds | Expect::Any => None,
            Expect::Violated { depth, .. } => depth,
        }
    }

    /// A violation, of `clause` if named, at `depth` if named.
    pub fn violated(clause: Option<&'static str>, depth: Option<usize>) -> Expect {
        Expect::Violated { clause, depth }
    }

    /// `holds`, `violated`, `violated [CLAUSE]`, each violation with
    /// `at depth D` when one is named.
    pub fn describe(self) -> String {
        let mut text = match self.clause() {
            Some(c) => format!("violated [{c}]"),
            None => self.name().to_owned(),
        };
        if let Some(d) = self.depth() {
            text.push_str(&format!(" at depth {d}"));
        }
        text
    }
}

/// Expected verdicts as the `expect` block writes them; an invariant it
/// does not name is expected to hold ([`Expectations::judged`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Expectations {
    /// Per invariant, in [`Invariant::ALL`] order.
    pub verdicts: [Option<Expect>; Invariant::ALL.len()],
    /// Protocol branches the check must reach (`expect.coverage`).
    pub coverage: Option<ExpectCoverage>,
}

/// The branches a model says its check reaches: every one, or those
/// named. Names are checked against the branch list by whoever runs the
/// check (`model::coverage`), which the configuration cannot see.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExpectCoverage {
    All,
    Branches(Vec<String>),
}

impl Expectations {
    /// The verdict the block names for `inv`, if it names one.
    pub fn get(&self, inv: Invariant) -> Option<Expect> {
        self.verdicts[inv as usize]
    }

    /// The verdict `inv` is judged against: the one named, or holds (TLC's
    /// rule: a regression in a property the block forgot is not silent).
    pub fn judged(&self, inv: Invariant) -> Expect {
        self.get(inv).unwrap_or(Expect::Holds)
    }

    pub fn set(&mut self, inv: Invariant, expect: Option<Expect>) {
        self.verdicts[inv as usize] = expect;
    }
}
