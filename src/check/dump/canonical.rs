//! The canonical encoding of a model state and its fingerprint: what names
//! a state in a dump. The encoding is UTF-8 text built from the store's
//! content by name, never from interned numbers or Rust's `Hash`:
//!
//! ```text
//! monitor breached={<names>} retracted={<ids>} covered={<ids>} unquarantinable={<ids>}[ held_back={<ids>}][ unrepaired={<ids>}]
//! r<i> <kind> <lifecycle> reason=<r|-> entity=<e> attribute=<a> value=<v>
//!      source=<s|-> authority=<n> confidence=<n> owner=<agent> scope=<s>
//!      window=<from|->..<to|-> parents={<ids>} tool=<name|->
//! T<j> agent=<a> tier=<t> status=<s> snapshot={<ids>} staged={<ids>}
//! log r<i> <repair> <retracted|descendant> from=<lifecycle> horizon=<n>
//! ```
//!
//! one line each (a record's on one line, fields separated by one space),
//! records and transactions in id order, the rollback log in its order
//! (the revocation registry is the set of records it names). Authority and
//! confidence are hundredths (`70` for 0.7); `<ids>` is `0,2`. The
//! fingerprint is the 128-bit FNV-1a hash of those bytes (offset basis
//! 0x6c62272e07bb014262b821756295c58d, prime 2^88 + 0x13b), written as 32
//! lowercase hex digits.

use crate::invariants::Invariant;
use crate::model::{ModelSpec, ModelState};
use crate::protocol::RecordSet;
use std::fmt::Write as _;

/// The canonical text of `state` under `spec` (for its names).
pub fn encode(spec: &ModelSpec, state: &ModelState) -> String {
    let symbols = &spec.compiled.symbols;
    let name = |s| symbols.name(s).to_owned();
    let store = &state.store;
    // The invariants' monitor of the actions taken (`invariants::Monitor`):
    // the transition properties broken so far, by name, and the records
    // the retractions reached.
    let m = &state.monitor;
    let breached: Vec<&str> = Invariant::ALL
        .into_iter()
        .filter(|&inv| m.breached(inv))
        .map(Invariant::name)
        .collect();
    let mut out = format!(
        "monitor breached={{{}}} retracted={} covered={} unquarantinable={}",
        breached.join(","),
        ids(m.retracted()),
        ids(m.covered()),
        ids(m.revoked_unquarantinable())
    );
    // The records held back and left unrepaired, only where they depart
    // from what the store says (never, in a correct protocol), so that
    // every state of a correct protocol keeps its fingerprint.
    if !state.held_back_departure().is_empty() {
        let _ = write!(out, " held_back={}", ids(m.held_back()));
    }
    if !m.unrepaired().is_empty() {
        let _ = write!(out, " unrepaired={}", ids(m.unrepaired()));
    }
    out.push('\n');
    for (i, r) in store.records().iter().enumerate() {
        let w = r.window();
        let _ = writeln!(
            out,
            "r{i} {} {} reason={} entity={} attribute={} value={} source={} authority={} confidence={} owner={} scope={} window={}..{} parents={} tool={}",
            r.kind().name(),
            r.state().name(),
            r.reason().map_or("-", |x| x.name()),
            name(r.entity()),
            name(r.attribute()),
            name(r.value()),
            r.source().map_or_else(|| "-".to_owned(), name),
            r.authority().0,
            r.confidence().0,
            r.owner(),
            r.scope().name(),
            w.from.map_or_else(|| "-".to_owned(), |x| x.to_string()),
            w.to.map_or_else(|| "-".to_owned(), |x| x.to_string()),
            ids(r.derived_from()),
            r.tool().map_or_else(
                || "-".to_owned(),
                |t| name(spec.protocol().tools()[t as usize].name)
            ),
        );
    }
    for (j, t) in store.transactions().iter().enumerate() {
        let _ = writeln!(
            out,
            "T{j} agent={} tier={} status={} snapshot={} staged={}",
            t.agent(),
            t.tier().name(),
            t.status().name(),
            ids(t.snapshot()),
            ids(t.staged())
        );
    }
    for e in store.rollback_log() {
        let _ = writeln!(
            out,
            "log r{} {} {} from={} horizon={}",
            e.record,
            e.repair.name(),
            if e.root { "retracted" } else { "descendant" },
            e.from.name(),
            e.horizon
        );
    }
    out
}

/// `{0,2}`.
fn ids(set: RecordSet) -> String {
    let ids: Vec<String> = set.iter().map(|i| i.to_string()).collect();
    format!("{{{}}}", ids.join(","))
}

/// FNV-1a, 128 bits.
pub fn fnv1a128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = (1 << 88) + 0x13b;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u128::from(b)).wrapping_mul(PRIME))
}

/// The state's name in a dump: 32 hex digits.
pub fn fingerprint(spec: &ModelSpec, state: &ModelState) -> u128 {
    fnv1a128(encode(spec, state).as_bytes())
}

/// `fp` as a dump writes it.
pub fn hex(fp: u128) -> String {
    format!("{fp:032x}")
}
