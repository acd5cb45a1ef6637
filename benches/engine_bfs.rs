//! Throughput and memory benchmark of `memtx_check::engine` against
//! stateright's own single-threaded `spawn_bfs`, on a two-phase-commit model
//! with `N` resource managers (default 8; exhaustive, no depth bound, so
//! both explore exactly the same states).
//!
//! Run with:
//!
//! ```text
//! cargo bench --bench engine_bfs            # N = 8
//! cargo bench --bench engine_bfs -- --rms 7
//! cargo bench --bench engine_bfs -- --repeat 1
//! cargo bench --bench engine_bfs -- --model models/default.json --depth 8
//! cargo bench --bench engine_bfs -- --model models/default.json --depth 9 \
//!     --reference /tmp/ref/target/release/deps/engine_bfs-HASH --repeat 3
//! ```
//!
//! With `--model`, the model is the MemTX model of that configuration at
//! depth `--depth` (default 8): stateright runs with `target_max_depth(D+1)`,
//! which counts exactly our states at depth ≤ D (see
//! `engine::stateright_mapping`); the engine runs as `memtx-check check` does,
//! holding levels packed through the model's codec and stepping every
//! transition into one reused state (`Engine::in_place`:
//! `engine1`, `engine2`), and once more without the codec, each successor
//! a fresh state (`engine1-plain`), to show what packing saves.
//!
//! `--properties LIST` (with `--model`) judges only those invariants, as
//! `memtx-check check --properties` does: `--properties I1,I2,G3` gives
//! the same property work as an engine from before issue 9's nine
//! further properties, to compare engines on equal work.
//!
//! `--variant engine1-labelled` (with `--model`) runs one thread through
//! the labelled entry point instead, to measure what counting labels costs.
//!
//! The two-phase-commit model is `src/engine/tests/two_phase.rs`, the copy
//! the engine's unit tests use, included here with `#[path]`.
//!
//! `--heap` also counts the peak of live heap bytes (a counting global
//! allocator; it slows multi-threaded runs, so timings are then not
//! comparable).
//!
//! Each run of each variant (stateright 1 thread, engine 1 thread, engine 2
//! threads) is a child process (this binary re-executed with `--variant`),
//! so peak memory is per variant. Runs are *paired*: each of `--repeat`
//! rounds (default 3) runs every variant once, one after the other (round
//! `r` starting with the `r`-th variant, so that none always runs first),
//! and a variant's ratio to another is the median over rounds of the ratio
//! of their rates in the same round, so that load from other processes,
//! which comes and goes, weighs on both sides of a ratio alike; the lowest
//! and highest round's ratio follow in brackets, to show how far one
//! round can stray. With `--reference EXE` (this bench built from another
//! commit), that binary's engine variants run in every round too
//! (`ref-engine1`, `ref-engine2`) and the ratios to them are reported.
//! `--only KEYS` (comma-separated: `stateright`, `engine1`, `engine2`,
//! `engine1-plain`, `ref-engine1`, `ref-engine2`) runs only those
//! variants, so that more rounds of one pairing fit in the same time:
//!
//! ```text
//! cargo bench --bench engine_bfs -- --model OLD.json --depth 9 \
//!     --properties I1,I2,G3 --reference OLD_BENCH --only engine1,ref-engine1 --repeat 9
//! ```
//!
//! Reported per variant: the median
//! over rounds of unique states/s on wall time
//! and on CPU time (user + system, all threads; robust when other processes
//! share the machine), bytes per state from peak RSS ((`VmHWM` − `VmRSS`
//! before exploring) / states, from `/proc/self/status`) and from the peak
//! of live heap bytes (a counting global allocator in this binary). The
//! parent asserts that all variants found the same numbers of states and
//! transitions (stateright's `state_count` − 1 initial state).

use memtx_check::config::{Depth, ModelConfig};
use memtx_check::engine::{Engine, EngineOptions, LevelStats, RunObserver, Verdict};
use memtx_check::model::{MemtxModel, ModelCodec, ModelSpec};
use stateright::{Checker, Model};
use std::alloc::{GlobalAlloc, Layout, System};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;
use two_phase::{TwoPhase, MAX_RMS};

