//! `memtx-check driver`: serves this build's protocol over the driver
//! protocol on stdin and stdout (`docs/driver-protocol.md`) until stdin
//! ends; exit 0. A closed stdout (the client went away) ends it quietly.

use super::exit::{CliError, Verdict};
use crate::driver::serve;
use clap::Args;
use std::io::{self, BufWriter};

#[derive(Debug, Args)]
pub struct DriverArgs {}

pub fn run(_args: &DriverArgs) -> Result<Verdict, CliError> {
    let stdin = io::stdin().lock();
    let stdout = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match serve(stdin, stdout) {
        Ok(()) => Ok(Verdict::Holds),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(Verdict::Holds),
        Err(e) => Err(CliError(format!("driver: {e}"))),
    }
}
