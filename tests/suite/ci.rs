//! End-to-end tests of `memtx-check ci`: blessing baselines, a clean
//! rerun, a spec change caught as a failing property and a changed state
//! space, the JUnit XML (read with roxmltree into this file's own types)
//! and the GitHub step summary, the depth cap, and the branch coverage
//! against the baseline's `coverage.csv` (read into this file's own rows),
//! the committed baselines included.

use crate::support::{bin, fresh, root, run, Run};

use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = fresh(name);
    std::fs::create_dir_all(dir.join("models")).unwrap();
    dir
}

/// `models/FILE` of the repository into `dir/models/`, at `depth`,
/// changed by `edit`.
fn model(dir: &Path, file: &str, depth: usize, edit: impl Fn(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(Path::new("models").join(file)).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    m["bounds"]["depth"] = depth.into();
    edit(&mut m);
    let name = m["name"].as_str().unwrap().to_owned();
    std::fs::write(dir.join(format!("models/{name}.json")), m.to_string()).unwrap();
}

fn ci(dir: &Path, args: &[&str], summary: Option<&Path>) -> Run {
    let mut cmd = bin();
    cmd.current_dir(dir)
        .arg("ci")
        .args(args)
        .args(["--threads", "2"]);
    cmd.env_remove("GITHUB_STEP_SUMMARY");
    if let Some(path) = summary {
        cmd.env("GITHUB_STEP_SUMMARY", path);
    }
    run(&mut cmd)
}

#[derive(Debug)]
struct Suite {
    name: String,
    tests: usize,
    failures: usize,
    cases: Vec<TestCase>,
}

#[derive(Debug)]
struct TestCase {
    name: String,
    failure: Option<String>,
    out: Option<String>,
}

fn junit(path: &Path) -> Vec<Suite> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let number = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap().parse::<usize>().unwrap();
    let suites: Vec<Suite> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .map(|s| Suite {
            name: s.attribute("name").unwrap().to_owned(),
            tests: number(s, "tests"),
            failures: number(s, "failures"),
            cases: s
                .children()
                .filter(|n| n.has_tag_name("testcase"))
                .map(|c| {
                    let child = |tag: &str| {
                        c.children()
                            .find(|n| n.has_tag_name(tag))
                            .map(|n| n.attribute("message").or(n.text()).unwrap().to_owned())
                    };
                    TestCase {
                        name: c.attribute("name").unwrap().to_owned(),
                        failure: child("failure"),
                        out: child("system-out"),
                    }
                })
                .collect(),
        })
        .collect();
    for s in &suites {
        assert_eq!(s.tests, s.cases.len());
        assert_eq!(
            s.failures,
            s.cases.iter().filter(|c| c.failure.is_some()).count()
        );
    }
    assert_eq!(
        number(root, "tests"),
        suites.iter().map(|s| s.tests).sum::<usize>()
    );
    suites
}

fn case<'a>(suites: &'a [Suite], model: &str, name: &str) -> &'a TestCase {
    let suite = suites.iter().find(|s| s.name == model).unwrap();
    suite
        .cases
        .iter()
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("{model}: no case {name}: {suite:?}"))
}

