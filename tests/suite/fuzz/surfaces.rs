//! The fuzz test of what a run reads besides models and traces (issue
//! 28): checkpoint folders, dumps, baselines (report folders), hosts files
//! and HTTP requests to the explorer's front, each read in-process.
//!
//! A folder case copies a real one (a checkpoint of `no-gate` stopped
//! after three levels, a dump of it, its committed baseline
//! `reports/no-gate/`) and damages it: bytes flipped, files cut short or
//! grown, rewritten with tokens of their formats, deleted, or replaced by
//! a folder. Reading it must give a value or one error line, never a
//! panic; and what is read is used: a checkpoint the resume check accepts
//! is resumed and must end exactly as the uninterrupted run (the same
//! counts, verdicts and depths), a dump or a baseline read is compared
//! with the intact one and the comparison rendered. A hosts file of
//! generated lines is read for a process of it; an HTTP request head of
//! generated lines (a huge `Content-Length` among them) is read by the
//! explorer's front within its limits.
//!
//! `MEMTX_FUZZ_CASES` sets the cases per property (default
//! [`DEFAULT_CASES`], seconds in `cargo test --release`); the slow
//! variant is `MEMTX_FUZZ_CASES=20000 cargo test --release --test
//! suite fuzz::surfaces::`.

use crate::support::{check_options, copy_dir, fresh};

use memtx_check::check::{self, CheckOptions, CheckReport};
use memtx_check::config::{Depth, ModelConfig};
use memtx_check::diff::states::{compare_dumps, Dump};
use memtx_check::diff::{compare, load_side, render, Side};
use memtx_check::distributed::Hosts;
use memtx_check::explore::request::{read_request, MAX_REQUEST_LINE};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseResult, TestRunner};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Cases per property unless `MEMTX_FUZZ_CASES` says otherwise.
const DEFAULT_CASES: u32 = 300;

const MODEL: &str = "models/ablations/no-gate.json";

/// The depth of the fixtures' runs: a few milliseconds each.
const DEPTH: usize = 4;

/// The real folders every case starts from, made once.
struct Fixtures {
    root: PathBuf,
    model: ModelConfig,
    /// The uninterrupted run to [`DEPTH`].
    whole: Outcome,
    checkpoint: PathBuf,
    dump: PathBuf,
    dump_read: Dump,
    baseline: PathBuf,
    baseline_read: Side,
}

/// What a run ends with, as a resumed run must end too.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    states: u64,
    transitions: u64,
    complete: bool,
    levels: Vec<(usize, u64, u64)>,
    verdicts: Vec<(&'static str, check::Outcome, Option<&'static str>)>,
}

impl Outcome {
    fn of(r: &CheckReport) -> Outcome {
        Outcome {
            states: r.unique_states,
            transitions: r.transitions,
            complete: r.complete,
            levels: r
                .levels
                .iter()
                .map(|l| (l.depth, l.total_states, l.transitions))
                .collect(),
            verdicts: r
                .properties
                .iter()
                .map(|p| (p.name, p.outcome, p.clause))
                .collect(),
        }
    }
}

fn fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let root = fresh("fixtures");
        let text = std::fs::read_to_string(MODEL).unwrap();
        let mut model = ModelConfig::parse(&text, MODEL).unwrap();
        model.bounds.depth = Depth::Bounded(DEPTH);
        let whole = Outcome::of(&check::run(&model, CheckOptions::quiet(1)));
        let checkpoint = root.join("checkpoint");
        std::fs::create_dir_all(&checkpoint).unwrap();
        let stopped = check::run(
            &model,
            check_options(1, |o| {
                o.checkpoint = Some(checkpoint.clone());
                o.max_levels = Some(3);
            }),
        );
        assert!(!stopped.complete, "the checkpoint has levels left to run");
        let dump = root.join("dump");
        let dumped = check::run(
            &model,
            CheckOptions {
                dump: Some(dump.clone()),
                ..CheckOptions::quiet(1)
            },
        );
        assert!(matches!(dumped.dump, Some(Ok(_))), "{:?}", dumped.dump);
        let dump_read = Dump::load(&dump).unwrap();
        let baseline = root.join("baseline");
        copy_dir(Path::new("reports/no-gate"), &baseline);
        let baseline_read = load_side(&baseline, 1, None).unwrap();
        Fixtures {
            root,
            model,
            whole,
            checkpoint,
            dump,
            dump_read,
            baseline,
            baseline_read,
        }
    })
}

