//! End-to-end tests of `check`'s run control: a run interrupted after a
//! level and resumed from its checkpoint writes exactly what an
//! uninterrupted run writes; a checkpoint of another model, or a damaged
//! or altered one, is refused; the memory guard stops cleanly with exit
//! 3; 128-bit fingerprints.

use crate::support::{absent, check, copy_dir, text, under_address_limit};

use std::path::Path;

/// A run's files without timings: growth.csv without its last column,
/// summary.json without `elapsed_ms` and with trace paths relative, and
/// every trace file.
fn outputs(out: &Path, traces: &Path) -> Vec<(String, String)> {
    let growth: String = std::fs::read_to_string(out.join("growth.csv"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_owned() + "\n")
        .collect();
    let mut summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    summary.as_object_mut().unwrap().remove("elapsed_ms");
    let summary = summary
        .to_string()
        .replace(&traces.display().to_string(), "T");
    let mut files = vec![("growth".into(), growth), ("summary".into(), summary)];
    let mut names: Vec<_> = std::fs::read_dir(traces)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        files.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    files
}

#[test]
fn an_interrupted_and_resumed_check_writes_what_an_uninterrupted_one_does() {
    let model = "models/ablations/no-cascade.json";
    let dir = absent("resume");
    let p = |s: &str| dir.join(s).display().to_string();
    let whole = check(&[
        model,
        "--depth",
        "7",
        "--threads",
        "2",
        "--out",
        &p("a"),
        "--traces",
        &p("ta"),
    ]);
    assert_eq!(whole.status.code(), Some(1), "{}", text(&whole));
    let cut = check(&[
        model,
        "--depth",
        "7",
        "--threads",
        "1",
        "--out",
        &p("b"),
        "--traces",
        &p("tb"),
        "--checkpoint",
        &p("c"),
        "--max-levels",
        "5",
    ]);
    assert_eq!(cut.status.code(), Some(3), "{}", text(&cut));
    assert!(
        text(&cut).contains("the bound was NOT reached"),
        "{}",
        text(&cut)
    );
    let resumed = check(&[
        model,
        "--depth",
        "7",
        "--threads",
        "2",
        "--out",
        &p("b"),
        "--traces",
        &p("tb"),
        "--resume",
        &p("c"),
    ]);
    assert_eq!(resumed.status.code(), Some(1), "{}", text(&resumed));
    let (a, b) = (
        outputs(&dir.join("a"), &dir.join("ta")),
        outputs(&dir.join("b"), &dir.join("tb")),
    );
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.len() >= 6
            && names.contains(&"no-cascade-I2.json")
            && names.contains(&"no-cascade-I2.itf.json"),
        "growth, summary and each violation's trace with its ITF twin: {names:?}"
    );
    assert_eq!(a, b);
    assert!(
        !dir.join("a").join("links").exists(),
        "spilled links are removed"
    );
    // Another model, or other bounds, may not resume this checkpoint.
    for args in [
        vec!["models/ablations/no-gate.json", "--depth", "7"],
        vec![model, "--depth", "8"],
        vec![model, "--depth", "7", "--fingerprint", "128"],
    ] {
        let mut args = args.clone();
        let c = p("c");
        args.extend(["--out", &c, "--resume", &c]);
        let refused = check(&args);
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&refused)
        );
        let err = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Overwrites `bytes` at `at` in `path`.
fn patch(path: &Path, at: usize, bytes: &[u8]) {
    let mut all = std::fs::read(path).unwrap();
    all[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, all).unwrap();
}