#[test]
fn blessed_baselines_pass_and_a_spec_change_fails_with_its_counterexample() {
    let dir = scratch("bless");
    model(&dir, "default.json", 5, |_| {});
    model(&dir, "ablations/no-gate.json", 5, |_| {});
    let run = ci(&dir, &[], None);
    assert_eq!(run.code, Some(1), "no baseline yet: {}{}", run.out, run.err);
    assert!(
        run.out.contains("no baseline in reports/default"),
        "{}",
        run.out
    );

    let run = ci(&dir, &["--bless"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    assert!(dir.join("reports/no-gate/summary.json").exists());
    assert!(dir.join("traces/no-gate-I1.json").exists());

    let summary = dir.join("step-summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let run = ci(&dir, &["--junit", "junit.xml"], Some(&summary));
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    let suites = junit(&dir.join("junit.xml"));
    assert_eq!(
        suites.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["default", "no-gate"]
    );
    assert!(suites.iter().all(|s| s.failures == 0));
    let i1 = case(&suites, "no-gate", "I1");
    let out = i1.out.as_deref().unwrap();
    assert!(
        out.contains("replay: memtx-check replay ci-reports/traces/no-gate-I1.json"),
        "{out}"
    );
    assert!(dir.join("ci-reports/traces/no-gate-I1.json").exists());
    assert!(case(&suites, "no-gate", "baseline reports/no-gate")
        .failure
        .is_none());
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n## memtx-check ci"),
        "appended: {md}"
    );
    let row = md.lines().find(|l| l.contains("| no-gate |")).unwrap();
    let cells: Vec<_> = row.split(" | ").collect();
    assert_eq!(cells[0], "| ✅");
    assert!(
        cells[2].starts_with("13 hold · I1 violated [unsupported] at 4 (expected)"),
        "{row}"
    );
    assert_eq!(cells[3], "6262", "{row}");
    assert_eq!(cells[5], "same |");

    // The gate restored in the ablation's file: its I1 no longer fails,
    // against its expect, and the state space moved off the baseline.
    model(&dir, "ablations/no-gate.json", 5, |m| {
        m["variant"]["ablate"] = serde_json::json!([]);
    });
    // A default that expects a violation it does not have.
    model(&dir, "default.json", 5, |m| {
        m["expect"]["I2"] = "violated".into()
    });
    let run = ci(&dir, &["--junit", "junit.xml"], None);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    let suites = junit(&dir.join("junit.xml"));
    let i1 = case(&suites, "no-gate", "I1").failure.as_deref().unwrap();
    assert!(
        i1.contains("I1: holds, expected violated [unsupported]"),
        "{i1}"
    );
    let base = case(&suites, "no-gate", "baseline")
        .failure
        .as_deref()
        .unwrap();
    // The model is not the one blessed (issue 38.13): stale, by name.
    assert!(
        base.starts_with("model changed (variant.ablate: [\"gate\"] → [])"),
        "{base}"
    );
    // A baseline of format 1 records no model: its counts are compared.
    let marker = dir.join("reports/no-gate/baseline.json");
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&marker).unwrap()).unwrap();
    old["format"] = "memtx-check baseline 1".into();
    old.as_object_mut().unwrap().remove("model_definition");
    std::fs::write(&marker, old.to_string()).unwrap();
    let run = ci(&dir, &["--junit", "junit.xml"], None);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    let suites = junit(&dir.join("junit.xml"));
    let base = case(&suites, "no-gate", "baseline")
        .failure
        .as_deref()
        .unwrap();
    assert!(base.contains("states: 6,262 → 6,210"), "{base}");
    assert!(
        base.contains("I1: violated [unsupported] at depth 4 → holds"),
        "{base}"
    );
    let i2 = case(&suites, "default", "I2").failure.as_deref().unwrap();
    assert!(i2.contains("I2: holds, expected violated"), "{i2}");
    assert!(case(&suites, "default", "baseline").failure.is_none());
    assert!(run.out.contains("FAIL no-gate"), "{}", run.out);
}

