//! Heartbeats beside timely's links, so that a peer that stops answering
//! but keeps its connections open ends the run instead of holding it for
//! good (issue 28.8).
//!
//! Timely is fail-stop: a peer that dies closes its links and the others'
//! timely threads fail at once (`install_failure_hook`). A peer that is
//! stopped (SIGSTOP, a machine that hangs, a cable pulled without a
//! reset) closes nothing: its kernel, or nobody, keeps the connections
//! open and the others wait at the next round's barrier forever. A round
//! may take long on a busy peer, so the barrier's wait cannot be timed
//! out; instead each process writes one byte every [`BEAT`] on a link of
//! its own to every peer (`connect`'s heartbeat channel), from a thread
//! that computing never starves, and reads theirs. A peer from which
//! nothing came for the run's `--connect-timeout` ends the run: one line
//! naming it, exit 3 (inconclusive), as a lost peer does. A peer whose
//! heartbeat link closes has ended (or died, which timely reports), and
//! is no longer watched; once the run's dataflow is over nothing is.

use super::connect::Links;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// How often each process writes its heartbeat (at most a quarter of the
/// silence that ends a run, so a few late beats never do).
const BEAT: Duration = Duration::from_millis(250);

/// A write that cannot go out this soon (a stopped peer's buffer full) is
/// skipped, so that one stopped peer never delays the beats to the others.
const WRITE_TIMEOUT: Duration = Duration::from_millis(100);

/// The watch over a run's peers; dropping it (the run's dataflow over)
/// ends the watch, and the beats.
pub(crate) struct Watch {
    over: Arc<AtomicBool>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.over.store(true, Ordering::SeqCst);
    }
}

/// Starts beating to, and watching, every peer of `beats` (process
/// `me`'s heartbeat links, in process order, named by `addresses`): a
/// peer silent for `silence` ends this process, exit 3.
pub(crate) fn watch(beats: Links, me: usize, addresses: &[String], silence: Duration) -> Watch {
    watch_with(beats, me, addresses, silence, |line| {
        eprintln!("memtx-check: {line}");
        std::process::exit(3)
    })
}

/// [`watch`], calling `silent` with the line (for tests: instead of
/// ending the process).
fn watch_with(
    beats: Links,
    me: usize,
    addresses: &[String],
    silence: Duration,
    silent: fn(String),
) -> Watch {
    let over = Arc::new(AtomicBool::new(false));
    let beat = BEAT.min(silence / 4).max(Duration::from_millis(10));
    let mut writers = Vec::new();
    for (k, stream) in beats.into_iter().enumerate() {
        let Some(stream) = stream else { continue };
        let Ok(reader) = stream.try_clone() else {
            continue;
        };
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        writers.push(stream);
        let over = Arc::clone(&over);
        let peer = addresses.get(k).cloned().unwrap_or_default();
        thread::Builder::new()
            .name(format!("memtx-heartbeat-from-{k}"))
            .spawn(move || {
                if listen(reader, &over, silence).is_some() {
                    silent(format!(
                        "process {me}: process {k} ({peer}) has sent nothing for {} s \
                         (--connect-timeout): it is stopped or cut off; the run is abandoned",
                        silence.as_secs_f64()
                    ));
                }
            })
            .expect("a heartbeat thread starts");
    }
    let over_for_writer = Arc::clone(&over);
    thread::Builder::new()
        .name("memtx-heartbeat".to_owned())
        .spawn(move || {
            while !over_for_writer.load(Ordering::SeqCst) && !writers.is_empty() {
                // A peer that is gone is timely's to report; stop beating
                // to it.
                writers.retain_mut(|w| match w.write(&[1]) {
                    Ok(_) => true,
                    Err(e) => matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ),
                });
                thread::sleep(beat);
            }
        })
        .expect("the heartbeat thread starts");
    Watch { over }
}

/// Reads a peer's heartbeats until its link closes or the run is over
/// (`None`), or until nothing came for `silence` while the run was on
/// (`Some(())`).
fn listen(mut stream: TcpStream, over: &AtomicBool, silence: Duration) -> Option<()> {
    // Read in slices of the silence, so that the end of the run is seen
    // soon after it comes.
    let slice = (silence / 4).max(Duration::from_millis(10));
    if stream.set_read_timeout(Some(slice)).is_err() {
        return None;
    }
    let mut quiet = Duration::ZERO;
    let mut buf = [0u8; 64];
    loop {
        if over.load(Ordering::SeqCst) {
            return None;
        }
        match stream.read(&mut buf) {
            Ok(0) => return None,
            Ok(_) => quiet = Duration::ZERO,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                quiet += slice;
                if quiet >= silence && !over.load(Ordering::SeqCst) {
                    return Some(());
                }
            }
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::sync::Mutex;
    use std::time::Instant;

    static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let near = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (far, _) = listener.accept().unwrap();
        (near, far)
    }

    #[test]
    fn a_peer_that_beats_is_kept_and_one_that_goes_silent_is_named() {
        let silence = Duration::from_millis(400);
        let (ours, mut theirs) = pair();
        let addresses = vec!["a:1".to_owned(), "b:2".to_owned()];
        let watch = watch_with(vec![None, Some(ours)], 0, &addresses, silence, |l| {
            SAID.lock().unwrap().push(l)
        });
        // The peer beats as a live process does, for three silences...
        let beating = Instant::now();
        while beating.elapsed() < silence * 3 {
            theirs.write_all(&[1]).unwrap();
            thread::sleep(Duration::from_millis(50));
        }
        assert!(SAID.lock().unwrap().is_empty(), "{:?}", SAID.lock());
        // ...then stops but keeps its link open (a stopped process): it
        // is named within about the silence.
        let stopped = Instant::now();
        while SAID.lock().unwrap().is_empty() && stopped.elapsed() < silence * 10 {
            thread::sleep(Duration::from_millis(20));
        }
        let took = stopped.elapsed();
        let said = SAID.lock().unwrap().clone();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("process 0: process 1 (b:2) has sent nothing for 0.4 s"),
            "{said:?}"
        );
        assert!(took >= silence / 2 && took < silence * 4, "{took:?}");
        // And our own beats reached the peer all along.
        theirs.set_nonblocking(true).unwrap();
        let mut got = [0u8; 256];
        assert!(theirs.read(&mut got).unwrap() > 0);
        drop(watch);
    }

    #[test]
    fn a_link_that_closes_or_a_run_that_is_over_ends_the_watch_quietly() {
        let (ours, theirs) = pair();
        drop(theirs);
        assert_eq!(
            listen(ours, &AtomicBool::new(false), Duration::from_secs(5)),
            None
        );
        let (ours, _theirs) = pair();
        let started = Instant::now();
        assert_eq!(
            listen(ours, &AtomicBool::new(true), Duration::from_secs(5)),
            None
        );
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
