//! A run ended by a signal (issue 28.6): SIGTERM, SIGINT and SIGHUP
//! remove the run's temporaries and exit 143, 130 and 129; the processes
//! of `--local-processes` end with their parent, even a parent killed
//! with SIGKILL, and leave no hosts file; a later run into a folder
//! removes what killed runs left there and nothing of the user's. Every
//! process started is waited for (or killed when a test fails).

use crate::support::{bin, fresh, wait_until, ChildGuard as Guard};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A check long enough to be interrupted (the default model at depth 9
/// takes minutes on one thread), its reports in `dir/out`, traces in
/// `dir/traces`.
fn long_check(dir: &Path, extra: &[&str]) -> Guard {
    Guard(
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
            .arg(dir.join("out"))
            .arg("--traces")
            .arg(dir.join("traces"))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start memtx-check check"),
    )
}

fn send(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Waits for the child for at most `limit`: its exit code and stderr.
fn wait_for(child: &mut Guard, limit: Duration) -> (Option<i32>, String) {
    wait_until(limit, "the process ends", || {
        child.0.try_wait().unwrap().is_some()
    });
    let status = child.0.wait().unwrap();
    let mut err = String::new();
    use std::io::Read;
    let _ = child.0.stderr.take().unwrap().read_to_string(&mut err);
    (status.code(), err)
}

/// Every entry under `dir`, recursively, as paths relative to it.
fn entries(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_signal_removes_the_temporaries_and_exits_128_and_its_number() {
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        let dir = fresh(signal);
        let mut child = long_check(&dir, &[]);
        let links = dir.join("out/links/links-0003.bin");
        wait_until(Duration::from_secs(60), "a level's links spilled", || {
            links.exists()
        });
        send(child.0.id(), signal);
        let (got, err) = wait_for(&mut child, Duration::from_secs(20));
        assert_eq!(got, Some(code), "SIG{signal}: {err}");
        assert!(err.contains(&format!("stopped by SIG{signal}")), "{err}");
        let left = entries(&dir);
        assert!(
            left.iter().all(|e| e == "out" || e == "traces"),
            "SIG{signal} left {left:?}"
        );
    }
}

/// The pids of `pid`'s children (Linux: `/proc/PID/task/*/children`).
fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    out
}

/// Whether `pid` runs (a zombie does not).
fn runs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

fn hosts_files_of(pid: u32) -> Vec<PathBuf> {
    let prefix = format!("memtx-check-hosts-{pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .collect()
}

#[test]
fn the_processes_of_local_processes_end_with_their_parent_even_killed() {
    if !Path::new("/proc/self/task").exists() {
        eprintln!("skipped: no /proc to find the child processes by");
        return;
    }
    let dir = fresh("local");
    let mut parent = long_check(&dir, &["--local-processes", "2"]);
    let pid = parent.0.id();
    wait_until(Duration::from_secs(30), "two processes started", || {
        children_of(pid).len() == 2
    });
    let children = children_of(pid);
    assert_eq!(hosts_files_of(pid).len(), 1, "the hosts file is there");
    // Connected and exploring.
    std::thread::sleep(Duration::from_millis(1500));
    parent.0.kill().expect("SIGKILL the parent");
    parent.0.wait().unwrap();
    wait_until(
        Duration::from_secs(20),
        "the processes end with their parent",
        || !children.iter().any(|&c| runs(c)),
    );
    assert_eq!(
        hosts_files_of(pid),
        Vec::<PathBuf>::new(),
        "the hosts file is removed"
    );
}

#[test]
fn a_later_run_removes_what_killed_runs_left_and_nothing_of_the_users() {
    let dir = fresh("leftovers");
    let out = dir.join("out");
    let traces = dir.join("traces");
    std::fs::create_dir_all(out.join("links")).unwrap();
    std::fs::create_dir_all(&traces).unwrap();
    // Process ids above the kernel's largest (4194304) run nowhere.
    let left = [
        out.join(".growth.csv.1700000000000-99999999-0.tmp"),
        out.join(".manifest.json.tmp.99999999.3"),
        out.join("links/links-0009.bin"),
        traces.join(".no-gate-I1.json.1700000000000-99999999-1.tmp"),
    ];
    for path in &left {
        std::fs::write(path, b"left by a killed run").unwrap();
    }
    let users = [traces.join("notes.txt"), traces.join(".notes.tmp")];
    for path in &users {
        std::fs::write(path, b"the user's").unwrap();
    }
    let status = bin()
        .args(["check", "models/ablations/no-gate.json", "--depth", "3"])
        .arg("--out")
        .arg(&out)
        .arg("--traces")
        .arg(&traces)
        .stdout(Stdio::null())
        .status()
        .expect("run memtx-check check");
    assert!(matches!(status.code(), Some(0 | 1)), "{status}");
    for path in &left {
        assert!(!path.exists(), "{} is removed", path.display());
    }
    assert!(!out.join("links").exists());
    for path in &users {
        assert!(path.exists(), "{} is kept", path.display());
    }
}

/// A driver that answers nothing: it writes its pid, a child's in its
/// group and a `setsid` child's (out of the group) to `$1`, and hangs.
const HANGING_DRIVER: &str = r#"#!/bin/sh
echo $$ > "$1.tmp"
sleep 1000 &
echo $! >> "$1.tmp"
setsid sleep 1000 &
echo $! >> "$1.tmp"
mv "$1.tmp" "$1"
sleep 1000
"#;

#[test]
fn a_signal_kills_the_drivers_and_their_escaped_children() {
    // Issue 38.3: conform and diff across builds left their drivers'
    // groups running; 38.12: a `setsid` child escaped the group kill.
    let dir = fresh("drivers");
    let script = dir.join("hang.sh");
    std::fs::write(&script, HANGING_DRIVER).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (n, (signal, code)) in [("TERM", 143), ("INT", 130), ("HUP", 129)]
        .iter()
        .enumerate()
    {
        for command in ["conform", "diff"] {
            let pids = dir.join(format!("{command}-{signal}.pids"));
            let mut cmd = bin();
            match command {
                "conform" => cmd
                    .args(["conform", "models/default.json", "--jobs", "1", "--driver"])
                    .arg(format!("'{}' '{}'", script.display(), pids.display())),
                _ => {
                    let exe = dir.join(format!("exe-{n}"));
                    std::fs::write(
                        &exe,
                        format!(
                            "#!/bin/sh\nexec '{}' '{}'\n",
                            script.display(),
                            pids.display()
                        ),
                    )
                    .unwrap();
                    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
                    cmd.args(["diff", "--behaviour", "models/default.json", "--jobs", "1"])
                        .arg("--before-exe")
                        .arg(&exe)
                }
            };
            let mut child = Guard(
                cmd.args(["--step-timeout", "600", "--out"])
                    .arg(dir.join(format!("out-{command}-{n}")))
                    .arg("--traces")
                    .arg(dir.join(format!("traces-{command}-{n}")))
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("start memtx-check"),
            );
            wait_until(Duration::from_secs(30), "the driver started", || {
                pids.exists()
            });
            send(child.0.id(), signal);
            let (got, err) = wait_for(&mut child, Duration::from_secs(20));
            assert_eq!(got, Some(*code), "{command} SIG{signal}: {err}");
            let started = std::fs::read_to_string(&pids).unwrap();
            let pids: Vec<u32> = started
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .collect();
            assert_eq!(pids.len(), 3, "{started}");
            wait_until(Duration::from_secs(5), "the drivers are gone", || {
                pids.iter().all(|&p| !runs(p))
            });
        }
    }
}

/// A report folder whose manifest names `n` files of an earlier `check`
/// run, each there: committing a new set removes them one by one, which
/// gives a signal time to land mid-commit.
fn plant_earlier_set(out: &Path, n: usize) -> Vec<PathBuf> {
    std::fs::create_dir_all(out).unwrap();
    let mut files = serde_json::Map::new();
    let mut planted = Vec::with_capacity(n);
    for i in 0..n {
        let name = format!("stale-{i:06}.csv");
        std::fs::write(out.join(&name), b"").unwrap();
        files.insert(
            name.clone(),
            serde_json::json!({"bytes": 0, "fnv1a64": "cbf29ce484222325"}),
        );
        planted.push(out.join(name));
    }
    let manifest = serde_json::json!({
        "format": "memtx-check report set 1",
        "sets": {"check": {"model": "no-gate", "model_digest": "earlier",
                           "run": "earlier", "complete": true,
                           "files": files, "traces": {}}}
    });
    std::fs::write(out.join("manifest.json"), manifest.to_string()).unwrap();
    planted
}

/// Issue 51.3: a signal that lands while a report set is committed
/// (its manifest marked incomplete, its files being renamed and the
/// earlier set's removed) lets the commit finish before the process
/// exits: the folder holds one whole set, which a reader accepts.
#[test]
fn a_signal_during_a_commit_lets_the_set_finish_before_exiting() {
    let dir = fresh("commit");
    let out = dir.join("out");
    let planted = plant_earlier_set(&out, 60_000);
    let mut child = Guard(
        bin()
            .args(["check", "models/ablations/no-gate.json", "--depth", "4"])
            .arg("--out")
            .arg(&out)
            .arg("--traces")
            .arg(dir.join("traces"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start memtx-check check"),
    );
    // The earlier set's files go in name order once the new set is
    // marked in the manifest: the first gone means the commit is on.
    wait_until(Duration::from_secs(60), "the commit begins", || {
        !planted[0].exists()
    });
    send(child.0.id(), "TERM");
    let (code, err) = wait_for(&mut child, Duration::from_secs(60));
    assert!(
        !planted[planted.len() - 1].exists(),
        "the commit was cut short: {err}"
    );
    assert!(
        matches!(code, Some(143) | Some(0) | Some(1)),
        "{code:?} {err}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["sets"]["check"]["complete"], true, "{err}");
    assert!(out.join("summary.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dir/hang.sh FILE`: a program that writes its pid and the pid of a
/// child it starts to FILE, then waits for good (a `cargo` that takes
/// forever).
fn hanging_program(dir: &Path) -> PathBuf {
    let script = dir.join("hang.sh");
    std::fs::write(
        &script,
        // Its output away from the test's pipes, which a survivor would
        // hold open.
        "#!/bin/sh\nexec >/dev/null 2>&1\nsleep 1000 &\necho $$ $! > \"$PIDS.tmp\"\nmv \"$PIDS.tmp\" \"$PIDS\"\nwait\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Issue 51.4: `diff --before-rev` builds the revision with cargo; a
/// signal to memtx-check while cargo builds kills cargo (and what it
/// started) and removes the revision's checkout.
#[test]
fn a_signal_during_a_before_rev_build_kills_the_build_and_removes_its_checkout() {
    let dir = fresh("before-rev");
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
            .args(args)
            .current_dir(&repo)
            .output()
            .expect("git runs");
        assert!(
            ok.status.success(),
            "{}",
            String::from_utf8_lossy(&ok.stderr)
        );
    };
    git(&["init", "--quiet"]);
    std::fs::write(repo.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    git(&["add", "Cargo.toml"]);
    git(&["commit", "--quiet", "-m", "one"]);
    let pids = dir.join("cargo.pids");
    let model = crate::support::root().join("models/ablations/no-gate.json");
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let _ = std::fs::remove_file(&pids);
        let mut child = Guard(
            bin()
                .args(["diff", "--behaviour"])
                .arg(&model)
                .args(["--before-rev", "HEAD", "--depth", "2", "--out"])
                .arg(dir.join("out"))
                .arg("--traces")
                .arg(dir.join("traces"))
                .current_dir(&repo)
                .env("CARGO", hanging_program(&dir))
                .env("PIDS", &pids)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start memtx-check diff"),
        );
        wait_until(Duration::from_secs(30), "the build started", || {
            pids.exists()
        });
        send(child.0.id(), signal);
        let (got, err) = wait_for(&mut child, Duration::from_secs(20));
        assert_eq!(got, Some(code), "SIG{signal}: {err}");
        let started: Vec<u32> = std::fs::read_to_string(&pids)
            .unwrap()
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        wait_until(Duration::from_secs(5), "the build is gone", || {
            started.iter().all(|&p| !runs(p))
        });
        let builds = repo.join("target/memtx-check-builds");
        let checkouts: Vec<String> = std::fs::read_dir(&builds)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().join("src").exists())
            .map(|e| e.path().display().to_string())
            .collect();
        assert!(checkouts.is_empty(), "SIG{signal}: left {checkouts:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A driver that starts a child outside its process group (`setsid`),
/// writes its pid to `$1.$$` and then serves as this build's driver
/// does, or (with a second argument) answers garbage.
const ESCAPING_DRIVER: &str = r#"#!/bin/sh
setsid sleep 1000 &
echo $! > "$1.$$.tmp"
mv "$1.$$.tmp" "$1.$$"
if [ -n "$2" ]; then read line; echo "not json"; sleep 1000; fi
exec "$MEMTX_BIN" driver
"#;

/// Issue 51.8: a driver's child that left its process group goes when
/// conform or `diff --before-exe` ends, normally or on a broken protocol,
/// as it does on a signal.
#[test]
fn a_drivers_escaped_children_go_when_the_command_ends() {
    let dir = fresh("escaped");
    let script = dir.join("escape.sh");
    std::fs::write(&script, ESCAPING_DRIVER).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (n, broken) in [(0, false), (1, true)] {
        for command in ["conform", "diff"] {
            let pids = dir.join(format!("{command}-{n}"));
            let driver = format!(
                "'{}' '{}'{}",
                script.display(),
                pids.display(),
                if broken { " broken" } else { "" }
            );
            let mut cmd = bin();
            match command {
                "conform" => cmd
                    .args(["conform", "models/ablations/no-gate.json", "--depth", "3"])
                    .args(["--jobs", "2", "--driver", &driver]),
                _ => {
                    let exe = dir.join(format!("exe-{n}"));
                    std::fs::write(&exe, format!("#!/bin/sh\nexec {driver}\n")).unwrap();
                    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
                    cmd.args(["diff", "--behaviour", "models/ablations/no-gate.json"])
                        .args(["--depth", "3", "--jobs", "2", "--before-exe"])
                        .arg(&exe)
                }
            };
            let o = cmd
                .arg("--out")
                .arg(dir.join(format!("out-{command}-{n}")))
                .arg("--traces")
                .arg(dir.join(format!("traces-{command}-{n}")))
                .env("MEMTX_BIN", crate::support::BIN)
                .output()
                .expect("run memtx-check");
            let expected = if broken { 2 } else { 0 };
            assert_eq!(
                o.status.code(),
                Some(expected),
                "{command} broken={broken}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let escaped: Vec<u32> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with(&format!("{command}-{n}.")) && !name.ends_with(".tmp")
                })
                .map(|e| {
                    std::fs::read_to_string(e.path())
                        .unwrap()
                        .trim()
                        .parse()
                        .unwrap()
                })
                .collect();
            assert!(!escaped.is_empty(), "{command}: no driver started");
            let left: Vec<u32> = escaped.iter().copied().filter(|&p| runs(p)).collect();
            for &p in &left {
                let _ = Command::new("kill").args(["-9", &p.to_string()]).status();
            }
            assert!(
                left.is_empty(),
                "{command} broken={broken}: left running {left:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 51.8: with `--jobs 2` every driver of the pool, and what each
/// started, goes on a signal.
#[test]
fn a_signal_kills_every_driver_of_a_pool() {
    let dir = fresh("pool");
    let script = dir.join("hang.sh");
    // HANGING_DRIVER, a file per driver.
    std::fs::write(&script, HANGING_DRIVER.replace("\"$1", "\"$1.$$")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        let pids = dir.join(signal);
        let written = || -> Vec<PathBuf> {
            std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with(&format!("{signal}.")) && !name.ends_with(".tmp")
                })
                .collect()
        };
        let mut child = Guard(
            bin()
                .args(["conform", "models/ablations/no-gate.json", "--jobs", "2"])
                .args(["--step-timeout", "600", "--driver"])
                .arg(format!("'{}' '{}'", script.display(), pids.display()))
                .arg("--out")
                .arg(dir.join(format!("out-{signal}")))
                .arg("--traces")
                .arg(dir.join(format!("traces-{signal}")))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start memtx-check"),
        );
        wait_until(Duration::from_secs(30), "both drivers started", || {
            written().len() == 2
        });
        send(child.0.id(), signal);
        let (got, err) = wait_for(&mut child, Duration::from_secs(20));
        assert_eq!(got, Some(code), "SIG{signal}: {err}");
        let started: Vec<u32> = written()
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap()
                    .split_whitespace()
                    .map(|p| p.parse::<u32>().unwrap())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(started.len(), 6, "{started:?}");
        wait_until(Duration::from_secs(5), "the drivers are gone", || {
            started.iter().all(|&p| !runs(p))
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
}
