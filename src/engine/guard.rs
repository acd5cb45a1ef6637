//! The memory guard: before each level is expanded, estimate the memory its
//! expansion will need at its peak from the growth so far and the bytes
//! the run measures, and stop cleanly when that would pass
//! [`EngineOptions::max_memory`](super::EngineOptions::max_memory) — the
//! levels explored so far stay complete and checked — rather than let an
//! allocation fail.
//!
//! The peak of a level is near its end: the visited set has grown to hold
//! the next level, and the next level has been built while the frontier
//! was given back part by part. So the estimate is the resident memory now,
//! plus the growth of the visited set, plus what the next level will hold
//! beyond what the frontier holds now (the predicted number of its states
//! times the bytes a frontier state takes, with its link).

use super::fp::Fp;
use super::growth::predict_new;
use super::links::Link;
use super::part::Part;
use super::report::{LevelStats, MemoryLimit, Stopped};
use super::visited::Visited;

/// Slack for what the estimate does not count (a batch's candidates, the
/// sort of one part, a distributed round's candidates in flight,
/// allocator overhead): 64 MiB a process.
const SLACK: u64 = 64 << 20;

/// One word on the level ahead: of a process (a distributed run's
/// workers each send one, `process` naming theirs), its resident memory
/// and address space now, what its share of the expansion adds at the
/// peak, and its two bounds ([`Estimate::here`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Estimate {
    pub(crate) process: u64,
    pub(crate) resident: u64,
    pub(crate) space: u64,
    pub(crate) added: u64,
    pub(crate) limit: u64,
    pub(crate) space_limit: u64,
}

impl Estimate {
    /// This process's word (as process 0): `added` bytes on top of what
    /// it holds now, within `limit` of resident memory (none: no bound)
    /// and within what its address-space limit leaves a run of `threads`
    /// threads ([`space_limit`]).
    pub(crate) fn here(added: u64, limit: Option<u64>, threads: usize) -> Estimate {
        let (space, resident) = statm();
        Estimate {
            process: 0,
            resident,
            space,
            added,
            limit: limit.unwrap_or(u64::MAX),
            space_limit: space_limit(threads),
        }
    }
}

/// A bound an estimate passes: the bytes needed, the bound, and which
/// bound it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Passed {
    pub(crate) needed: u64,
    pub(crate) limit: u64,
    pub(crate) by: MemoryLimit,
}

/// The first process whose estimate passes a bound, if one does: its
/// resident memory (the largest its words give) plus every word's
/// addition and [`SLACK`] against its resident bound (the least its
/// words give), then the same in address space against its
/// address-space bound.
pub(crate) fn over_bound(all: &[Estimate]) -> Option<Passed> {
    let processes = all.iter().map(|e| e.process).max()? + 1;
    (0..processes).find_map(|p| {
        let mine: Vec<&Estimate> = all.iter().filter(|e| e.process == p).collect();
        let added = mine.iter().map(|e| e.added).sum::<u64>() + SLACK;
        let judge = |now: fn(&Estimate) -> u64, bound: fn(&Estimate) -> u64, by| {
            let needed = mine.iter().map(|e| now(e)).max()? + added;
            let limit = mine.iter().map(|e| bound(e)).min()?;
            (needed > limit).then_some(Passed { needed, limit, by })
        };
        judge(|e| e.resident, |e| e.limit, MemoryLimit::MaxMemory)
            .or_else(|| judge(|e| e.space, |e| e.space_limit, MemoryLimit::AddressSpace))
    })
}

/// For a walk that grows its collections as it goes rather than planning
/// a level ahead (conform's graph walk and random walks, and the
/// lockstep walk across builds): the bytes it would need, and the bound
/// they pass, if its largest collection, `largest` bytes now, reallocated
/// at twice its size while still held, would take the process past
/// `limit` or its address-space limit (reserving for no thread: the 10%
/// the limit leaves over is for threads started later, a pool of
/// drivers' readers).
pub(crate) fn growth_over_bound(limit: u64, largest: u64) -> Option<(u64, u64)> {
    over_bound(&[Estimate::here(2 * largest, Some(limit), 0)]).map(|p| (p.needed, p.limit))
}

/// The address space a run of `threads` threads may hold: nine tenths of
/// the lower of the address-space and data-size limits (`ulimit -v`,
/// `ulimit -d`), less what those threads reserve ([`THREAD_RESERVE`]
/// each, for at least as many threads as the machine has cores); no
/// bound without a limit.
fn space_limit(threads: usize) -> u64 {
    let Some(limit) = address_space_limit() else {
        return u64::MAX;
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (limit / 10 * 9).saturating_sub(threads.max(cores) as u64 * THREAD_RESERVE)
}

/// The lower of the soft address-space and data-size limits, if either
/// is set.
fn address_space_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_soft_limits(&limits, &["Max address space", "Max data size"])
}

