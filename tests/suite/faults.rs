//! Faults of the environment (issue 28): a disk that fills up under a
//! run's checkpoint, its parent-link spill, its reports or its dump ends
//! the run with one line naming the file and the cause (exit 2), or with
//! the reports of the levels completed (exit 3), never a panic, and leaves
//! nothing half-written. The full disk is a small tmpfs this test mounts,
//! which only root can; elsewhere each test says it is skipped. The
//! injected-writer tests beside the code cover the same paths everywhere.

use crate::support::{absent, check, copy_dir, files_under, fresh, stderr, stdout};

use std::path::PathBuf;
use std::process::{Command, Output};

/// A tmpfs of `kib` KiB mounted on a fresh folder, unmounted (and the
/// folder removed) when dropped, even by a failing test.
struct SmallDisk {
    root: PathBuf,
}

impl SmallDisk {
    /// `None`, with a line saying why the test is skipped, where this
    /// process may not mount (not root, or no tmpfs).
    fn mount(name: &str, kib: u64) -> Option<SmallDisk> {
        let root = fresh(&format!("disk-{name}"));
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(&root)
            .output();
        match mounted {
            Ok(o) if o.status.success() => Some(SmallDisk { root }),
            Ok(o) => {
                eprintln!(
                    "skipped: cannot mount a {kib} KiB tmpfs here ({}); run as root to test a full disk",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                let _ = std::fs::remove_dir(&root);
                None
            }
            Err(e) => {
                eprintln!("skipped: no mount command ({e})");
                let _ = std::fs::remove_dir(&root);
                None
            }
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Fills the disk with a file of `kib` KiB.
    fn fill(&self, kib: usize) {
        std::fs::write(self.path("filler"), vec![0u8; kib << 10]).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let unmounted = Command::new("umount").arg(&self.root).status();
        if unmounted.is_ok_and(|s| s.success()) {
            let _ = std::fs::remove_dir(&self.root);
        } else {
            eprintln!("could not unmount {}", self.root.display());
        }
    }
}

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
    assert_eq!(
        files_under(&out),
        Vec::<String>::new(),
        "nothing half-written"
    );
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
