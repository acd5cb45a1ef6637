//! Reading one HTTP/1.1 request head within bounds, for the explorer's
//! front ([`super::front`]). stateright's server (tiny_http 0.12) reads a
//! body of whatever `Content-Length` a request declares into memory, so
//! `GET /` with `Content-Length: 99999999999` aborted the explorer on a
//! failed allocation (issue 28.7). Here the request line and the headers
//! have limits, and no request may carry a body: none of the explorer's
//! endpoints takes one.

use std::io::{BufRead, Read};

/// The longest request line, in bytes: a deep link's `/.states/…` path of
/// some 4,000 steps fits.
pub const MAX_REQUEST_LINE: usize = 8 * 1024;
/// The most bytes of all header lines together.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// The most header lines.
pub const MAX_HEADERS: usize = 64;

/// A request the front accepts: its method and target, no body.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    pub method: Method,
    pub target: String,
}

/// The methods the explorer's page uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// Why a request is refused: the status to answer and a short reason.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub reason: &'static str,
}

impl Refusal {
    fn new(status: u16, reason: &'static str) -> Refusal {
        Refusal { status, reason }
    }
}

/// The standard phrase of the statuses the front answers.
pub fn status_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

/// Reads one request head from `input` (which should end reads at a
/// deadline: a read error, a timeout among them, is a 408 or 400).
pub fn read_request(input: &mut impl BufRead) -> Result<Request, Refusal> {
    let line = read_line(input, MAX_REQUEST_LINE)
        .map_err(|e| e.unwrap_or(Refusal::new(414, "the request line is too long")))?;
    let request = parse_request_line(&line)?;
    let mut header_bytes = 0;
    let mut headers = 0;
    let mut seen_length = false;
    loop {
        let left = MAX_HEADER_BYTES.saturating_sub(header_bytes);
        let line = read_line(input, left)
            .map_err(|e| e.unwrap_or(Refusal::new(431, "the headers are too long")))?;
        if line.is_empty() {
            break;
        }
        header_bytes += line.len() + 2;
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(Refusal::new(431, "too many headers"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or(Refusal::new(400, "a header line without a colon"))?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(Refusal::new(400, "no request here carries a body"));
        }
        if name.eq_ignore_ascii_case("content-length") {
            if seen_length {
                return Err(Refusal::new(400, "Content-Length given twice"));
            }
            if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Refusal::new(400, "Content-Length is not a number"));
            }
            if value.bytes().any(|b| b != b'0') {
                return Err(Refusal::new(413, "no request here carries a body"));
            }
            seen_length = true;
        }
    }
    Ok(request)
}

/// `METHOD TARGET HTTP/1.x`, the target an origin-form path of visible
/// ASCII.
fn parse_request_line(line: &str) -> Result<Request, Refusal> {
    let bad = Refusal::new(400, "not an HTTP/1.1 request line");
    let mut parts = line.split(' ');
    let (method, target, version) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(t), Some(v), None) => (m, t, v),
        _ => return Err(bad),
    };
    if !(version == "HTTP/1.1" || version == "HTTP/1.0") {
        return Err(bad);
    }
    if !target.starts_with('/') || !target.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return Err(bad);
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(bad);
    }
    let method = match method {
        "GET" => Method::Get,
        "POST" => Method::Post,
        _ => return Err(Refusal::new(405, "the explorer answers GET and POST only")),
    };
    Ok(Request {
        method,
        target: target.to_owned(),
    })
}

/// One line ending in CRLF (or LF) of at most `limit` bytes before the
/// end, without its ending. `Err(None)` when it is longer (the caller
/// names the limit), `Err(Some(_))` for anything else.
fn read_line(input: &mut impl BufRead, limit: usize) -> Result<String, Option<Refusal>> {
    let mut raw = Vec::new();
    let read = input
        .by_ref()
        .take(limit as u64 + 2)
        .read_until(b'\n', &mut raw)
        .map_err(|e| {
            Some(match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                    Refusal::new(408, "the request did not arrive in time")
                }
                _ => Refusal::new(400, "the request could not be read"),
            })
        })?;
    if raw.last() != Some(&b'\n') {
        return Err(if read > limit {
            None
        } else {
            Some(Refusal::new(400, "the request ended early"))
        });
    }
    raw.pop();
    if raw.last() == Some(&b'\r') {
        raw.pop();
    }
    if raw.len() > limit {
        return Err(None);
    }
    String::from_utf8(raw).map_err(|_| Some(Refusal::new(400, "a request line is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> Result<Request, Refusal> {
        read_request(&mut raw.as_bytes())
    }

    fn status(raw: &str) -> u16 {
        read(raw).map_or_else(|r| r.status, |_| 200)
    }

    #[test]
    fn a_browser_request_is_read() {
        let r = read("GET /.states/0/1 HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n").unwrap();
        assert_eq!(r.method, Method::Get);
        assert_eq!(r.target, "/.states/0/1");
        assert_eq!(
            read("POST /.runtocompletion HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
                .unwrap()
                .method,
            Method::Post
        );
        assert_eq!(status("GET / HTTP/1.0\n\n"), 200, "bare LF endings");
    }

    #[test]
    fn bodies_are_refused() {
        assert_eq!(
            status("GET / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"),
            413
        );
        assert_eq!(
            status("GET / HTTP/1.1\r\nContent-Length: 999999999999999999999999\r\n\r\n"),
            413
        );
        assert_eq!(status("GET / HTTP/1.1\r\nContent-Length: 00\r\n\r\n"), 200);
        assert_eq!(status("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
        assert_eq!(status("GET / HTTP/1.1\r\nContent-Length: 1 1\r\n\r\n"), 400);
        assert_eq!(
            status("GET / HTTP/1.1\r\nContent-Length: 0\r\ncontent-length: 0\r\n\r\n"),
            400
        );
        assert_eq!(
            status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            400
        );
    }

    #[test]
    fn limits_hold_at_their_edge() {
        let at = |n: usize| format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(n));
        let line_room = MAX_REQUEST_LINE - "GET / HTTP/1.1".len();
        assert_eq!(status(&at(line_room)), 200);
        assert_eq!(status(&at(line_room + 1)), 414);
        let header = |n: usize| format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "b".repeat(n));
        let header_room = MAX_HEADER_BYTES - "X: ".len();
        assert_eq!(status(&header(header_room)), 200);
        assert_eq!(status(&header(header_room + 1)), 431);
        let many = |n: usize| format!("GET / HTTP/1.1\r\n{}\r\n", "X: b\r\n".repeat(n));
        assert_eq!(status(&many(MAX_HEADERS)), 200);
        assert_eq!(status(&many(MAX_HEADERS + 1)), 431);
    }

    #[test]
    fn malformed_heads_are_bad_requests() {
        for raw in [
            "",
            "GET / HTTP/1.1",
            "GET / HTTP/1.1\r\nHost: x\r\n",
            "GET /\r\n\r\n",
            "GET / HTTP/2\r\n\r\n",
            "GET x HTTP/1.1\r\n\r\n",
            "GET /a b HTTP/1.1\r\n\r\n",
            "GET /\u{e9} HTTP/1.1\r\n\r\n",
            "get / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nno colon\r\n\r\n",
            "\u{0}\u{1} not http\r\n\r\n",
        ] {
            assert_eq!(status(raw), 400, "{raw:?}");
        }
        assert_eq!(status("DELETE / HTTP/1.1\r\n\r\n"), 405);
        assert!(read_request(&mut &b"GET /\xff HTTP/1.1\r\n\r\n"[..]).is_err());
    }
}
