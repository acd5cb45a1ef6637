//! Faults of the environment (issue 28): a disk that fills up under a
//! run's checkpoint, its parent-link spill, its reports or its dump ends
//! the run with one line naming the file and the cause (exit 2), or with
//! the reports of the levels completed (exit 3), never a panic, and leaves
//! nothing half-written. The full disk is a small tmpfs this test mounts,
//! which only root can; elsewhere each test says it is skipped. The
//! injected-writer tests beside the code cover the same paths everywhere.

use crate::support::{absent, check, copy_dir, files_under, fresh, stderr, stdout, SmallDisk};

use std::process::Output;

/// Exit 2, one line on stderr naming `needle`, the cause a full disk.
fn assert_one_line_full(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}{}", stdout(o));
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.starts_with("memtx-check: error: ")
            && err.contains(needle)
            && err.contains("No space left on device"),
        "{err:?} lacks {needle:?}"
    );
}

#[test]
fn a_full_disk_under_the_spilled_links_stops_with_the_reports_of_the_levels_done() {
    let Some(disk) = SmallDisk::mount("spill", 1024) else {
        return;
    };
    let out = disk.path("out");
    let traces = absent("spill-traces");
    let o = check(&[
        "models/default.json",
        "--depth",
        "8",
        "--expect",
        "--out",
        out.to_str().unwrap(),
        "--traces",
        traces.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(3), "{text}{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let links = out.join("links").join("links-");
    let line = text
        .lines()
        .find(|l| l.starts_with("stopped before depth"))
        .unwrap_or_else(|| panic!("no stopped line: {text}"));
    assert!(
        line.contains(&format!("cannot write {}", links.display()))
            && line.contains("No space left on device")
            && !line.contains("checkpoint"),
        "{line}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["stopped"]["reason"], "write_failed");
    assert!(summary["stopped"]["error"]
        .as_str()
        .unwrap()
        .contains("links-"));
    assert!(!out.join("links").exists(), "the spill is removed");
    let _ = std::fs::remove_dir_all(&traces);
}

#[test]
fn a_full_disk_under_a_checkpoint_keeps_its_last_whole_level_which_resumes() {
    let Some(disk) = SmallDisk::mount("checkpoint", 2048) else {
        return;
    };
    let scratch = fresh("checkpoint");
    let (out, traces) = (scratch.join("out"), scratch.join("traces"));
    let c = disk.path("c");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "models/default.json",
            "--depth",
            "7",
            "--expect",
            "--out",
            out.to_str().unwrap(),
            "--traces",
            traces.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        check(&args)
    };
    let o = run(&["--checkpoint", c.to_str().unwrap()]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(3), "{text}{}", stderr(&o));
    assert!(
        text.contains(&format!("cannot write {}", c.display()))
            && text.contains("No space left on device"),
        "{text}"
    );
    let left = files_under(&c);
    let levels: Vec<&String> = left.iter().filter(|f| f.ends_with("meta.json")).collect();
    assert_eq!(levels.len(), 1, "one whole level: {left:?}");
    assert!(
        left.iter().all(|f| !f.contains(".tmp")),
        "no temporary level: {left:?}"
    );
    let depth: usize = levels[0][6..10].parse().unwrap();
    let links = left.iter().filter(|f| f.starts_with("links-")).count();
    assert_eq!(links, depth, "no links past level {depth}: {left:?}");
    // Resumed on a disk with room, it ends as an uninterrupted run.
    let moved = scratch.join("c");
    copy_dir(&c, &moved);
    let resumed = run(&["--resume", moved.to_str().unwrap()]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stdout(&resumed).contains("explored 1"),
        "{}",
        stdout(&resumed)
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn reports_that_do_not_fit_are_one_line_and_leave_no_file() {
    let Some(disk) = SmallDisk::mount("reports", 1024) else {
        return;
    };
    disk.fill(1000);
    let out = disk.path("out");
    let traces = absent("reports-traces");
    let o = check(&[
        "models/default.json",
        "--depth",
        "8",
        "--out",
        out.to_str().unwrap(),
        "--traces",
        traces.to_str().unwrap(),
    ]);
    assert_one_line_full(&o, &out.display().to_string());
    // Nothing half-written, and the --out the run made is removed again.
    assert!(!out.exists(), "{:?}", files_under(&out));
    let _ = std::fs::remove_dir_all(&traces);
}

#[test]
fn a_dump_that_does_not_fit_is_one_line_and_leaves_no_partial_file() {
    let Some(disk) = SmallDisk::mount("dump", 512) else {
        return;
    };
    let dump = disk.path("dump");
    let scratch = fresh("dump");
    let o = check(&[
        "models/default.json",
        "--depth",
        "5",
        "--dump",
        dump.to_str().unwrap(),
        "--out",
        scratch.join("out").to_str().unwrap(),
        "--traces",
        scratch.join("traces").to_str().unwrap(),
    ]);
    assert_one_line_full(&o, &dump.display().to_string());
    let left = files_under(&dump);
    assert!(
        left.iter()
            .all(|f| !f.contains("partial") && f != "dump.json"),
        "no partial file, no manifest: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_full_disk_under_a_disk_run_keeps_its_last_sealed_level_which_resumes() {
    let Some(disk) = SmallDisk::mount("disk-run", 2048) else {
        return;
    };
    let scratch = fresh("disk-run");
    let (out, traces) = (scratch.join("out"), scratch.join("traces"));
    let d = disk.path("d");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "models/default.json",
            "--depth",
            "7",
            "--expect",
            "--out",
            out.to_str().unwrap(),
            "--traces",
            traces.to_str().unwrap(),
            // Batches of 256 KiB: the candidate runs fill the disk too.
            "--max-memory",
            "1M",
        ];
        args.extend_from_slice(extra);
        check(&args)
    };
    let o = run(&["--disk", d.to_str().unwrap()]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(3), "{text}{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let line = text
        .lines()
        .find(|l| l.starts_with("stopped before depth"))
        .unwrap_or_else(|| panic!("no stopped line: {text}"));
    assert!(
        line.contains(&format!("cannot write {}", d.display()))
            && line.contains("No space left on device"),
        "{line}"
    );
    let left = files_under(&d);
    let levels: Vec<&String> = left.iter().filter(|f| f.ends_with("meta.json")).collect();
    assert_eq!(levels.len(), 1, "one sealed level: {left:?}");
    assert!(
        left.iter()
            .all(|f| !f.contains(".tmp") && !f.contains(".scratch")),
        "no temporary level, no candidate run: {left:?}"
    );
    // Resumed on a disk with room, it ends as a run never stopped does.
    let moved = scratch.join("d");
    copy_dir(&d, &moved);
    let resumed = run(&["--resume", moved.to_str().unwrap()]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let whole = check(&[
        "models/default.json",
        "--depth",
        "7",
        "--out",
        scratch.join("whole").to_str().unwrap(),
        "--traces",
        scratch.join("whole-traces").to_str().unwrap(),
    ]);
    let explored = |o: &Output| {
        stdout(o)
            .lines()
            .find(|l| l.starts_with("explored"))
            .map(|l| l.split(" in ").next().unwrap().to_owned())
    };
    assert_eq!(explored(&resumed), explored(&whole));
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Issue 38.5: a disk that fills up while a `--disk` level's parent
/// links are copied into `links-DDDD.bin` (after its merge wrote the
/// level and its visited runs) leaves only the last sealed level: no
/// temporary level, no visited run of the level that failed.
#[test]
fn a_full_disk_under_a_disk_runs_links_file_leaves_only_the_sealed_level() {
    let Some(disk) = SmallDisk::mount("disk-links", 8192) else {
        return;
    };
    let scratch = fresh("disk-links");
    let d = disk.path("d");
    // The free space is raised 16 KiB at a time until the run stops on
    // the links file itself (a window of some 60 KiB at depth 5).
    for free in (1024..4096).step_by(16) {
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_file(disk.path("filler"));
        disk.fill(8192 - free);
        let o = check(&[
            "models/default.json",
            "--depth",
            "6",
            "--out",
            scratch.join("out").to_str().unwrap(),
            "--traces",
            scratch.join("traces").to_str().unwrap(),
            "--max-memory",
            "64M",
            "--disk",
            d.to_str().unwrap(),
        ]);
        let text = stdout(&o);
        let Some(line) = text.lines().find(|l| l.starts_with("stopped before depth")) else {
            continue;
        };
        let Some(depth) = line
            .split_once("links-")
            .filter(|(_, rest)| rest.starts_with("000"))
            .and_then(|(_, rest)| rest.get(..4))
            .and_then(|d| d.parse::<usize>().ok())
        else {
            continue;
        };
        assert_eq!(o.status.code(), Some(3), "{text}{}", stderr(&o));
        assert!(line.contains("No space left on device"), "{line}");
        let left = files_under(&d);
        assert!(
            left.iter().all(|f| !f.contains(".tmp")),
            "no temporary level: {left:?}"
        );
        let built = format!("-{depth:04}.bin");
        assert!(
            left.iter()
                .all(|f| !(f.starts_with("visited/") && f.ends_with(&built))),
            "no visited run of level {depth}: {left:?}"
        );
        let _ = std::fs::remove_dir_all(&scratch);
        return;
    }
    panic!("no free space made the run stop on its links file");
}

/// Issue 38.11: `--traces` on a read-only mount is refused before the
/// run, and no `--out` is left behind.
#[test]
fn a_traces_folder_on_a_read_only_mount_is_refused_before_out_is_made() {
    let Some(disk) = SmallDisk::mount("ro-traces", 1024) else {
        return;
    };
    disk.read_only();
    let scratch = fresh("ro-traces");
    let out = scratch.join("out");
    let traces = disk.path("traces");
    let o = check(&[
        "models/ablations/no-gate.json",
        "--depth",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--traces",
        traces.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--traces") && err.contains("Read-only file system"),
        "{err}"
    );
    assert!(!out.exists(), "no --out made");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Issue 51.12: a disk that fills up under a distributed checkpoint
/// leaves, in every worker's part, no links file past the last level it
/// sealed (the failing level's links go with it, as in a plain run).
#[test]
fn a_full_disk_under_a_distributed_checkpoint_keeps_no_links_past_a_sealed_level() {
    let Some(disk) = SmallDisk::mount("distributed", 2048) else {
        return;
    };
    let scratch = fresh("distributed");
    let c = disk.path("c");
    let o = check(&[
        "models/default.json",
        "--depth",
        "7",
        "--local-processes",
        "2",
        "--threads",
        "1",
        "--out",
        scratch.join("out").to_str().unwrap(),
        "--traces",
        scratch.join("traces").to_str().unwrap(),
        "--checkpoint",
        c.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    for part in ["process-0/worker-0", "process-1/worker-0"] {
        let left = files_under(&c.join(part));
        let sealed = left
            .iter()
            .filter(|f| f.ends_with("meta.json"))
            .filter_map(|f| f.get(6..10)?.parse::<usize>().ok())
            .max()
            .unwrap_or(0);
        let past: Vec<&String> = left
            .iter()
            .filter(|f| {
                f.strip_prefix("links-")
                    .and_then(|d| d.get(..4)?.parse::<usize>().ok())
                    .is_some_and(|d| d > sealed)
            })
            .collect();
        assert!(
            past.is_empty(),
            "{part}: links past level {sealed}: {left:?}"
        );
        assert!(
            left.iter().all(|f| !f.contains(".tmp")),
            "{part}: a temporary level: {left:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
