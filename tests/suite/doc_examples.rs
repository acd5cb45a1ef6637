//! Every example in README.md and `docs/` that shows a command with its
//! output is run here, and its output must be what the page shows, so a
//! page cannot drift from the binary.
//!
//! An example is a ```` ```text ```` block whose first line starts with
//! `$ `: each `$ memtx-check …` line is a command (a ` # comment` after it
//! is not part of it), and the lines up to the next `$ ` line are its
//! output, stdout and stderr as one stream. In the expected output a line
//! that is only `...` stands for any number of lines, and `...` inside a
//! line for any text (timings, rates, thread counts); everything else must
//! match exactly. A run's progress lines (`  depth   N: …` on stderr, a
//! bar that clears itself on a terminal) are not part of what a page
//! shows. The commands of one page run in order, in one scratch folder
//! that holds a copy of `models/`, `traces/` and `reports/` (the
//! baselines `ci` judges against), so a later command
//! may read what an earlier one wrote (as a reader following the page
//! would). `explore` serves until stopped: it is stopped once it says it is
//! serving (and skipped, with a message, where port 3000 is taken).
//!
//! Blocks of commands without output (```` ```sh ````) are not run: they
//! show what to type, not what comes back. Matching is this file's own
//! (`matches`): the two wildcards are all it needs, and a matching crate
//! (snapbox, with its diff library) was the longest compile of the test
//! command's dependencies.

use crate::support::{copy_dir, fresh, root, BIN};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The longest any one example may run: every example is on a bound that
/// runs in seconds.
const DEADLINE: Duration = Duration::from_secs(180);

/// One `$ memtx-check …` line of a page and the output shown under it.
#[derive(Debug)]
struct Example {
    page: String,
    line: usize,
    args: Vec<String>,
    expected: String,
}

/// The pages whose examples are run: README.md and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("read docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The page's name relative to the project, for messages.
fn page_name(page: &Path) -> String {
    page.strip_prefix(root())
        .unwrap_or(page)
        .display()
        .to_string()
}

/// The examples of one page, in page order; an error for a `$ ` line that
/// is not a command this test can run as written.
fn examples(page: &str, text: &str) -> Result<Vec<Example>, String> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else {
            continue;
        };
        let block: Vec<(usize, &str)> = lines
            .by_ref()
            .take_while(|(_, line)| !line.starts_with("```"))
            .map(|(index, line)| (index + 1, line))
            .collect();
        let shows_commands = block
            .first()
            .is_some_and(|(_, first)| first.starts_with("$ "));
        if !shows_commands {
            continue;
        }
        if lang.trim() != "text" {
            return Err(format!(
                "{page}:{}: a block of commands with output is ```text, not ```{lang}",
                block[0].0
            ));
        }
        let mut current: Option<Example> = None;
        for (number, line) in block {
            if let Some(command) = line.strip_prefix("$ ") {
                found.extend(current.take());
                current = Some(Example {
                    page: page.to_string(),
                    line: number,
                    args: command_args(page, number, command)?,
                    expected: String::new(),
                });
            } else if let Some(example) = current.as_mut() {
                example.expected.push_str(line);
                example.expected.push('\n');
            }
        }
        found.extend(current);
    }
    Ok(found)
}

/// The arguments of a `$ ` line, without its program name and comment.
fn command_args(page: &str, number: usize, command: &str) -> Result<Vec<String>, String> {
    let command = match command.find(" #") {
        Some(comment) => &command[..comment],
        None => command,
    };
    let mut words = command.split_whitespace();
    if words.next() != Some("memtx-check") {
        return Err(format!(
            "{page}:{number}: `{command}` is not a memtx-check command; only those are run"
        ));
    }
    let args: Vec<String> = words.map(str::to_string).collect();
    if let Some(quoted) = args
        .iter()
        .find(|arg| arg.contains(['"', '\'', '|', '>', '<']))
    {
        return Err(format!(
            "{page}:{number}: `{quoted}` needs a shell; examples are run without one"
        ));
    }
    Ok(args)
}

