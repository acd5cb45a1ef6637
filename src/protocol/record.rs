//! Governed records (card §3.1): the fields every memory record carries.
//!
//! Everything is integer-coded so a store is cheap to hash and clone:
//! strings are interned [`Sym`]bols, authority and confidence are exact
//! hundredths, parents are a [`RecordSet`].

use super::enumerated::enumerated;
use super::lifecycle::Lifecycle;
use super::record_set::RecordSet;
use super::symbols::Sym;
use serde::{Deserialize, Serialize};

enumerated! {
    /// A record's type; it decides how cascading repair treats it (card §3.4).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Kind {
        Belief = "belief",
        Summary = "summary",
        Profile = "profile",
        IndexEntry = "index_entry",
        SharedCopy = "shared_copy",
        ToolAction = "tool_action",
    }
}

impl Kind {
    /// Derived views are quarantined for rebuilding, not revoked (card §3.4).
    pub fn is_view(self) -> bool {
        matches!(
            self,
            Kind::Summary | Kind::Profile | Kind::IndexEntry | Kind::SharedCopy
        )
    }
}

enumerated! {
    /// Permission scope (card §3.1).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Scope {
        Private = "private",
        Shared = "shared",
        Public = "public",
    }
}

/// An exact decimal in hundredths, 0..=100 (authority and confidence are
/// compared exactly, never as floats: DESIGN.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hundredths(pub u8);

impl Hundredths {
    /// A missing source has authority 0.5 (card pitfalls).
    pub const MISSING_SOURCE_AUTHORITY: Hundredths = Hundredths(50);

    /// Reads a decimal such as `0.6`; `None` unless it lies in [0, 1] on the
    /// hundredths grid.
    pub fn from_decimal(x: f64) -> Option<Hundredths> {
        if !x.is_finite() || !(0.0..=1.0).contains(&x) {
            return None;
        }
        let scaled = x * 100.0;
        let rounded = scaled.round();
        if (scaled - rounded).abs() > 1e-6 {
            return None;
        }
        Some(Hundredths(rounded as u8))
    }

    pub fn as_decimal(self) -> f64 {
        f64::from(self.0) / 100.0
    }
}

/// An inclusive validity window on the logical clock; an absent bound is
/// open (DESIGN.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Window {
    pub from: Option<i32>,
    pub to: Option<i32>,
}

impl Window {
    pub fn contains(self, now: i32) -> bool {
        self.from.is_none_or(|f| f <= now) && self.to.is_none_or(|t| now <= t)
    }

    /// Inclusive windows overlap when neither ends before the other starts.
    pub fn overlaps(self, other: Window) -> bool {
        let ends_before =
            |a: Window, b: Window| matches!((a.to, b.from), (Some(t), Some(f)) if t < f);
        !ends_before(self, other) && !ends_before(other, self)
    }
}

/// What a writer proposes: every field of a record except its lifecycle
/// state, which the protocol owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Proposal {
    pub kind: Kind,
    pub entity: Sym,
    pub attribute: Sym,
    pub value: Sym,
    pub source: Option<Sym>,
    pub authority: Hundredths,
    pub confidence: Hundredths,
    /// The owner agent; `None` means the staging agent.
    pub owner: Option<u8>,
    pub scope: Scope,
    pub derived_from: RecordSet,
    pub window: Window,
}

enumerated! {
    /// The commit checks, in the order the pipeline runs them (card §3.2):
    /// a record is judged by each in turn and quarantined by the first it
    /// fails. Whatever reads a quarantine reason as "how far the record
    /// got" compares checks, never single reasons ([`Reason::check`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Check {
        /// Check 1: confidence ≥ 0.6 unless authority ≥ 0.9.
        Evidence = "evidence",
        /// Check 2: the window holds the logical now.
        Validity = "validity",
        /// Check 3: revoked parent, laundering, then the slot's rivals.
        Conflict = "conflict",
        /// Check 4: no revoked transitive ancestor.
        DependencyStability = "dependency_stability",
        /// Check 5, a test-only spec change (feature
        /// `tutorial-committed-parents`, docs/changing-the-spec.md): every
        /// parent must be committed.
        #[cfg(feature = "tutorial-committed-parents")]
        CommittedParents = "committed_parents",
    }
}

impl Check {
    /// The check's number in the card's order, from 1.
    pub fn number(self) -> usize {
        self as usize + 1
    }
}

