//! The TCP links between the processes of a run, made before timely
//! starts and handed to it (`initialize_networking_from_sockets`).
//!
//! Timely's own set-up (`CommunicationConfig::Cluster`) retries a peer
//! that is not there every second, forever, and prints each attempt on
//! stdout; here every process listens on its own address, connects to the
//! processes before it and accepts those after it, and gives up at a
//! deadline with one line naming the processes still missing.
//!
//! The handshake ([`HELLO`]): the connecting process sends the greeting
//! and its index, the accepting one answers with the greeting and its own
//! index, each read within the deadline (issue 28.8: a listener on a
//! peer's address that accepted and said nothing hung the run for good).
//! A peer that answers anything else is refused at once, naming it; a
//! stray connection to our own port that does not greet is dropped, and
//! named if the deadline then passes.
//!
//! Each pair of processes is linked twice: once for timely's data, once
//! for the heartbeats that tell a silent peer from a busy one
//! (`heartbeat`); the greeting says which link it opens ([`Channel`]).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::thread;
use std::time::{Duration, Instant};

/// One stream per process, in process order, `None` at `me`'s own place.
pub(crate) type Links = Vec<Option<TcpStream>>;

/// The links of a process: timely's, and the heartbeats'.
pub(crate) struct Connected {
    pub(crate) data: Links,
    pub(crate) beats: Links,
}

/// What a link carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Channel {
    /// Timely's packets.
    Data,
    /// Heartbeats (`heartbeat`).
    Beat,
}

impl Channel {
    /// What each side of a link of this channel sends first, then its
    /// index as a big-endian u64.
    fn hello(self) -> &'static [u8; 16] {
        match self {
            Channel::Data => HELLO,
            Channel::Beat => b"memtx-check/1 hb",
        }
    }
}

/// The greeting of a data link.
pub(crate) const HELLO: &[u8; 16] = b"memtx-check/1 ok";

/// Every channel, in the order a greeting is matched against them.
const CHANNELS: [Channel; 2] = [Channel::Data, Channel::Beat];

/// How long a connection to our port may take to greet: a stray that
/// says nothing holds the accepting loop no longer than this.
const GREETING: Duration = Duration::from_secs(5);

/// Connects process `me` to every other process of `addresses` within
/// `timeout`, twice (data and heartbeats).
pub(crate) fn connect(
    addresses: &[String],
    me: usize,
    timeout: Duration,
) -> Result<Connected, String> {
    let deadline = Instant::now() + timeout;
    let resolved = resolve_all(addresses, me)?;
    let listener = TcpListener::bind(&resolved[me][..])
        .map_err(|e| format!("process {me}: cannot listen on {}: {e}", addresses[me]))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("process {me}: {}: {e}", addresses[me]))?;
    let lower: Vec<Vec<SocketAddr>> = resolved[..me].to_vec();
    let dialer = thread::spawn(move || dial_all(&lower, me, deadline));
    let (accepted, stray) = accept_all(&listener, addresses.len(), me, deadline);
    let dialed = dialer.join().expect("the dialing thread does not panic");
    let mut missing = Vec::new();
    let mut links: Links = Vec::with_capacity(addresses.len());
    let mut beats: Links = Vec::with_capacity(addresses.len());
    for (k, dialed) in dialed.into_iter().enumerate() {
        match dialed {
            Ok((stream, beat)) => {
                links.push(Some(stream));
                beats.push(Some(beat));
            }
            Err(Dial::Refused(why)) => {
                return Err(format!(
                    "process {me}: process {k} ({}) {why}",
                    addresses[k]
                ))
            }
            Err(Dial::Silent) => {
                return Err(format!(
                    "process {me}: process {k} ({}) accepted the connection but sent no handshake \
                     within {} s (--connect-timeout); is a memtx-check process of the same command \
                     listening there?",
                    addresses[k],
                    timeout.as_secs()
                ))
            }
            Err(Dial::Absent) => {
                missing.push(k);
                links.push(None);
                beats.push(None);
            }
        }
    }
    links.push(None);
    beats.push(None);
    for (k, pair) in accepted.into_iter().enumerate() {
        match pair {
            (Some(stream), Some(beat)) => {
                links.push(Some(stream));
                beats.push(Some(beat));
            }
            _ => {
                missing.push(me + 1 + k);
                links.push(None);
                beats.push(None);
            }
        }
    }
    if missing.is_empty() {
        return Ok(Connected { data: links, beats });
    }
    let named: Vec<String> = missing
        .iter()
        .map(|&k| format!("process {k} ({})", addresses[k]))
        .collect();
    let stray = stray.map_or_else(String::new, |s| format!(" ({s})"));
    Err(format!(
        "process {me}: {} did not connect within {} s (--connect-timeout){stray}; is it running the same command?",
        named.join(", "),
        timeout.as_secs()
    ))
}

