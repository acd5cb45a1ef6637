//! A run's settings given on the command line: the bounds that replace
//! the model's own, the thread count and the properties judged. Validated against the same
//! [`super::limits`] as the model file; each error is one line naming the
//! flag.

use super::limits::{MAX_DEPTH, MAX_RECORDS, MAX_THREADS, MAX_TRANSACTIONS};
use super::model_config::{Bounds, Depth};
use crate::input::flag::whole_number;
use crate::input::InputError;
use crate::invariants::Selection;

/// Bounds given on the command line, each replacing the model's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoundOverrides {
    pub records: Option<usize>,
    pub transactions: Option<usize>,
    pub depth: Option<Depth>,
}

impl BoundOverrides {
    /// The flags' values as typed (`None`: not given).
    pub fn parse(
        records: Option<&str>,
        transactions: Option<&str>,
        depth: Option<&str>,
    ) -> Result<BoundOverrides, InputError> {
        Ok(BoundOverrides {
            records: records
                .map(|r| whole_number("--records", r, 1, MAX_RECORDS as u64))
                .transpose()?
                .map(|r| r as usize),
            transactions: transactions
                .map(|t| whole_number("--transactions", t, 1, MAX_TRANSACTIONS as u64))
                .transpose()?
                .map(|t| t as usize),
            depth: depth.map(parse_depth).transpose()?,
        })
    }

    /// `bounds` with every given override in place.
    pub fn apply(&self, bounds: &mut Bounds) {
        if let Some(r) = self.records {
            bounds.records = r;
        }
        if let Some(t) = self.transactions {
            bounds.transactions = t;
        }
        if let Some(d) = self.depth {
            bounds.depth = d;
        }
    }
}

/// A `--depth` value: a number of actions or `full`.
fn parse_depth(text: &str) -> Result<Depth, InputError> {
    if text == "full" {
        return Ok(Depth::Full);
    }
    match text.parse::<usize>() {
        Ok(d) if d <= MAX_DEPTH => Ok(Depth::Bounded(d)),
        _ => Err(InputError(format!(
            "--depth: {text:?} is not a depth: a number of actions 0..={MAX_DEPTH} or `full`"
        ))),
    }
}

/// A `--threads` value.
pub fn threads(text: &str) -> Result<usize, InputError> {
    Ok(whole_number("--threads", text, 1, MAX_THREADS as u64)? as usize)
}

/// A `--properties` value: invariant names, comma-separated (`I1,G3`).
pub fn properties(text: &str) -> Result<Selection, InputError> {
    Selection::parse(text).map_err(|why| InputError(format!("--properties: {why}")))
}
