//! A long check's progress on stderr: on a terminal (a pseudo-terminal
//! from util-linux's `script`), indicatif's bar with the level, states,
//! states/s and the time left in the level; on a pipe, plain lines and no
//! terminal escapes. The run is long enough (no-gate to depth 8, one
//! thread: seconds) for levels past the one-second mark.

use crate::support::{bin, fresh, BIN};

use std::process::Command;

const ARGS: &str = "check models/ablations/no-gate.json --depth 8 --threads 1";

#[test]
fn a_pipe_gets_plain_level_lines() {
    let dir = fresh("pipe");
    let out = bin()
        .args(ARGS.split(' '))
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("t"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !err.contains('\u{1b}'),
        "no terminal escapes on a pipe: {err:?}"
    );
    let last = err
        .lines()
        .find(|l| l.trim_start().starts_with("depth   8:") && l.contains(" new),"))
        .unwrap_or_else(|| panic!("a line for depth 8: {err}"));
    assert!(last.contains("3,899,365 states"), "{last}");
    assert!(last.ends_with("states/s"), "{last}");
}

#[test]
fn a_terminal_gets_a_progress_bar_with_the_time_left() {
    let dir = fresh("tty");
    let command = format!(
        "{} {ARGS} --out {} --traces {} >/dev/null",
        BIN,
        dir.join("out").display(),
        dir.join("t").display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("util-linux's script runs the check on a pseudo-terminal");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("depth   8 ["),
        "the bar's prefix: {screen:?}"
    );
    assert!(
        screen.contains("% of 547,722 expanded"),
        "the bar is over depth 7's states: {screen:?}"
    );
    assert!(screen.contains(" s left in the level"), "{screen:?}");
    assert!(screen.contains("states/s"), "{screen:?}");
    assert!(
        screen.contains("depth   8:       3,899,365 states"),
        "the level lines stay above the bar: {screen:?}"
    );
}
