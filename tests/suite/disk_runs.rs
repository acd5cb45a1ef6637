//! A `--disk` run (the visited set and the levels in a folder, see
//! docs/disk.md) is the in-memory run: the same counts per level, the same
//! verdicts, the same shortest counterexamples and the same coverage, on
//! every shipped model and thread count, with a budget so small that every
//! level is written out in many runs; and the folder it leaves is a
//! checkpoint that `--resume` continues to the same end.

use crate::support::model_at as config;

use crate::support::{absent, bin, check_options, copy_dir, json_files};

use memtx_check::check::{self, CheckOptions, CheckReport};
use memtx_check::engine::LevelStats;
use std::path::{Path, PathBuf};

/// What a run found, timings left out.
fn key(r: &CheckReport) -> impl PartialEq + std::fmt::Debug {
    let levels: Vec<_> = r.levels.iter().map(LevelStats::counts).collect();
    let traces: Vec<_> = r
        .counterexamples
        .iter()
        .map(|c| c.trace.to_json_string())
        .collect();
    (
        levels,
        r.complete,
        r.properties.clone(),
        traces,
        r.coverage.clone(),
        r.stopped.clone(),
    )
}

#[test]
fn a_disk_run_is_the_in_memory_run_on_every_shipped_model() {
    let models = json_files(&["models"]);
    assert!(models.len() >= 20, "{} models", models.len());
    for (n, path) in models.iter().enumerate() {
        let depth = if path.ends_with("default.json") { 6 } else { 5 };
        let config = config(path, depth);
        // A checkpoint keeps the in-memory run's parent links.
        let checkpoint = absent(&format!("checkpoint-{n}"));
        let memory = check::run(
            &config,
            check_options(2, |o| o.checkpoint = Some(checkpoint.clone())),
        );
        let threads = 1 + n % 2;
        let dir = absent(&format!("model-{n}"));
        let disk = check::run(
            &config,
            check_options(threads, |o| {
                o.disk = Some(dir.clone());
                // A quarter of it, 64 KiB, per batch: a level of more than
                // a thousand states is written in several runs.
                o.max_memory = Some(1 << 18);
            }),
        );
        assert_eq!(
            key(&disk),
            key(&memory),
            "{} with {threads} threads",
            path.display()
        );
        // Every state of every level but the last has the same position
        // and the same parent (the first discoverer) both ways.
        let links = links_files(&checkpoint);
        assert_eq!(links.len(), depth - 1, "{}", path.display());
        assert_eq!(links_files(&dir), links, "{}", path.display());
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&checkpoint).unwrap();
    }
}

/// The parent-links files a run left in `dir`, by name, with their bytes.
fn links_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("links-")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_disk_run_under_symmetry_is_the_in_memory_one() {
    let mut config = config(Path::new("models/default.json"), 7);
    config.symmetry = true;
    let memory = check::run(&config, CheckOptions::quiet(2));
    let dir = absent("symmetry");
    let disk = check::run(
        &config,
        check_options(2, |o| {
            o.disk = Some(dir.clone());
            o.max_memory = Some(1 << 20);
        }),
    );
    assert_eq!(key(&disk), key(&memory));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The report files a run writes, timings and folder names left out.
fn reports(out: &Path) -> Vec<String> {
    let growth = std::fs::read_to_string(out.join("growth.csv")).unwrap();
    let growth: String = growth
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_owned() + "\n")
        .collect();
    let coverage = std::fs::read_to_string(out.join("coverage.csv")).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let verdicts: Vec<String> = summary["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} {} {}", p["name"], p["verdict"], p["depth"]))
        .collect();
    let mut traces: Vec<String> = std::fs::read_dir(out.join("traces"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    traces.sort();
    let mut all = vec![growth, coverage, verdicts.join("\n")];
    all.extend(traces);
    all
}

fn run_check(out: &Path, extra: &[&str]) -> i32 {
    let traces = out.join("traces");
    let status = bin()
        .args(["check", "models/default.json", "--depth", "7", "--out"])
        .arg(out)
        .arg("--traces")
        .arg(&traces)
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    status.code().unwrap()
}

#[test]
fn a_stopped_disk_run_resumes_to_the_reports_of_a_run_in_memory() {
    let root = absent("resume");
    let dir = root.join("disk");
    let disk = dir.to_str().unwrap();
    let memory = run_check(&root.join("memory"), &[]);
    // Stopped after five levels, as a kill between levels would.
    let stopped = run_check(
        &root.join("stopped"),
        &["--disk", disk, "--max-memory", "2M", "--max-levels", "5"],
    );
    assert_eq!(stopped, 3);
    let resumed = run_check(
        &root.join("resumed"),
        &["--resume", disk, "--max-memory", "2M"],
    );
    assert_eq!(
        (memory, resumed),
        (1, 1),
        "the scope finding, found both ways"
    );
    assert_eq!(
        reports(&root.join("resumed")),
        reports(&root.join("memory"))
    );
    // The folder holds one sealed level, its links and its runs: no
    // scratch, no temporary level.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.first().map(String::as_str), Some("level-0006"));
    assert!(
        names.iter().all(|n| n == "level-0006"
            || n == "visited"
            || (n.starts_with("links-") && n.ends_with(".bin"))),
        "{names:?}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_disk_folder_is_not_resumed_as_a_checkpoint_of_memory_nor_the_reverse() {
    let root = absent("kinds");
    let disk = root.join("disk");
    let checkpoint = root.join("checkpoint");
    let out = root.join("out");
    assert_eq!(
        run_check(
            &out,
            &["--disk", disk.to_str().unwrap(), "--max-levels", "3"]
        ),
        3
    );
    assert_eq!(
        run_check(
            &out,
            &[
                "--checkpoint",
                checkpoint.to_str().unwrap(),
                "--max-levels",
                "3"
            ]
        ),
        3
    );
    let refused = bin()
        .args(["check", "models/default.json", "--depth", "7", "--out"])
        .arg(&out)
        .arg("--disk")
        .arg(&disk)
        .arg("--resume")
        .arg(&checkpoint)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--disk"), "{err}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_damaged_disk_folder_is_refused_in_one_line_naming_the_file() {
    let root = absent("damaged");
    let dir = root.join("disk");
    let out = root.join("out");
    assert_eq!(
        run_check(
            &out,
            &["--disk", dir.to_str().unwrap(), "--max-levels", "5"]
        ),
        3
    );
    let level = dir.join("level-0004");
    let runs = dir.join("visited");
    let mut run_files: Vec<PathBuf> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    run_files.sort();
    let victims = [
        level.join("part-07.enc"),
        level.join("part-63.fps"),
        run_files[0].clone(),
    ];
    for victim in victims {
        let copy = root.join("copy");
        let _ = std::fs::remove_dir_all(&copy);
        copy_dir(&dir, &copy);
        let target = copy.join(victim.strip_prefix(&dir).unwrap());
        let mut bytes = std::fs::read(&target).unwrap();
        assert!(!bytes.is_empty(), "{}", target.display());
        bytes[0] ^= 1;
        std::fs::write(&target, &bytes).unwrap();
        let refused = bin()
            .args(["check", "models/default.json", "--depth", "7", "--out"])
            .arg(&out)
            .arg("--resume")
            .arg(&copy)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&target.display().to_string()), "{err}");
    }
    std::fs::remove_dir_all(&root).unwrap();
}
