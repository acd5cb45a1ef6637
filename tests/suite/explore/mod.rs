//! The explorer (`explore`): its HTTP answers (`http`), hostile requests
//! (`hostile`) and a headless browser (`browser`). This module holds what
//! they share: a tiny HTTP/1.1 client over `TcpStream`, the explorer's
//! JSON as the tests' own mirror types, and a no-gate counterexample made
//! by running `memtx-check check`.

mod browser;
mod hostile;
mod http;

pub use crate::support::{free_port, fresh as scratch, root, ChildGuard, BIN};

use serde::Deserialize;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One entry of the explorer's `/.states/…` answer (stateright 0.31
/// `StateView`), mirrored here so a format change fails these tests.
#[derive(Debug, Deserialize)]
pub struct StateView {
    pub action: Option<String>,
    pub outcome: Option<String>,
    pub state: Option<String>,
    pub fingerprint: Option<String>,
    pub svg: Option<String>,
    #[serde(rename = "actionIndex")]
    pub action_index: Option<usize>,
    #[serde(default)]
    #[allow(dead_code)] // read only so that a format change fails
    pub properties: Vec<(String, String, Option<String>)>,
}

/// The explorer's `/.status` answer.
#[derive(Debug, Deserialize)]
pub struct StatusView {
    pub done: bool,
    pub model: String,
    pub state_count: usize,
    pub unique_state_count: usize,
    pub properties: Vec<(String, String, Option<String>)>,
}

/// Waits until something accepts connections on `port`.
pub fn wait_for_port(port: u16, within: Duration) {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nothing listens on 127.0.0.1:{port} after {within:?}");
}

/// `GET path` over HTTP/1.1: the status code and the body.
pub fn http_get(port: u16, path: &str) -> (u16, String) {
    http(port, "GET", path)
}

/// A connection to the explorer on loopback `port`, reads and writes
/// timed out after 30 seconds.
pub fn connect(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the explorer");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("read timeout");
    stream
        .set_write_timeout(Some(Duration::from_secs(30)))
        .expect("write timeout");
    stream
}

/// `METHOD path` over HTTP/1.1, no body: the status code and the body.
pub fn http(port: u16, method: &str, path: &str) -> (u16, String) {
    let mut stream = connect(port);
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n\
         Connection: close\r\n\r\n"
    )
    .expect("send the request");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the response");
    let text = String::from_utf8(raw).expect("a UTF-8 response");
    let (head, body) = text.split_once("\r\n\r\n").expect("headers end");
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// `GET /.states/<path>`, parsed.
pub fn states(port: u16, path: &str) -> Vec<StateView> {
    let (status, body) = http_get(port, &format!("/.states/{path}"));
    assert_eq!(status, 200, "/.states/{path}: {body}");
    serde_json::from_str(&body).expect("the explorer's states JSON")
}

/// The view of the state a whole explorer path reaches: the explorer
/// answers `/.states/<prefix>` with the successors of the prefix's last
/// state, so it is the entry whose action index is the path's last.
pub fn last_state(port: u16, path: &str) -> StateView {
    let (prefix, last) = path.rsplit_once('/').expect("a path with an action");
    let last: usize = last.parse().expect("an action index");
    states(port, prefix)
        .into_iter()
        .find(|s| s.action_index == Some(last))
        .expect("the path's last action is listed")
}

/// Starts `memtx-check explore --trace TRACE` on loopback `port`, its
/// stdout piped (it prints the deep link first).
pub fn spawn_explore(trace: &Path, port: u16) -> ChildGuard {
    ChildGuard(
        Command::new(BIN)
            .current_dir(root())
            .arg("explore")
            .arg("--trace")
            .arg(trace)
            .args(["--addr", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start memtx-check explore"),
    )
}

/// Runs `memtx-check check models/ablations/no-gate.json` at depth 4 (its
/// I1 counterexample has 4 steps) into `dir`: its stdout and the I1 trace.
pub fn check_no_gate(dir: &Path) -> (String, PathBuf) {
    let out = Command::new(BIN)
        .current_dir(root())
        .args(["check", "models/ablations/no-gate.json", "--depth", "4"])
        .arg("--traces")
        .arg(dir)
        .arg("--out")
        .arg(dir.join("reports"))
        .args(["--threads", "2"])
        .output()
        .expect("run memtx-check check");
    assert_eq!(out.status.code(), Some(1), "no-gate violates I1");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let trace = dir.join("no-gate-I1.json");
    assert!(trace.exists(), "check wrote {}", trace.display());
    (stdout, trace)
}

/// The explorer path (`0/…`) of the first deep link in `text`.
pub fn link_path(text: &str) -> String {
    let start = text.find("/#/steps/").expect("a deep link") + "/#/steps/".len();
    text[start..]
        .split_whitespace()
        .next()
        .expect("a path")
        .to_owned()
}

/// The opening tag of the element that carries `attr` (e.g.
/// `data-record="r1"`) in a document.
pub fn tag_with<'a>(doc: &'a str, attr: &str) -> &'a str {
    let at = doc
        .find(attr)
        .unwrap_or_else(|| panic!("{attr} in the document"));
    let start = doc[..at].rfind('<').expect("an opening <");
    let end = at + doc[at..].find('>').expect("a closing >");
    &doc[start..=end]
}
