//! The client side of the driver protocol: a driver process started from a
//! command line, its requests written by a thread of their own (so a
//! client can send a whole batch before it reads, however large, without
//! both sides blocking on full pipes), its answers read by another and
//! handed over with a deadline, the last lines of its standard error kept
//! for the message when it breaks the protocol. Dropping a [`Driver`]
//! closes its input and kills it: nothing is left running. The driver is
//! a child the reaper owns ([`super::reaper`]): its group, its
//! descendants and every process carrying its mark are killed, so a
//! driver that is a script starting the real one (`sh -c`, a Python
//! wrapper, a `setsid` child) leaves nothing behind either.
//!
//! Answers come back as JSON values, not as this crate's types: what is
//! compared is what the driver wrote ([`super::compare`]).

use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How many lines of a driver's standard error are kept.
const STDERR_LINES: usize = 20;

/// What went wrong with a driver: it broke the protocol, or it is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverFault {
    /// It could not be started.
    Start(String),
    /// It exited (or closed its output) before answering.
    Exited { status: String, stderr: String },
    /// It answered nothing within the step timeout.
    Timeout { seconds: u64 },
    /// Its answer is not one JSON object on one line.
    NotJson { line: String, why: String },
    /// It answered a `bad_request`: it could not take what it was sent.
    BadRequest(String),
    /// Its answer has the wrong shape for the request.
    Shape(String),
}

impl std::fmt::Display for DriverFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverFault::Start(e) => write!(f, "the driver did not start: {e}"),
            DriverFault::Exited { status, stderr } if stderr.is_empty() => {
                write!(f, "the driver exited ({status}) without answering")
            }
            DriverFault::Exited { status, stderr } => write!(
                f,
                "the driver exited ({status}) without answering; its last words: {}",
                crate::input::one_line(stderr)
            ),
            DriverFault::Timeout { seconds } => {
                write!(f, "the driver answered nothing within {seconds} s")
            }
            DriverFault::NotJson { line, why } => write!(
                f,
                "the driver's answer is not a JSON object ({why}): {}",
                cut(line, 200)
            ),
            DriverFault::BadRequest(why) => {
                write!(
                    f,
                    "the driver refused the request as bad: {}",
                    cut(why, 300)
                )
            }
            DriverFault::Shape(why) => write!(f, "the driver's answer {why}"),
        }
    }
}

/// `text` cut to `max` characters, with its length said when cut.
fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        text.to_owned()
    } else {
        let head: String = text.chars().take(max).collect();
        format!("{head}… ({n} characters)")
    }
}

/// A running driver process.
pub struct Driver {
    child: Child,
    requests: Option<Sender<Vec<u8>>>,
    answers: Receiver<Result<String, String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    threads: Vec<JoinHandle<()>>,
    timeout: Duration,
    /// Requests sent whose answers have not been read.
    pending: usize,
    /// Requests sent in all.
    pub sent: u64,
}

