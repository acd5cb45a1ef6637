//! End-to-end tests of what is generated from the clap definition (issue
//! 29 item 8): `completions SHELL`, `man [COMMAND]`, and `--version`
//! naming the commit. The real binary, read with this file's own checks.

use crate::support::memtx;

use std::process::{Command, Output};

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

/// The subcommands, as `memtx-check --help` lists them.
fn subcommands() -> Vec<String> {
    let help = stdout(&memtx(&["--help"]));
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|name| name != "help")
        .collect()
}

#[test]
fn bash_completions_parse_and_name_every_subcommand_and_flag() {
    let o = memtx(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0));
    let script = stdout(&o);
    let dir = std::env::temp_dir().join(format!("memtx-completions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("memtx-check.bash");
    std::fs::write(&file, &script).unwrap();
    let parsed = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(
        parsed.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let subs = subcommands();
    assert!(subs.len() >= 10, "{subs:?}");
    for sub in &subs {
        assert!(script.contains(sub.as_str()), "completes {sub}");
    }
    for flag in ["--walks", "--traces", "--expect", "--max-memory"] {
        assert!(script.contains(flag), "completes {flag}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = memtx(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(stdout(&o).contains("memtx-check"), "{shell}");
    }
    let o = memtx(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("'tcsh'") && err.contains("bash"), "{err}");
}

#[test]
fn the_man_page_lists_every_subcommand_and_each_has_its_own() {
    let o = memtx(&["man"]);
    assert_eq!(o.status.code(), Some(0));
    let page = stdout(&o);
    assert!(page.starts_with(".ie") && page.contains(".TH memtx-check 1"));
    for sub in subcommands() {
        let roff = sub.replace('-', "\\-");
        assert!(
            page.contains(&format!("memtx\\-check\\-{roff}(1)")),
            "memtx-check(1) lists {sub}"
        );
        let own = memtx(&["man", &sub]);
        assert_eq!(own.status.code(), Some(0), "{sub}");
        let own = stdout(&own);
        assert!(own.contains(&format!(".TH memtx-check-{sub} 1")), "{sub}");
        assert!(
            own.contains(".SH OPTIONS") || sub == "driver",
            "{sub}: {own}"
        );
    }
    let o = memtx(&["man", "frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"frobnicate\" is not a subcommand"));
}

/// `--version` names the commit: 10 hex digits, or `unknown` outside a
/// git checkout (build.rs), which a test run from the repository is not.
#[test]
fn version_names_the_commit() {
    let o = memtx(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    let line = stdout(&o);
    let commit = line
        .split("(commit ")
        .nth(1)
        .and_then(|rest| rest.get(..10))
        .unwrap_or_else(|| panic!("no commit in {line:?}"));
    let in_checkout = crate::support::root().join(".git").exists();
    if in_checkout {
        assert!(commit.chars().all(|c| c.is_ascii_hexdigit()), "{line:?}");
    } else {
        assert!(line.contains("commit unknown"), "{line:?}");
    }
}
