//! The TCP links between the processes of a run, made before timely
//! starts and handed to it (`initialize_networking_from_sockets`).
//!
//! Timely's own set-up (`CommunicationConfig::Cluster`) retries a peer
//! that is not there every second, forever, and prints each attempt on
//! stdout; here every process listens on its own address, connects to the
//! processes before it and accepts those after it (timely's layout: a
//! connecting process first sends its index as a big-endian u64), and
//! gives up at a deadline with one line naming the processes still
//! missing.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::thread;
use std::time::{Duration, Instant};

/// One stream per process, in process order, `None` at `me`'s own place.
pub(crate) type Links = Vec<Option<TcpStream>>;

/// Connects process `me` to every other process of `addresses` within
/// `timeout`.
pub(crate) fn connect(addresses: &[String], me: usize, timeout: Duration) -> Result<Links, String> {
    let deadline = Instant::now() + timeout;
    let listener = TcpListener::bind(&addresses[me])
        .map_err(|e| format!("process {me}: cannot listen on {}: {e}", addresses[me]))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("process {me}: {}: {e}", addresses[me]))?;
    let lower: Vec<String> = addresses[..me].to_vec();
    let dialer = thread::spawn(move || dial_all(&lower, me, deadline));
    let accepted = accept_all(&listener, addresses.len(), me, deadline);
    let dialed = dialer.join().expect("the dialing thread does not panic");
    let mut missing = Vec::new();
    let mut links: Links = Vec::with_capacity(addresses.len());
    for (k, stream) in dialed.into_iter().enumerate() {
        if stream.is_none() {
            missing.push(k);
        }
        links.push(stream);
    }
    links.push(None);
    for (k, stream) in accepted.into_iter().enumerate() {
        if stream.is_none() {
            missing.push(me + 1 + k);
        }
        links.push(stream);
    }
    if missing.is_empty() {
        return Ok(links);
    }
    let named: Vec<String> = missing
        .iter()
        .map(|&k| format!("process {k} ({})", addresses[k]))
        .collect();
    Err(format!(
        "process {me}: {} did not connect within {} s (--connect-timeout); is it running the same command?",
        named.join(", "),
        timeout.as_secs()
    ))
}

/// Streams to each process before `me`, retried until `deadline`.
fn dial_all(addresses: &[String], me: usize, deadline: Instant) -> Vec<Option<TcpStream>> {
    addresses
        .iter()
        .map(|address| loop {
            if let Some(stream) = dial(address, me) {
                break Some(stream);
            }
            if Instant::now() >= deadline {
                break None;
            }
            thread::sleep(Duration::from_millis(100));
        })
        .collect()
}

/// One attempt to connect to `address` and introduce ourselves.
fn dial(address: &str, me: usize) -> Option<TcpStream> {
    let targets: Vec<SocketAddr> = address.to_socket_addrs().ok()?.collect();
    targets.iter().find_map(|target| {
        let mut stream = TcpStream::connect_timeout(target, Duration::from_secs(1)).ok()?;
        stream.set_nodelay(true).ok()?;
        stream.write_all(&(me as u64).to_be_bytes()).ok()?;
        Some(stream)
    })
}

/// Streams from each process after `me`, accepted until `deadline`, in
/// process order.
fn accept_all(
    listener: &TcpListener,
    processes: usize,
    me: usize,
    deadline: Instant,
) -> Vec<Option<TcpStream>> {
    let mut accepted: Vec<Option<TcpStream>> = (me + 1..processes).map(|_| None).collect();
    while accepted.iter().any(Option::is_none) && Instant::now() < deadline {
        match listener.accept() {
            Ok((stream, _)) => {
                if let Some((k, stream)) = introduce(stream) {
                    if k > me && k < processes && accepted[k - me - 1].is_none() {
                        accepted[k - me - 1] = Some(stream);
                    }
                }
            }
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
    accepted
}

/// The index a connecting process sends first, read within a few
/// seconds (a stray connection that says nothing is dropped).
fn introduce(mut stream: TcpStream) -> Option<(usize, TcpStream)> {
    stream.set_nonblocking(false).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut index = [0; 8];
    stream.read_exact(&mut index).ok()?;
    stream.set_read_timeout(None).ok()?;
    stream.set_nodelay(true).ok()?;
    Some((u64::from_be_bytes(index) as usize, stream))
}
