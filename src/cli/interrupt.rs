//! Ending on a signal (issue 28.6): on SIGINT, SIGTERM or SIGHUP a
//! command kills the drivers it started and what they started
//! ([`crate::driver::reaper`], issue 38.3: conform and diff across builds
//! left them running), removes its temporaries ([`crate::outputs::scratch`]) and
//! exits 130, 143 or 129 (128 and the signal's number, as a shell reports
//! a process a signal ended), with one line on stderr. A process started
//! by `--local-processes` also ends when its parent ends, however that
//! ends (`kill -9` included): its standard input is a pipe whose other
//! end only the parent holds, and it ends as on SIGHUP when that closes.
//!
//! signal-hook rather than `sigaction` by hand: its iterator delivers the
//! signal to an ordinary thread, where removing files and printing are
//! allowed (in a signal handler they are not), and it needs no `unsafe`
//! of ours.

use crate::outputs::scratch;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::path::Path;
use std::sync::Once;

/// Set (to any value) for a process whose standard input is its parent's
/// pipe: it ends when the pipe closes.
pub const PARENT_PIPE_ENV: &str = "MEMTX_CHECK_PARENT_PIPE";
/// A file the parent made for its processes (the hosts file of
/// `--local-processes`), which the process removes if it outlives the
/// parent.
pub const PARENT_FILE_ENV: &str = "MEMTX_CHECK_PARENT_FILE";

/// Installs the handling, once per process.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            let _ = std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        stop(signal, signal_name(signal));
                    }
                });
        }
        if std::env::var_os(PARENT_PIPE_ENV).is_some() {
            if let Some(file) = std::env::var_os(PARENT_FILE_ENV) {
                scratch::track_file(Path::new(&file));
            }
            let _ = std::thread::Builder::new()
                .name("parent-watch".into())
                .spawn(|| {
                    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
                    stop(SIGHUP, "the end of its parent process");
                });
        }
    });
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "SIGHUP",
    }
}

/// Removes the temporaries and exits `128 + signal`, no writer of the
/// run able to rename or add one after.
fn stop(signal: i32, why: &str) -> ! {
    crate::driver::reaper::kill_all_and_hold();
    let removed = scratch::remove_all_and_hold();
    eprintln!(
        "memtx-check: stopped by {why}; {removed} temporar{} of this run removed",
        if removed == 1 { "y" } else { "ies" }
    );
    std::process::exit(128 + signal)
}
