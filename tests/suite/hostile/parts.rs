//! A distributed run's folders get a plain run's hygiene (issue 51, items
//! 1, 2, 9 and 12): a symlink planted where a process keeps its part
//! (`C/process-I`, `OUT/links/process-I`) is refused, never followed; a
//! second run into folders a running one writes is refused while it
//! runs; a fresh checkpoint refuses a folder of user files; parts of two
//! runs with no common level are refused before connecting; a lost peer
//! leaves no spilled links behind. Ports are picked free; every process
//! started is killed and waited for when the test ends.

use super::assert_refused;
use crate::support::{bin, free_ports, fresh, wait_until};

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

/// A `--local-processes 2` check of no-gate to `depth`, reports in
/// `dir/out`, traces in `dir/traces`, with `extra`.
fn local(dir: &Path, depth: &str, extra: &[&str]) -> Output {
    bin()
        .args(["check", "models/ablations/no-gate.json", "--depth", depth])
        .args(["--local-processes", "2", "--threads", "1", "--out"])
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("traces"))
        .args(extra)
        .output()
        .expect("the binary runs")
}

/// Processes killed and waited for when the test ends, a failing one
/// included.
struct Started(Vec<Child>);

impl Drop for Started {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Process `i` of a `--hosts` run on `ports` of the default model at
/// depth 9 (minutes on one thread), with `extra`; its stderr piped.
fn hosts_process(dir: &Path, ports: &[u16], i: usize, out: &Path, extra: &[&str]) -> Child {
    let hosts = dir.join(format!("hosts-{}.txt", ports[0]));
    let text: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(&hosts, text).unwrap();
    bin()
        .args([
            "check",
            "models/default.json",
            "--depth",
            "9",
            "--threads",
            "1",
        ])
        .arg("--out")
        .arg(out)
        .arg("--traces")
        .arg(dir.join("traces"))
        .arg("--hosts")
        .arg(&hosts)
        .args(["--process", &i.to_string()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// The child's exit code and stderr, waiting at most `limit`.
fn ended(child: &mut Child, limit: Duration) -> (Option<i32>, String) {
    wait_until(limit, "the process ends", || {
        child.try_wait().unwrap().is_some()
    });
    let status = child.wait().unwrap();
    let mut err = String::new();
    use std::io::Read;
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    (status.code(), err)
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_symlink_where_a_process_keeps_its_part_is_refused_and_not_followed() {
    let dir = fresh("planted");
    // What a link would lead a fresh run to remove: a folder of the
    // user's, outside every folder the run was given.
    let victim = dir.join("victim");
    std::fs::create_dir_all(victim.join("worker-0")).unwrap();
    std::fs::write(victim.join("worker-0/keep.txt"), b"the user's").unwrap();
    let c = dir.join("c");
    std::fs::create_dir_all(&c).unwrap();
    std::os::unix::fs::symlink(&victim, c.join("process-0")).unwrap();
    let o = local(&dir, "4", &["--checkpoint", c.to_str().unwrap()]);
    assert_refused(&o, &["process-0", "symlink"]);
    assert!(victim.join("worker-0/keep.txt").exists(), "followed");
    // The same under the parent links spilled under --out.
    let links = dir.join("out/links");
    std::fs::create_dir_all(&links).unwrap();
    std::os::unix::fs::symlink(&victim, links.join("process-1")).unwrap();
    let o = local(&dir, "4", &[]);
    assert_refused(&o, &["process-1", "symlink"]);
    assert!(victim.join("worker-0/keep.txt").exists(), "followed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fresh_distributed_checkpoint_refuses_a_folder_of_user_files() {
    let dir = fresh("users");
    let c = dir.join("c");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(c.join("notes.txt"), b"the user's").unwrap();
    let o = local(&dir, "4", &["--checkpoint", c.to_str().unwrap()]);
    assert_refused(&o, &["notes.txt"]);
    assert!(c.join("notes.txt").exists());
    // Inside a process's part too.
    std::fs::remove_file(c.join("notes.txt")).unwrap();
    std::fs::create_dir_all(c.join("process-1")).unwrap();
    std::fs::write(c.join("process-1/notes.txt"), b"the user's").unwrap();
    let o = local(&dir, "4", &["--checkpoint", c.to_str().unwrap()]);
    assert_refused(&o, &["notes.txt"]);
    assert!(c.join("process-1/notes.txt").exists());
    // A checkpoint of the same run is replaced, as a plain one is.
    std::fs::remove_dir_all(&c).unwrap();
    let args = ["--checkpoint", c.to_str().unwrap(), "--max-levels", "3"];
    assert!(matches!(local(&dir, "4", &args).status.code(), Some(1 | 3)));
    let again = local(&dir, "4", &args);
    assert!(
        matches!(again.status.code(), Some(1 | 3)),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parts_of_two_runs_with_no_common_level_are_refused_before_connecting() {
    let dir = fresh("no-common");
    let cut = |name: &str, levels: &str| {
        let c = dir.join(name);
        let args = ["--checkpoint", c.to_str().unwrap(), "--max-levels", levels];
        let o = local(&dir, "8", &args);
        // Stopped early, no-gate's violation found (exit 1) or not yet.
        assert!(
            matches!(o.status.code(), Some(1 | 3)),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        c
    };
    // Each worker keeps its last two levels: 1 and 2, and 4 and 5.
    let (early, late) = (cut("early", "3"), cut("late", "6"));
    let mixed = dir.join("mixed");
    std::fs::create_dir_all(&mixed).unwrap();
    std::fs::rename(early.join("process-0"), mixed.join("process-0")).unwrap();
    std::fs::rename(late.join("process-1"), mixed.join("process-1")).unwrap();
    let start = Instant::now();
    let o = local(&dir, "8", &["--resume", mixed.to_str().unwrap()]);
    assert_refused(&o, &["no level"]);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_distributed_run_into_folders_a_running_one_writes_is_refused() {
    let dir = fresh("second");
    let c = dir.join("c");
    let check = ["--checkpoint", c.to_str().unwrap()];
    let first_ports = free_ports(2);
    let mut first = Started(
        (0..2)
            .map(|i| hosts_process(&dir, &first_ports, i, &dir.join("out-a"), &check))
            .collect(),
    );
    // Whether process `i`'s part holds a level checkpointed.
    let level = |i: usize| {
        files(&c.join(format!("process-{i}/worker-0")))
            .iter()
            .any(|f| f.ends_with("meta.json"))
    };
    wait_until(Duration::from_secs(60), "the first run checkpoints", || {
        level(0) && level(1)
    });
    // The same checkpoint, another --out: each process is refused.
    let second_ports = free_ports(2);
    let timeout = ["--connect-timeout", "5"];
    let mut second = Started(
        (0..2)
            .map(|i| {
                let extra = [&check[..], &timeout[..]].concat();
                hosts_process(&dir, &second_ports, i, &dir.join("out-b"), &extra)
            })
            .collect(),
    );
    for (i, child) in second.0.iter_mut().enumerate() {
        let (code, err) = ended(child, Duration::from_secs(20));
        assert_eq!(code, Some(2), "process {i}: {err}");
        assert!(
            err.contains("another memtx-check run is writing"),
            "process {i}: {err}"
        );
    }
    // Another checkpoint, the same --out: process 0 is refused.
    let c2 = dir.join("c2");
    let third_ports = free_ports(2);
    let extra = [
        "--checkpoint",
        c2.to_str().unwrap(),
        "--connect-timeout",
        "5",
    ];
    let mut third = Started(vec![hosts_process(
        &dir,
        &third_ports,
        0,
        &dir.join("out-a"),
        &extra,
    )]);
    let (code, err) = ended(&mut third.0[0], Duration::from_secs(20));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another memtx-check run is writing"), "{err}");
    // The first run's checkpoint is whole and it runs on.
    for child in &mut first.0 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the first run was ended"
        );
    }
    assert!(
        level(0) && level(1),
        "the first run's checkpoint was removed: {:?}",
        files(&c)
    );
    drop(first);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lost_peer_leaves_no_spilled_links_behind() {
    let dir = fresh("lost");
    let ports = free_ports(2);
    let out = dir.join("out");
    let mut run = Started(
        (0..2)
            .map(|i| hosts_process(&dir, &ports, i, &out, &[]))
            .collect(),
    );
    let spilled = out.join("links/process-0/worker-0/links-0003.bin");
    wait_until(Duration::from_secs(60), "links spilled", || {
        spilled.exists()
    });
    run.0[1].kill().unwrap();
    run.0[1].wait().unwrap();
    let (code, err) = ended(&mut run.0[0], Duration::from_secs(30));
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("lost a peer"), "{err}");
    // The survivor's; the killed process's wait for the next run.
    let left: Vec<PathBuf> = files(&out.join("links/process-0"));
    assert!(left.is_empty(), "spilled links left: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
