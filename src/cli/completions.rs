//! `memtx-check completions SHELL`: a completion script for bash, zsh,
//! fish, elvish or PowerShell on stdout, generated from the clap
//! definition (the `Cli` of `cli`), so it cannot drift from the flags. Install
//! it as the shell expects, e.g. `memtx-check completions bash >
//! ~/.local/share/bash-completion/completions/memtx-check`.

use super::exit::{CliError, Verdict};
use clap::Args;
use clap_complete::Shell;
use std::io::{self, Write};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `cli` is the whole command line's definition (the caller's).
pub fn run(args: &CompletionsArgs, mut cli: clap::Command) -> Result<Verdict, CliError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "memtx-check", &mut script);
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
