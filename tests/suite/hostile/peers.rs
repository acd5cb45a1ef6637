//! A distributed run against peers that are not memtx-check (issue 28.8):
//! a listener on a peer's address that accepts and says nothing, one that
//! answers garbage and holds the connection, a peer address that does not
//! resolve; a hosts file with a line of megabytes, or a byte-order mark,
//! and a checkpoint whose process parts were swapped (issue 28.11). Each
//! ends the process before the run with one line naming the
//! peer and exit 2, within the connect timeout. And a real peer stopped
//! mid-run (SIGSTOP: its links stay open, it says nothing): the other
//! process ends within about the connect timeout, one line naming it,
//! exit 3. The hostile peers are
//! listeners of the test on ports the system picks; every process and
//! thread started is waited for or ends with the test.

use crate::support::{bin, free_port, fresh};

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn hosts_file(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("hosts.txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A listener that accepts every connection, sends `answer` on it and
/// holds it open for as long as the test runs.
fn hostile_listener(answer: &'static [u8]) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.write_all(answer);
            held.lock().unwrap().push(stream);
        }
    });
    port
}

/// `check` as process 1 of `hosts`, its wall time; killed (and the test
/// failed) when it runs past a minute.
fn process_1(dir: &Path, hosts: &Path, timeout: &str) -> (Output, Duration) {
    let start = Instant::now();
    let mut child = bin()
        .args(["check", "models/ablations/no-gate.json", "--hosts"])
        .arg(hosts)
        .args(["--process", "1", "--connect-timeout", timeout, "--out"])
        .arg(dir.join("out"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("process 1 did not end within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), start.elapsed())
}

/// The one line of an exit 2 (past the warning a hosts file of addresses
/// that are not loopback ones earns).
fn one_line(out: &Output) -> String {
    let all = String::from_utf8_lossy(&out.stderr).into_owned();
    let err: String = all
        .lines()
        .filter(|l| !l.starts_with("memtx-check: warning:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[test]
fn a_peer_that_accepts_and_says_nothing_times_out_naming_it() {
    let dir = fresh("silent");
    let silent = hostile_listener(b"");
    let hosts = hosts_file(
        &dir,
        &[
            format!("127.0.0.1:{silent}"),
            format!("127.0.0.1:{}", free_port()),
        ],
    );
    let (out, took) = process_1(&dir, &hosts, "2");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let err = one_line(&out);
    assert!(
        err.contains(&format!("process 0 (127.0.0.1:{silent})"))
            && err.contains("no handshake within 2 s"),
        "{err}"
    );
}

#[test]
fn a_peer_that_answers_garbage_is_refused_at_once_naming_it() {
    let dir = fresh("garbage");
    let garbage = hostile_listener(b"HTTP/1.1 400 Bad Request\r\n\r\nnot a peer at all");
    let hosts = hosts_file(
        &dir,
        &[
            format!("127.0.0.1:{garbage}"),
            format!("127.0.0.1:{}", free_port()),
        ],
    );
    let (out, took) = process_1(&dir, &hosts, "60");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let err = one_line(&out);
    assert!(
        err.contains(&format!("process 0 (127.0.0.1:{garbage})"))
            && err.contains("not a memtx-check handshake"),
        "{err}"
    );
}

#[test]
fn a_peer_address_that_does_not_resolve_says_so() {
    let dir = fresh("unresolvable");
    let hosts = hosts_file(
        &dir,
        &[
            "no-such-host.invalid:4000".to_owned(),
            format!("127.0.0.1:{}", free_port()),
        ],
    );
    let (out, took) = process_1(&dir, &hosts, "60");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let err = one_line(&out);
    assert!(
        err.contains("process 0 (no-such-host.invalid:4000)") && err.contains("does not resolve"),
        "{err}"
    );
    assert!(!err.contains("same command"), "{err}");
}

#[test]
fn a_hosts_file_line_of_megabytes_is_cut_and_its_length_said() {
    let dir = fresh("long-line");
    let long = "x".repeat(5 << 20);
    let hosts = hosts_file(&dir, &["127.0.0.1:4000".to_owned(), long]);
    let (out, _) = process_1(&dir, &hosts, "1");
    let err = one_line(&out);
    assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..300]);
    assert!(
        err.contains("hosts.txt:2:") && err.contains("5242880 bytes"),
        "{err}"
    );
}

#[test]
fn a_hosts_file_with_a_byte_order_mark_reads_as_without() {
    let dir = fresh("bom");
    let silent = hostile_listener(b"");
    let hosts = hosts_file(
        &dir,
        &[
            format!("\u{feff}127.0.0.1:{silent}"),
            format!("127.0.0.1:{}", free_port()),
        ],
    );
    let (out, _) = process_1(&dir, &hosts, "1");
    let err = one_line(&out);
    assert!(!err.contains('\u{feff}'), "{err}");
    assert!(
        err.contains(&format!("process 0 (127.0.0.1:{silent})")),
        "the address read without the mark: {err}"
    );
}

#[test]
fn a_checkpoint_whose_process_parts_are_swapped_is_refused_before_connecting() {
    let dir = fresh("swapped");
    let c = dir.join("c");
    let run = |extra: &[&str]| {
        bin()
            .args(["check", "models/ablations/no-gate.json", "--depth", "6"])
            .args(["--local-processes", "2", "--threads", "1", "--out"])
            .arg(dir.join("out"))
            .arg("--traces")
            .arg(dir.join("traces"))
            .args(extra)
            .output()
            .expect("the binary runs")
    };
    let cut = run(&["--checkpoint", c.to_str().unwrap(), "--max-levels", "3"]);
    assert_eq!(
        cut.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&cut.stderr)
    );
    std::fs::rename(c.join("process-0"), c.join("swap")).unwrap();
    std::fs::rename(c.join("process-1"), c.join("process-0")).unwrap();
    std::fs::rename(c.join("swap"), c.join("process-1")).unwrap();
    let start = Instant::now();
    let o = run(&["--resume", c.to_str().unwrap()]);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "refused before the run"
    );
    let err = one_line(&o);
    assert!(
        err.contains("process-0/worker-0: holds the part of process 1 worker 0"),
        "{err}"
    );
}

/// The two processes of a run, continued and killed when the test ends
/// however it ends.
struct Pair(Vec<std::process::Child>);

impl Drop for Pair {
    fn drop(&mut self) {
        for child in &mut self.0 {
            signal(child.id(), "-CONT");
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Sends `sig` to process `pid` (by kill(1): no libc binding needed).
fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

#[test]
fn a_peer_stopped_mid_run_ends_the_run_within_the_timeout_naming_it() {
    let dir = fresh("stopped");
    let ports = [free_port(), free_port()];
    let hosts = hosts_file(&dir, &ports.map(|p| format!("127.0.0.1:{p}")));
    let start = |process: usize| {
        let err = std::fs::File::create(dir.join(format!("err-{process}"))).unwrap();
        // Depth 10 of the default model runs for minutes: long enough to
        // be stopped in the middle.
        bin()
            .args([
                "check",
                "models/default.json",
                "--depth",
                "10",
                "--threads",
                "1",
            ])
            .arg("--hosts")
            .arg(&hosts)
            .args(["--process", &process.to_string(), "--connect-timeout", "3"])
            .arg("--out")
            .arg(dir.join(format!("out-{process}")))
            .arg("--traces")
            .arg(dir.join(format!("traces-{process}")))
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .expect("the binary runs")
    };
    let mut pair = Pair(vec![start(0), start(1)]);
    let stderr = |process: usize| {
        std::fs::read_to_string(dir.join(format!("err-{process}"))).unwrap_or_default()
    };
    // Under way: process 0 has reported a level's progress.
    let began = Instant::now();
    while !stderr(0).contains("depth") {
        assert!(
            pair.0[0].try_wait().unwrap().is_none(),
            "process 0 ended before the run was under way: {}",
            stderr(0)
        );
        assert!(began.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(pair.0[1].id(), "-STOP");
    let stopped = Instant::now();
    let status = loop {
        if let Some(status) = pair.0[0].try_wait().unwrap() {
            break status;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(60),
            "process 0 still waits a minute after its peer stopped: {}",
            stderr(0)
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = stopped.elapsed();
    let err = stderr(0);
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(20),
        "ended {took:?} after the stop: {err}"
    );
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.contains(&format!(
            "process 1 (127.0.0.1:{}) has sent nothing for 3 s",
            ports[1]
        )) && last.contains("the run is abandoned"),
        "{err}"
    );
    assert!(!dir.join("out-0/summary.json").exists(), "nothing reported");
    drop(pair);
}