/// A fresh copy of `from` for one case.
fn copy_of(from: &Path) -> PathBuf {
    static CASE: AtomicU64 = AtomicU64::new(0);
    let n = CASE.fetch_add(1, Ordering::SeqCst);
    let to = fixtures().root.join(format!("case-{n}"));
    copy_dir(from, &to);
    to
}

/// Every file under `dir`, in path order.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Bytes of the formats the folders hold, so damage gets past the first
/// check often enough to reach the later ones.
const TOKENS: &[&str] = &[
    "\"",
    ",",
    "\n",
    "{",
    "}",
    "[",
    "]",
    ":",
    "0",
    "-1",
    "1e999",
    "18446744073709551616",
    "null",
    "true",
    "\"holds\"",
    "\"maybe\"",
    "\u{feff}",
    "\r\n",
    "depth",
    "states",
    "format",
    "\\u0000",
    "ab",
    "../",
    "\u{0}",
];

/// One way to damage a folder.
#[derive(Clone, Debug)]
enum Damage {
    /// Flip the bits of byte `at` (modulo the length) of file `file`.
    Flip { file: usize, at: usize, bits: u8 },
    /// Cut the file to `keep` bytes (modulo its length + 1).
    Cut { file: usize, keep: usize },
    /// Put a token of the formats at `at`.
    Insert {
        file: usize,
        at: usize,
        token: usize,
    },
    /// Overwrite the file with these bytes.
    Replace { file: usize, bytes: Vec<u8> },
    /// Remove the file.
    Delete { file: usize },
    /// Replace the file by an empty folder.
    Folder { file: usize },
    /// Append the same file's bytes again.
    Double { file: usize },
}

fn damage() -> impl Strategy<Value = Damage> {
    let file = 0usize..64;
    prop_oneof![
        4 => (file.clone(), any::<usize>(), 1u8..=255).prop_map(|(file, at, bits)| Damage::Flip { file, at, bits }),
        2 => (file.clone(), any::<usize>()).prop_map(|(file, keep)| Damage::Cut { file, keep }),
        4 => (file.clone(), any::<usize>(), 0..TOKENS.len()).prop_map(|(file, at, token)| Damage::Insert { file, at, token }),
        1 => (file.clone(), proptest::collection::vec(any::<u8>(), 0..64)).prop_map(|(file, bytes)| Damage::Replace { file, bytes }),
        1 => file.clone().prop_map(|file| Damage::Delete { file }),
        1 => file.clone().prop_map(|file| Damage::Folder { file }),
        1 => file.prop_map(|file| Damage::Double { file }),
    ]
}

/// Applies `d` to a file of `dir` (the file index modulo their count).
fn apply(dir: &Path, d: &Damage) {
    let all = files(dir);
    if all.is_empty() {
        return;
    }
    let pick = |i: usize| &all[i % all.len()];
    let read = |p: &Path| std::fs::read(p).unwrap();
    match d {
        Damage::Flip { file, at, bits } => {
            let p = pick(*file);
            let mut b = read(p);
            if !b.is_empty() {
                let i = at % b.len();
                b[i] ^= bits;
            }
            std::fs::write(p, b).unwrap();
        }
        Damage::Cut { file, keep } => {
            let p = pick(*file);
            let mut b = read(p);
            b.truncate(keep % (b.len() + 1));
            std::fs::write(p, b).unwrap();
        }
        Damage::Insert { file, at, token } => {
            let p = pick(*file);
            let mut b = read(p);
            let i = at % (b.len() + 1);
            b.splice(i..i, TOKENS[*token].bytes());
            std::fs::write(p, b).unwrap();
        }
        Damage::Replace { file, bytes } => std::fs::write(pick(*file), bytes).unwrap(),
        Damage::Delete { file } => std::fs::remove_file(pick(*file)).unwrap(),
        Damage::Folder { file } => {
            let p = pick(*file);
            std::fs::remove_file(p).unwrap();
            std::fs::create_dir(p).unwrap();
        }
        Damage::Double { file } => {
            let p = pick(*file);
            let mut b = read(p);
            b.extend(b.clone());
            std::fs::write(p, b).unwrap();
        }
    }
}

