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

use super::bfs::Run;
use super::fp::Fp;
use super::growth::predict_new;
use super::labels::Transitions;
use super::links::Link;
use super::part::Part;
use super::report::Stopped;
use stateright::Model;
use std::hash::Hash;

/// Slack for what the estimate does not count (a batch's candidates, the
/// sort of one part, allocator overhead): 64 MiB.
const SLACK: u64 = 64 << 20;

impl<M, T, W> Run<'_, M, T, W>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    /// Why the level of `frontier` must not be expanded, if it must not.
    pub(super) fn guard(&self, frontier: &[Part<M::State, W>], leaf: bool) -> Option<Stopped> {
        let limit = self.opts.max_memory?;
        let needed = self.estimate(frontier, leaf);
        (needed > limit).then_some(Stopped::MemoryBound {
            depth: self.depth + 1,
            needed,
            limit,
        })
    }

    /// The estimated peak of expanding `frontier` (see the module docs).
    fn estimate(&self, frontier: &[Part<M::State, W>], leaf: bool) -> u64 {
        let predicted = predict_new(&self.levels);
        let table = self
            .visited
            .bytes_after(predicted)
            .saturating_sub(self.visited.bytes());
        let held: u64 = frontier.iter().map(|p| p.heap_bytes() as u64).sum();
        let states: u64 = frontier.iter().map(|p| p.len() as u64).sum();
        let next = if leaf {
            0
        } else {
            let per_state = held as f64 / states.max(1) as f64 + Link::BYTES as f64;
            (predicted as f64 * per_state) as u64
        };
        resident_bytes() + table + next.saturating_sub(held) + SLACK
    }
}

/// This process's resident memory, from `/proc/self/statm` (0 where there
/// is none).
pub(crate) fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// 90% of the machine's physical memory, from `/proc/meminfo`; `None`
/// where it cannot be read.
pub fn default_max_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024 / 10 * 9)
}
