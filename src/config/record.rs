//! [`RecordSpec`]: a record written out in full, with its strings. A
//! template is one without parents (plus a name and a parent rule); a
//! trace's stage step carries one with its parents. One type, so one raw
//! form ([`RawRecord`], which the template's and the trace record's raw
//! structs flatten), one validation ([`record_spec`]), one conversion to
//! and from the protocol's [`Proposal`], and one JSON form.

use super::limits::MAX_RECORDS;
use crate::input::{InputError, Validator};
use crate::protocol::{Hundredths, Kind, Proposal, RecordSet, Scope, Sym, Symbols, Window};
use serde::{Deserialize, Serialize};

/// Every field of a staged record, written out.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordSpec {
    pub kind: Kind,
    pub entity: String,
    pub attribute: String,
    pub value: String,
    pub source: Option<String>,
    pub authority: Hundredths,
    pub confidence: Hundredths,
    pub scope: Scope,
    pub derived_from: Vec<u8>,
    pub valid_from: Option<i32>,
    pub valid_to: Option<i32>,
    /// `None`: the staging agent.
    pub owner: Option<u8>,
}

/// The fields a template and a trace's staged record share, as read:
/// every one optional, so that [`crate::input::locate`] can find a bad one.
/// Unknown fields are refused by the struct that flattens it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawRecord {
    pub kind: Option<Kind>,
    pub entity: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub source: Option<String>,
    pub authority: Option<f64>,
    pub confidence: Option<f64>,
    pub scope: Option<Scope>,
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub owner: Option<i64>,
}

impl RawRecord {
    /// The fields above in the documented order, for the unknown-field
    /// error of the structs that flatten this one.
    pub const FIELDS: &'static [&'static str] = &[
        "kind",
        "entity",
        "attribute",
        "value",
        "source",
        "authority",
        "confidence",
        "scope",
        "valid_from",
        "valid_to",
        "owner",
    ];
}

/// A record spec from its raw fields and already-checked parents:
/// `authority` defaults to 0.5 (a missing source's), decimals are on the
/// hundredths grid, the window is ordered, the owner is an agent.
pub(crate) fn record_spec(
    v: &Validator,
    raw: RawRecord,
    derived_from: Vec<u8>,
    agents: u8,
) -> Result<RecordSpec, InputError> {
    let kind = v.required("kind", raw.kind)?;
    let authority = match raw.authority {
        Some(a) => decimal(v, "authority", a)?,
        None => Hundredths::MISSING_SOURCE_AUTHORITY,
    };
    let confidence = decimal(v, "confidence", v.required("confidence", raw.confidence)?)?;
    let (valid_from, valid_to) = v.window(raw.valid_from, raw.valid_to)?;
    Ok(RecordSpec {
        kind,
        entity: v.required("entity", raw.entity)?,
        attribute: v.required("attribute", raw.attribute)?,
        value: v.required("value", raw.value)?,
        source: raw.source,
        authority,
        confidence,
        scope: v.required("scope", raw.scope)?,
        derived_from,
        valid_from,
        valid_to,
        owner: raw.owner.map(|o| v.agent("owner", o, agents)).transpose()?,
    })
}

/// Authority or confidence: a decimal in [0, 1] on the hundredths grid.
fn decimal(v: &Validator, path: &str, x: f64) -> Result<Hundredths, InputError> {
    Hundredths::from_decimal(x).ok_or_else(|| {
        v.err(
            path,
            format!("{x} is not a decimal in [0, 1] on the hundredths grid"),
        )
    })
}

impl RecordSpec {
    /// The protocol's proposal, interning new strings into `symbols`.
    /// Errors: a parent id beyond the store, or a full symbol table.
    pub fn to_proposal(&self, symbols: &mut Symbols) -> Result<Proposal, String> {
        Ok(Proposal {
            kind: self.kind,
            entity: intern(symbols, &self.entity)?,
            attribute: intern(symbols, &self.attribute)?,
            value: intern(symbols, &self.value)?,
            source: self
                .source
                .as_deref()
                .map(|s| intern(symbols, s))
                .transpose()?,
            authority: self.authority,
            confidence: self.confidence,
            owner: self.owner,
            scope: self.scope,
            derived_from: record_set("derived_from", &self.derived_from)?,
            window: Window {
                from: self.valid_from,
                to: self.valid_to,
            },
        })
    }

    /// The proposal written out, strings looked up in `symbols`.
    pub fn of_proposal(p: &Proposal, symbols: &Symbols) -> RecordSpec {
        RecordSpec {
            kind: p.kind,
            entity: symbols.name(p.entity).to_owned(),
            attribute: symbols.name(p.attribute).to_owned(),
            value: symbols.name(p.value).to_owned(),
            source: p.source.map(|s| symbols.name(s).to_owned()),
            authority: p.authority,
            confidence: p.confidence,
            scope: p.scope,
            derived_from: p.derived_from.iter().collect(),
            valid_from: p.window.from,
            valid_to: p.window.to,
            owner: p.owner,
        }
    }
}

/// Interns `name` unless the table is full (it holds 65,536 strings);
/// interning past that would panic in `Symbols::intern`.
fn intern(symbols: &mut Symbols, name: &str) -> Result<Sym, String> {
    if let Some(sym) = symbols.lookup(name) {
        return Ok(sym);
    }
    if symbols.len() > usize::from(u16::MAX) {
        return Err(format!("too many distinct strings to intern \"{name}\""));
    }
    Ok(symbols.intern(name))
}

/// Record ids as a set; an id beyond the store's capacity is an error
/// naming `field`.
pub fn record_set(field: &str, ids: &[u8]) -> Result<RecordSet, String> {
    match ids.iter().find(|&&id| id as usize >= MAX_RECORDS) {
        Some(id) => Err(format!(
            "{field}: r{id} is beyond the store's {MAX_RECORDS} records"
        )),
        None => Ok(ids.iter().copied().collect()),
    }
}

/// A record spec as JSON, in the documented field order. A template has
/// no `derived_from` field; a trace record always has one.
#[derive(Serialize)]
pub(crate) struct RecordJson<'a> {
    kind: Kind,
    entity: &'a str,
    attribute: &'a str,
    value: &'a str,
    source: Option<&'a str>,
    authority: f64,
    confidence: f64,
    scope: Scope,
    #[serde(skip_serializing_if = "Option::is_none")]
    derived_from: Option<&'a [u8]>,
    valid_from: Option<i32>,
    valid_to: Option<i32>,
    owner: Option<u8>,
}

impl<'a> RecordJson<'a> {
    /// `with_parents`: write `derived_from` (trace records) or not
    /// (templates).
    pub(crate) fn of(r: &'a RecordSpec, with_parents: bool) -> Self {
        RecordJson {
            kind: r.kind,
            entity: &r.entity,
            attribute: &r.attribute,
            value: &r.value,
            source: r.source.as_deref(),
            authority: r.authority.as_decimal(),
            confidence: r.confidence.as_decimal(),
            scope: r.scope,
            derived_from: with_parents.then_some(r.derived_from.as_slice()),
            valid_from: r.valid_from,
            valid_to: r.valid_to,
            owner: r.owner,
        }
    }
}