#[test]
fn a_damaged_or_altered_checkpoint_is_refused_in_one_line() {
    let model = "models/ablations/no-cascade.json";
    let dir = absent("damaged");
    let p = |s: &str| dir.join(s).display().to_string();
    let cut = check(&[
        model,
        "--depth",
        "6",
        "--out",
        &p("cut"),
        "--traces",
        &p("cut-traces"),
        "--checkpoint",
        &p("original"),
        "--max-levels",
        "4",
    ]);
    assert_eq!(cut.status.code(), Some(3), "{}", text(&cut));
    let level = Path::new("level-0003");
    type Damage = fn(&Path);
    let damages: [(&str, &str, Damage); 9] = [
        ("intact", "", |_| ()),
        ("truncated", "frontier.bin: 100 bytes", |c| {
            let f = std::fs::File::options()
                .write(true)
                .open(c.join("level-0003/frontier.bin"))
                .unwrap();
            f.set_len(100).unwrap();
        }),
        ("flipped", "visited.bin: its checksum differs", |c| {
            patch(&c.join("level-0003/visited.bin"), 20, &[0x5a])
        }),
        ("links", "links-0002.bin: its checksum differs", |c| {
            patch(&c.join("links-0002.bin"), 3, &[0xff])
        }),
        (
            "huge count",
            "frontier.bin: holds 72057594037927935 items of 8 bytes where",
            |c| patch(&c.join("level-0003/frontier.bin"), 0, &[0xff; 7]),
        ),
        ("meta", "meta.json: its checksum differs", |c| {
            let meta = c.join("level-0003/meta.json");
            let text = std::fs::read_to_string(&meta).unwrap();
            std::fs::write(&meta, text.replacen("[3,", "[2,", 1)).unwrap();
        }),
        ("not a file", "frontier.bin: not a regular file", |c| {
            let f = c.join("level-0003/frontier.bin");
            std::fs::remove_file(&f).unwrap();
            std::fs::create_dir(&f).unwrap();
        }),
        ("missing", "links-0001.bin: No such file", |c| {
            std::fs::remove_file(c.join("links-0001.bin")).unwrap()
        }),
        ("older", "made by an older build", |c| {
            let meta = c.join("level-0003/meta.json");
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&meta).unwrap()).unwrap();
            std::fs::write(&meta, v["meta"].to_string()).unwrap();
        }),
    ];
    for (what, names, damage) in damages {
        let copy = dir.join(what.replace(' ', "-"));
        copy_dir(&dir.join("original"), &copy);
        damage(&copy);
        let out = copy.join("out");
        let traces = copy.join("traces");
        let (c, o, t) = (
            copy.display().to_string(),
            out.display().to_string(),
            traces.display().to_string(),
        );
        let resumed = check(&[
            model, "--depth", "6", "--resume", &c, "--out", &o, "--traces", &t,
        ]);
        let err = String::from_utf8_lossy(&resumed.stderr);
        if what == "intact" {
            assert_eq!(resumed.status.code(), Some(1), "{}", text(&resumed));
            continue;
        }
        assert_eq!(resumed.status.code(), Some(2), "{what}: {}", text(&resumed));
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
        assert!(
            err.contains(&copy.join(level).display().to_string()) || err.contains(&c),
            "{what}: the line names the file: {err}"
        );
        assert!(err.contains(names), "{what}: {err}");
        assert!(!out.exists() && !traces.exists(), "{what}: nothing written");
        assert!(
            !copy.join("level-0004").exists(),
            "{what}: nothing checkpointed"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_memory_guard_stops_cleanly_with_exit_3() {
    let dir = absent("guard");
    let out = dir.join("out").display().to_string();
    let o = check(&["models/default.json", "--max-memory", "1M", "--out", &out]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("stopped before depth 1") && t.contains("NOT reached"),
        "{t}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["stopped"]["reason"], "memory_bound");
    assert_eq!(summary["complete"], false);
    assert_eq!(summary["states"], 1);
    for bad in ["12X", "0", "-3G"] {
        let o = check(&["models/default.json", "--max-memory", bad, "--out", &out]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wide_fingerprints_find_the_same_and_say_so() {
    let dir = absent("wide");
    let p = |s: &str| dir.join(s).display().to_string();
    let narrow = check(&[
        "models/ablations/no-gate.json",
        "--depth",
        "5",
        "--out",
        &p("a"),
        "--traces",
        &p("ta"),
    ]);
    let wide = check(&[
        "models/ablations/no-gate.json",
        "--depth",
        "5",
        "--out",
        &p("b"),
        "--traces",
        &p("tb"),
        "--fingerprint",
        "128",
    ]);
    assert_eq!(
        (narrow.status.code(), wide.status.code()),
        (Some(1), Some(1))
    );
    assert!(text(&wide).contains("(128-bit)"), "{}", text(&wide));
    let states = |d: &str| {
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(d).join("summary.json")).unwrap(),
        )
        .unwrap();
        (
            s["states"].clone(),
            s["collision_probability"]["fingerprint_bits"].clone(),
        )
    };
    assert_eq!(states("a").0, states("b").0);
    assert_eq!((states("a").1, states("b").1), (64.into(), 128.into()));
    let bad = check(&["models/default.json", "--fingerprint", "32"]);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Under an address-space limit (`ulimit -v`, issue 28 item 10) the
/// default memory guard stops the run cleanly, exit 3 with the completed
/// levels reported, where it used to abort on a failed allocation
/// (exit 134, "memory allocation failed").
#[test]
fn an_address_space_limit_bounds_the_default_memory_guard() {
    let dir = absent("ulimit-v");
    stops_cleanly_under(&dir, "--threads 2", "are complete and checked");
}

/// `check` of the default model to depth 9 with `extra` under a 400 MB
/// address-space limit, its reports in `dir/out`: it stops cleanly, exit
/// 3, its stopped line saying `why`, its summary written (or the test is
/// skipped where the shell cannot set a limit).
fn stops_cleanly_under(dir: &Path, extra: &str, why: &str) {
    let (out, traces) = (dir.join("out"), dir.join("traces"));
    let line = format!(
        "check models/default.json --depth 9 --properties I1,I2,G3 --out '{}' --traces '{}' {extra}",
        out.display(),
        traces.display()
    );
    let Some(run) = under_address_limit(400_000, &line) else {
        return;
    };
    let said = text(&run);
    assert_eq!(run.status.code(), Some(3), "{extra}: {said}");
    assert!(
        said.contains("stopped before depth") && said.contains(why),
        "{extra}: {said}"
    );
    assert!(out.join("summary.json").exists(), "{extra}: {said}");
}

#[test]
fn a_checkpoint_folder_holds_one_run_and_a_resume_skips_a_stray_level() {
    let dir = absent("one-run");
    let p = |s: &str| dir.join(s).display().to_string();
    let run = |model: &str, depth: &str, extra: &[&str]| {
        let mut args = vec![model, "--depth", depth];
        let (out, traces) = (p("o"), p("t"));
        args.extend(["--out", &out, "--traces", &traces]);
        args.extend_from_slice(extra);
        check(&args)
    };
    let c = p("c");
    // Another model's deeper checkpoint is in the way: refused, and kept.
    let other = run(
        "models/ablations/no-gate.json",
        "7",
        &["--checkpoint", &c, "--max-levels", "6"],
    );
    // Exit 1 or 3: stopped early, with or without a violation found.
    assert!(
        matches!(other.status.code(), Some(1 | 3)),
        "{}",
        text(&other)
    );
    let refused = run("models/default.json", "6", &["--checkpoint", &c]);
    let err = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("level-0005: not a checkpoint of this run"),
        "{err}"
    );
    assert!(dir.join("c/level-0005/meta.json").exists(), "kept");
    // A user's file beside a checkpoint is named, not removed.
    std::fs::remove_dir_all(dir.join("c")).unwrap();
    let cut = run(
        "models/default.json",
        "6",
        &["--checkpoint", &c, "--max-levels", "4"],
    );
    assert!(matches!(cut.status.code(), Some(1 | 3)), "{}", text(&cut));
    std::fs::write(dir.join("c/notes.txt"), "mine").unwrap();
    let refused = run("models/default.json", "6", &["--checkpoint", &c]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(text(&refused).contains("(notes.txt)"), "{}", text(&refused));
    std::fs::remove_file(dir.join("c/notes.txt")).unwrap();
    // An empty stray level deeper than the checkpoint is skipped, named.
    std::fs::create_dir(dir.join("c/level-0009")).unwrap();
    let resumed = run("models/default.json", "6", &["--resume", &c]);
    let err = String::from_utf8_lossy(&resumed.stderr).into_owned();
    assert_eq!(resumed.status.code(), Some(1), "{}", text(&resumed));
    assert!(
        err.contains("warning: ") && err.contains("level-0009: skipped ("),
        "{err}"
    );
    // The stray level is still refused by a fresh run; without it, a
    // fresh run over its own earlier checkpoint clears it and goes on.
    let refused = run("models/default.json", "6", &["--checkpoint", &c]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    std::fs::remove_dir(dir.join("c/level-0009")).unwrap();
    let again = run("models/default.json", "6", &["--checkpoint", &c]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `--disk` run of no-gate to depth 6 in `dir/d`, with `extra` flags.
fn disk_run(dir: &Path, extra: &[&str]) -> std::process::Output {
    let d = dir.join("d").display().to_string();
    let (out, traces) = (
        dir.join("out").display().to_string(),
        dir.join("traces").display().to_string(),
    );
    let mut args = vec![
        "models/ablations/no-gate.json",
        "--depth",
        "6",
        "--disk",
        &d,
    ];
    args.extend(["--out", &out, "--traces", &traces]);
    args.extend_from_slice(extra);
    check(&args)
}

/// [`disk_run`] stopped after three levels; its folder.
fn stopped_disk_run(dir: &Path, extra: &[&str]) -> String {
    let o = disk_run(dir, &[&["--max-levels", "3"], extra].concat());
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    dir.join("d").display().to_string()
}

fn one_line_refusal(o: &std::process::Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    assert_eq!(err.lines().count(), 1, "{err}");
    for needle in needles {
        assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    }
}

/// Issue 38.6: a resume of a `--disk` run refuses a `.scratch` symlink
/// planted in its folder, as a fresh run does, and never writes into or
/// removes from the folder it names.
#[test]
fn a_resume_refuses_a_planted_scratch_link_and_leaves_its_target_alone() {
    let dir = absent("planted-scratch");
    let d = stopped_disk_run(&dir, &[]);
    let user = dir.join("user");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("cand-00-0000.bin"), b"mine").unwrap();
    std::os::unix::fs::symlink(&user, Path::new(&d).join(".scratch")).unwrap();
    let o = disk_run(&dir, &["--resume", &d, "--max-memory", "1M"]);
    one_line_refusal(&o, &[".scratch: a symlink"]);
    assert_eq!(
        std::fs::read(user.join("cand-00-0000.bin")).unwrap(),
        b"mine"
    );
    assert_eq!(
        std::fs::read_dir(&user).unwrap().count(),
        1,
        "nothing written there"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38.12: a resume that differs by `--symmetry` alone says so, and
/// how to resume.
#[test]
fn a_resume_without_the_checkpoints_symmetry_names_it() {
    let dir = absent("resume-symmetry");
    let d = stopped_disk_run(&dir, &["--symmetry"]);
    let o = disk_run(&dir, &["--resume", &d]);
    one_line_refusal(
        &o,
        &[
            "made with --symmetry",
            "this run is without it: resume with --symmetry",
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38.12: one folder given to `--disk` and to `--out` or
/// `--traces` (or a folder inside it) is refused before the run, in a
/// line that names both flags, not blamed on "another run"; nothing is
/// made, so the next `--disk` run of that folder is not blocked.
#[test]
fn a_folder_given_to_disk_and_to_out_or_traces_is_refused_naming_both() {
    let dir = absent("overlap");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.join("d").display().to_string();
    let inside = dir.join("d/t").display().to_string();
    for (flag, value, how) in [
        ("--out", d.as_str(), "is this run's --disk folder"),
        ("--traces", d.as_str(), "is this run's --disk folder"),
        (
            "--traces",
            inside.as_str(),
            "overlaps this run's --disk folder",
        ),
    ] {
        let o = check(&[
            "models/ablations/no-gate.json",
            "--depth",
            "4",
            "--disk",
            &d,
            flag,
            value,
        ]);
        one_line_refusal(&o, &[&format!("{value}: {flag}: {how}")]);
        assert!(!Path::new(&d).exists(), "{flag}: nothing made");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 51.5: under an address-space limit a `--disk` run, and a run
/// given a `--max-memory` the limit leaves no room for, stop cleanly
/// (exit 3, the completed levels reported) where they aborted on a
/// failed allocation (exit 134).
#[test]
fn an_address_space_limit_stops_a_disk_run_and_any_max_memory_cleanly() {
    let dir = absent("ulimit-v-disk");
    for (tag, extra) in [
        ("disk", "--max-memory 100M --disk"),
        ("memory", "--max-memory 4G --checkpoint"),
    ] {
        let folder = dir.join(tag).join("folder");
        let extra = format!("--threads 1 {extra} '{}'", folder.display());
        stops_cleanly_under(&dir.join(tag), &extra, "address space");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 51.12: a resume refuses up front, as a fresh run does, an entry
/// of the wrong kind under a name the checkpoint will write (here a
/// folder where a level's links file goes), rather than explore up to
/// it and stop there.
#[test]
fn a_resume_refuses_up_front_an_entry_where_it_will_write() {
    let dir = absent("resume-in-the-way");
    let p = |s: &str| dir.join(s).display().to_string();
    let c = p("c");
    let run = |extra: &[&str]| {
        let (out, traces) = (p("o"), p("t"));
        let mut args = vec!["models/ablations/no-gate.json", "--depth", "6"];
        args.extend(["--out", &out, "--traces", &traces]);
        args.extend_from_slice(extra);
        check(&args)
    };
    let cut = run(&["--checkpoint", &c, "--max-levels", "3"]);
    assert!(matches!(cut.status.code(), Some(1 | 3)), "{}", text(&cut));
    std::fs::create_dir_all(dir.join("c/links-0005.bin")).unwrap();
    let o = run(&["--resume", &c]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert_eq!(said.trim_end().lines().count(), 1, "{said}");
    assert!(said.contains("links-0005.bin"), "{said}");
    assert!(dir.join("c/links-0005.bin").is_dir(), "kept as it was");
    let _ = std::fs::remove_dir_all(&dir);
}
