//! The explorer against hostile requests and folders (issue 28.7): raw
//! requests a browser would never send are answered with a 4xx and the
//! explorer serves on; the page is always the built-in one, whatever
//! `ui/` the folder it was started in holds. Each test starts its own
//! `explore` child on a port the system picks and kills it when done.

use super::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// `memtx-check explore MODEL --addr 127.0.0.1:0` started in `cwd`: the
/// child and the port it printed.
fn spawn_in(cwd: &Path) -> (ChildGuard, u16) {
    let mut child = ChildGuard(
        Command::new(BIN)
            .current_dir(cwd)
            .arg("explore")
            .arg(root().join("models/default.json"))
            .args(["--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start memtx-check explore"),
    );
    let out = child.0.stdout.take().expect("piped stdout");
    let link = BufReader::new(out)
        .lines()
        .map(|l| l.expect("readable stdout"))
        .find_map(|l| l.strip_prefix("explorer: ").map(str::to_owned))
        .expect("explore prints its link");
    let port: u16 = link
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .expect("a loopback link with a port");
    wait_for_port(port, Duration::from_secs(20));
    (child, port)
}

/// Sends `raw` as it is and returns the status code of the answer (0 when
/// the connection closed without one).
fn send_raw(port: u16, raw: &[u8]) -> u16 {
    let mut stream = connect(port);
    // The server may answer and close before it has read all of a request
    // it refuses; a write that fails then is part of the test's case.
    let _ = stream.write_all(raw);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    text.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The explorer still answers, and its process still runs.
fn assert_alive(child: &mut ChildGuard, port: u16, after: &str) {
    assert_eq!(
        child.0.try_wait().expect("the child's status"),
        None,
        "explore died after {after}"
    );
    assert_eq!(http_get(port, "/.status").0, 200, "after {after}");
}

#[test]
fn requests_past_the_limits_are_refused_and_the_explorer_serves_on() {
    let (mut child, port) = spawn_in(root());
    let long_target = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(64 * 1024));
    let long_header = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-A: {}\r\n\r\n",
        "b".repeat(64 * 1024)
    );
    let many_headers = format!("GET / HTTP/1.1\r\n{}\r\n", "X-A: b\r\n".repeat(1000));
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "a GET declaring a 99999999999-byte body",
            b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n".to_vec(),
            413,
        ),
        (
            "a POST with a body where none is expected",
            b"POST /.runtocompletion HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello".to_vec(),
            413,
        ),
        (
            "a chunked body",
            b"POST /.runtocompletion HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                .to_vec(),
            400,
        ),
        (
            "a Content-Length that is not a number",
            b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n".to_vec(),
            400,
        ),
        ("a 64 KiB request target", long_target.into_bytes(), 414),
        ("a 64 KiB header", long_header.into_bytes(), 431),
        ("a thousand headers", many_headers.into_bytes(), 431),
        ("garbage", b"\x00\x01\x02 not http at all\r\n\r\n".to_vec(), 400),
        ("an unknown method", b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 405),
    ];
    for (what, raw, code) in cases {
        assert_eq!(send_raw(port, &raw), code, "{what}");
        assert_alive(&mut child, port, what);
    }
}

#[test]
fn a_client_that_sends_half_a_request_and_waits_does_not_block_others() {
    let (mut child, port) = spawn_in(root());
    let mut idle = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    idle.write_all(b"GET / HTTP/1.1\r\nHost:")
        .expect("half a request");
    assert_alive(&mut child, port, "a half request left open");
    drop(idle);
}

#[test]
fn the_page_is_the_built_in_one_whatever_ui_folder_the_cwd_holds() {
    // stateright 0.31 reads ./ui/index.htm, app.js and app.css from the
    // working folder when they are there: a models repository could put
    // its own script into the page.
    let dir = scratch("hostile-ui");
    std::fs::create_dir_all(dir.join("ui")).unwrap();
    for name in ["index.htm", "app.js", "app.css", "knockout-3.5.0.js"] {
        std::fs::write(dir.join("ui").join(name), "PLANTED BY THE FOLDER").unwrap();
    }
    let (_child, port) = spawn_in(&dir);
    for (path, marker) in [
        ("/", "Stateright Explorer"),
        ("/app.js", "ko.applyBindings"),
        ("/app.css", "{"),
        ("/knockout-3.5.0.js", "Knockout JavaScript library v3.5.0"),
    ] {
        let (code, body) = http_get(port, path);
        assert_eq!(code, 200, "{path}");
        assert!(!body.contains("PLANTED"), "{path} served the folder's file");
        assert!(
            body.contains(marker),
            "{path}: {}",
            &body[..body.len().min(200)]
        );
    }
}