enumerated! {
    /// Why a commit check quarantined a record (machine-readable, card
    /// §3.2), in check order: `ALL` lists them as the pipeline can fail.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Reason {
        LowEvidence = "low_evidence",
        OutsideValidity = "outside_validity",
        RevokedParent = "revoked_parent",
        PermissionLaundering = "permission_laundering",
        StaleWrite = "stale_write",
        LowerAuthority = "lower_authority",
        NeedsReview = "needs_review",
        UnstableDependency = "unstable_dependency",
        /// A parent is not committed (check 5 of the test-only spec change
        /// `tutorial-committed-parents`).
        #[cfg(feature = "tutorial-committed-parents")]
        UncommittedParent = "uncommitted_parent",
    }
}

impl Reason {
    /// The check that gives this reason.
    pub fn check(self) -> Check {
        match self {
            Reason::LowEvidence => Check::Evidence,
            Reason::OutsideValidity => Check::Validity,
            Reason::RevokedParent
            | Reason::PermissionLaundering
            | Reason::StaleWrite
            | Reason::LowerAuthority
            | Reason::NeedsReview => Check::Conflict,
            Reason::UnstableDependency => Check::DependencyStability,
            #[cfg(feature = "tutorial-committed-parents")]
            Reason::UncommittedParent => Check::CommittedParents,
        }
    }
}

/// A record in the store. Fields are read through accessors; only the
/// protocol changes them, and after [`Record::new`] only `state` and
/// `reason`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub(in crate::protocol) fields: Proposal,
    pub(in crate::protocol) owner: u8,
    pub(in crate::protocol) state: Lifecycle,
    /// The commit check that quarantined it, if one did; a revalidated
    /// record keeps it until its next commit judges it again.
    pub(in crate::protocol) reason: Option<Reason>,
    /// For a tool_action record, the index of the tool that was called.
    pub(in crate::protocol) tool: Option<u8>,
    /// 128 well-mixed bits of what never changes after creation
    /// (`fields`, `owner`, `tool`), computed once where the record is
    /// made, so that hashing a record (see its `Hash`) reads two words
    /// instead of packing eleven fields.
    digest: [u64; 2],
}

/// Every field but the digest (a function of the others).
impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("fields", &self.fields)
            .field("owner", &self.owner)
            .field("state", &self.state)
            .field("reason", &self.reason)
            .field("tool", &self.tool)
            .finish()
    }
}

/// The part of a record's digest that its parents and its owner do not
/// change: what a template, or a tool, fixes. A packer decoding millions
/// of records from a few templates computes it once per template
/// ([`Record::with_content`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Content([u64; 2]);

/// Multipliers of the digest's two lanes (odd; the PCG multiplier and
/// the golden ratio) and their seeds (digits of pi and of e).
const LANE_MUL: [u64; 2] = [0x5851_f42d_4c95_7f2d, 0x9e37_79b9_7f4a_7c15];
const LANE_SEED: [u64; 2] = [0x243f_6a88_85a3_08d3, 0xb7e1_5162_8aed_2a6a];

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ (r >> 64) as u64
}

/// Both lanes one word on: the second lane sees the word rotated.
#[inline(always)]
fn absorb(d: [u64; 2], word: u64) -> [u64; 2] {
    [
        fold(d[0] ^ word, LANE_MUL[0]),
        fold(d[1] ^ word.rotate_left(29), LANE_MUL[1]),
    ]
}

impl Content {
    /// Everything of `fields` but the parents, with the record's tool,
    /// mixed into both lanes: injectively, as two words, and two more for
    /// a validity window (a bit of the second says whether they follow).
    pub(in crate::protocol) fn of(f: &Proposal, tool: Option<u8>) -> Content {
        let opt16 = |x: Option<u16>| x.map_or(0, |v| u64::from(v) + 1); // 17 bits
        let opt8 = |x: Option<u8>| x.map_or(0, |v| u64::from(v) + 1); // 9 bits
        let opt32 = |x: Option<i32>| x.map_or(0, |v| u64::from(v as u32) | 1 << 32); // 33 bits
        let windowed = f.window != Window::default();
        let what = f.kind as u64
            | u64::from(f.entity.0) << 3
            | u64::from(f.attribute.0) << 19
            | u64::from(f.value.0) << 35
            | (f.scope as u64) << 51;
        let whose = opt16(f.source.map(|s| s.0))
            | u64::from(f.authority.0) << 17
            | u64::from(f.confidence.0) << 25
            | opt8(f.owner) << 33
            | opt8(tool) << 42
            | u64::from(windowed) << 51;
        let mut d = absorb(absorb(LANE_SEED, what), whose);
        if windowed {
            d = absorb(absorb(d, opt32(f.window.from)), opt32(f.window.to));
        }
        Content(d)
    }

    /// The digest of a record with this content, these parents and this
    /// owner: both lanes on by the parents, then by the owner, each ended
    /// by a fold with the other lane's multiplier.
    #[inline]
    fn digest(self, parents: RecordSet, owner: u8) -> [u64; 2] {
        let d = absorb(absorb(self.0, parents.bits()), u64::from(owner));
        [fold(d[0], LANE_MUL[1]), fold(d[1], LANE_MUL[0])]
    }
}