#[test]
fn a_depth_cap_compares_the_baselines_first_levels() {
    let dir = scratch("cap");
    // At these depths the shipped expectations (scope violated at 5 steps,
    // the branches the default reaches at depth 10) are not met yet: this
    // test is about depths, so the models expect only no-gate's I1, and
    // leave its scope finding (5 steps, within depth 6 but not 3) open.
    model(&dir, "ablations/no-gate.json", 6, |m| {
        m["expect"] = serde_json::json!({"I1": "violated", "scope": "any"})
    });
    model(&dir, "default.json", 3, |m| {
        m["expect"] = serde_json::json!({})
    });
    let bless = ci(&dir, &["--bless"], None);
    assert_eq!(bless.code, Some(0), "{}{}", bless.out, bless.err);
    let run = ci(&dir, &["--max-depth", "5", "--junit", "j.xml"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    assert!(run.out.contains("depth at most 5"), "{}", run.out);
    let suites = junit(&dir.join("j.xml"));
    let no_gate = suites.iter().find(|s| s.name == "no-gate").unwrap();
    assert_eq!(no_gate.failures, 0, "{no_gate:?}");
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ci-reports/no-gate/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["bounds"]["depth"], "5");
    // Below the violation's depth the ablation's expect cannot be met.
    let run = ci(&dir, &["--max-depth", "3", "--junit", "j.xml"], None);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    let suites = junit(&dir.join("j.xml"));
    assert!(case(&suites, "no-gate", "I1").failure.is_some());
    assert!(case(&suites, "no-gate", "baseline").failure.is_none());
    // Blessing under a cap is a baseline of that depth, said in its
    // marker; it still judges the expect (exit 1 here).
    let shallow = ci(&dir, &["--bless", "--max-depth", "3"], None);
    assert_eq!(shallow.code, Some(1), "{}{}", shallow.out, shallow.err);
    let marker: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("reports/no-gate/baseline.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(marker["depth"], 3);
}

#[test]
fn two_models_of_one_name_are_refused_before_any_check() {
    let dir = scratch("names");
    model(&dir, "default.json", 2, |_| {});
    std::fs::create_dir_all(dir.join("models/more")).unwrap();
    std::fs::copy(
        dir.join("models/default.json"),
        dir.join("models/more/again.json"),
    )
    .unwrap();
    let run = ci(&dir, &[], None);
    assert_eq!(run.code, Some(2), "{}{}", run.out, run.err);
    assert_eq!(run.err.lines().count(), 1, "{}", run.err);
    assert!(run.err.contains("both named \"default\""), "{}", run.err);
    assert!(!dir.join("ci-reports").exists());
}

/// One row of `coverage.csv`, read by its header.
#[derive(Clone, Debug, PartialEq)]
struct CoverageRow {
    branch: String,
    transitions: u64,
    first_depth: Option<usize>,
}

fn read_coverage(path: &Path) -> Vec<CoverageRow> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("branch,transitions,first_depth"));
    lines
        .map(|l| {
            let cells: Vec<_> = l.split(',').collect();
            assert_eq!(cells.len(), 3, "{l}");
            CoverageRow {
                branch: cells[0].to_owned(),
                transitions: cells[1].parse().unwrap(),
                first_depth: (!cells[2].is_empty()).then(|| cells[2].parse().unwrap()),
            }
        })
        .collect()
}

/// Writes `rows` as the baseline's coverage.csv, as another run of
/// `check` would have: its manifest entry made to match (so the folder
/// still reads as one whole run), its counts per depth left out.
fn write_coverage(path: &Path, rows: &[CoverageRow]) {
    let mut text = String::from("branch,transitions,first_depth\n");
    for r in rows {
        let depth = r.first_depth.map_or(String::new(), |d| d.to_string());
        text.push_str(&format!("{},{},{depth}\n", r.branch, r.transitions));
    }
    std::fs::write(path, &text).unwrap();
    let dir = path.parent().unwrap();
    let _ = std::fs::remove_file(dir.join("coverage-depths.csv"));
    let manifest = dir.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    let files = &mut m["sets"]["check"]["files"];
    files.as_object_mut().unwrap().remove("coverage-depths.csv");
    files["coverage.csv"] =
        serde_json::to_value(memtx_check::outputs::checksum(text.as_bytes())).unwrap();
    std::fs::write(&manifest, m.to_string()).unwrap();
}

/// The baseline with `branch`'s row replaced by `row`.
fn flip(path: &Path, rows: &[CoverageRow], branch: &str, transitions: u64, first: Option<usize>) {
    let mut rows = rows.to_vec();
    let row = rows.iter_mut().find(|r| r.branch == branch).unwrap();
    (row.transitions, row.first_depth) = (transitions, first);
    write_coverage(path, &rows);
}

