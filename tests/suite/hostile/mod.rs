//! Hostile input: at the command line (`cli`, issue 13), flags that were
//! accepted silently (`flags`, issue 28.11), peers of a distributed run
//! that are not memtx-check (`peers`, issue 28.8) and what is planted in
//! or shared with a distributed run's folders (`parts`, issue 51). The
//! in-process fuzz tests are the `fuzz` area.

mod cli;
mod flags;
mod parts;
mod peers;

use std::process::Output;

/// Exit 2 and exactly one line on stderr, an error, which contains every
/// needle.
fn assert_refused(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("memtx-check: error: "), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{stderr:?} lacks {needle:?}");
    }
}