impl Record {
    /// A record with these fields (its digest computed). Inlined: staging
    /// and a tool call make one each, with most fields known.
    #[inline]
    pub(in crate::protocol) fn new(
        fields: Proposal,
        owner: u8,
        state: Lifecycle,
        reason: Option<Reason>,
        tool: Option<u8>,
    ) -> Record {
        Record::with_content(
            Content::of(&fields, tool),
            fields,
            owner,
            state,
            reason,
            tool,
        )
    }

    /// [`Record::new`] for a caller that has `Content::of(&fields, tool)`
    /// at hand.
    #[inline]
    pub(in crate::protocol) fn with_content(
        content: Content,
        fields: Proposal,
        owner: u8,
        state: Lifecycle,
        reason: Option<Reason>,
        tool: Option<u8>,
    ) -> Record {
        debug_assert_eq!(content, Content::of(&fields, tool));
        Record {
            fields,
            owner,
            state,
            reason,
            tool,
            digest: content.digest(fields.derived_from, owner),
        }
    }

    /// The same record deriving from `parents` instead (a rebuild), its
    /// digest computed again.
    pub(in crate::protocol) fn with_parents(self, parents: RecordSet) -> Record {
        let fields = Proposal {
            derived_from: parents,
            ..self.fields
        };
        Record::new(fields, self.owner, self.state, self.reason, self.tool)
    }

    pub fn kind(&self) -> Kind {
        self.fields.kind
    }
    pub fn state(&self) -> Lifecycle {
        self.state
    }
    pub fn entity(&self) -> Sym {
        self.fields.entity
    }
    pub fn attribute(&self) -> Sym {
        self.fields.attribute
    }
    pub fn value(&self) -> Sym {
        self.fields.value
    }
    pub fn source(&self) -> Option<Sym> {
        self.fields.source
    }
    pub fn authority(&self) -> Hundredths {
        self.fields.authority
    }
    pub fn confidence(&self) -> Hundredths {
        self.fields.confidence
    }
    pub fn owner(&self) -> u8 {
        self.owner
    }
    pub fn scope(&self) -> Scope {
        self.fields.scope
    }
    pub fn derived_from(&self) -> RecordSet {
        self.fields.derived_from
    }
    pub fn window(&self) -> Window {
        self.fields.window
    }
    pub fn reason(&self) -> Option<Reason> {
        self.reason
    }
    pub fn tool(&self) -> Option<u8> {
        self.tool
    }
    /// The authority the record carries: its source's, or 0.5 without a
    /// source (card pitfalls, "A missing source is treated as authority
    /// 0.5"). Checks 1 and 3 read it.
    pub(in crate::protocol) fn effective_authority(&self) -> Hundredths {
        if self.source().is_some() {
            self.authority()
        } else {
            Hundredths::MISSING_SOURCE_AUTHORITY
        }
    }

    /// The proposal this record was staged from (owner filled in).
    pub fn proposal(&self) -> Proposal {
        Proposal {
            owner: Some(self.owner),
            ..self.fields
        }
    }
}

