//! The `memtx-check` binary: parse the command line, dispatch, map the
//! result to an exit code (0 holds, 1 violated, 2 bad input or usage, 3
//! inconclusive: a check stopped before its bound).

use memtx_check::cli::{self, CliError, NotRun};
use memtx_check::input::one_line;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::parse_command_line(std::env::args_os()) {
        Ok(cli) => cli,
        // --help and --version: clap's own output and exit code.
        Err(NotRun::Display(e)) => e.exit(),
        Err(NotRun::Usage(line)) => return fail(&line),
    };
    match cli::run(&cli) {
        Ok(verdict) => ExitCode::from(verdict.exit_code()),
        Err(e) => fail(&e.to_string()),
    }
}

/// One line on stderr (a path given on the command line may hold a
/// newline), exit 2.
fn fail(line: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "memtx-check: error: {}", one_line(line));
    ExitCode::from(CliError::EXIT_CODE)
}