/// What a killed or an earlier run may have left in a checkpoint folder
/// beside its sealed level, or nothing (see [`leave`]).
fn leftover() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![1 => Just(None), 3 => (0u8..4).prop_map(Some)]
}

/// Leaves, beside the checkpoint's one sealed level (`level-0002/`),
/// copies of it as a kill or an earlier run would: a half-written next
/// level (`.level-0003.tmp/`, 0), a level whose removal a kill cut short
/// (`.level-0001.old/`, 1), a deeper level that is the same one renamed
/// (`level-0003/`, 2: not sound, its meta says depth 2), or a deeper level
/// without its meta (3). The damages that follow may land in the copy or
/// in the real level: the first should be skipped (the resume names it)
/// and the run end as the uninterrupted one, the second refused.
fn leave(dir: &Path, kind: u8) {
    let name = match kind {
        0 => ".level-0003.tmp",
        1 => ".level-0001.old",
        _ => "level-0003",
    };
    copy_dir(&dir.join("level-0002"), &dir.join(name));
    if kind == 3 {
        std::fs::remove_file(dir.join(name).join("meta.json")).unwrap();
    }
}

fn assert_one_line(message: &str) {
    assert!(
        !message.trim().is_empty() && !message.contains('\n') && !message.contains('\r'),
        "not one line: {message:?}"
    );
    assert!(
        message.len() < 2000,
        "{} bytes: {message:.300}",
        message.len()
    );
}

/// What the cases of one property came to: how many were read (and
/// used) and how many refused, printed for the record
/// (`cargo test --release --test suite fuzz::surfaces:: -- --nocapture`).
#[derive(Default)]
struct Tally {
    read: AtomicU64,
    refused: AtomicU64,
}

impl Tally {
    fn read(&self) {
        self.read.fetch_add(1, Ordering::SeqCst);
    }
    fn refused(&self) {
        self.refused.fetch_add(1, Ordering::SeqCst);
    }
}

/// Runs `case` on [`config`]'s number of values of `strategy` (a
/// failure is shrunk and reported as proptest does) and prints the tally.
fn fuzz<S: Strategy>(what: &str, strategy: S, case: impl Fn(S::Value, &Tally) -> TestCaseResult)
where
    S::Value: std::fmt::Debug,
{
    let tally = Tally::default();
    let mut runner = TestRunner::new(super::config(DEFAULT_CASES));
    if let Err(e) = runner.run(&strategy, |v| case(v, &tally)) {
        panic!("{what}: {e}");
    }
    eprintln!(
        "{what}: {} cases read and used, {} refused in one line",
        tally.read.load(Ordering::SeqCst),
        tally.refused.load(Ordering::SeqCst)
    );
}

/// A damaged checkpoint is refused in one line, or resumed to the
/// uninterrupted run's end exactly.
#[test]
fn a_damaged_checkpoint_is_refused_or_resumed_exactly() {
    let f = fixtures();
    fuzz(
        "checkpoints",
        (leftover(), proptest::collection::vec(damage(), 1..4)),
        |(leftover, damages), tally| {
            let dir = copy_of(&f.checkpoint);
            if let Some(kind) = leftover {
                leave(&dir, kind);
            }
            for d in &damages {
                apply(&dir, d);
            }
            let options = CheckOptions::quiet(1);
            let result = match check::resumable(&f.model, &options, &dir) {
                Err(line) => {
                    assert_one_line(&line);
                    tally.refused();
                    Ok(())
                }
                Ok(skipped) => {
                    for line in &skipped {
                        assert_one_line(line);
                    }
                    let resumed =
                        check::run(&f.model, check_options(1, |o| o.resume = Some(dir.clone())));
                    tally.read();
                    (|| {
                        prop_assert_eq!(&Outcome::of(&resumed), &f.whole);
                        Ok(())
                    })()
                }
            };
            std::fs::remove_dir_all(&dir).unwrap();
            result
        },
    );
}