/// Whether `actual` is what the page shows: `expected` line by line,
/// where a line that is only `...` stands for any number of lines and
/// `...` inside a line for any text.
fn matches(expected: &str, actual: &str) -> bool {
    let expected: Vec<&str> = expected.lines().collect();
    let actual: Vec<&str> = actual.lines().collect();
    // reach[j]: the first i lines of the pattern match the first j of the output.
    let mut reach = vec![false; actual.len() + 1];
    reach[0] = true;
    for pattern in expected {
        let mut next = vec![false; actual.len() + 1];
        if pattern.trim() == "..." {
            let mut any = false;
            for (j, slot) in next.iter_mut().enumerate() {
                any |= reach[j];
                *slot = any;
            }
        } else {
            for j in 0..actual.len() {
                next[j + 1] = reach[j] && line_matches(pattern, actual[j]);
            }
        }
        reach = next;
    }
    reach[actual.len()]
}

/// Whether one output line is what one pattern line shows, each `...` in
/// the pattern standing for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split("...");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else {
        return rest.is_empty();
    };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// The first line of `expected` that the output does not match where it
/// should, for a failure's message; the whole pattern beside the output.
fn mismatch(expected: &str, actual: &str) -> String {
    let shown: Vec<&str> = actual.lines().collect();
    for (at, pattern) in expected.lines().enumerate() {
        if pattern.trim() == "..." {
            break;
        }
        if shown
            .get(at)
            .is_none_or(|line| !line_matches(pattern, line))
        {
            return format!(
                "expected line {} `{pattern}`, found `{}`\n--- the page shows ---\n{expected}--- the binary printed ---\n{actual}",
                at + 1,
                shown.get(at).copied().unwrap_or("(end of output)")
            );
        }
    }
    format!("--- the page shows ---\n{expected}--- the binary printed ---\n{actual}")
}

/// What the binary printed for `args`, run in `folder`, stdout and stderr
/// in one stream, as a terminal would show them.
fn run(example: &Example, folder: &Path) -> Result<String, String> {
    let serves = example.args.first().is_some_and(|sub| sub == "explore");
    let (mut reader, writer) = std::io::pipe().expect("a pipe");
    let mut child: Child = Command::new(BIN)
        .args(&example.args)
        .current_dir(folder)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().expect("a pipe's second end"))
        .stderr(writer)
        .spawn()
        .map_err(|e| format!("cannot start {BIN}: {e}"))?;
    let collected = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
    let sink = collected.clone();
    let reading = std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(read @ 1..) = reader.read(&mut chunk) {
            sink.lock()
                .expect("the output")
                .extend_from_slice(&chunk[..read]);
        }
    });
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait for the binary").is_some() {
            break;
        }
        let so_far = String::from_utf8_lossy(&collected.lock().expect("the output")).into_owned();
        if serves && so_far.contains("serving the explorer") {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "still running after {DEADLINE:?}; output so far:\n{so_far}"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    reading.join().expect("the reader thread");
    let output = collected.lock().expect("the output").clone();
    Ok(without_progress(&String::from_utf8_lossy(&output)))
}

