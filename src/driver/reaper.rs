//! The child processes a command owns (the drivers of conform and diff
//! across builds, the cargo build and git checkout of `--before-rev`) and
//! everything they start, found and killed. Each is started through
//! [`spawn`]: in a process group of its own (the group is killed whole),
//! with a mark in its environment (`MEMTX_CHECK_CHILD=PID.N`, which every
//! descendant inherits), and registered under the same lock as it is
//! started, so a signal's [`kill_all_and_hold`] finds every child started
//! before it and none starts after. Killing a child ([`kill`]) kills its
//! group, its descendants by parent links in `/proc`, and every process
//! that carries its mark: so a child that left the group (`setsid`), or
//! whose parent died (a daemon's double fork, re-parented to this process,
//! which becomes a child subreaper with `PR_SET_CHILD_SUBREAPER`, or to
//! init), goes too, when the command ends normally or on a broken
//! protocol as on a signal. Out of reach, documented: a descendant that
//! clears its environment and leaves this process's tree (another
//! subreaper, a PID namespace); a run owns no cgroup to hold it.

use std::collections::HashMap;
use std::io;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::Mutex;

/// The environment variable that marks a child's processes.
const MARK: &str = "MEMTX_CHECK_CHILD";

/// The children running, by process id with their marks, and whether
/// the process is stopping (no child may start then).
struct Running {
    children: Vec<(u32, String)>,
    started: u64,
    stopping: bool,
    /// This process is a subreaper: its orphaned descendants stay in its
    /// tree.
    subreaper: bool,
}

static RUNNING: Mutex<Running> = Mutex::new(Running {
    children: Vec::new(),
    started: 0,
    stopping: false,
    subreaper: false,
});

fn running() -> std::sync::MutexGuard<'static, Running> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts `cmd` as a child this process owns (see the module docs); an
/// error, as spawning's, when the process is stopping on a signal.
pub fn spawn(cmd: &mut Command) -> io::Result<Child> {
    use std::os::unix::process::CommandExt;
    let mut r = running();
    if r.stopping {
        return Err(io::Error::other("the run is stopping"));
    }
    if !r.subreaper {
        r.subreaper = become_subreaper();
    }
    r.started += 1;
    let mark = format!("{}.{}", std::process::id(), r.started);
    let child = cmd.process_group(0).env(MARK, &mark).spawn()?;
    r.children.push((child.id(), mark));
    Ok(child)
}

/// Runs `cmd` as an owned child ([`spawn`]) to its end: its output (its
/// standard output and error captured, as `Command::output` does).
pub fn output(cmd: &mut Command) -> io::Result<Output> {
    let child = spawn(cmd.stdout(Stdio::piped()).stderr(Stdio::piped()))?;
    let pid = child.id();
    let out = child.wait_with_output();
    release(pid);
    out
}

/// Runs `cmd` as an owned child ([`spawn`]) to its end: its status.
pub fn status(cmd: &mut Command) -> io::Result<ExitStatus> {
    let mut child = spawn(cmd)?;
    let status = child.wait();
    release(child.id());
    status
}

/// The registered children's pids, and the mark of `pid` as it is found
/// in an environment.
fn registered(pid: u32) -> (Vec<u32>, Option<String>) {
    let r = running();
    let mark = r.children.iter().find(|(p, _)| *p == pid);
    (
        r.children.iter().map(|(p, _)| *p).collect(),
        mark.map(|(_, m)| format!("{MARK}={m}\0")),
    )
}

/// Kills the child `pid`, not yet waited for, and everything it started
/// (see the module docs). The caller then waits for it and
/// [`release`]s it.
pub fn kill(pid: u32) {
    let (children, mark) = registered(pid);
    kill_group(pid);
    if let Some(mark) = mark {
        kill_marked(&mark, &children);
    }
}

/// The child `pid` ended (or was killed) and was waited for: what it left
/// carrying its mark is killed (its pid and group, which another process
/// may have by now, are not signalled), and it is no longer this
/// process's.
pub fn release(pid: u32) {
    let (children, mark) = registered(pid);
    if let Some(mark) = mark {
        kill_marked(&mark, &children);
    }
    running().children.retain(|(p, _)| *p != pid);
}

/// Kills every child and what it started, and every orphan re-parented
/// to this process; no child starts after. How many children were
/// running.
pub fn kill_all_and_hold() -> usize {
    let mut r = running();
    r.stopping = true;
    let children: Vec<u32> = r.children.iter().map(|(p, _)| *p).collect();
    children.iter().for_each(|&pid| kill_group(pid));
    // Every mark this process gave.
    kill_marked(&format!("{MARK}={}.", std::process::id()), &children);
    if r.subreaper {
        for p in descendants(std::process::id()) {
            signal(i64::from(p));
        }
    }
    r.children.len()
}

