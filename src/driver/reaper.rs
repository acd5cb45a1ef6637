//! The drivers' processes and everything they started, found and killed:
//! a driver runs in a process group of its own (the group is killed
//! whole), and its descendants are also found by their parent links in
//! `/proc` and killed one by one, so a child that left the group
//! (`setsid`, `setpgid`) goes too. On Linux the process that starts
//! drivers becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`): a
//! descendant orphaned by its parent's death (a daemon's double fork) is
//! re-parented to it rather than to init, so it stays a descendant to
//! find. Every driver started is registered until it is dropped, and
//! [`kill_all_and_hold`] (on SIGINT, SIGTERM, SIGHUP) kills them all and
//! refuses any started after. Left out, documented: a descendant that
//! re-parents itself outside this process's tree cannot (PID namespaces
//! and cgroups aside, which a run does not own).

use std::collections::HashMap;
use std::sync::Mutex;

/// The drivers running, by process id, and whether the process is
/// stopping (no driver may start then).
struct Running {
    pids: Vec<u32>,
    stopping: bool,
    /// This process is a subreaper: its orphaned descendants are the
    /// drivers' leftovers.
    subreaper: bool,
}

static RUNNING: Mutex<Running> = Mutex::new(Running {
    pids: Vec::new(),
    stopping: false,
    subreaper: false,
});

fn running() -> std::sync::MutexGuard<'static, Running> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers the driver `pid`, just started; `false` when the process is
/// stopping (the caller kills it at once).
pub fn started(pid: u32) -> bool {
    let mut r = running();
    if !r.subreaper {
        r.subreaper = become_subreaper();
    }
    r.pids.push(pid);
    !r.stopping
}

/// The driver `pid` is gone (killed and waited for).
pub fn finished(pid: u32) {
    running().pids.retain(|&p| p != pid);
}

/// Kills the process group `pid` leads and every descendant of `pid`.
pub fn kill_tree(pid: u32) {
    let tree = descendants(pid);
    signal(-(pid as i64));
    signal(i64::from(pid));
    for p in tree {
        signal(i64::from(p));
    }
}

/// Kills every driver and what it started, and every orphan re-parented
/// to this process; no driver starts after. How many drivers were
/// running.
pub fn kill_all_and_hold() -> usize {
    let mut r = running();
    r.stopping = true;
    for &pid in &r.pids {
        kill_tree(pid);
    }
    if r.subreaper {
        for p in descendants(std::process::id()) {
            signal(i64::from(p));
        }
    }
    r.pids.len()
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
            // driver's, its group's or a descendant's, never 0 or -1.
            unsafe {
                kill(pid, SIGKILL);
            }
        }
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

    #[test]
    fn a_child_that_left_the_group_is_a_descendant_and_is_killed() {
        use std::os::unix::process::CommandExt;
        let mut sh = std::process::Command::new("sh")
            .args(["-c", "setsid sleep 100 & echo $!; wait"])
            .process_group(0)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(sh.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let escaped: u32 = line.trim().parse().unwrap();
        assert!(descendants(sh.id()).contains(&escaped));
        kill_tree(sh.id());
        let _ = sh.wait();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while parent_of(escaped).is_some()
            && !std::fs::read_to_string(format!("/proc/{escaped}/stat"))
                .unwrap_or_default()
                .contains(") Z")
        {
            assert!(std::time::Instant::now() < deadline, "{escaped} runs on");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