/// The output without the run's progress lines: what a terminal shows
/// once the progress bar has cleared itself.
fn without_progress(output: &str) -> String {
    output
        .lines()
        .filter(|line| !is_progress(line))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Whether `line` is one of the plain progress lines a run prints on a
/// stderr that is not a terminal: `  depth   8:  28% of …` or
/// `  depth   8:       3,687,597 states (…`.
fn is_progress(line: &str) -> bool {
    line.strip_prefix("  depth ")
        .and_then(|rest| rest.trim_start().split_once(':'))
        .is_some_and(|(depth, _)| !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `explore`'s default address is free to serve on.
fn port_3000_free() -> bool {
    std::net::TcpListener::bind("127.0.0.1:3000").is_ok()
}

/// Runs the examples of one page in its own scratch folder; the failures,
/// each with the page, line, command and a diff.
fn check_page(page: &Path) -> Vec<String> {
    let name = page_name(page);
    let text = std::fs::read_to_string(page).expect("read a page");
    let examples = match examples(&name, &text) {
        Ok(examples) => examples,
        Err(problem) => return vec![problem],
    };
    if examples.is_empty() {
        return Vec::new();
    }
    let stem = name.replace(['/', '.'], "-");
    let folder = fresh(&stem);
    let root = root();
    copy_dir(&root.join("models"), &folder.join("models"));
    copy_dir(&root.join("traces"), &folder.join("traces"));
    copy_dir(&root.join("reports"), &folder.join("reports"));
    let mut failures = Vec::new();
    for example in &examples {
        let shown = format!(
            "{}:{}: `memtx-check {}`",
            example.page,
            example.line,
            example.args.join(" ")
        );
        if example.args.first().is_some_and(|sub| sub == "explore") && !port_3000_free() {
            eprintln!("{shown}: skipped, port 3000 is taken on this machine");
            continue;
        }
        match run(example, &folder) {
            Err(problem) => failures.push(format!("{shown}: {problem}")),
            Ok(actual) => {
                if !matches(&example.expected, &actual) {
                    failures.push(format!(
                        "{shown}: the output is not what the page shows\n{}",
                        mismatch(&example.expected, &actual)
                    ));
                }
            }
        }
    }
    failures
}

#[test]
fn every_example_with_output_in_the_docs_is_what_the_binary_prints() {
    let pages = pages();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = pages
            .iter()
            .map(|page| scope.spawn(move || check_page(page)))
            .collect();
        running
            .into_iter()
            .flat_map(|handle| handle.join().expect("a page's check"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} example(s) differ from the binary:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_examples_are_found_and_a_wrong_output_is_caught() {
    let page = "```text\n$ memtx-check check --depth 2 # a comment\nmodel ... depth 2\n...\n```\n";
    let found = examples("page.md", page).expect("a page with one example");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].args, ["check", "--depth", "2"]);
    assert_eq!(found[0].line, 2);
    assert_eq!(found[0].expected, "model ... depth 2\n...\n");
    let shown = |actual: &str| matches(&found[0].expected, actual);
    assert!(shown("model default — 4 records, depth 2\nmore\nlines\n"));
    assert!(shown("model default — 4 records, depth 2\n"));
    assert!(!shown("model default — 4 records, depth 3\n"));
    assert!(!shown("prelude\nmodel default — 4 records, depth 2\n"));
    // An in-line `...` is any text, the rest of the line exactly.
    assert!(line_matches("a ... b ... c", "a x b y b c"));
    assert!(line_matches("...", ""));
    assert!(!line_matches("a ... b", "a b"));
    assert!(!line_matches("ab...ba", "aba"));
    assert!(!line_matches("exact", "exact "));
    // A lone `...` takes any number of lines, the lines around it exactly.
    assert!(matches("a\n...\nz\n", "a\nb\nc\nz\n"));
    assert!(matches("a\n...\nz\n", "a\nz\n"));
    assert!(!matches("a\n...\nz\n", "a\nb\n"));
    assert!(matches("...\nz\n...\n", "z\nz\n"));
    assert!(mismatch("a\nb\n", "a\nc\n").starts_with("expected line 2 `b`, found `c`"));
    assert!(is_progress(
        "  depth   8:  28% of the 531,172 states at depth 7 expanded"
    ));
    assert!(!is_progress("  depth of the shortest counterexample: 5"));
    assert_eq!(
        without_progress("a\n  depth  12:       3 states\nb\n"),
        "a\nb\n"
    );
    assert!(examples("page.md", "```text\n$ ls -l\n```\n").is_err());
    assert!(examples("page.md", "```sh\n$ memtx-check check\nout\n```\n").is_err());
    assert!(examples("page.md", "```text\n$ memtx-check check > x\n```\n").is_err());
}
