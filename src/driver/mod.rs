//! `memtx-check driver`: this build's protocol served over the driver
//! protocol (`docs/driver-protocol.md`, version [`PROTOCOL_VERSION`], which
//! gives every request and answer): one JSON request a line on stdin
//! (`reset` to a configuration, `step` by one trace step), one JSON answer
//! a line on stdout; a request it cannot take is a `bad_request` and
//! changes nothing. End of stdin ends the driver (exit 0).
//!
//! It is how another build's protocol is compared with this one (`diff
//! --behaviour --before-exe`), and the contract other implementations of
//! MemTX speak to be compared with the model. [`Session`] is the state and
//! the answers; `serve` the line loop around it.

pub mod answer_text;
pub mod client;
pub mod compare;
pub mod reaper;
mod session;

pub use session::{Answer, Session};

use std::io::{self, BufRead, BufReader, Read, Write};

/// The version of the driver protocol this build speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// `Err`, in words that follow "the driver's answer", unless `answer` is
/// a driver's ready answer to a reset: `{"ok": true, …}`, and, when it
/// names the version it speaks (`driver_protocol`, optional), this one.
/// A driver of another version could read the same requests otherwise
/// and answer in shapes this client compares as agreement.
pub fn check_ready(answer: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    if answer.get("ok") != Some(&Value::Bool(true)) {
        return Err(format!(
            "to a reset is not {{\"ok\": true, …}}: {}",
            crate::input::one_line(&answer.to_string())
        ));
    }
    match answer.get("driver_protocol") {
        None => Ok(()),
        Some(v) if v.as_u64() == Some(u64::from(PROTOCOL_VERSION)) => Ok(()),
        Some(v) => Err(format!(
            "to a reset says it speaks driver protocol {}; this build speaks version {PROTOCOL_VERSION} only (docs/driver-protocol.md)",
            crate::input::one_line(&v.to_string())
        )),
    }
}

/// The longest request line taken (a longer one is a bad request).
pub const MAX_REQUEST_BYTES: usize = 16 << 20;

/// Serves requests from `input` until its end, writing each answer as one
/// line to `output`. Answers are flushed whenever no further request is
/// already waiting, so a client may send many requests before it reads.
pub fn serve(input: impl Read, mut output: impl Write) -> io::Result<()> {
    let mut session = Session::new();
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let too_long = read_line(&mut reader, &mut line, MAX_REQUEST_BYTES)?;
        if line.is_empty() && !too_long {
            break;
        }
        number += 1;
        let answer = if too_long {
            Answer::bad_request(format!(
                "request {number}: longer than {MAX_REQUEST_BYTES} bytes"
            ))
        } else {
            match std::str::from_utf8(&line) {
                Ok(text) => session.answer(text.trim_end_matches(['\n', '\r']), number),
                Err(_) => Answer::bad_request(format!("request {number}: not UTF-8")),
            }
        };
        output.write_all(answer.line().as_bytes())?;
        output.write_all(b"\n")?;
        // What is buffered, not what may come: asking the input for more
        // would wait for a request the client may send only after it has
        // read this answer.
        if reader.buffer().is_empty() {
            output.flush()?;
        }
    }
    output.flush()
}

/// Reads one line (with its `\n`) into `line`, at most `max` bytes; past
/// that, skips to the line's end and returns true. An empty `line` and
/// false: the input ended.
pub(crate) fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<bool> {
    let mut too_long = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(too_long);
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..=at], true),
            None => (buf, false),
        };
        let n = chunk.len();
        if !too_long && line.len() + n <= max + 1 {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line.clear();
        }
        reader.consume(n);
        if done {
            return Ok(too_long);
        }
    }
}

#[cfg(test)]
mod tests;
