//! `memtx-check completions SHELL`: a completion script for bash, zsh,
//! fish, elvish or PowerShell on stdout, generated from the clap
//! definition ([`super::Cli`]), so it cannot drift from the flags. Install
//! it as the shell expects, e.g. `memtx-check completions bash >
//! ~/.local/share/bash-completion/completions/memtx-check`.

use super::exit::{CliError, Verdict};
use super::Cli;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::io::{self, Write};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) -> Result<Verdict, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "memtx-check", &mut script);
    write_stdout(&script)
}

/// `bytes` on stdout; a closed pipe (`| head`) is no error.
pub(super) fn write_stdout(bytes: &[u8]) -> Result<Verdict, CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(Verdict::Holds),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(Verdict::Holds),
        Err(e) => Err(CliError(format!("stdout: {e}"))),
    }
}