/// Every process's addresses, or one line naming the first that does not
/// resolve.
fn resolve_all(addresses: &[String], me: usize) -> Result<Vec<Vec<SocketAddr>>, String> {
    addresses
        .iter()
        .enumerate()
        .map(|(k, address)| {
            let targets: Vec<SocketAddr> = address
                .to_socket_addrs()
                .map_err(|e| {
                    format!("process {me}: process {k} ({address}) does not resolve: {e}")
                })?
                .collect();
            if targets.is_empty() {
                return Err(format!(
                    "process {me}: process {k} ({address}) does not resolve to any address"
                ));
            }
            Ok(targets)
        })
        .collect()
}

/// Why a process before us could not be linked.
enum Dial {
    /// Nothing accepted until the deadline.
    Absent,
    /// Something accepted and said nothing until the deadline.
    Silent,
    /// Something answered that is not the peer: why.
    Refused(String),
}

/// The data and heartbeat streams to each process before `me`, each
/// retried until `deadline`.
fn dial_all(
    addresses: &[Vec<SocketAddr>],
    me: usize,
    deadline: Instant,
) -> Vec<Result<(TcpStream, TcpStream), Dial>> {
    let dial_until = |targets: &[SocketAddr], k: usize, channel: Channel| loop {
        match dial(targets, k, me, deadline, channel) {
            Err(Dial::Absent) if Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(100))
            }
            done => break done,
        }
    };
    addresses
        .iter()
        .enumerate()
        .map(|(k, targets)| {
            let data = dial_until(targets, k, Channel::Data)?;
            let beat = dial_until(targets, k, Channel::Beat)?;
            Ok((data, beat))
        })
        .collect()
}

/// One attempt to open a link of `channel` to process `k` at `targets`
/// and exchange the greeting with it by `deadline`.
fn dial(
    targets: &[SocketAddr],
    k: usize,
    me: usize,
    deadline: Instant,
    channel: Channel,
) -> Result<TcpStream, Dial> {
    let mut stream = targets
        .iter()
        .find_map(|target| TcpStream::connect_timeout(target, Duration::from_secs(1)).ok())
        .ok_or(Dial::Absent)?;
    // With nobody listening on a port of the ephemeral range, a dial can
    // connect to itself (the kernel picks that port as its source), and
    // would then read its own greeting: not a peer, try again.
    if stream.local_addr().ok() == stream.peer_addr().ok() {
        return Err(Dial::Absent);
    }
    stream.set_nodelay(true).map_err(|_| Dial::Absent)?;
    let mut hello = channel.hello().to_vec();
    hello.extend_from_slice(&(me as u64).to_be_bytes());
    // A peer that closed at once is one that is going away: try again.
    stream.write_all(&hello).map_err(|_| Dial::Absent)?;
    match read_greeting(&mut stream, deadline) {
        Greeting::From(index, answered) if index == k as u64 && answered == channel => {
            stream.set_read_timeout(None).map_err(|_| Dial::Absent)?;
            Ok(stream)
        }
        Greeting::From(index, answered) if index == k as u64 => Err(Dial::Refused(format!(
            "answered a {channel:?} link as a {answered:?} link: is it another build of memtx-check?"
        ))),
        Greeting::From(index, _) => Err(Dial::Refused(format!(
            "answered as process {index}: do the hosts files of the processes differ?"
        ))),
        Greeting::Garbage(bytes) => Err(Dial::Refused(format!(
            "answered with what is not a memtx-check handshake ({}); is a memtx-check process \
             of the same command listening there?",
            shown(&bytes)
        ))),
        Greeting::Timeout => Err(Dial::Silent),
        Greeting::Closed => Err(Dial::Absent),
    }
}

/// What the other side sent first.
#[derive(Debug, PartialEq, Eq)]
enum Greeting {
    /// The greeting of this channel and this index.
    From(u64, Channel),
    /// Anything else: its first bytes.
    Garbage(Vec<u8>),
    /// Nothing by the deadline.
    Timeout,
    /// The connection closed (or failed) before a whole greeting.
    Closed,
}

/// Reads the greeting, each read waiting no later than `deadline`.
fn read_greeting(stream: &mut TcpStream, deadline: Instant) -> Greeting {
    let mut got = [0u8; HELLO.len() + 8];
    let mut filled = 0;
    while filled < got.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Greeting::Timeout;
        }
        match stream.read(&mut got[filled..]) {
            Ok(0) if filled > 0 => return Greeting::Garbage(got[..filled].to_vec()),
            Ok(0) => return Greeting::Closed,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Greeting::Timeout
            }
            Err(_) => return Greeting::Closed,
        }
        // Garbage is refused as soon as it differs, not at the deadline.
        let seen = filled.min(HELLO.len());
        if !CHANNELS.iter().any(|c| got[..seen] == c.hello()[..seen]) {
            return Greeting::Garbage(got[..filled].to_vec());
        }
    }
    let Some(channel) = CHANNELS
        .into_iter()
        .find(|c| got[..HELLO.len()] == c.hello()[..])
    else {
        return Greeting::Garbage(got.to_vec());
    };
    let index: [u8; 8] = got[HELLO.len()..].try_into().expect("8 bytes");
    Greeting::From(u64::from_be_bytes(index), channel)
}