impl Driver {
    /// Starts `program` with `args`; each answer must come within
    /// `timeout` of the previous one (or of the request, when none was
    /// pending).
    pub fn start(program: &str, args: &[String], timeout: Duration) -> Result<Driver, DriverFault> {
        let mut child = super::reaper::spawn(
            Command::new(program)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .map_err(|e| DriverFault::Start(format!("{program}: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let (request_tx, request_rx) = mpsc::channel::<Vec<u8>>();
        let (answer_tx, answer_rx) = mpsc::channel();
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let threads = vec![
            std::thread::spawn(move || write_requests(stdin, request_rx)),
            std::thread::spawn(move || read_answers(stdout, answer_tx)),
            {
                let stderr = Arc::clone(&stderr);
                std::thread::spawn(move || keep_stderr(stderr_pipe, stderr))
            },
        ];
        Ok(Driver {
            child,
            requests: Some(request_tx),
            answers: answer_rx,
            stderr,
            threads,
            timeout,
            pending: 0,
            sent: 0,
        })
    }

    /// Queues request lines (each without its newline) to be written.
    pub fn send<I: IntoIterator<Item = String>>(&mut self, lines: I) -> Result<(), DriverFault> {
        let mut batch = Vec::new();
        let mut n = 0;
        for line in lines {
            batch.extend_from_slice(line.as_bytes());
            batch.push(b'\n');
            n += 1;
        }
        if n == 0 {
            return Ok(());
        }
        self.pending += n;
        self.sent += n as u64;
        let sender = self.requests.as_ref().expect("open until dropped");
        if sender.send(batch).is_err() {
            return Err(self.exited());
        }
        Ok(())
    }

    /// The next answer, as a JSON object; a `bad_request` answer is a fault.
    pub fn recv(&mut self) -> Result<Value, DriverFault> {
        let line = match self.answers.recv_timeout(self.timeout) {
            Ok(Ok(line)) => line,
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => return Err(self.exited()),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                return Err(DriverFault::Timeout {
                    seconds: self.timeout.as_secs(),
                });
            }
        };
        self.pending = self.pending.saturating_sub(1);
        let value: Value = serde_json::from_str(&line).map_err(|e| DriverFault::NotJson {
            line: line.clone(),
            why: e.to_string(),
        })?;
        if !value.is_object() {
            return Err(DriverFault::NotJson {
                line,
                why: "not an object".to_owned(),
            });
        }
        if let Some(why) = value.get("bad_request") {
            let why = why.as_str().map_or_else(|| why.to_string(), str::to_owned);
            return Err(DriverFault::BadRequest(why));
        }
        Ok(value)
    }

    /// Kills the driver and everything it started ([`super::reaper`]).
    fn kill(&mut self) {
        super::reaper::kill(self.child.id());
    }

    /// The fault of a driver that went away: its exit status and the last
    /// lines it wrote on standard error.
    fn exited(&mut self) -> DriverFault {
        // Give it a moment to finish exiting, so the status is known.
        let mut status = None;
        for _ in 0..50 {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(s);
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(_) => break,
            }
        }
        let status = match status {
            Some(s) => s.to_string(),
            None => {
                self.kill();
                "it closed its output".to_owned()
            }
        };
        std::thread::sleep(Duration::from_millis(20));
        let stderr = self
            .stderr
            .lock()
            .map(|lines| lines.iter().cloned().collect::<Vec<_>>().join(" / "))
            .unwrap_or_default();
        DriverFault::Exited { status, stderr }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        drop(self.requests.take());
        self.kill();
        let _ = self.child.wait();
        super::reaper::release(self.child.id());
        // The pipe threads end when their pipes close; they are not
        // joined, since a process that escaped the group and still holds
        // a pipe end would make this wait for it.
        self.threads.clear();
    }
}

fn write_requests(mut stdin: ChildStdin, requests: Receiver<Vec<u8>>) {
    for batch in requests {
        if stdin
            .write_all(&batch)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The longest answer line taken: far more than any store of the model's
/// bounds writes, so a longer one is a broken driver, not a big store.
const MAX_ANSWER_BYTES: usize = 64 << 20;

fn read_answers(stdout: impl Read, answers: Sender<Result<String, String>>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        let answer = match super::read_line(&mut reader, &mut bytes, MAX_ANSWER_BYTES) {
            Ok(true) => Ok(format!("(an answer longer than {MAX_ANSWER_BYTES} bytes)")),
            Ok(false) if bytes.is_empty() => return,
            Ok(false) => match String::from_utf8(std::mem::take(&mut bytes)) {
                Ok(line) => Ok(line.trim_end_matches(['\n', '\r']).to_owned()),
                Err(_) => Ok("(an answer that is not UTF-8)".to_owned()),
            },
            Err(e) => Err(e.to_string()),
        };
        let stop = answer.is_err();
        if answers.send(answer).is_err() || stop {
            return;
        }
    }
}

/// The most of one standard-error line kept: far more than the 300
/// characters a message shows, so a long line is still shown by its head,
/// and a driver writing one endless line costs this much and no more.
const STDERR_LINE_BYTES: usize = 4 << 10;

fn keep_stderr(stderr: impl Read, lines: Arc<Mutex<VecDeque<String>>>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::with_capacity(STDERR_LINE_BYTES);
    let mut length = 0usize;
    loop {
        let Ok(buf) = reader.fill_buf() else { return };
        if buf.is_empty() {
            if length > 0 {
                keep_line(&lines, &line, length);
            }
            return;
        }
        let (chunk, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], true),
            None => (buf, false),
        };
        let room = STDERR_LINE_BYTES - line.len();
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        length += chunk.len();
        let used = chunk.len() + usize::from(ended);
        reader.consume(used);
        if ended {
            keep_line(&lines, &line, length);
            line.clear();
            length = 0;
        }
    }
}

/// Keeps one line (its first bytes, `length` in all) as the newest of
/// the last [`STDERR_LINES`].
fn keep_line(lines: &Mutex<VecDeque<String>>, head: &[u8], length: usize) {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_end();
    let shown = if length > head.len() {
        // Its head only was kept (perhaps cut mid-character): its length
        // is said in bytes, the only measure read.
        let head: String = text.chars().take(300).collect();
        format!("{head}… ({length} bytes)")
    } else {
        cut(text, 300)
    };
    if let Ok(mut kept) = lines.lock() {
        if kept.len() == STDERR_LINES {
            kept.pop_front();
        }
        kept.push_back(shown);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` bytes of `byte`, then the rest, read in pieces.
    struct Endless {
        left: u64,
        byte: u8,
        rest: std::io::Cursor<Vec<u8>>,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.left == 0 {
                return self.rest.read(buf);
            }
            let n = buf.len().min(self.left as usize);
            buf[..n].fill(self.byte);
            self.left -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn one_endless_stderr_line_is_kept_by_its_head() {
        // Issue 38.2: the line was read whole, so a driver writing one
        // endless line made the client run out of memory. 3 GB of it here
        // would take that much; now it is skipped past its head.
        let kept = Arc::new(Mutex::new(VecDeque::new()));
        let endless = Endless {
            left: 3 << 30,
            byte: b'x',
            rest: std::io::Cursor::new(b"\nthe last words\n".to_vec()),
        };
        keep_stderr(endless, Arc::clone(&kept));
        let kept = kept.lock().unwrap();
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(kept[0].starts_with("xxxx"), "{}", &kept[0][..20]);
        assert!(kept[0].ends_with("… (3221225472 bytes)"), "{}", kept[0]);
        assert!(kept[0].len() < 400, "{}", kept[0].len());
        assert_eq!(kept[1], "the last words");
    }

    #[test]
    fn a_long_line_of_wide_characters_is_cut_on_a_character() {
        // Three-byte characters: the head kept ends mid-character, the
        // line is shown by whole characters and its length in bytes.
        let kept = Arc::new(Mutex::new(VecDeque::new()));
        let line = format!("{}\n", "€".repeat(5000));
        keep_stderr(line.as_bytes(), Arc::clone(&kept));
        let kept = kept.lock().unwrap();
        assert_eq!(kept[0], format!("{}… (15000 bytes)", "€".repeat(300)));
    }
}
