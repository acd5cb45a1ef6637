//! Flags that were accepted silently or failed only after the work
//! (issue 28.11): each is now one line, exit 2, before the run, and
//! leaves nothing behind.

use super::assert_refused;
use crate::support::{check, fresh};

#[test]
fn connect_timeout_without_a_distributed_run_is_refused() {
    let dir = fresh("connect-timeout");
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
    let dir = fresh("traces");
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
