//! Report sets: written whole, stale files removed, readers refusing a
//! folder that mixes runs.

use super::*;
use std::fs;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memtx-outputs-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Every file in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn check_run(dir: &Path, traces: &Path, growth: &str, violated: &[&str]) -> Result<(), String> {
    let mut set = ReportSet::new(dir, "check", "m", "digest-1").with_traces(traces);
    set.add("growth.csv", growth.as_bytes())?;
    set.add_with("summary.json", |w| w.write_all(b"{}\n"))?;
    for inv in violated {
        set.add_trace(
            &format!("m-{inv}.json"),
            format!("{inv} {growth}").as_bytes(),
        )?;
    }
    set.retire_traces(["I1", "I2", "G3"].map(|i| format!("m-{i}.json")));
    set.commit()
}

#[test]
fn a_committed_set_is_whole_and_replaces_the_earlier_run() {
    let dir = scratch("replace");
    let (reports, traces) = (dir.join("reports/m"), dir.join("traces"));
    fs::create_dir_all(&traces).unwrap();
    fs::write(traces.join("hand-written.json"), "keep").unwrap();
    check_run(&reports, &traces, "first\n", &["I1", "G3"]).unwrap();
    assert_eq!(
        listing(&reports),
        ["growth.csv", "manifest.json", "summary.json"]
    );
    assert_eq!(
        listing(&traces),
        ["hand-written.json", "m-G3.json", "m-I1.json"]
    );
    verify_set(&reports, "check", &["growth.csv", "summary.json"]).unwrap();
    // A random run of the same model stays beside the check.
    let mut random = ReportSet::new(&reports, "random", "m", "digest-1").with_traces(&traces);
    random.add("random.csv", b"trace\n").unwrap();
    random.add_trace("m-random-I1.json", b"walk\n").unwrap();
    random.commit().unwrap();
    // A file an earlier check wrote and this one does not (coverage.csv
    // from a newer version, say) goes, and so does the stale I1 trace.
    let mut set = ReportSet::new(&reports, "check", "m", "digest-1");
    set.add("coverage.csv", b"x\n").unwrap();
    set.commit().unwrap();
    check_run(&reports, &traces, "second\n", &["G3"]).unwrap();
    assert_eq!(
        listing(&reports),
        ["growth.csv", "manifest.json", "random.csv", "summary.json"]
    );
    assert_eq!(
        listing(&traces),
        ["hand-written.json", "m-G3.json", "m-random-I1.json"]
    );
    assert_eq!(
        fs::read_to_string(reports.join("growth.csv")).unwrap(),
        "second\n"
    );
    verify_set(&reports, "random", &["random.csv"]).unwrap();
    // A check of a changed model: the random run of the old one is stale.
    let mut set = ReportSet::new(&reports, "check", "m", "digest-2");
    set.add("growth.csv", b"third\n").unwrap();
    set.add("summary.json", b"{}\n").unwrap();
    set.commit().unwrap();
    assert_eq!(
        listing(&reports),
        ["growth.csv", "manifest.json", "summary.json"]
    );
    assert!(verify_set(&reports, "random", &["random.csv"]).is_ok());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_reader_refuses_a_folder_that_mixes_runs() {
    let dir = scratch("mixed");
    let (reports, traces) = (dir.join("reports/m"), dir.join("traces"));
    check_run(&reports, &traces, "first\n", &[]).unwrap();
    // A kill between two renames of a later run: its growth.csv is in
    // place, the manifest still names the first run.
    fs::write(reports.join("growth.csv"), "second\n").unwrap();
    let e = verify_set(&reports, "check", &["growth.csv", "summary.json"]).unwrap_err();
    assert!(
        e.contains("growth.csv: not the file run") && e.contains("the folder mixes runs"),
        "{e}"
    );
    // A kill before the manifest was completed.
    let manifest = reports.join(MANIFEST);
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    let e = verify_set(&reports, "check", &["summary.json"]).unwrap_err();
    assert!(e.contains("did not finish writing its files"), "{e}");
    // A manifest given twice the same key, or not ours.
    fs::write(&manifest, r#"{"format": "x", "format": "y", "sets": {}}"#).unwrap();
    assert!(verify_set(&reports, "check", &[])
        .unwrap_err()
        .contains("given twice"));
    fs::write(&manifest, r#"{"format": "x", "sets": {}}"#).unwrap();
    assert!(verify_set(&reports, "check", &[])
        .unwrap_err()
        .contains("format"));
    // A folder from before report sets is read as it is.
    fs::remove_file(&manifest).unwrap();
    verify_set(&reports, "check", &["growth.csv"]).unwrap();
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_uncommitted_set_leaves_nothing_and_names_stay_inside() {
    let dir = scratch("dropped");
    {
        let mut set = ReportSet::new(&dir, "check", "m", "d").with_traces(&dir);
        set.add("growth.csv", b"x").unwrap();
        assert_eq!(listing(&dir).len(), 1, "a temporary file while writing");
        assert!(set.add("../escape.csv", b"x").is_err());
        assert!(set.add_trace("/tmp/x", b"x").is_err());
        assert!(set
            .add("growth.csv", b"y")
            .unwrap_err()
            .contains("added twice"));
    }
    assert!(listing(&dir).is_empty());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_manifest_cannot_steer_a_run_into_removing_other_files() {
    let dir = scratch("steer");
    let (reports, traces) = (dir.join("reports/m"), dir.join("traces"));
    fs::create_dir_all(&reports).unwrap();
    fs::create_dir_all(&traces).unwrap();
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious").unwrap();
    fs::write(traces.join("m-I1.json"), "precious too").unwrap();
    let sum = checksum(b"precious");
    let other = checksum(b"not what the file holds");
    let entry = |path: &str, sum: &Checksum| {
        format!(
            r#"{{"{path}": {{"bytes": {}, "fnv1a64": "{}"}}}}"#,
            sum.bytes, sum.fnv1a64
        )
    };
    fs::write(
        reports.join(MANIFEST),
        format!(
            r#"{{"format": "memtx-check report set 1", "sets": {{"check": {{"model": "m",
                "model_digest": "d", "run": "r", "complete": true,
                "files": {}, "traces": {}}}}}}}"#,
            entry("../../victim.txt", &sum),
            entry("m-I1.json", &other)
        ),
    )
    .unwrap();
    let mut set = ReportSet::new(&reports, "check", "m", "d").with_traces(&traces);
    set.add("growth.csv", b"x").unwrap();
    set.commit().unwrap();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
    assert!(traces.join("m-I1.json").exists());
    let _ = fs::remove_dir_all(&dir);
}
