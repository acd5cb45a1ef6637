//! A run's settings given on the command line: the bounds that replace
//! the model's own, the thread count and the properties judged. Validated
//! against the same [`super::limits`] as the model file; each error is
//! one line naming the flag.

use super::limits::{
    MAX_CONNECT_TIMEOUT_SECS, MAX_DEPTH, MAX_JOBS, MAX_LOCAL_PROCESSES, MAX_PROCESSES, MAX_RECORDS,
    MAX_THREADS, MAX_TRANSACTIONS,
};
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
        bounds.records = self.records.unwrap_or(bounds.records);
        bounds.transactions = self.transactions.unwrap_or(bounds.transactions);
        bounds.depth = self.depth.unwrap_or(bounds.depth);
    }
}

/// A `--depth` value: a number of actions or `full`.
fn parse_depth(text: &str) -> Result<Depth, InputError> {
    if text == "full" {
        return Ok(Depth::Full);
    }
    match text.parse::<usize>() {
        Ok(d) if d <= MAX_DEPTH => Ok(Depth::Bounded(d)),
        _ => Err(InputError::new(format!(
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

/// A `--jobs` value: driver processes run at once.
pub fn jobs(text: &str) -> Result<usize, InputError> {
    Ok(whole_number("--jobs", text, 1, MAX_JOBS as u64)? as usize)
}

/// A `--step-timeout` value: whole seconds a driver may take to answer.
pub fn step_timeout(text: &str) -> Result<std::time::Duration, InputError> {
    let secs = whole_number("--step-timeout", text, 1, 3600)?;
    Ok(std::time::Duration::from_secs(secs))
}

/// A `--process` value: this process's index in the hosts file (checked
/// against the file's length when it is read).
pub fn process_index(text: &str) -> Result<usize, InputError> {
    Ok(whole_number("--process", text, 0, MAX_PROCESSES as u64 - 1)? as usize)
}

/// A `--local-processes` value.
pub fn local_processes(text: &str) -> Result<usize, InputError> {
    Ok(whole_number("--local-processes", text, 1, MAX_LOCAL_PROCESSES as u64)? as usize)
}

/// A `--connect-timeout` value, in whole seconds.
pub fn connect_timeout(text: &str) -> Result<std::time::Duration, InputError> {
    let secs = whole_number("--connect-timeout", text, 1, MAX_CONNECT_TIMEOUT_SECS)?;
    Ok(std::time::Duration::from_secs(secs))
}

/// A `--fingerprint` value: 64 or 128 bits.
pub fn fingerprint_bits(text: &str) -> Result<u32, InputError> {
    match text {
        "64" => Ok(64),
        "128" => Ok(128),
        _ => Err(InputError(format!(
            "--fingerprint: {text:?} is not a fingerprint width: 64 or 128"
        ))),
    }
}

/// A `--max-memory` value: a number of bytes with an optional suffix K,
/// M, G or T (powers of 1024), e.g. `512M` or `20G`; at least 1M.
pub fn memory_size(text: &str) -> Result<u64, InputError> {
    let bad = || {
        InputError(format!(
            "--max-memory: {text:?} is not a memory size such as 512M or 20G (at least 1M)"
        ))
    };
    let (digits, shift) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 10),
        Some((i, 'M' | 'm')) => (&text[..i], 20),
        Some((i, 'G' | 'g')) => (&text[..i], 30),
        Some((i, 'T' | 't')) => (&text[..i], 40),
        _ => (text, 0),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(bad)?;
    if bytes < 1 << 20 {
        return Err(bad());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_and_widths() {
        assert_eq!(memory_size("512M").unwrap(), 512 << 20);
        assert_eq!(memory_size("20G").unwrap(), 20 << 30);
        assert_eq!(memory_size("2097152").unwrap(), 2 << 20);
        for bad in ["", "G", "12X", "-1G", "1K", "99999999999T"] {
            assert!(memory_size(bad).is_err(), "{bad}");
        }
        assert_eq!(fingerprint_bits("128").unwrap(), 128);
        assert!(fingerprint_bits("32").is_err());
        assert_eq!(process_index("2").unwrap(), 2);
        assert!(local_processes("0").is_err() && local_processes("65").is_err());
        assert_eq!(connect_timeout("5").unwrap().as_secs(), 5);
        assert!(connect_timeout("0").is_err());
    }
}
