//! A long run's progress on stderr, as an engine [`RunObserver`]: on a
//! terminal, a progress bar (indicatif) over the level being expanded,
//! with the depth, the states found so far, states/s, and an estimate of
//! the level's remaining time; without one (CI, a pipe), the plain lines
//! of old: one per level once the run has lasted a second, and a
//! heartbeat line a second within long levels.
//!
//! The estimate: before the level has shown its own pace (its first
//! heartbeat), the previous level's time per expanded state times this
//! level's size; after, this level's own pace. The predicted size of the
//! next level is this level's size times the previous level's branching
//! (new states over the previous level's new states).

use crate::conform::pool::Progress;
use crate::engine::{LevelProgress, LevelStats, RunObserver};
use crate::human;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The observer for a command's run: a bar on a terminal, plain lines
/// otherwise.
pub fn observer() -> Box<dyn RunObserver> {
    if std::io::stderr().is_terminal() {
        Box::new(Bar::new())
    } else {
        Box::new(Lines)
    }
}

/// The plain lines, for a stderr that is not a terminal.
pub struct Lines;

/// A level's plain line on stderr, once the run has lasted a second (as
/// [`Lines`] reports a distributed run's levels).
pub fn print_level(level: &LevelStats) {
    if level.elapsed_ms >= 1000 {
        eprintln!("{}", level_line(level));
    }
}

impl RunObserver for Lines {
    fn level_done(&self, level: &LevelStats) {
        print_level(level)
    }

    fn heartbeat(&self, p: &LevelProgress) {
        eprintln!(
            "  depth {:>3}: {:>3.0}% of the {} states at depth {} expanded; {} states so far, {} states/s",
            p.depth + 1,
            100.0 * p.expanded as f64 / p.level_size.max(1) as f64,
            human::count(p.level_size),
            p.depth,
            human::count(p.discovered),
            human::rate(per_second(p.discovered, p.elapsed_ms))
        );
    }
}

fn level_line(l: &LevelStats) -> String {
    format!(
        "  depth {:>3}: {:>15} states ({:>14} new), {:>17} transitions, {:>11} states/s",
        l.depth,
        human::count(l.total_states),
        format!("+{}", human::count(l.new_states)),
        human::count(l.total_transitions),
        human::rate(per_second(l.total_states, l.elapsed_ms))
    )
}

fn per_second(count: u64, ms: u64) -> f64 {
    count as f64 * 1000.0 / ms.max(1) as f64
}

/// What the bar remembers of the levels done.
#[derive(Default)]
struct Seen {
    /// The last two levels discovered, the latest last.
    last: Vec<LevelStats>,
    /// Milliseconds per expanded state of the last expansion.
    ms_per_state: Option<f64>,
}

/// The progress bar over the level being expanded.
pub struct Bar {
    bar: ProgressBar,
    seen: Mutex<Seen>,
}

impl Bar {
    fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "  {prefix} [{bar:30.cyan/blue}] {percent:>3}% of {human_len} expanded · {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        Bar {
            bar,
            seen: Mutex::new(Seen::default()),
        }
    }

    /// The estimate of the level's remaining time, in seconds.
    fn remaining_s(&self, p: &LevelProgress, seen: &Seen) -> Option<f64> {
        let left = p.level_size.saturating_sub(p.expanded) as f64;
        let started = seen.last.last().map_or(0, |l| l.elapsed_ms);
        let spent = p.elapsed_ms.saturating_sub(started);
        let ms_per_state = if p.expanded > 0 && spent > 0 {
            spent as f64 / p.expanded as f64
        } else {
            seen.ms_per_state?
        };
        Some(left * ms_per_state / 1000.0)
    }
}

impl RunObserver for Bar {
    fn level_done(&self, level: &LevelStats) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(prev) = seen.last.last() {
            let expanded = prev.new_states.max(1) as f64;
            seen.ms_per_state =
                Some(level.elapsed_ms.saturating_sub(prev.elapsed_ms) as f64 / expanded);
        }
        if level.elapsed_ms >= 1000 {
            self.bar.println(level_line(level));
        }
        seen.last.push(level.clone());
        if seen.last.len() > 2 {
            seen.last.remove(0);
        }
    }

    fn heartbeat(&self, p: &LevelProgress) {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if self.bar.length() != Some(p.level_size) {
            self.bar.set_length(p.level_size);
        }
        self.bar.set_prefix(format!("depth {:>3}", p.depth + 1));
        self.bar.set_position(p.expanded);
        let eta = self.remaining_s(p, &seen).map_or_else(
            || "estimating".to_owned(),
            |s| {
                let left = Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX);
                format!("~{} left", human::duration(left))
            },
        );
        let next = match seen.last.as_slice() {
            [before, latest] if before.new_states > 0 => format!(
                "; depth {} ≈ {} new states (×{:.2})",
                p.depth + 1,
                human::rate(
                    latest.new_states as f64 * latest.new_states as f64 / before.new_states as f64
                ),
                latest.new_states as f64 / before.new_states as f64
            ),
            _ => String::new(),
        };
        self.bar.set_message(format!(
            "{} states, {} states/s, {eta} in the level{next}",
            human::count(p.discovered),
            human::rate(per_second(p.discovered, p.elapsed_ms))
        ));
    }
}

impl Drop for Bar {
    /// The run is over: the bar goes, the level lines stay.
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A conformance run's progress: on a terminal a bar over the traces, with
/// the steps sent, steps/s and the departing traces so far; otherwise a
/// plain line about once a second.
pub struct TraceBar {
    bar: Option<ProgressBar>,
    started: Instant,
    last_line: Mutex<Instant>,
}

impl TraceBar {
    pub fn new(suite: &str) -> TraceBar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "  {prefix} [{bar:30.cyan/blue}] {pos}/{len} traces · {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix(suite.to_owned());
            bar
        });
        TraceBar {
            bar,
            started: Instant::now(),
            last_line: Mutex::new(Instant::now()),
        }
    }
}

impl Progress for TraceBar {
    fn update(&self, done: u64, total: u64, steps: u64, departures: u64) {
        let ms = self.started.elapsed().as_millis() as u64;
        let speed = format!(
            "{} steps, {} steps/s, {} departing",
            human::count(steps),
            human::rate(per_second(steps, ms)),
            human::count(departures)
        );
        match &self.bar {
            Some(bar) => {
                bar.set_length(total);
                bar.set_position(done);
                bar.set_message(speed);
            }
            None => {
                let Ok(mut last) = self.last_line.try_lock() else {
                    return;
                };
                if last.elapsed().as_secs() >= 1 {
                    *last = Instant::now();
                    eprintln!("  {done:>10} of {total} traces; {speed}");
                }
            }
        }
    }
}

impl Drop for TraceBar {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