/// How many of `wanted` threads a step may start at once: all of them,
/// but under an address-space limit no more than the guard reserves room
/// for (each thread that allocates gets an allocator arena of its own, of
/// [`THREAD_RESERVE`]: sixteen threads syncing files took 1 GB of address
/// space, issue 51.5).
pub(crate) fn thread_room(wanted: usize) -> usize {
    if address_space_limit().is_none() {
        return wanted;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    wanted.min(cores).max(1)
}

/// The address space and the resident memory this process holds
/// (`/proc/self/statm`'s first two fields); 0 where they cannot be read.
fn statm() -> (u64, u64) {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let mut pages = statm
        .split_whitespace()
        .map(|p| p.parse::<u64>().unwrap_or(0) * 4096);
    (pages.next().unwrap_or(0), pages.next().unwrap_or(0))
}

/// Why the level after `levels` must not be built from `frontier` (the
/// next level the last if `leaf`) on `threads` threads, by a run whose
/// visited set is `visited`, if `max_memory` or the address-space limit
/// forbids it.
pub(super) fn memory_bound<S: Clone, W: Fp>(
    max_memory: Option<u64>,
    visited: &Visited<W>,
    levels: &[LevelStats],
    frontier: &[Part<S, W>],
    (leaf, threads): (bool, usize),
) -> Option<Stopped> {
    let added = added(
        visited,
        predict_new(levels),
        frontier,
        leaf,
        Link::BYTES as u64,
    );
    let passed = over_bound(&[Estimate::here(added, max_memory, threads)])?;
    Some(Stopped::MemoryBound {
        depth: levels.len(),
        needed: passed.needed,
        limit: passed.limit,
        by: passed.by,
        disk_needed: Some(disk_estimate::<S, W>(levels, frontier, leaf)),
    })
}

/// The disk a `--disk` run would need at its peak to expand `frontier`
/// (see docs/disk.md): the visited runs (twice while a compaction
/// writes), the links files, the frontier and next level's parts, and
/// the next level's candidate runs as if none were deduplicated in
/// memory.
fn disk_estimate<S: Clone, W: Fp>(
    levels: &[LevelStats],
    frontier: &[Part<S, W>],
    leaf: bool,
) -> u64 {
    let predicted = predict_new(levels);
    let last = levels.last().expect("level 0 is always present");
    let total = last.total_states;
    let states: u64 = frontier.iter().map(|p| p.len() as u64).sum();
    let encodings: u64 = frontier.iter().map(|p| p.encoded().1.len() as u64).sum();
    let per_state = encodings as f64 / states.max(1) as f64 + W::BYTES as f64;
    let fp = W::BYTES as f64;
    let link = Link::BYTES as f64;
    // Candidates per new state at the level before (at least one).
    let fan_in = (last.transitions as f64 / last.new_states.max(1) as f64).max(1.0);
    let (next_parts, candidate) = if leaf {
        (0.0, fp + link + 8.0)
    } else {
        (
            predicted as f64 * per_state,
            fp + link + 4.0 + per_state - fp,
        )
    };
    let runs = 2.0 * (total + predicted) as f64 * fp;
    let links = (total + if leaf { 0 } else { predicted }) as f64 * link;
    let parts = states as f64 * per_state + next_parts;
    let scratch = predicted as f64 * fan_in * candidate;
    (runs + links + parts + scratch) as u64
}

/// What expanding `frontier` into `predicted` new states (only their
/// fingerprints at the last level, `leaf`) adds to the resident memory at
/// the peak (see the module docs), each new state taking `building` bytes
/// beyond its place in a part (its link, say), for a visited set
/// `visited`. A distributed worker's share is judged by it too.
pub(crate) fn added<S: Clone, W: Fp>(
    visited: &Visited<W>,
    predicted: u64,
    frontier: &[Part<S, W>],
    leaf: bool,
    building: u64,
) -> u64 {
    let table = visited
        .bytes_after(predicted)
        .saturating_sub(visited.bytes());
    let held: u64 = frontier.iter().map(|p| p.heap_bytes() as u64).sum();
    let states: u64 = frontier.iter().map(|p| p.len() as u64).sum();
    let next = if leaf {
        0
    } else {
        let per_state = held as f64 / states.max(1) as f64 + building as f64;
        (predicted as f64 * per_state) as u64
    };
    table + next.saturating_sub(held)
}

/// The memory guard's bound when none is given: the least of 90% of the
/// machine's physical memory (`/proc/meminfo`), 90% of the memory limit
/// of this process's cgroup (v2 `memory.max`, v1
/// `memory.limit_in_bytes`), and the resident memory the address-space
/// and data-size limits (`ulimit -v`, `ulimit -d`) leave room for; each
/// where it can be read, `None` where none can.
pub fn default_max_memory() -> Option<u64> {
    let nine_tenths = |b: u64| b / 10 * 9;
    [
        physical_memory().map(nine_tenths),
        cgroup_memory_limit().map(nine_tenths),
        address_space_room(),
    ]
    .into_iter()
    .flatten()
    .min()
}

fn physical_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// A limit at or above this is "no limit" (cgroup v1 writes 2^63 less a
/// page).
const UNLIMITED: u64 = 1 << 60;

/// The memory limit of this process's cgroup, if one is set.
fn cgroup_memory_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let read = |path: String| -> Option<u64> {
        let text = std::fs::read_to_string(path).ok()?;
        text.trim().parse::<u64>().ok().filter(|&b| b < UNLIMITED)
    };
    groups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        if controllers.is_empty() {
            read(format!("/sys/fs/cgroup{path}/memory.max"))
        } else if controllers.split(',').any(|c| c == "memory") {
            read(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"))
        } else {
            None
        }
    })
}

