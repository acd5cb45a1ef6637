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
