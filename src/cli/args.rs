//! The flags several commands share, each declared once: the record and
//! transaction bounds (`check`, `random`), the depth (`check`, `diff`)
//! the thread count (`check`, `random`, `diff`) and the invariants judged
//! (`check`, `random`). Values are taken as
//! text and validated by [`crate::config::flags`] against the limits the
//! model file obeys, so a bad one gets the usual one-line error.

use super::exit::CliError;
use crate::config::flags::{self, BoundOverrides};
use crate::config::limits::{MAX_DEPTH, MAX_RECORDS, MAX_THREADS, MAX_TRANSACTIONS};
use crate::invariants::Selection;
use clap::Args;

/// `--records N --transactions N`.
#[derive(Debug, Args)]
pub struct BoundArgs {
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = format!("Override the record bound (tool actions included), 1..={MAX_RECORDS}"))]
    pub records: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = format!("Override the transaction bound, 1..={MAX_TRANSACTIONS}"))]
    pub transactions: Option<String>,
}

/// `--depth N|full`.
#[derive(Debug, Args)]
pub struct DepthArg {
    #[arg(long, value_name = "N|full", allow_hyphen_values = true,
          help = format!("Override the depth bound: a number of actions, 0..={MAX_DEPTH}, \
                          or `full` to explore until a level adds no new state"))]
    pub depth: Option<String>,
}

/// `--threads N`.
#[derive(Debug, Args)]
pub struct ThreadsArg {
    #[arg(long, value_name = "N", allow_hyphen_values = true,
          help = format!("Worker threads, 1..={MAX_THREADS} (default: every core). \
                          Counts and traces do not depend on it"))]
    pub threads: Option<String>,
}

/// `--properties LIST`.
#[derive(Debug, Args)]
pub struct PropertiesArg {
    #[arg(long, value_name = "LIST", allow_hyphen_values = true,
          help = format!("Judge only these invariants (and the companions that guard them), \
                          comma-separated: {} (default: all)", Selection::ALL.names()))]
    pub properties: Option<String>,
}

impl PropertiesArg {
    /// The invariants named, or all of them.
    pub fn selection(&self) -> Result<Selection, CliError> {
        match &self.properties {
            Some(text) => Ok(flags::properties(text)?),
            None => Ok(Selection::ALL),
        }
    }
}

/// The bound overrides a command takes: records and transactions from
/// `bounds`, the depth from `depth`.
pub fn overrides(
    bounds: Option<&BoundArgs>,
    depth: Option<&DepthArg>,
) -> Result<BoundOverrides, CliError> {
    Ok(BoundOverrides::parse(
        bounds.and_then(|b| b.records.as_deref()),
        bounds.and_then(|b| b.transactions.as_deref()),
        depth.and_then(|d| d.depth.as_deref()),
    )?)
}

impl ThreadsArg {
    /// The thread count: the flag's, or one a core.
    pub fn count(&self) -> Result<usize, CliError> {
        match &self.threads {
            Some(text) => Ok(flags::threads(text)?),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// How long a driver may take to answer one request unless
/// `--step-timeout` says.
const DEFAULT_STEP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The driver flags `conform` and a diff across builds share: `--jobs`
/// (default: one a core) and `--step-timeout` (default
/// [`DEFAULT_STEP_TIMEOUT`]), each parsed once.
pub fn driver_flags(
    jobs: Option<&str>,
    step_timeout: Option<&str>,
) -> Result<(usize, std::time::Duration), CliError> {
    let jobs = match jobs {
        Some(text) => flags::jobs(text)?,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let step_timeout = match step_timeout {
        Some(text) => flags::step_timeout(text)?,
        None => DEFAULT_STEP_TIMEOUT,
    };
    Ok((jobs, step_timeout))
}

/// For the plans' unit tests: `line` parsed as the flags of one
/// subcommand named `name` (its `Args` struct), or clap's error text.
#[cfg(test)]
pub(super) fn parse_args<A: clap::Args>(name: &str, line: &[&str]) -> Result<A, String> {
    use clap::Parser;
    #[derive(Parser)]
    struct Wrapper<A: clap::Args> {
        #[command(flatten)]
        args: A,
    }
    Wrapper::<A>::try_parse_from(std::iter::once(name).chain(line.iter().copied()))
        .map(|w| w.args)
        .map_err(|e| e.to_string())
}