/// What the address-space and data-size limits leave for resident
/// memory: 90% of the lower limit, less the address space this process
/// holds but has not touched (mappings, reserved stacks and allocator
/// arenas) and room for the arenas and stacks the worker threads will
/// reserve; `None` without either limit.
fn address_space_room() -> Option<u64> {
    address_space_limit()?;
    let (space, resident) = statm();
    Some(space_limit(0).saturating_sub(space.saturating_sub(resident)))
}

/// Address space a worker thread reserves without touching it: a
/// glibc malloc arena (64 MiB) and its stack (8 MiB).
const THREAD_RESERVE: u64 = 72 << 20;

/// The least soft limit of the named rows of a `/proc/PID/limits` text,
/// `None` when every one is unlimited or absent.
fn parse_soft_limits(limits: &str, rows: &[&str]) -> Option<u64> {
    limits
        .lines()
        .filter_map(|line| {
            let name = rows.iter().find(|r| line.starts_with(**r))?;
            line[name.len()..]
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
        .filter(|&b| b < UNLIMITED)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(process: u64, resident: u64, added: u64, limit: u64) -> Estimate {
        Estimate {
            process,
            resident,
            space: resident,
            added,
            limit,
            space_limit: u64::MAX,
        }
    }

    fn passed(needed: u64, limit: u64, by: MemoryLimit) -> Option<Passed> {
        Some(Passed { needed, limit, by })
    }

    #[test]
    fn the_first_process_over_its_bound_stops_everyone() {
        let mib = 1 << 20;
        let under = [
            estimate(0, 100 * mib, 10 * mib, 1000 * mib),
            estimate(0, 120 * mib, 10 * mib, 1000 * mib),
            estimate(1, 100 * mib, 10 * mib, 1000 * mib),
        ];
        assert_eq!(over_bound(&under), None);
        let over = [
            estimate(0, 100 * mib, 10 * mib, 1000 * mib),
            estimate(1, 100 * mib, 500 * mib, 600 * mib),
            estimate(1, 110 * mib, 10 * mib, 600 * mib),
        ];
        assert_eq!(
            over_bound(&over),
            passed(
                110 * mib + 510 * mib + SLACK,
                600 * mib,
                MemoryLimit::MaxMemory
            )
        );
        // One process alone: its figures plus the slack.
        let alone = [estimate(0, 100 * mib, 400 * mib, 500 * mib)];
        assert_eq!(
            over_bound(&alone),
            passed(500 * mib + SLACK, 500 * mib, MemoryLimit::MaxMemory)
        );
        // Within its --max-memory but past its address-space limit: the
        // address space it holds counts, whatever is resident.
        let spacious = [Estimate {
            space: 900 * mib,
            space_limit: 1000 * mib,
            ..estimate(0, 100 * mib, 100 * mib, 4000 * mib)
        }];
        assert_eq!(
            over_bound(&spacious),
            passed(1000 * mib + SLACK, 1000 * mib, MemoryLimit::AddressSpace)
        );
    }

    #[test]
    fn a_level_adds_its_visited_growth_and_what_its_new_states_take() {
        // The assertions of the distributed guard's own estimate, which
        // is this one now.
        let visited = Visited::<u64>::new();
        let none: &[Part<u8, u64>] = &[];
        let growth = |new| visited.bytes_after(new).saturating_sub(visited.bytes());
        // The last level keeps only fingerprints: the table's growth.
        assert_eq!(added(&visited, 5, none, true, 24), growth(5));
        assert_eq!(added(&visited, 0, none, true, 24), growth(0));
        // Any other level: each new state also takes what it is built with.
        let built = added(&visited, 1000, none, false, 24);
        assert_eq!(built, growth(1000) + 1000 * 24);
        assert!(added(&visited, 1000, none, false, 40) > built);
    }

    #[test]
    fn soft_limits_are_read_by_row_and_unlimited_is_none() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max data size             unlimited            unlimited            bytes     \n\
                    Max address space         409600000            unlimited            bytes     \n";
        let rows = ["Max address space", "Max data size"];
        assert_eq!(parse_soft_limits(text, &rows), Some(409_600_000));
        assert_eq!(parse_soft_limits(text, &["Max data size"]), None);
        assert_eq!(parse_soft_limits("", &rows), None);
    }

    #[test]
    fn the_default_bound_is_at_most_nine_tenths_of_physical_memory() {
        let physical = physical_memory().expect("/proc/meminfo on Linux");
        let bound = default_max_memory().expect("a bound");
        assert!(bound <= physical / 10 * 9);
    }
}
