//! The command line: clap's raw arguments, one file per subcommand, each
//! turning its arguments into a run and returning a [`Verdict`]. `main`
//! only parses, dispatches and maps the result to an exit code: 0 every
//! property holds, 1 one is violated, 2 bad input or usage (a usage error
//! is one line, [`parse_command_line`]), 3 a check stopped before its
//! bound (inconclusive).
//!
//! Each subcommand with flags to judge turns its clap struct into one
//! validated plan first (`CheckPlan`, `CiPlan`, `DiffPlan`, `RandomPlan`,
//! `ConformPlan`: every number parsed and every combination judged, before
//! a model is read), and its `run` takes the plan, never the raw
//! arguments. Adding a subcommand: a file here with an `Args` struct, its
//! plan's `from_args` and a `run(&Plan) -> Result<Verdict, CliError>`, a
//! variant in [`Command`], a line in [`run`].

mod args;
pub mod check;
pub mod check_plan;
pub mod ci;
mod cluster;
pub mod completions;
pub mod conform;
pub mod diff;
pub mod driver;
mod exit;
pub mod explore;
mod files;
mod interrupt;
pub mod man;
mod model;
mod output;
mod progress;
pub mod random;
mod renamed;
pub mod replay;
pub mod suite;
mod usage;

pub use exit::{CliError, Verdict};
pub use output::print;
pub use usage::{parse_command_line, NotRun};

use clap::{Parser, Subcommand};

/// memtx-check: a model checker and invariant verifier for the MemTX
/// transactional belief-commit protocol.
#[derive(Debug, Parser)]
#[command(name = "memtx-check", version = crate::build_info::version_line())]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Exhaustively check every interleaving up to the model's bounds
    /// against I1, I2 and G3.
    Check(check_plan::CheckArgs),
    /// Replay a trace file through the protocol, step by step, and check
    /// every invariant after each step.
    Replay(replay::ReplayArgs),
    /// Run random walks through the model's actions, checking I1, I2 and
    /// G3 on every step; shrink and write each violation as a trace.
    Random(random::RandomArgs),
    /// Compare two check results (saved reports or models checked now): a
    /// changed state space, a new violation, a lost one.
    Diff(diff::DiffArgs),
    /// Check every model of a folder and judge each against its `expect`
    /// and its committed baseline (reports/NAME); JUnit XML for CI.
    Ci(ci::CiArgs),
    /// Serve stateright's web explorer for a model, or open it on a
    /// trace's last state (prints the deep link).
    Explore(explore::ExploreArgs),
    /// Serve this build's protocol as JSON lines on stdin and stdout (the
    /// driver protocol, docs/driver-protocol.md), for another build's
    /// behaviour diff or a conformance run.
    Driver(driver::DriverArgs),
    /// Drive an implementation of MemTX (a driver process) with the
    /// model's traces and compare its answers with the model's after every
    /// step; shrink each departure to a short replayable trace.
    Conform(conform::ConformArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell), generated from these flags.
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff), generated from these flags: read it
    /// with `memtx-check man | man -l -`.
    Man(man::ManArgs),
}

/// Runs the parsed command line; a signal ends it as [`interrupt`] says.
pub fn run(cli: &Cli) -> Result<Verdict, CliError> {
    interrupt::install();
    match &cli.command {
        Command::Check(args) => {
            let plan = check_plan::CheckPlan::from_args(args)?;
            if plan.suite {
                // A directory of models is a suite.
                suite::run(&plan)
            } else {
                check::run(&plan)
            }
        }
        Command::Replay(args) => replay::run(args),
        Command::Random(args) => random::run(&random::RandomPlan::from_args(args)?),
        Command::Explore(args) => explore::run(args),
        Command::Diff(args) => diff::run(&diff::DiffPlan::from_args(args)?),
        Command::Ci(args) => ci::run(&ci::CiPlan::from_args(args)?),
        Command::Driver(args) => driver::run(args),
        Command::Conform(args) => conform::run(&conform::ConformPlan::from_args(args)?),
        Command::Completions(args) => {
            completions::run(args, <Cli as clap::CommandFactory>::command())
        }
        Command::Man(args) => man::run(args, <Cli as clap::CommandFactory>::command()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn replay_arguments_parse() {
        let cli = Cli::try_parse_from(["memtx-check", "replay", "t.json", "--json"]).unwrap();
        let Command::Replay(args) = cli.command else {
            panic!("replay parses as replay")
        };
        assert_eq!(args.file, std::path::PathBuf::from("t.json"));
        assert!(args.json && args.itf.is_none());
        let err = Cli::try_parse_from(["memtx-check", "replay"]).unwrap_err();
        assert_eq!(err.exit_code(), 2, "clap usage errors exit 2");
    }
}
