//! End-to-end tests of `check` across processes (issue 11), on the real
//! binary: 1 process × 2 threads, 2 × 1 and 3 × 1 give a plain check's
//! growth counts, verdicts, counterexample traces and branch coverage,
//! byte for byte;
//! killing one process ends the others with one line and a non-zero exit
//! within seconds; a peer that never starts times out; a bad hosts file
//! is one line and exit 2; under `--symmetry` too; a run stopped after a
//! level, or killed, and resumed from its checkpoint ends as an
//! uninterrupted one, and a checkpoint refuses another layout or model,
//! or a part that was altered. Ports are picked free by the tests (bound to
//! port 0, read, released), and every process started is waited for.

use crate::support::{bin, check, copy_dir, free_ports, fresh, stderr};

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

fn hosts_file(dir: &Path, ports: &[u16]) -> PathBuf {
    let path = dir.join("hosts.txt");
    let text: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// growth.csv without its timing column.
fn counts(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("growth.csv"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string() + "\n")
        .collect()
}

/// The summary's counts and verdicts (not its timing or thread count).
fn verdicts(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    serde_json::json!([
        s["states"],
        s["transitions"],
        s["complete"],
        s["deepest_level"],
        s["properties"]
    ])
}

/// Every trace file of `dir`, by name.
fn traces(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Worker layouts: 1 process × 2 threads, 2 × 1, 3 × 1.
const LAYOUTS: [(&str, [&str; 4]); 3] = [
    ("1x2", ["--local-processes", "1", "--threads", "2"]),
    ("2x1", ["--local-processes", "2", "--threads", "1"]),
    ("3x1", ["--local-processes", "3", "--threads", "1"]),
];

/// A plain check with `args` and the same check on each of `layouts`
/// write the same counts, verdicts and traces, and exit alike.
fn same_everywhere(args: &[&str], name: &str, layouts: &[(&str, [&str; 4])]) {
    let dir = fresh(name);
    let run = |tag: &str, extra: &[&str]| {
        let out = dir.join(tag);
        let tr = dir.join(format!("{tag}-traces"));
        let mut all = args.to_vec();
        all.extend_from_slice(&["--out", out.to_str().unwrap()]);
        all.extend_from_slice(&["--traces", tr.to_str().unwrap()]);
        all.extend_from_slice(extra);
        let o = check(&all);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{args:?} {tag}: {}",
            stderr(&o)
        );
        let coverage = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
        // Parent links spilled under --out while the run went are gone.
        assert!(!out.join("links").exists(), "{args:?} {tag}: links left");
        (
            o.status.code(),
            counts(&out),
            verdicts(&out),
            traces(&tr),
            coverage,
        )
    };
    let plain = run("plain", &["--threads", "1"]);
    assert!(!plain.1.is_empty());
    for (tag, extra) in layouts {
        let got = run(tag, extra);
        assert_eq!(got.0, plain.0, "{args:?} {tag}: exit code");
        assert_eq!(got.1, plain.1, "{args:?} {tag}: growth.csv");
        assert_eq!(got.2, plain.2, "{args:?} {tag}: verdicts");
        assert_eq!(got.3, plain.3, "{args:?} {tag}: traces");
        assert_eq!(got.4, plain.4, "{args:?} {tag}: coverage.csv");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// The default model to depth 7 (1.4 million states; depth 8 is 9.4
// million, four runs of it were the suite's longest test): every example
// and violation of its properties is found by depth 7 (the deepest,
// "stale write quarantined", at 7).
#[test]
fn the_default_model_is_the_same_on_every_layout() {
    same_everywhere(
        &["models/default.json", "--depth", "7"],
        "default",
        &LAYOUTS,
    );
}

#[test]
fn symmetry_is_the_same_on_every_layout() {
    same_everywhere(
        &["models/default.json", "--depth", "7", "--symmetry"],
        "symmetric",
        &LAYOUTS,
    );
}

#[test]
fn wide_fingerprints_are_the_same_across_processes() {
    let model = "models/ablations/no-typed-repair.json";
    let args = [model, "--depth", "6", "--fingerprint", "128"];
    same_everywhere(&args, "wide", &LAYOUTS[1..2]);
}

#[test]
fn every_ablation_is_the_same_on_every_layout() {
    for entry in std::fs::read_dir("models/ablations").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        same_everywhere(&[path.to_str().unwrap(), "--depth", "7"], &name, &LAYOUTS);
    }
}

/// Waits up to `limit` for `child`; kills it (and fails) past that.
fn wait_within(child: &mut Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    Output {
        status,
        stdout: Vec::new(),
        stderr: err.into_bytes(),
    }
}

#[test]
fn killing_one_process_ends_the_others_with_one_line() {
    let dir = fresh("kill");
    let hosts = hosts_file(&dir, &free_ports(3));
    let mut children: Vec<Child> = (0..3)
        .map(|i| spawn_process(&dir, &hosts, i, "9", &[]))
        .collect();
    // Long enough to connect and start exploring, far from the end.
    std::thread::sleep(Duration::from_millis(1500));
    let mut victim = children.remove(2);
    assert!(
        victim.try_wait().unwrap().is_none(),
        "still running when killed"
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
    for (i, mut child) in children.into_iter().enumerate() {
        let o = wait_within(&mut child, Duration::from_secs(20), &format!("process {i}"));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "process {i}: {err}");
        let lines: Vec<&str> = err.lines().filter(|l| l.contains("abandoned")).collect();
        assert_eq!(lines.len(), 1, "process {i}: {err}");
        assert!(
            lines[0].contains("lost a peer process"),
            "process {i}: {err}"
        );
        assert!(!err.contains("panicked"), "no panic dump: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_peer_that_never_starts_times_out_naming_it() {
    let dir = fresh("timeout");
    let hosts = hosts_file(&dir, &free_ports(2));
    let start = Instant::now();
    let o = check(&[
        "models/ablations/no-gate.json",
        "--hosts",
        hosts.to_str().unwrap(),
        "--process",
        "1",
        "--connect-timeout",
        "1",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("process 0 (127.0.0.1:") && err.contains("did not connect within 1 s"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_hosts_file_is_one_line_and_exit_2() {
    let dir = fresh("hosts");
    let malformed = dir.join("malformed.txt");
    std::fs::write(&malformed, "127.0.0.1:7000\n127.0.0.1\n").unwrap();
    let short = dir.join("short.txt");
    std::fs::write(&short, "127.0.0.1:7000\n").unwrap();
    let missing = dir.join("missing.txt");
    for (file, process, expected) in [
        (&missing, "0", "missing.txt".to_string()),
        (
            &malformed,
            "0",
            format!(
                "{}:2: \"127.0.0.1\" is not a host:port address",
                malformed.display()
            ),
        ),
        (
            &short,
            "1",
            format!(
                "{}: names 1 process, so there is no process 1",
                short.display()
            ),
        ),
    ] {
        let o = check(&[
            "models/ablations/no-gate.json",
            "--hosts",
            file.to_str().unwrap(),
            "--process",
            process,
            "--out",
            dir.join("out").to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(&expected), "{expected} in {err}");
    }
    for args in [
        &["--hosts", "h.txt"][..],
        &["--process", "0"][..],
        &["--local-processes", "0"][..],
    ] {
        let o = check(&[&["models/ablations/no-gate.json"][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn processes_given_different_runs_stop_before_the_first_level() {
    let dir = fresh("mismatch");
    let hosts = hosts_file(&dir, &free_ports(2));
    let mut children: Vec<Child> = ["5", "6"]
        .iter()
        .enumerate()
        .map(|(i, depth)| {
            bin()
                .args(["check", "models/ablations/no-gate.json", "--threads", "1"])
                .args(["--depth", depth, "--process", &i.to_string()])
                .arg("--hosts")
                .arg(&hosts)
                .arg("--out")
                .arg(dir.join(format!("out{i}")))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let errors: Vec<String> = children
        .iter_mut()
        .enumerate()
        .map(|(i, child)| {
            let o = wait_within(child, Duration::from_secs(20), &format!("process {i}"));
            assert_eq!(o.status.code(), Some(3), "process {i}: {}", stderr(&o));
            stderr(&o)
        })
        .collect();
    assert!(
        errors.iter().any(|e| e.contains("not given the same run")),
        "{errors:?}"
    );
    assert!(
        !dir.join("out0").join("growth.csv").exists(),
        "nothing written"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Processes stopped, if still running, when the test ends (a failing
/// assertion included).
struct Stop(Vec<Child>);

impl Drop for Stop {
    fn drop(&mut self) {
        for child in &mut self.0 {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// One process of a `--hosts` run of the default model at `depth`, with
/// `extra` arguments, its stderr piped.
fn spawn_process(dir: &Path, hosts: &Path, i: usize, depth: &str, extra: &[&str]) -> Child {
    bin()
        .args(["check", "models/default.json", "--threads", "1"])
        .args(["--depth", depth])
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--traces")
        .arg(dir.join("traces"))
        .arg("--hosts")
        .arg(hosts)
        .args(["--process", &i.to_string()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_stopped_or_killed_run_resumes_to_an_uninterrupted_run_s_results() {
    let dir = fresh("resume");
    let p = |s: &str| dir.join(s).to_str().unwrap().to_owned();
    let model = ["models/default.json", "--depth", "8"];
    let run = |tag: &str, extra: &[&str]| {
        let (out, tr) = (p(tag), p(&format!("{tag}-traces")));
        let mut args = model.to_vec();
        args.extend_from_slice(&["--out", &out, "--traces", &tr]);
        args.extend_from_slice(extra);
        check(&args)
    };
    let results = |tag: &str| {
        let (out, tr) = (dir.join(tag), dir.join(format!("{tag}-traces")));
        let coverage = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
        (counts(&out), verdicts(&out), traces(&tr), coverage)
    };
    let plain = run("plain", &["--threads", "1"]);
    assert_eq!(plain.status.code(), Some(1), "{}", stderr(&plain));
    let expected = results("plain");
    assert!(!expected.2.is_empty(), "the default model's scope finding");

    // Stopped after 5 levels, as an interruption would, then resumed.
    let two = ["--local-processes", "2", "--threads", "1"];
    let cut = run(
        "stopped",
        &[&two[..], &["--checkpoint", &p("c"), "--max-levels", "5"]].concat(),
    );
    assert_eq!(cut.status.code(), Some(3), "{}", stderr(&cut));
    assert!(
        String::from_utf8_lossy(&cut.stdout).contains("the bound was NOT reached"),
        "{}",
        String::from_utf8_lossy(&cut.stdout)
    );
    let resumed = run("stopped", &[&two[..], &["--resume", &p("c")]].concat());
    assert_eq!(resumed.status.code(), Some(1), "{}", stderr(&resumed));
    assert_eq!(results("stopped"), expected);

    // Another layout, model or bound may not resume it: one line, exit 2.
    for (what, args) in [
        (
            "processes",
            vec!["--local-processes", "3", "--threads", "1"],
        ),
        ("threads", vec!["--local-processes", "2", "--threads", "2"]),
    ] {
        let o = run("refused", &[&args[..], &["--resume", &p("c")]].concat());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
        assert!(err.contains("2 processes × 1 threads"), "{what}: {err}");
    }
    for args in [
        vec!["models/ablations/no-gate.json", "--depth", "8"],
        vec!["models/default.json", "--depth", "7"],
    ] {
        let (c, out) = (p("c"), p("refused-out"));
        let all = [&args[..], &two[..], &["--out", &out, "--resume", &c]].concat();
        let o = check(&all);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("another model or bounds"), "{args:?}: {err}");
    }
    // Issue 38.12: the same run with --symmetry turned is named as such,
    // with how to resume, as a single process names it.
    let (c, out) = (p("c"), p("turned"));
    let turned = [
        &model[..],
        &two[..],
        &["--symmetry", "--out", &out, "--resume", &c],
    ]
    .concat();
    let o = check(&turned);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("made without --symmetry, and this run is with it: resume without --symmetry"),
        "{err}"
    );

    // A part altered on the way (one byte of process 1's visited set) is
    // refused before any process connects: one line naming the file.
    let damaged = dir.join("damaged");
    copy_dir(&dir.join("c"), &damaged);
    let worker = damaged.join("process-1/worker-0");
    let level = std::fs::read_dir(&worker)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("level-")
        })
        .max()
        .expect("process 1 checkpointed a level");
    let visited = level.join("visited.bin");
    let mut bytes = std::fs::read(&visited).unwrap();
    bytes[9] ^= 0x40;
    std::fs::write(&visited, bytes).unwrap();
    let (d, out) = (damaged.to_str().unwrap(), p("damaged-out"));
    let o = check(&[&model[..], &two[..], &["--out", &out, "--resume", d]].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains(&visited.display().to_string()) && err.contains("checksum differs"),
        "{err}"
    );

    // Killed mid-run once a few levels are checkpointed: the survivor
    // ends with one line; every process rerun with --resume finishes.
    let killed = fresh("resume-killed");
    let hosts = hosts_file(&killed, &free_ports(2));
    let ck = killed.join("c");
    let ck = ck.to_str().unwrap();
    let mut children = Stop(
        (0..2)
            .map(|i| spawn_process(&killed, &hosts, i, "8", &["--checkpoint", ck]))
            .collect(),
    );
    let level = killed.join("c/process-1/worker-0/level-0005");
    let start = Instant::now();
    while !level.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no level 5 checkpointed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let victim = &mut children.0[1];
    victim.kill().unwrap();
    victim.wait().unwrap();
    let o = wait_within(&mut children.0[0], Duration::from_secs(20), "process 0");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let mut resumed = Stop(
        (0..2)
            .map(|i| spawn_process(&killed, &hosts, i, "8", &["--resume", ck]))
            .collect(),
    );
    for (i, child) in resumed.0.iter_mut().enumerate() {
        let o = wait_within(child, Duration::from_secs(120), &format!("resumed {i}"));
        let code = if i == 0 { 1 } else { 0 };
        assert_eq!(o.status.code(), Some(code), "process {i}: {}", stderr(&o));
    }
    let got = (
        counts(&killed.join("out")),
        verdicts(&killed.join("out")),
        traces(&killed.join("traces")),
        std::fs::read_to_string(killed.join("out/coverage.csv")).unwrap(),
    );
    assert_eq!(got, expected);
    let _ = std::fs::remove_dir_all(&killed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_memory_guard_stops_every_process_cleanly_with_exit_3() {
    let dir = fresh("guard");
    let out = dir.join("out");
    let o = check(&[
        "models/default.json",
        "--local-processes",
        "2",
        "--threads",
        "1",
        "--max-memory",
        "1M",
        "--out",
        out.to_str().unwrap(),
        "--traces",
        dir.join("traces").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{text}{}", stderr(&o));
    assert!(
        text.contains("stopped before depth 1") && text.contains("NOT reached"),
        "{text}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["stopped"]["reason"], "memory_bound", "{summary}");
    assert_eq!(summary["complete"], false, "{summary}");
    assert_eq!(summary["states"], 1, "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 51.6: under an address-space limit (`ulimit -v`) the processes'
/// guard stops every process cleanly, as the plain guard does, whatever
/// `--max-memory` says: no worker dies of a failed allocation.
#[test]
fn an_address_space_limit_stops_every_process_cleanly() {
    let dir = fresh("ulimit-v");
    let line = format!(
        "check models/default.json --depth 9 --threads 1 --local-processes 2 --max-memory 2G \
         --properties I1,I2,G3 --out '{}' --traces '{}'",
        dir.join("out").display(),
        dir.join("traces").display()
    );
    let Some(run) = crate::support::under_address_limit(600_000, &line) else {
        return;
    };
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.status.code(), Some(3), "{said}");
    assert!(
        said.contains("stopped before depth") && said.contains("address space"),
        "{said}"
    );
    assert!(dir.join("out/summary.json").exists(), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