/// One 128-bit word: the record's digest with its state and quarantine
/// reason in the low bits, so that fingerprinting a store, the model
/// checker's hottest operation, costs one hasher write per record. Equal
/// records hash equal. Two different records write the same word only if
/// their contents' digests differ in nothing but those seven bits: for a
/// given pair, a chance of 2⁻¹²¹, far below the chance that two states'
/// fingerprints collide at either width, and covered by it.
impl std::hash::Hash for Record {
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let changing = self.state as u64 | self.reason.map_or(0, |r| r as u64 + 1) << 3;
        h.write_u128(
            (u128::from(self.digest[1]) << 64 | u128::from(self.digest[0])) ^ u128::from(changing),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Record {
        /// The same record with its digest computed again, for a test that
        /// changed a field the digest covers.
        pub(in crate::protocol) fn rebuilt(self) -> Record {
            Record::new(self.fields, self.owner, self.state, self.reason, self.tool)
        }
    }

    #[test]
    fn hundredths_are_exact() {
        assert_eq!(Hundredths::from_decimal(0.6), Some(Hundredths(60)));
        assert_eq!(Hundredths::from_decimal(0.59), Some(Hundredths(59)));
        assert_eq!(Hundredths::from_decimal(0.9), Some(Hundredths(90)));
        assert_eq!(Hundredths::from_decimal(1.0), Some(Hundredths(100)));
        assert_eq!(Hundredths::from_decimal(0.0), Some(Hundredths(0)));
        assert_eq!(Hundredths::from_decimal(0.595), None);
        assert_eq!(Hundredths::from_decimal(1.01), None);
        assert_eq!(Hundredths::from_decimal(-0.1), None);
        assert_eq!(Hundredths::from_decimal(f64::NAN), None);
    }

    #[test]
    fn a_record_without_a_source_carries_authority_one_half() {
        let fields = Proposal {
            kind: Kind::Belief,
            entity: Sym(0),
            attribute: Sym(1),
            value: Sym(2),
            source: Some(Sym(3)),
            authority: Hundredths(95),
            confidence: Hundredths(10),
            owner: None,
            scope: Scope::Shared,
            derived_from: RecordSet::EMPTY,
            window: Window::default(),
        };
        let record = |source| {
            Record::new(
                Proposal { source, ..fields },
                0,
                Lifecycle::Tentative,
                None,
                None,
            )
        };
        assert_eq!(record(Some(Sym(3))).effective_authority(), Hundredths(95));
        assert_eq!(record(None).effective_authority(), Hundredths(50));
        assert_eq!(record(None).authority(), Hundredths(95), "the field stays");
    }

    #[test]
    fn windows_are_inclusive_and_open_when_absent() {
        let w = Window {
            from: Some(3),
            to: Some(5),
        };
        assert!(!w.contains(2));
        assert!(w.contains(3));
        assert!(w.contains(5));
        assert!(!w.contains(6));
        assert!(Window::default().contains(i32::MIN));
        assert!(Window {
            from: None,
            to: Some(5)
        }
        .contains(-100));
        assert!(Window {
            from: Some(3),
            to: None
        }
        .contains(1000));
    }

    #[test]
    fn window_overlap() {
        let a = Window {
            from: Some(1),
            to: Some(3),
        };
        let b = Window {
            from: Some(3),
            to: Some(6),
        };
        let c = Window {
            from: Some(4),
            to: None,
        };
        assert!(a.overlaps(b), "touching inclusive windows overlap");
        assert!(!a.overlaps(c));
        assert!(!c.overlaps(a));
        assert!(b.overlaps(c));
        assert!(Window::default().overlaps(a));
    }

    #[test]
    fn views_are_the_four_derived_kinds() {
        let views: Vec<_> = Kind::ALL.into_iter().filter(|k| k.is_view()).collect();
        assert_eq!(
            views,
            vec![
                Kind::Summary,
                Kind::Profile,
                Kind::IndexEntry,
                Kind::SharedCopy
            ]
        );
    }

    #[test]
    fn records_differing_in_any_one_field_hash_differently() {
        use std::hash::{Hash, Hasher};
        let hash = |r: &Record| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            r.hash(&mut h);
            h.finish()
        };
        let base = Record::new(
            Proposal {
                kind: Kind::Belief,
                entity: Sym(1),
                attribute: Sym(2),
                value: Sym(3),
                source: Some(Sym(4)),
                authority: Hundredths(70),
                confidence: Hundredths(80),
                owner: None,
                scope: Scope::Shared,
                derived_from: RecordSet::single(0),
                window: Window {
                    from: None,
                    to: Some(0),
                },
            },
            0,
            Lifecycle::Committed,
            None,
            None,
        );
        let f = base.fields;
        let variants = [
            Record {
                fields: Proposal {
                    kind: Kind::Summary,
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    entity: Sym(9),
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    attribute: Sym(9),
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal { value: Sym(9), ..f },
                ..base
            },
            Record {
                fields: Proposal { source: None, ..f },
                ..base
            },
            Record {
                fields: Proposal {
                    source: Some(Sym(0)),
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    authority: Hundredths(71),
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    confidence: Hundredths(81),
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    owner: Some(0),
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    scope: Scope::Public,
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    derived_from: RecordSet::EMPTY,
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    window: Window {
                        from: Some(0),
                        to: Some(0),
                    },
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    window: Window {
                        from: None,
                        to: None,
                    },
                    ..f
                },
                ..base
            },
            Record {
                fields: Proposal {
                    window: Window {
                        from: None,
                        to: Some(-1),
                    },
                    ..f
                },
                ..base
            },
            Record { owner: 1, ..base },
            Record {
                state: Lifecycle::ActionSafe,
                ..base
            },
            Record {
                reason: Some(Reason::LowEvidence),
                ..base
            },
            Record {
                tool: Some(0),
                ..base
            },
        ]
        .map(Record::rebuilt);
        let mut seen = std::collections::HashSet::from([hash(&base)]);
        for v in &variants {
            assert_ne!(*v, base);
            assert!(seen.insert(hash(v)), "{v:?} hashes like another variant");
        }
    }
}
