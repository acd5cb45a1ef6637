//! What a conformance run drives: an [`Implementation`] starts
//! [`Connection`]s, each one implementation's store behind the driver
//! protocol, taking request lines and giving back answers in order. The
//! run knows nothing else of it, so the same core drives a driver process
//! ([`Process`], the command line's) and, in the unit tests, this build's
//! own protocol in-process with a deliberate bug.

use crate::driver::client::{Driver, DriverFault};
use serde_json::Value;
use std::time::Duration;

/// One running implementation.
pub trait Connection: Send {
    /// Queues request lines (each without its newline).
    fn send(&mut self, lines: Vec<String>) -> Result<(), DriverFault>;
    /// The next answer, a JSON object (a `bad_request` is a fault).
    fn recv(&mut self) -> Result<Value, DriverFault>;
}

/// Something that starts connections, one per job.
pub trait Implementation: Sync {
    fn start(&self) -> Result<Box<dyn Connection>, DriverFault>;
    /// How it is named in reports: the command line.
    fn shown(&self) -> String;
}

/// A driver process started from a command line; dropping its connection
/// kills it.
pub struct Process {
    pub program: String,
    pub args: Vec<String>,
    pub step_timeout: Duration,
}

impl Implementation for Process {
    fn start(&self) -> Result<Box<dyn Connection>, DriverFault> {
        Ok(Box::new(Driver::start(
            &self.program,
            &self.args,
            self.step_timeout,
        )?))
    }

    fn shown(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl Connection for Driver {
    fn send(&mut self, lines: Vec<String>) -> Result<(), DriverFault> {
        Driver::send(self, lines)
    }

    fn recv(&mut self) -> Result<Value, DriverFault> {
        Driver::recv(self)
    }
}