/// At most 16 bytes of what a peer sent, printable.
fn shown(bytes: &[u8]) -> String {
    let text: String = bytes
        .iter()
        .take(16)
        .flat_map(|b| std::ascii::escape_default(*b))
        .map(char::from)
        .collect();
    format!("\"{text}\"")
}

/// A process's data and heartbeat streams, as accepted so far.
type Pair = (Option<TcpStream>, Option<TcpStream>);

/// The data and heartbeat streams from each process after `me`, accepted
/// until `deadline`, in process order; and what the last stray connection
/// was, for the error.
fn accept_all(
    listener: &TcpListener,
    processes: usize,
    me: usize,
    deadline: Instant,
) -> (Vec<Pair>, Option<String>) {
    let mut accepted: Vec<Pair> = (me + 1..processes).map(|_| (None, None)).collect();
    let whole = |p: &Pair| p.0.is_some() && p.1.is_some();
    let mut stray = None;
    while !accepted.iter().all(whole) && Instant::now() < deadline {
        match listener.accept() {
            Ok((stream, from)) => match introduce(stream, me, deadline) {
                Ok((k, channel, stream)) if k > me && k < processes => {
                    let pair = &mut accepted[k - me - 1];
                    let slot = match channel {
                        Channel::Data => &mut pair.0,
                        Channel::Beat => &mut pair.1,
                    };
                    if slot.is_none() {
                        *slot = Some(stream);
                    } else {
                        stray = Some(format!(
                            "a connection from {from} said it was process {k}, linked already"
                        ));
                    }
                }
                Ok((k, _, _)) => {
                    stray = Some(format!("a connection from {from} said it was process {k}"))
                }
                Err(what) => stray = Some(format!("a connection from {from} {what}")),
            },
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
    (accepted, stray)
}

/// The index and channel a connecting process sends with its greeting,
/// read within [`GREETING`] (and the deadline), answered with ours.
fn introduce(
    mut stream: TcpStream,
    me: usize,
    deadline: Instant,
) -> Result<(usize, Channel, TcpStream), String> {
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    let soon = (Instant::now() + GREETING).min(deadline);
    let (index, channel) = match read_greeting(&mut stream, soon) {
        Greeting::From(index, channel) => (index, channel),
        Greeting::Garbage(bytes) => {
            return Err(format!(
                "sent what is not a memtx-check handshake ({})",
                shown(&bytes)
            ))
        }
        Greeting::Timeout => return Err("sent no handshake".into()),
        Greeting::Closed => return Err("closed before its handshake".into()),
    };
    let mut hello = channel.hello().to_vec();
    hello.extend_from_slice(&(me as u64).to_be_bytes());
    stream
        .write_all(&hello)
        .and_then(|()| stream.set_read_timeout(None))
        .and_then(|()| stream.set_nodelay(true))
        .map_err(|e| format!("closed during the handshake: {e}"))?;
    let index = usize::try_from(index).unwrap_or(usize::MAX);
    Ok((index, channel, stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a peer writes, as `read_greeting` reads it.
    fn greeting_of(bytes: &'static [u8], hold: bool) -> Greeting {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.write_all(bytes).unwrap();
            if hold {
                thread::sleep(Duration::from_millis(700));
            }
        });
        let mut stream = TcpStream::connect(addr).unwrap();
        let got = read_greeting(&mut stream, Instant::now() + Duration::from_millis(300));
        peer.join().unwrap();
        got
    }

    #[test]
    fn a_greeting_is_read_and_anything_else_is_named() {
        let mut hello = HELLO.to_vec();
        hello.extend_from_slice(&7u64.to_be_bytes());
        let hello: &'static [u8] = hello.leak();
        assert_eq!(greeting_of(hello, false), Greeting::From(7, Channel::Data));
        let mut beat = Channel::Beat.hello().to_vec();
        beat.extend_from_slice(&3u64.to_be_bytes());
        let beat: &'static [u8] = beat.leak();
        assert_eq!(greeting_of(beat, false), Greeting::From(3, Channel::Beat));
        assert_eq!(
            greeting_of(b"memtx-check/1 xx", false),
            Greeting::Garbage(b"memtx-check/1 xx".to_vec())
        );
        assert_eq!(greeting_of(b"", true), Greeting::Timeout);
        assert_eq!(greeting_of(b"", false), Greeting::Closed);
        assert_eq!(greeting_of(&hello[..10], true), Greeting::Timeout);
        assert_eq!(
            greeting_of(b"HTTP/1.1 400", true),
            Greeting::Garbage(b"HTTP/1.1 400".to_vec()),
            "refused as soon as it differs, before the deadline"
        );
        assert_eq!(
            greeting_of(&hello[..10], false),
            Greeting::Garbage(hello[..10].to_vec())
        );
    }

    #[test]
    fn what_a_peer_sent_is_shown_short_and_printable() {
        assert_eq!(shown(b"GET /\r\n"), "\"GET /\\r\\n\"");
        assert_eq!(shown(&[0xff; 40]).matches("\\xff").count(), 16);
    }
}