/// The system allocator, counting live and peak heap bytes when `--heap`
/// asks for it. Counting costs an atomic update per allocation, which two
/// threads contend for, so timing runs do not count (peak RSS still gives
/// memory).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() && COUNT.load(Ordering::Relaxed) {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        if COUNT.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() && COUNT.load(Ordering::Relaxed) {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let live = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[path = "../src/engine/tests/two_phase.rs"]
mod two_phase;

/// With `BENCH_TRACE` set: the live and peak heap bytes after each level.
struct HeapTrace;

impl RunObserver for HeapTrace {
    fn level_done(&self, l: &LevelStats) {
        eprintln!(
            "depth {} new {} live {} peak {}",
            l.depth,
            l.new_states,
            LIVE.load(Ordering::Relaxed),
            PEAK.load(Ordering::Relaxed)
        )
    }
}

/// A field of `/proc/self/status`, in kB.
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// CPU time (user + system, all threads) of this process in seconds, from
/// `/proc/self/stat` (assumes the usual 100 ticks per second).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_comm = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<u64> = after_comm
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // Fields 14 (utime) and 15 (stime), counted from 1 with pid and comm.
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) as f64 / 100.0
}

/// `--properties LIST`: the invariants the MemTX model judges (as
/// `memtx-check check --properties`); every variant of every round gets it.
static PROPERTIES: OnceLock<Option<String>> = OnceLock::new();

/// The MemTX model of a configuration, at depth `depth`, judging the
/// properties `--properties` selects (all by default).
fn memtx_model(path: &str, depth: usize) -> MemtxModel {
    let mut config = ModelConfig::load(std::path::Path::new(path)).expect("--model loads");
    config.bounds.depth = Depth::Bounded(depth);
    let mut spec = ModelSpec::from_config(&config);
    if let Some(list) = PROPERTIES.get().cloned().flatten() {
        spec.select(memtx_check::config::flags::properties(&list).expect("--properties LIST"));
    }
    MemtxModel::new(spec)
}

/// Runs one variant on the MemTX model and returns (states, transitions).
fn run_memtx_variant(variant: &str, model: MemtxModel, depth: usize) -> (u64, u64) {
    match variant {
        "stateright" => {
            let c = model
                .checker()
                .target_max_depth(depth + 1)
                .spawn_bfs()
                .join();
            (c.unique_state_count() as u64, c.state_count() as u64 - 1)
        }
        "engine1-plain" => {
            let r = Engine::new(&model)
                .options(&EngineOptions::new(Some(depth), 1))
                .run();
            (r.unique_states, r.transitions)
        }
        "engine1-labelled" => {
            let codec = ModelCodec::new(&model.spec);
            let opts = EngineOptions::new(Some(depth), 1);
            let r = Engine::new(&model)
                .options(&opts)
                .codec(&codec)
                .labelled()
                .run();
            (r.unique_states, r.transitions)
        }
        v => {
            let threads: usize = v.trim_start_matches("engine").parse().expect("variant");
            let codec = ModelCodec::new(&model.spec);
            let r = Engine::new(&model)
                .options(&EngineOptions::new(Some(depth), threads))
                .codec(&codec)
                .in_place()
                .run();
            (r.unique_states, r.transitions)
        }
    }
}