/// Kills the group `pid` leads, `pid` and its descendants.
fn kill_group(pid: u32) {
    let tree = descendants(pid);
    signal(-(pid as i64));
    signal(i64::from(pid));
    tree.into_iter().for_each(|p| signal(i64::from(p)));
}

/// Kills, as long as one is found (a fork racing the kill included),
/// every process whose environment holds `mark`; the orphans of this
/// process it killed (none of `children`, which their handles wait for)
/// are waited for, so none is left a zombie.
fn kill_marked(mark: &str, children: &[u32]) {
    let mut killed = Vec::new();
    for _ in 0..100 {
        let found = marked(mark);
        if found.is_empty() {
            break;
        }
        for &p in &found {
            signal(i64::from(p));
        }
        killed.extend(found);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    for p in killed {
        if !children.contains(&p) && parent_of(p) == Some(std::process::id()) {
            reap(p);
        }
    }
}

/// The live processes (not this one) whose environment holds `mark`
/// (`NAME=VALUE\0`, or a prefix of one), from `/proc/PID/environ`.
fn marked(mark: &str) -> Vec<u32> {
    let me = std::process::id();
    let needle = mark.as_bytes();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            // A zombie's environment reads empty.
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                env.split(|&b| b == 0).any(|var| {
                    needle
                        .strip_suffix(b"\0")
                        .map_or(var.starts_with(needle), |n| var == n)
                })
            })
        })
        .collect()
}

/// SIGKILL to `pid` (a negative one names a process group).
fn signal(pid: i64) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const SIGKILL: i32 = 9;
    if let Ok(pid) = i32::try_from(pid) {
        if pid != 0 && pid != -1 {
            // SAFETY: `kill(2)` reads no memory of ours; the pid is a
            // child's, its group's or a descendant's, never 0 or -1.
            unsafe {
                kill(pid, SIGKILL);
            }
        }
    }
}

/// Waits for this process's child `pid` (an orphan it adopted and
/// killed), for at most a second, so that it leaves no zombie.
fn reap(pid: u32) {
    extern "C" {
        fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
    }
    const WNOHANG: i32 = 1;
    let Ok(pid) = i32::try_from(pid) else { return };
    for _ in 0..200 {
        let mut status = 0;
        // SAFETY: `waitpid(2)` writes one int into `status`, which lives
        // on this stack frame; `pid` is a child no `Child` handle owns.
        if unsafe { waitpid(pid, &mut status, WNOHANG) } != 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Every process whose chain of parents leads to `root`, from `/proc`
/// (none where there is no `/proc`).
pub fn descendants(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if let Some(ppid) = parent_of(pid) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut found = Vec::new();
    let mut todo = vec![root];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).map_or(&[][..], Vec::as_slice) {
            if c != root && !found.contains(&c) {
                found.push(c);
                todo.push(c);
            }
        }
    }
    found
}

/// The parent of `pid`: the field after the state in `/proc/PID/stat`
/// (after the last `)`, since the command name may hold one).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(target_os = "linux")]
fn become_subreaper() -> bool {
    extern "C" {
        fn prctl(option: i32, arg2: u64, arg3: u64, arg4: u64, arg5: u64) -> i32;
    }
    const PR_SET_CHILD_SUBREAPER: i32 = 36;
    // SAFETY: `prctl(PR_SET_CHILD_SUBREAPER, 1)` reads no memory of ours.
    unsafe { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn become_subreaper() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `pid` runs (a zombie does not).
    fn runs(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z"))
    }

    fn gone_within_seconds(pid: u32) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while runs(pid) {
            assert!(std::time::Instant::now() < deadline, "{pid} runs on");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// A child started through [`spawn`] that starts a `setsid` child
    /// and prints its pid, then (with `exit`) ends at once.
    fn escaping(exit: bool) -> (Child, u32) {
        let script = format!(
            "setsid sleep 100 </dev/null >/dev/null 2>&1 & echo $!; {}",
            if exit { "exit 0" } else { "wait" }
        );
        let mut sh = spawn(
            Command::new("sh")
                .args(["-c", &script])
                .stdout(std::process::Stdio::piped()),
        )
        .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(sh.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        (sh, line.trim().parse().unwrap())
    }

    #[test]
    fn a_child_that_left_the_group_is_a_descendant_and_is_killed() {
        let (mut sh, escaped) = escaping(false);
        assert!(descendants(sh.id()).contains(&escaped));
        kill(sh.id());
        let _ = sh.wait();
        release(sh.id());
        gone_within_seconds(escaped);
    }

    #[test]
    fn a_child_left_behind_by_a_parent_that_ended_is_found_by_its_mark() {
        // Issue 51.8: the parent ends first (as a driver does at the end
        // of its input), its `setsid` child is no longer its descendant.
        let (mut sh, escaped) = escaping(true);
        let _ = sh.wait();
        assert!(!descendants(sh.id()).contains(&escaped));
        release(sh.id());
        gone_within_seconds(escaped);
    }
}
