//! The `memtx-check` binary: parse the command line, dispatch, map the
//! result to an exit code (0 holds, 1 violated, 2 bad input or usage, 3
//! inconclusive: a check stopped before its bound).

use clap::Parser;
use memtx_check::cli::{self, Cli, CliError};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli::run(&cli) {
        Ok(verdict) => ExitCode::from(verdict.exit_code()),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "memtx-check: error: {e}");
            ExitCode::from(CliError::EXIT_CODE)
        }
    }
}
