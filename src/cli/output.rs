//! Writing to standard output without panicking: a closed pipe (`| head`)
//! ends the output quietly; any other write failure is a [`CliError`].

use super::exit::CliError;
use std::io::{self, Write};

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(CliError(format!("cannot write to standard output: {e}")))
        }
        _ => Ok(()),
    }
}
