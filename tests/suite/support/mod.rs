//! What the suite's areas share, once: the binary under test and the
//! crate root, a runner that returns a run's exit code and text, scratch
//! folders, the shipped models (all, or one at a depth), a copy of a folder, the files under one, free loopback ports,
//! a guard that kills a child process, a wait with a deadline and a run
//! under an address-space limit.
//!
//! Scratch folders are `target/tmp/AREA/NAME`, AREA being the calling
//! file's path under `tests/suite/` without `.rs` (`check`,
//! `hostile/peers`, …; a second binary's file stem): two areas may use one
//! NAME, and a name must only be unique in its file. Every test of a
//! binary runs in one process, so nothing here changes process-wide
//! state (environment, working directory, signal dispositions): a test
//! that needs an environment passes it to its `Command`.
#![allow(dead_code)] // the second binary uses part of it

pub mod wire;

use memtx_check::check::CheckOptions;
use memtx_check::config::{Depth, ModelConfig};
use memtx_check::engine::EngineOptions;
use std::net::TcpListener;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_memtx-check");

/// The crate root, where `models/`, `traces/` and `docs/` live (and the
/// tests' working directory).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The shipped model at `path` (relative to the crate root, the tests'
/// working directory) with its depth bound set to `depth`.
/// A quiet check on `threads` threads, its engine options as `edit`
/// leaves them.
pub fn check_options(threads: usize, edit: impl FnOnce(&mut EngineOptions)) -> CheckOptions {
    let mut options = CheckOptions::quiet(threads);
    edit(&mut options.engine);
    options
}

pub fn model_at(path: impl AsRef<Path>, depth: usize) -> ModelConfig {
    let mut c = ModelConfig::load(path.as_ref()).expect("a shipped model loads");
    c.bounds.depth = Depth::Bounded(depth);
    c
}

/// A command for the binary under test, run in the crate root.
pub fn bin() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(root());
    cmd
}

/// Runs `memtx-check check ARGS` in the crate root to its end.
pub fn check(args: &[&str]) -> Output {
    bin()
        .arg("check")
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A finished run: its exit code (`None` when a signal ended it) and its
/// output as text.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    /// Stdout.
    pub out: String,
    /// Stderr.
    pub err: String,
}

impl Run {
    /// Stdout then stderr, as one text.
    pub fn text(&self) -> String {
        format!("{}{}", self.out, self.err)
    }
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code(),
            out: String::from_utf8_lossy(&out.stdout).into_owned(),
            err: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Runs `cmd` to its end.
pub fn run(cmd: &mut Command) -> Run {
    cmd.output().expect("the binary runs").into()
}

/// Runs `memtx-check ARGS` in the crate root to its end.
pub fn memtx(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// A run's stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A run's stdout then stderr, as one text.
pub fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

/// The area of a source file: its path under `tests/suite/` (or
/// `tests/`) without `.rs` or `/mod.rs`.
fn area(file: &str) -> String {
    let file = file.replace('\\', "/");
    let under = match file.rfind("tests/") {
        Some(at) => &file[at + "tests/".len()..],
        None => file.as_str(),
    };
    let under = under.strip_prefix("suite/").unwrap_or(under);
    let under = under.strip_suffix(".rs").unwrap_or(under);
    under.strip_suffix("/mod").unwrap_or(under).to_owned()
}

/// `target/tmp/AREA/NAME` (AREA: the caller's file), removed if it was
/// there: for a folder the binary under test must create.
#[track_caller]
pub fn absent(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(area(Location::caller().file()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().expect("a scratch folder has a parent"))
        .expect("create an area's scratch folder");
    dir
}

/// `target/tmp/AREA/NAME` (AREA: the caller's file), present and empty.
#[track_caller]
pub fn fresh(name: &str) -> PathBuf {
    let dir = absent(name);
    std::fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// Copies the folder `from` (files and subfolders) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a copy's folder");
    for entry in std::fs::read_dir(from).expect("read a folder to copy") {
        let path = entry.expect("a folder entry").path();
        let dest = to.join(path.file_name().expect("an entry has a name"));
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).expect("copy a file");
        }
    }
}

/// Every file under `dir`, as paths relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// Every `.json` file under the folders `dirs` (relative to the crate
/// root, the tests' working directory), sorted: `&["models"]` is every
/// shipped model.
pub fn json_files(dirs: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a folder of shipped files is readable") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `n` distinct loopback ports that were free a moment ago (all held at
/// once while they are picked, so none is picked twice).
pub fn free_ports(n: usize) -> Vec<u16> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port"))
        .collect();
    held.iter()
        .map(|l| l.local_addr().expect("local address").port())
        .collect()
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> u16 {
    free_ports(1)[0]
}

/// Kills the child when dropped, also when a test fails.
pub struct ChildGuard(pub Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A tmpfs of `kib` KiB mounted on a fresh folder, unmounted (and the
/// folder removed) when dropped, even by a failing test.
pub struct SmallDisk {
    root: PathBuf,
}

impl SmallDisk {
    /// `None`, with a line saying why the test is skipped, where this
    /// process may not mount (not root, or no tmpfs).
    pub fn mount(name: &str, kib: u64) -> Option<SmallDisk> {
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

    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Fills the disk with a file of `kib` KiB.
    pub fn fill(&self, kib: usize) {
        std::fs::write(self.path("filler"), vec![0u8; kib << 10]).unwrap();
    }
}

impl SmallDisk {
    /// Makes the disk read-only (what is on it stays readable).
    pub fn read_only(&self) {
        let done = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.root)
            .status();
        assert!(done.is_ok_and(|s| s.success()), "cannot remount read-only");
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

/// `dir/proxy.py`: a Python driver in front of this build's `memtx-check
/// driver` (`python3 dir/proxy.py BIN`) that runs `alter` (Python
/// statements, indented four spaces, over `line`, the request, and
/// `answer`, the inner driver's answer) before passing each answer on.
pub fn proxy_driver(dir: &Path, alter: &str) -> PathBuf {
    let script = dir.join("proxy.py");
    let text = format!(
        "import json, subprocess, sys\n\
         inner = subprocess.Popen([sys.argv[1], \"driver\"], stdin=subprocess.PIPE,\n\
         \x20                        stdout=subprocess.PIPE, text=True)\n\
         for line in sys.stdin:\n\
         \x20   inner.stdin.write(line)\n\
         \x20   inner.stdin.flush()\n\
         \x20   answer = json.loads(inner.stdout.readline())\n\
         {alter}\
         \x20   print(json.dumps(answer), flush=True)\n"
    );
    std::fs::write(&script, text).expect("write the proxy driver");
    script
}

/// Waits until `ready` holds, for at most `limit` (the test fails naming
/// `what` past it).
pub fn wait_until(limit: Duration, what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `memtx-check ARGS` (a shell's words, the binary's path first) run in
/// the crate root under an address-space limit of `kib` KiB (`ulimit
/// -v`): its output, or `None`, with a line saying the test is skipped,
/// where the shell cannot set one.
pub fn under_address_limit(kib: u64, args: &str) -> Option<Output> {
    let limited = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib}"))
        .status();
    if !limited.is_ok_and(|s| s.success()) {
        eprintln!("skipped: this shell cannot set an address-space limit");
        return None;
    }
    let run = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec '{BIN}' {args}"))
        .current_dir(root())
        .output()
        .expect("sh runs");
    Some(run)
}