#[test]
fn a_branch_flipped_in_a_baselines_coverage_fails_by_name_unless_expected() {
    let dir = scratch("coverage");
    model(&dir, "commit-checks.json", 6, |_| {});
    model(&dir, "coverage/views-windows.json", 6, |_| {});
    let bless = ci(&dir, &["--bless"], None);
    assert_eq!(bless.code, Some(0), "{}{}", bless.out, bless.err);
    let path = dir.join("reports/commit-checks/coverage.csv");
    let blessed = std::fs::read_to_string(&path).unwrap();
    let rows = read_coverage(&path);
    for args in [&[][..], &["--max-depth", "3"]] {
        let run = ci(&dir, args, None);
        assert_eq!(run.code, Some(0), "{args:?}: {}{}", run.out, run.err);
    }
    // The cap is no skip: at depth 3 the run reaches fewer branches, and
    // they are the baseline's first reached by depth 3.
    let capped: Vec<_> = read_coverage(&dir.join("ci-reports/commit-checks/coverage.csv"))
        .into_iter()
        .filter(|r| r.transitions > 0)
        .map(|r| (r.branch, r.first_depth))
        .collect();
    let by_3: Vec<_> = rows
        .iter()
        .filter(|r| r.first_depth.is_some_and(|d| d <= 3))
        .map(|r| (r.branch.clone(), r.first_depth))
        .collect();
    assert_eq!(capped, by_3);
    assert!(rows.iter().any(|r| r.first_depth.is_some_and(|d| d > 3)));

    // A branch the run reaches, unreached in the baseline: newly reached.
    let reached = rows.iter().find(|r| r.first_depth.is_some()).unwrap();
    let (name, depth) = (reached.branch.as_str(), reached.first_depth.unwrap());
    assert!(depth <= 3, "{reached:?}");
    flip(&path, &rows, name, 0, None);
    for args in [
        &["--junit", "j.xml"][..],
        &["--max-depth", "3", "--junit", "j.xml"],
    ] {
        let run = ci(&dir, args, None);
        assert_eq!(run.code, Some(1), "{args:?}: {}{}", run.out, run.err);
        let line = format!("coverage: newly reached {name} (first at depth {depth})");
        assert!(
            run.out.contains("FAIL commit-checks"),
            "{args:?}: {}",
            run.out
        );
        let console = run
            .out
            .lines()
            .find(|l| l.contains(&line))
            .unwrap_or_default();
        assert!(
            console.ends_with("— commit-checks"),
            "{args:?}: {}",
            run.out
        );
        let suites = junit(&dir.join("j.xml"));
        let base = case(&suites, "commit-checks", "baseline");
        assert!(base.failure.as_deref().unwrap().contains(&line), "{base:?}");
        assert!(case(&suites, "views-windows", "baseline").failure.is_none());
    }
    // expect.coverage naming it predicts the gain.
    model(&dir, "commit-checks.json", 6, |m| {
        m["expect"]["coverage"] = serde_json::json!([name]);
    });
    let run = ci(&dir, &["--junit", "j.xml"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    let suites = junit(&dir.join("j.xml"));
    let out = case(&suites, "commit-checks", "baseline").out.clone();
    assert!(
        out.as_deref()
            .is_some_and(|o| o.contains(&format!("newly reached {name}"))
                && o.contains("(predicted by expect.coverage)")),
        "{out:?}"
    );
    model(&dir, "commit-checks.json", 6, |_| {});

    // A branch unreached now, reached in the baseline: no longer reached,
    // caught under a cap only when its first depth is within it.
    let unreached = &rows
        .iter()
        .find(|r| r.first_depth.is_none())
        .unwrap()
        .branch;
    flip(&path, &rows, unreached, 9, Some(2));
    let run = ci(&dir, &["--max-depth", "3"], None);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    // (the console line is cut to the terminal's width)
    let line = format!("coverage: no longer reached {unreached} (first at depth 2");
    assert!(run.out.contains(&line), "{}", run.out);
    flip(&path, &rows, unreached, 9, Some(5));
    let run = ci(&dir, &["--max-depth", "3"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    let run = ci(&dir, &[], None);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    assert!(run.out.contains(&format!("no longer reached {unreached}")));

    // --bless writes the coverage back as it was.
    let bless = ci(&dir, &["--bless"], None);
    assert_eq!(bless.code, Some(0), "{}{}", bless.out, bless.err);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), blessed);
    let run = ci(&dir, &[], None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);

    // A baseline without coverage.csv is unreadable, not skipped.
    std::fs::remove_file(&path).unwrap();
    let run = ci(&dir, &[], None);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    assert!(run.out.contains("coverage.csv"), "{}", run.out);
}

#[test]
fn the_committed_baselines_pass_uncapped_and_capped() {
    let dir = scratch("committed");
    let repo = root();
    let copy = |file: &str| {
        let to = dir
            .join("models")
            .join(Path::new(file).file_name().unwrap());
        std::fs::copy(repo.join("models").join(file), to).unwrap();
    };
    for file in [
        "commit-checks.json",
        "coverage/views-windows.json",
        "coverage/revalidate.json",
    ] {
        copy(file);
    }
    let baselines = repo.join("reports");
    let baselines = baselines.to_str().unwrap();
    let run = ci(&dir, &["--baselines", baselines, "--junit", "j.xml"], None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    assert_eq!(junit(&dir.join("j.xml")).len(), 3);
    // The default model (depth 10) and revalidate (9) capped at 5: their
    // baselines' first levels and the branches they first reached by then.
    copy("default.json");
    let args = [
        "--baselines",
        baselines,
        "--max-depth",
        "5",
        "--junit",
        "j.xml",
    ];
    let run = ci(&dir, &args, None);
    assert_eq!(run.code, Some(0), "{}{}", run.out, run.err);
    let suites = junit(&dir.join("j.xml"));
    assert_eq!(suites.len(), 4);
    let reached = |model: &str| {
        read_coverage(&dir.join("ci-reports").join(model).join("coverage.csv"))
            .iter()
            .filter(|r| r.transitions > 0)
            .count()
    };
    let full = |model: &str| {
        read_coverage(&repo.join("reports").join(model).join("coverage.csv"))
            .iter()
            .filter(|r| r.transitions > 0)
            .count()
    };
    for model in ["default", "revalidate"] {
        assert!(
            reached(model) < full(model),
            "{model}: the cap cuts coverage"
        );
    }
}

/// Issue 38.13: a case whose model differs from the one its baseline
/// was blessed with (a lowered bound, a template changed) fails in one
/// line naming each change and how to re-bless, before any count is
/// compared; a reworded description does not, and `--max-depth` stays
/// the one deliberate cap. A format 1 marker (no model recorded) is
/// still read.
#[test]
fn a_model_changed_since_its_baseline_was_blessed_fails_naming_the_change() {
    let dir = scratch("weakened");
    let write = |edit: fn(&mut serde_json::Value)| {
        model(&dir, "coverage/laundering.json", 6, edit);
    };
    write(|_| {});
    let bless = ci(&dir, &["--bless"], None);
    assert_eq!(bless.code, Some(0), "{}", bless.text());
    let marker: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("reports/laundering/baseline.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(marker["format"], "memtx-check baseline 2");
    assert_eq!(marker["model_definition"]["bounds"]["depth"], 6);
    let capped = ci(&dir, &["--max-depth", "5"], None);
    assert_eq!(
        capped.code,
        Some(0),
        "the cap is deliberate: {}",
        capped.text()
    );
    write(|m| m["description"] = "other words".into());
    let reworded = ci(&dir, &[], None);
    assert_eq!(reworded.code, Some(0), "{}", reworded.text());
    write(|m| {
        m["bounds"]["depth"] = 5.into();
        m["templates"][0]["authority"] = 0.9.into();
    });
    let weakened = ci(&dir, &["--junit", "j.xml"], None);
    assert_eq!(weakened.code, Some(1), "{}", weakened.text());
    assert!(weakened.out.contains("baseline stale"), "{}", weakened.out);
    let suites = junit(&dir.join("j.xml"));
    let failure = case(&suites, "laundering", "baseline")
        .failure
        .clone()
        .unwrap();
    let first = failure.lines().next().unwrap();
    assert!(
        first.starts_with("model changed (bounds.depth: 6 → 5; templates[")
            && first.contains("].authority: 0.7 → 0.9")
            && first.ends_with("re-bless: ci --bless"),
        "{first}"
    );
    // A baseline blessed before markers recorded the model: read as it
    // was, its counts compared on the depths both explored.
    let old = serde_json::json!({"format": "memtx-check baseline 1", "model": "laundering",
        "depth": 6, "build": marker["build"]});
    std::fs::write(
        dir.join("reports/laundering/baseline.json"),
        old.to_string(),
    )
    .unwrap();
    write(|_| {});
    let read_old = ci(&dir, &[], None);
    assert_eq!(read_old.code, Some(0), "{}", read_old.text());
}

/// Issue 38.12: what `ci` could write only after its runs (a `traces`
/// that is a file, a models folder `--update-expect` cannot rewrite) is
/// refused before the first model is checked: nothing is blessed.
#[test]
fn ci_refuses_unwritable_folders_before_any_check() {
    let dir = scratch("unwritable");
    model(&dir, "coverage/laundering.json", 4, |_| {});
    std::fs::write(dir.join("traces"), b"a file").unwrap();
    let bless = ci(&dir, &["--bless"], None);
    assert_eq!(bless.code, Some(2), "{}", bless.text());
    assert_eq!(bless.err.lines().count(), 1, "{}", bless.err);
    assert!(
        bless
            .err
            .contains("traces: --traces: traces is not a folder"),
        "{}",
        bless.err
    );
    assert!(!dir.join("reports/laundering").exists(), "nothing blessed");
    // Nor an empty baselines folder left behind (the folder probe made it
    // before the traces probe refused).
    assert!(!dir.join("reports").exists(), "nothing made");
    std::fs::remove_file(dir.join("traces")).unwrap();
    let Some(disk) = crate::support::SmallDisk::mount("ci-models", 1024) else {
        return;
    };
    let models = disk.path("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::copy(
        dir.join("models/laundering.json"),
        models.join("laundering.json"),
    )
    .unwrap();
    disk.read_only();
    let update = ci(
        &dir,
        &[models.to_str().unwrap(), "--bless", "--update-expect"],
        None,
    );
    assert_eq!(update.code, Some(2), "{}", update.text());
    assert_eq!(update.err.lines().count(), 1, "{}", update.err);
    assert!(
        update.err.contains("--update-expect") && update.err.contains("Read-only file system"),
        "{}",
        update.err
    );
    assert!(!dir.join("reports/laundering").exists(), "nothing blessed");
}

/// Issue 51.10: `--bless --update-expect --max-depth D` never weakens an
/// `expect` block: a violation the capped run could not see (the model
/// expects it deeper than D) is kept, and said to be kept; what the
/// capped run sees is written as before.
#[test]
fn update_expect_under_a_cap_keeps_what_the_cap_cannot_see() {
    let dir = scratch("update-cap");
    // no-gate violates I1 at depth 4, as its expect block says.
    model(&dir, "ablations/no-gate.json", 6, |m| {
        m["expect"]["scope"] = "any".into();
    });
    let file = dir.join("models/no-gate.json");
    let expect_of = || -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&file).unwrap()).unwrap()
            ["expect"]
            .clone()
    };
    let before = expect_of();
    let run = ci(
        &dir,
        &["--bless", "--update-expect", "--max-depth", "3"],
        None,
    );
    assert_eq!(expect_of()["I1"], before["I1"], "{}{}", run.out, run.err);
    assert!(
        run.out.contains("expect.I1") && run.out.contains("kept"),
        "{}{}",
        run.out,
        run.err
    );
    // Deep enough to see it, the same violation stays as it is.
    let run = ci(
        &dir,
        &["--bless", "--update-expect", "--max-depth", "5"],
        None,
    );
    assert_eq!(expect_of()["I1"], before["I1"], "{}{}", run.out, run.err);
}
