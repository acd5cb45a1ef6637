//! Flags that were accepted silently or failed only after the work
//! (issue 28.11): each is now one line, exit 2, before the run, and
//! leaves nothing behind.

mod scratch_dir;

use std::process::{Command, Output};

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memtx-check"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("check")
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Exit 2 and exactly one line on stderr, which contains every needle.
fn assert_refused(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{stderr:?} lacks {needle:?}");
    }
}

#[test]
fn connect_timeout_without_a_distributed_run_is_refused() {
    let dir = scratch_dir::fresh("hostile-flags-connect-timeout");
    let out = dir.join("out");
    let o = check(&[
        "models/ablations/no-gate.json",
        "--depth",
        "2",
        "--connect-timeout",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_refused(&o, &["--connect-timeout 5", "only with --hosts"]);
    assert!(!out.exists(), "nothing made");
}

#[test]
fn a_traces_folder_that_cannot_be_written_is_refused_before_out_is_made() {
    let dir = scratch_dir::fresh("hostile-flags-traces");
    let file = dir.join("a-file");
    std::fs::write(&file, b"the user's").unwrap();
    for traces in [file.clone(), file.join("below")] {
        let out = dir.join("out");
        let o = check(&[
            "models/ablations/no-gate.json",
            "--depth",
            "4",
            "--traces",
            traces.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_refused(&o, &["--traces", &traces.display().to_string()]);
        assert!(!out.exists(), "{}: --out was made", traces.display());
        assert_eq!(std::fs::read(&file).unwrap(), b"the user's");
    }
}
