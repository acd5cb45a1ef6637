//! Every mutant of `.ci/mutants/` still applies: its `- ` lines, joined
//! by newlines, occur exactly once in its `file:` (the rule of
//! `.ci/mutants/run`, which plants the bug by replacing that text), so a
//! refactor that moves or rewrites the code a mutant names fails here
//! rather than silently in the next mutation evaluation. Read with this
//! file's own parser; the mutants are not built or run.

use crate::support::root;
use std::path::PathBuf;

/// One `.mutant` file: the source file it names and the text it replaces.
#[derive(Debug)]
struct Mutant {
    name: String,
    file: String,
    old: String,
}

/// The `file: PATH` line (the first) and the `- ` lines of a mutant; an
/// error naming what is missing.
fn parse(name: &str, text: &str) -> Result<Mutant, String> {
    let file = text
        .split('\n')
        .find_map(|line| line.strip_prefix("file: "))
        .ok_or_else(|| format!("{name}: no `file: ` line"))?;
    let old: Vec<&str> = text
        .split('\n')
        .filter_map(|line| line.strip_prefix("- "))
        .collect();
    if old.is_empty() {
        return Err(format!("{name}: no `- ` line"));
    }
    Ok(Mutant {
        name: name.to_owned(),
        file: file.to_owned(),
        old: old.join("\n"),
    })
}

/// Every `.ci/mutants/*.mutant`, sorted.
fn mutant_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(".ci/mutants"))
        .expect("read .ci/mutants/")
        .map(|entry| entry.expect("a .ci/mutants/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mutant"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_mutant_s_lines_occur_exactly_once_in_its_file() {
    let files = mutant_files();
    assert!(files.len() >= 30, "{} mutants", files.len());
    let mut problems = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).expect("read a mutant");
        let mutant = match parse(&name, &text) {
            Ok(mutant) => mutant,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let source = match std::fs::read_to_string(root().join(&mutant.file)) {
            Ok(source) => source,
            Err(e) => {
                problems.push(format!("{}: {}: {e}", mutant.name, mutant.file));
                continue;
            }
        };
        let n = source.matches(mutant.old.as_str()).count();
        if n != 1 {
            problems.push(format!(
                "{}: occurs {n} times in {}",
                mutant.name, mutant.file
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_parser_reads_the_file_and_every_minus_line() {
    let m = parse(
        "x.mutant",
        "# a bug\n# kind: unsafe\nfile: src/a.rs\n- one\n- two\n+ three\n",
    )
    .unwrap();
    assert_eq!(m.file, "src/a.rs");
    assert_eq!(m.old, "one\ntwo");
    assert!(parse("y.mutant", "- one\n+ two\n")
        .unwrap_err()
        .contains("no `file: ` line"));
    assert!(parse("z.mutant", "file: src/a.rs\n+ two\n")
        .unwrap_err()
        .contains("no `- ` line"));
}

/// `.ci/mutants/run --baseline-only` on a tree holding `models/` only,
/// judged by the binary under test, run from a folder outside any tree:
/// its exit code and stdout.
fn judge_baseline(tree: &std::path::Path, scratch: &std::path::Path) -> (i32, String) {
    let cwd = scratch.join("elsewhere");
    std::fs::create_dir_all(&cwd).expect("create a working folder");
    let out = std::process::Command::new(root().join(".ci/mutants/run"))
        .current_dir(&cwd)
        .env("MUTANTS_WORK", scratch.join("work"))
        .args(["--exe", crate::support::BIN, "--baseline-only", "--tree"])
        .arg(tree)
        .output()
        .expect("run .ci/mutants/run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), stdout)
}

#[test]
fn the_runner_judges_coverage_expectations_and_depths_from_any_folder() {
    // no-cascade expects violations at depth 5: read as depth 0 (the
    // model's path taken relative to where the runner was started), they
    // were gone; a branch its expect.coverage names and the model never
    // reaches went unnoticed (verdicts only).
    let scratch = crate::support::fresh("runner");
    let tree = scratch.join("tree");
    std::fs::create_dir_all(tree.join("models")).expect("create models/");
    let model = "models/ablations/no-cascade.json";
    let text = std::fs::read_to_string(root().join(model)).expect("read the model");
    std::fs::write(tree.join("models/no-cascade.json"), &text).expect("write the model");
    let (code, stdout) = judge_baseline(&tree, &scratch);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("keeps every expect block"), "{stdout}");

    let mut json: serde_json::Value = serde_json::from_str(&text).expect("the model is JSON");
    json["expect"]["coverage"] = serde_json::json!(["rebuild.dropped_revoked"]);
    std::fs::write(tree.join("models/no-cascade.json"), json.to_string()).expect("write");
    let (code, stdout) = judge_baseline(&tree, &scratch);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.contains("coverage [rebuild.dropped_revoked] unreached on no-cascade"),
        "{stdout}"
    );
}