/// Runs one variant in this process and prints a `RESULT` line.
fn run_variant(variant: &str, n: usize, memtx: Option<(&str, usize)>) {
    let model = TwoPhase { n };
    let base_kb = status_kb("VmRSS:");
    let base_heap = LIVE.load(Ordering::Relaxed);
    PEAK.store(base_heap, Ordering::Relaxed);
    let start = Instant::now();
    let cpu0 = cpu_secs();
    let (states, transitions) = match (memtx, variant) {
        (Some((path, depth)), v) => run_memtx_variant(v, memtx_model(path, depth), depth),
        (None, "stateright") => {
            let c = model.checker().spawn_bfs().join();
            assert!(c.discovery("consistent").is_none());
            (c.unique_state_count() as u64, c.state_count() as u64 - 1)
        }
        (None, v) => {
            let threads: usize = v.trim_start_matches("engine").parse().expect("variant");
            let mut opts = EngineOptions::new(None, threads);
            if std::env::var_os("BENCH_TRACE").is_some() {
                opts.observer = Box::new(HeapTrace);
            }
            let r = Engine::new(&model).options(&opts).run();
            assert!(r.complete);
            assert_eq!(r.property("consistent"), Some(&Verdict::Holds));
            (r.unique_states, r.transitions)
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu0;
    let hwm_kb = status_kb("VmHWM:");
    let heap = PEAK.load(Ordering::Relaxed) - base_heap;
    println!("RESULT {states} {transitions} {secs} {base_kb} {hwm_kb} {heap} {cpu}");
}

struct Outcome {
    states: u64,
    transitions: u64,
    secs: f64,
    bytes_per_state: f64,
    heap_per_state: f64,
    cpu: f64,
}

fn run_child(
    exe: &std::path::Path,
    variant: &str,
    n: usize,
    memtx: Option<(&str, usize)>,
    heap: bool,
) -> Outcome {
    let mut cmd = Command::new(exe);
    cmd.args(["--variant", variant, "--rms", &n.to_string()]);
    if heap {
        cmd.arg("--heap");
    }
    if let Some((path, depth)) = memtx {
        cmd.args(["--model", path, "--depth", &depth.to_string()]);
    }
    if let Some(list) = PROPERTIES.get().cloned().flatten() {
        cmd.args(["--properties", &list]);
    }
    let out = cmd.output().expect("spawn child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("RESULT "))
        .unwrap_or_else(|| {
            panic!(
                "variant {variant} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let f: Vec<f64> = line[7..]
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    Outcome {
        states: f[0] as u64,
        transitions: f[1] as u64,
        secs: f[2],
        bytes_per_state: (f[4] - f[3]) * 1024.0 / f[0],
        heap_per_state: f[5] / f[0],
        cpu: f[6],
    }
}

/// The median of `xs` (the mean of the middle two for an even count).
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let k = xs.len();
    if k % 2 == 1 {
        xs[k / 2]
    } else {
        (xs[k / 2 - 1] + xs[k / 2]) / 2.0
    }
}

/// A variant to run: its label, the binary, its `--variant` name, and
/// the key `--only` selects it by.
struct Variant {
    label: &'static str,
    exe: std::path::PathBuf,
    name: &'static str,
    key: &'static str,
}

/// The variants of a bench invocation, stateright first, keeping only
/// those whose key is in `only` when it is given.
fn variants(memtx: bool, reference: Option<&str>, only: Option<&[String]>) -> Vec<Variant> {
    let own = std::env::current_exe().expect("current_exe");
    let variant = |label, exe: &std::path::Path, name, key| Variant {
        label,
        exe: exe.to_path_buf(),
        name,
        key,
    };
    let mut all = vec![
        variant(
            "stateright spawn_bfs, 1 thread",
            &own,
            "stateright",
            "stateright",
        ),
        variant("engine, 1 thread", &own, "engine1", "engine1"),
        variant("engine, 2 threads", &own, "engine2", "engine2"),
    ];
    if memtx {
        all.push(variant(
            "engine, 1 thread, no codec",
            &own,
            "engine1-plain",
            "engine1-plain",
        ));
    }
    if let Some(path) = reference.map(std::path::Path::new) {
        all.push(variant(
            "reference engine, 1 thread",
            path,
            "engine1",
            "ref-engine1",
        ));
        all.push(variant(
            "reference engine, 2 threads",
            path,
            "engine2",
            "ref-engine2",
        ));
    }
    if let Some(keys) = only {
        for key in keys {
            assert!(
                all.iter().any(|v| v.key == key),
                "--only: {key:?} is not one of {:?}",
                all.iter().map(|v| v.key).collect::<Vec<_>>()
            );
        }
        all.retain(|v| keys.iter().any(|k| k == v.key));
    }
    all
}

/// Prints each variant's medians and its ratios to stateright and to the
/// reference's variant with the same thread count (each ratio the median
/// over rounds, with its lowest and highest round in brackets).
fn report(variants: &[Variant], rounds: &[Vec<Outcome>], heap: bool) {
    let rate = |r: &Outcome| r.states as f64 / r.secs;
    let ratios = |i: usize, j: usize| -> Vec<f64> {
        rounds.iter().map(|o| rate(&o[i]) / rate(&o[j])).collect()
    };
    let ratio_to = |i: usize, j: usize, what: &str| {
        let r = ratios(i, j);
        let (lo, hi) = (
            r.iter().copied().fold(f64::INFINITY, f64::min),
            r.iter().copied().fold(0.0, f64::max),
        );
        let range = if r.len() > 1 {
            format!(" [{lo:.2}–{hi:.2}]")
        } else {
            String::new()
        };
        format!(" {:>5.2}x {what}{range}", median(r))
    };
    let position = |key: &str| variants.iter().position(|v| v.key == key);
    let stateright = position("stateright");
    for (i, v) in variants.iter().enumerate() {
        let col = |f: &dyn Fn(&Outcome) -> f64| median(rounds.iter().map(|o| f(&o[i])).collect());
        let vs_stateright = match stateright {
            Some(j) if j != i => ratio_to(i, j, "stateright"),
            Some(_) => "  1.00x stateright".into(),
            None => String::new(),
        };
        let vs_ref = match position(&format!("ref-{}", v.key)) {
            Some(j) => ratio_to(i, j, "reference"),
            None => String::new(),
        };
        println!(
            "{:<31} {:>9} states | median wall {:>6.3} s {:>9.0} states/s{vs_stateright}{vs_ref} \
             | cpu {:>6.3} s | {:>5.1} B/state peak RSS{}",
            v.label,
            rounds[0][i].states,
            col(&|r| r.secs),
            col(&rate),
            col(&|r| r.cpu),
            col(&|r| r.bytes_per_state),
            if heap {
                format!(", {:>5.1} peak heap", col(&|r| r.heap_per_state))
            } else {
                String::new()
            }
        );
    }
    if let (Some(two), Some(one)) = (position("engine2"), position("engine1")) {
        println!(
            "engine 2-thread speed-up over 1 thread (median of paired rounds):{}",
            ratio_to(two, one, "")
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    let n: usize = arg("--rms").map_or(8, |v| v.parse().expect("--rms N"));
    assert!((1..=MAX_RMS).contains(&n));
    let model_path = arg("--model");
    let depth: usize = arg("--depth").map_or(8, |v| v.parse().expect("--depth D"));
    let memtx = model_path.as_deref().map(|p| (p, depth));
    let heap = args.iter().any(|a| a == "--heap");
    PROPERTIES.get_or_init(|| arg("--properties"));
    if let Some(variant) = arg("--variant") {
        COUNT.store(heap, Ordering::Relaxed);
        run_variant(&variant, n, memtx);
        return;
    }
    let repeat: usize = arg("--repeat").map_or(3, |v| v.parse().expect("--repeat K"));
    let reference = arg("--reference");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let what = match memtx {
        Some((path, depth)) => format!(
            "MemTX model {path} to depth {depth}, judging {}",
            PROPERTIES
                .get()
                .cloned()
                .flatten()
                .unwrap_or_else(|| "every property".into())
        ),
        None => format!("two-phase commit, {n} resource managers, exhaustive BFS"),
    };
    println!(
        "{what}; one child process per run, {repeat} paired rounds, medians; load average before: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let only: Option<Vec<String>> =
        arg("--only").map(|list| list.split(',').map(|k| k.trim().to_string()).collect());
    let variants = variants(memtx.is_some(), reference.as_deref(), only.as_deref());
    assert!(!variants.is_empty(), "--only selects no variant");
    // Round `r` starts with variant `r mod count`, so that no variant
    // always runs first (or always right after the heaviest one).
    let rounds: Vec<Vec<Outcome>> = (0..repeat.max(1))
        .map(|r| {
            let mut round: Vec<Option<Outcome>> = variants.iter().map(|_| None).collect();
            for k in 0..variants.len() {
                let i = (r + k) % variants.len();
                let v = &variants[i];
                round[i] = Some(run_child(&v.exe, v.name, n, memtx, heap));
            }
            round
                .into_iter()
                .map(|o| o.expect("every variant ran"))
                .collect()
        })
        .collect();
    report(&variants, &rounds, heap);
    let all = rounds.iter().flatten();
    let first = &rounds[0][0];
    for r in all {
        assert_eq!(
            (r.states, r.transitions),
            (first.states, first.transitions),
            "counts differ"
        );
    }
    println!(
        "fingerprint collision probability: TLC optimistic {:.3e}, birthday bound {:.3e}",
        memtx_check::engine::collision_probability(first.states, first.transitions),
        memtx_check::engine::collision_probability_birthday(first.states)
    );
}
