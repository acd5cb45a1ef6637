//! `memtx-check man [COMMAND]`: a manual page, in roff, on stdout,
//! generated from the clap definition (the `Cli` of `cli`). Without COMMAND,
//! memtx-check(1): the synopsis, every subcommand with its one line, the
//! version with its commit; with one, memtx-check-COMMAND(1), the page the
//! first one refers to: that subcommand's synopsis and every flag. Read
//! one with `memtx-check man check | man -l -`, or install each as the
//! file its title names (`man1/memtx-check-check.1`).

use super::completions::write_stdout;
use super::exit::{CliError, Verdict};
use clap::Args;

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A subcommand, for its own page (default: the page of memtx-check).
    pub command: Option<String>,
}

/// `cli` is the whole command line's definition (the caller's, so that
/// this module needs nothing above it; tests/suite/generated.rs checks the
/// pages).
pub fn run(args: &ManArgs, cli: clap::Command) -> Result<Verdict, CliError> {
    write_stdout(&page(cli, args.command.as_deref())?)
}

/// The page of memtx-check, or of one of its subcommands.
pub fn page(mut cli: clap::Command, command: Option<&str>) -> Result<Vec<u8>, CliError> {
    cli.build();
    let (cmd, title) = match command {
        None => (cli, "memtx-check".to_owned()),
        Some(name) => {
            let names: Vec<String> = cli
                .get_subcommands()
                .map(|s| s.get_name().to_owned())
                .collect();
            let sub = cli.find_subcommand(name).ok_or_else(|| {
                CliError(format!(
                    "man: {name:?} is not a subcommand (one of {})",
                    names.join(", ")
                ))
            })?;
            // Its page's title, memtx-check-NAME, is the one memtx-check(1)
            // lists; its synopsis keeps `memtx-check NAME`.
            let sub = sub.clone().version(crate::build_info::version_line());
            (sub, format!("memtx-check-{name}"))
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .title(title)
        .render(&mut page)
        .map_err(|e| CliError(format!("man: {e}")))?;
    Ok(page)
}
