//! Mirrors of the record and rollback-log entry that `replay --json` and
//! the driver's answers both write (docs/replay.md,
//! docs/driver-protocol.md), with every documented field and unknown
//! fields refused: the suite's own reading of them, never the crate's
//! types, shared by the areas that read them.

use serde::Deserialize;

/// One record of a store, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // every documented field is read, some only to be refused if missing
pub struct Record {
    pub id: u8,
    pub kind: String,
    pub state: String,
    pub entity: String,
    pub attribute: String,
    pub value: String,
    pub source: Option<String>,
    pub authority: f64,
    pub confidence: f64,
    pub owner: u8,
    pub scope: String,
    pub derived_from: Vec<u8>,
    pub valid_from: Option<i32>,
    pub valid_to: Option<i32>,
    pub reason: Option<String>,
    pub tool: Option<String>,
}

/// One entry of the rollback log, as written.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LogEntry {
    pub record: u8,
    pub repair: String,
    pub root: bool,
}