/// A damaged dump is refused in one line, or read and compared with the
/// intact one both ways.
#[test]
fn a_damaged_dump_is_refused_or_compared() {
    let f = fixtures();
    fuzz(
        "dumps",
        proptest::collection::vec(damage(), 1..4),
        |damages, tally| {
            let dir = copy_of(&f.dump);
            for d in &damages {
                apply(&dir, d);
            }
            match Dump::load(&dir) {
                Err(e) => {
                    assert_one_line(&e.to_string());
                    tally.refused();
                }
                Ok(dump) => {
                    for (a, b) in [(&dump, &f.dump_read), (&f.dump_read, &dump)] {
                        if let Err(e) = compare_dumps(a, b) {
                            assert_one_line(&e.to_string());
                        }
                    }
                    tally.read();
                }
            }
            std::fs::remove_dir_all(&dir).unwrap();
            Ok(())
        },
    );
}

/// A damaged baseline is refused in one line, or read, compared with the
/// intact one and rendered.
#[test]
fn a_damaged_baseline_is_refused_or_compared() {
    let f = fixtures();
    fuzz(
        "baselines",
        proptest::collection::vec(damage(), 1..4),
        |damages, tally| {
            let dir = copy_of(&f.baseline);
            for d in &damages {
                apply(&dir, d);
            }
            match load_side(&dir, 1, None) {
                Err(e) => {
                    assert_one_line(&e.to_string());
                    tally.refused();
                }
                Ok(side) => {
                    let d = compare(&f.baseline_read, &side);
                    let _ = render(&f.baseline_read, &side, &d);
                    tally.read();
                }
            }
            std::fs::remove_dir_all(&dir).unwrap();
            Ok(())
        },
    );
}

/// A hosts file of generated lines is read for one of its processes, or
/// refused in one line naming the file.
#[test]
fn a_hosts_file_is_read_or_refused_in_one_line() {
    let lines = (
        proptest::collection::vec(hosts_line(), 0..6),
        any::<bool>(),
        any::<bool>(),
        0usize..8,
    );
    fuzz(
        "hosts files",
        lines,
        |(lines, crlf, bom, process), tally| {
            let mut text = if bom {
                "\u{feff}".to_owned()
            } else {
                String::new()
            };
            text.push_str(&lines.join(if crlf { "\r\n" } else { "\n" }));
            match Hosts::parse("hosts.txt", &text, process) {
                Err(e) => {
                    assert_one_line(&e);
                    prop_assert!(e.contains("hosts.txt"), "{}", e);
                    tally.refused();
                }
                Ok(hosts) => {
                    prop_assert!(process < hosts.addresses.len());
                    for i in 0..hosts.addresses.len() {
                        let _ = hosts.is_loopback(i);
                    }
                    tally.read();
                }
            }
            Ok(())
        },
    );
}

/// An HTTP request head of generated lines is read within the front's
/// limits: a request, or a refusal with a status.
#[test]
fn a_request_head_is_read_within_its_limits() {
    let heads = (
        request_line(),
        prop_oneof![
            3 => proptest::collection::vec(header(), 0..8),
            1 => proptest::collection::vec(header(), 0..80),
        ],
        proptest::collection::vec(any::<u8>(), 0..32),
        any::<bool>(),
    );
    fuzz(
        "request heads",
        heads,
        |(line, headers, body, crlf), tally| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut bytes = line.into_bytes();
            bytes.extend(eol.bytes());
            for h in &headers {
                bytes.extend(h.bytes());
                bytes.extend(eol.bytes());
            }
            bytes.extend(eol.bytes());
            bytes.extend(&body);
            match read_request(&mut Cursor::new(bytes)) {
                Ok(request) => {
                    prop_assert!(request.target.len() <= MAX_REQUEST_LINE);
                    tally.read();
                }
                Err(refusal) => {
                    prop_assert!((400..600).contains(&refusal.status), "{:?}", refusal);
                    prop_assert!(!refusal.reason.is_empty());
                    tally.refused();
                }
            }
            Ok(())
        },
    );
}

