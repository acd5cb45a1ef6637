//! The explorer's front: the only socket the user's address opens. Each
//! connection carries one request, read within the bounds of
//! [`super::request`] and a deadline; the built-in page is served from
//! here, and only the explorer's JSON endpoints are forwarded, as a bare
//! request with no headers of the client's, to stateright's server on a
//! loopback port of its own (issue 28.7).
//!
//! Why not stateright's server alone: tiny_http 0.12 reads a declared
//! body whole into memory (`Content-Length: 99999999999` aborted the
//! process), and stateright 0.31 serves `./ui/index.htm`, `app.js` and
//! `app.css` from the working folder when they exist, so a folder could
//! put its own script into the page. The page here is stateright 0.31's
//! own (`explore/ui/`, MIT, with Knockout's licence), compiled in.

use super::request::{read_request, status_phrase, Method, Refusal, Request};
use std::io::{BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a client has to send a whole request head.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// Connections served at once; more are answered 503 at once.
pub const MAX_CONNECTIONS: usize = 32;
/// How long stateright's server has to answer one forwarded request.
const BACKEND_DEADLINE: Duration = Duration::from_secs(120);
/// How long the server behind may take to come up (or back).
const BACKEND_START: Duration = Duration::from_secs(10);

/// The built-in page: path, content type, bytes.
const PAGE: [(&str, &str, &[u8]); 4] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_bytes!("ui/index.htm"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_bytes!("ui/app.css"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("ui/app.js"),
    ),
    (
        "/knockout-3.5.0.js",
        "text/javascript; charset=utf-8",
        include_bytes!("ui/knockout-3.5.0.js"),
    ),
];

/// Where a request goes.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    /// A file of the built-in page: content type and bytes.
    Page(&'static str, &'static [u8]),
    /// An endpoint of stateright's server.
    Forward,
    NotFound,
}

fn route(request: &Request) -> Route {
    let target = request.target.as_str();
    match request.method {
        Method::Get => {
            if let Some((_, kind, bytes)) = PAGE.iter().find(|(path, _, _)| *path == target) {
                Route::Page(kind, bytes)
            } else if target == "/.status" || target.starts_with("/.states") {
                Route::Forward
            } else {
                Route::NotFound
            }
        }
        Method::Post if target == "/.runtocompletion" => Route::Forward,
        Method::Post => Route::NotFound,
    }
}

/// Serves `listener` for good, forwarding to the loopback port `backend`
/// holds (0 while the server behind is not up).
pub fn run(listener: TcpListener, backend: Arc<AtomicU16>) -> ! {
    let open = Arc::new(AtomicUsize::new(0));
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            // Out of descriptors, a connection reset before it was taken:
            // the next one may do.
            Err(_) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            refuse(&stream, 503, "too many connections at once");
            continue;
        }
        let (open_here, backend) = (Arc::clone(&open), Arc::clone(&backend));
        let spawned = std::thread::Builder::new()
            .name("explorer-front".into())
            .spawn(move || {
                handle(stream, &backend);
                open_here.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Answers one connection.
fn handle(stream: TcpStream, backend: &AtomicU16) {
    let _ = stream.set_write_timeout(Some(REQUEST_DEADLINE));
    let head = read_request(&mut BufReader::new(Deadline {
        stream: &stream,
        until: Instant::now() + REQUEST_DEADLINE,
    }));
    match head {
        Err(Refusal { status, reason }) => refuse(&stream, status, reason),
        Ok(request) => match route(&request) {
            Route::Page(kind, bytes) => {
                let _ = respond(&stream, 200, kind, bytes);
            }
            Route::NotFound => refuse(&stream, 404, "no such page"),
            Route::Forward => {
                if forward(&stream, &request, backend).is_err() {
                    refuse(&stream, 502, "the explorer's checker did not answer");
                }
            }
        },
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// Sends `request` to stateright's server as a bare request and copies
/// its answer back. `Err` when nothing of the answer was sent yet.
fn forward(client: &TcpStream, request: &Request, backend: &AtomicU16) -> Result<(), ()> {
    let mut inner = connect_backend(backend).ok_or(())?;
    inner
        .set_read_timeout(Some(BACKEND_DEADLINE))
        .map_err(drop)?;
    inner
        .set_write_timeout(Some(BACKEND_DEADLINE))
        .map_err(drop)?;
    let method = match request.method {
        Method::Get => "GET",
        Method::Post => "POST",
    };
    write!(
        inner,
        "{method} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        request.target
    )
    .map_err(drop)?;
    let mut first = [0u8; 8192];
    let n = inner.read(&mut first).map_err(drop)?;
    if n == 0 {
        return Err(());
    }
    let mut client = client;
    if client.write_all(&first[..n]).is_ok() {
        let _ = std::io::copy(&mut inner, &mut client);
    }
    Ok(())
}

/// A connection to the server behind, waiting for it to come up.
fn connect_backend(backend: &AtomicU16) -> Option<TcpStream> {
    let until = Instant::now() + BACKEND_START;
    loop {
        let port = backend.load(Ordering::SeqCst);
        if port != 0 {
            let addr = SocketAddr::from(([127, 0, 0, 1], port));
            if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
                return Some(s);
            }
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Answers `status` with `reason` as text, then reads (for a moment) what
/// the client still sends, so that closing does not reset the connection
/// before the answer is read.
fn refuse(stream: &TcpStream, status: u16, reason: &str) {
    let _ = respond(
        stream,
        status,
        "text/plain; charset=utf-8",
        format!("{reason}\n").as_bytes(),
    );
    let _ = stream.shutdown(Shutdown::Write);
    let _ = std::io::copy(
        &mut Deadline {
            stream,
            until: Instant::now() + Duration::from_secs(1),
        }
        .take(1 << 20),
        &mut std::io::sink(),
    );
}

fn respond(mut stream: &TcpStream, status: u16, kind: &str, body: &[u8]) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        status_phrase(status),
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

/// Reads from a stream until an instant: each read waits at most for what
/// is left, so a client that sends a byte now and then still runs out.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut stream = self.stream;
        stream.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to(method: Method, target: &str) -> Route {
        route(&Request {
            method,
            target: target.to_owned(),
        })
    }

    #[test]
    fn the_page_is_built_in_and_only_the_endpoints_go_behind() {
        assert!(
            matches!(to(Method::Get, "/"), Route::Page(k, b) if k.starts_with("text/html")
            && String::from_utf8_lossy(b).contains("Stateright Explorer"))
        );
        assert!(matches!(to(Method::Get, "/app.js"), Route::Page(_, _)));
        assert_eq!(to(Method::Get, "/.status"), Route::Forward);
        assert_eq!(to(Method::Get, "/.states/0/1"), Route::Forward);
        assert_eq!(to(Method::Post, "/.runtocompletion"), Route::Forward);
        assert_eq!(to(Method::Post, "/"), Route::NotFound);
        assert_eq!(to(Method::Get, "/../etc/passwd"), Route::NotFound);
        assert_eq!(to(Method::Get, "/ui/index.htm"), Route::NotFound);
    }
}