/// A line of a hosts file: an address, a near miss, or noise.
fn hosts_line() -> impl Strategy<Value = String> {
    prop_oneof![
        16 => (1u16..=65535).prop_map(|p| format!("127.0.0.1:{p}")),
        1 => (1u16..=65535).prop_map(|p| format!("[::1]:{p}")),
        1 => Just("127.0.0.1:7100".to_owned()),
        1 => Just(String::new()),
        1 => Just("# a comment".to_owned()),
        1 => Just("  127.0.0.1:7101  ".to_owned()),
        1 => Just("127.0.0.1".to_owned()),
        1 => Just("127.0.0.1:99999".to_owned()),
        1 => Just("host.invalid:1".to_owned()),
        1 => (0usize..100_000).prop_map(|n| "x".repeat(n)),
        2 => "\\PC{0,40}",
    ]
}

/// A request line: the page's own, near misses, or noise.
fn request_line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just("GET / HTTP/1.1".to_owned()),
        1 => Just("POST /.runtogether HTTP/1.1".to_owned()),
        1 => Just("GET /.states/0/1/4 HTTP/1.0".to_owned()),
        1 => (0usize..20_000).prop_map(|n| format!("GET /{} HTTP/1.1", "a".repeat(n))),
        1 => Just("DELETE / HTTP/1.1".to_owned()),
        1 => Just("GET / HTTP/9.9".to_owned()),
        1 => Just("GET".to_owned()),
        2 => "\\PC{0,60}",
    ]
}

/// A header line: the usual, the hostile, or noise.
fn header() -> impl Strategy<Value = String> {
    prop_oneof![
        30 => Just("Host: 127.0.0.1:3000".to_owned()),
        10 => Just("Accept: */*".to_owned()),
        1 => Just("Content-Length: 99999999999".to_owned()),
        1 => Just("Content-Length: 0".to_owned()),
        1 => (0u64..u64::MAX).prop_map(|n| format!("Content-Length: {n}")),
        1 => Just("Content-Length: -1".to_owned()),
        1 => Just("Transfer-Encoding: chunked".to_owned()),
        1 => (0usize..20_000).prop_map(|n| format!("X-Long: {}", "v".repeat(n))),
        1 => Just(" folded continuation".to_owned()),
        2 => "\\PC{0,60}",
    ]
}

#[test]
fn the_intact_fixtures_read_and_resume_as_the_uninterrupted_run() {
    let f = fixtures();
    let dir = copy_of(&f.checkpoint);
    check::resumable(&f.model, &CheckOptions::quiet(1), &dir).expect("the checkpoint resumes");
    let resumed = check::run(&f.model, check_options(1, |o| o.resume = Some(dir.clone())));
    assert_eq!(Outcome::of(&resumed), f.whole);
    assert!(f.whole.levels.len() > 3, "levels are left to resume");
    assert!(compare_dumps(&f.dump_read, &Dump::load(&f.dump).unwrap())
        .unwrap()
        .per_depth
        .is_empty());
    assert!(compare(&f.baseline_read, &load_side(&f.baseline, 1, None).unwrap()).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damage_lands_where_it_says() {
    let dir = fixtures().root.join("damage-check");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a"), b"0123456789").unwrap();
    apply(&dir, &Damage::Cut { file: 0, keep: 4 });
    assert_eq!(std::fs::read(dir.join("a")).unwrap(), b"0123");
    apply(
        &dir,
        &Damage::Insert {
            file: 0,
            at: 2,
            token: 1,
        },
    );
    assert_eq!(std::fs::read(dir.join("a")).unwrap(), b"01,23");
    apply(&dir, &Damage::Double { file: 0 });
    assert_eq!(std::fs::read(dir.join("a")).unwrap(), b"01,2301,23");
    apply(&dir, &Damage::Folder { file: 0 });
    assert!(dir.join("a").is_dir());
    std::fs::remove_dir_all(&dir).unwrap();
}
