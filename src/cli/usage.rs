//! Usage errors as one line. clap prints 3 to 7 lines for a bad command
//! line (the error, a tip, the usage, a pointer to `--help`); the contract
//! is one line naming the argument and value, exit 2. `--help` and
//! `--version` keep clap's full output.

use super::Cli;
use clap::error::ErrorKind;
use clap::Parser;
use std::ffi::OsString;

/// Why the command line did not yield a command to run.
#[derive(Debug)]
pub enum NotRun {
    /// `--help` or `--version`: clap prints it in full (exit 0).
    Display(clap::Error),
    /// A usage error, as one line (exit 2).
    Usage(String),
}

/// Parses the command line.
pub fn parse_command_line<I, T>(args: I) -> Result<Cli, NotRun>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Cli::try_parse_from(args).map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => NotRun::Display(e),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => NotRun::Usage(
            "a subcommand is required: check, replay, random, diff, ci, explore, driver, conform, \
             completions or man \
             (see memtx-check --help)"
                .to_owned(),
        ),
        _ => NotRun::Usage(one_line(&e)),
    })
}

/// clap's message, its tips and its usage line joined into one line,
/// without the pointer to `--help`.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts = Vec::new();
    for paragraph in text.split("\n\n") {
        let words: Vec<&str> = paragraph
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        match words.first() {
            None => {}
            Some(first) if first.starts_with("For more information") => {}
            Some(first) if first.starts_with("Usage:") => {
                parts.push(format!(
                    "usage: {}",
                    first.trim_start_matches("Usage:").trim()
                ));
            }
            Some(_) => parts.push(words.join(" ")),
        }
    }
    let line = parts.join("; ");
    line.strip_prefix("error: ").unwrap_or(&line).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(args: &[&str]) -> String {
        let mut all = vec!["memtx-check"];
        all.extend_from_slice(args);
        match parse_command_line(all) {
            Err(NotRun::Usage(line)) => line,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    #[test]
    fn usage_errors_are_one_line_naming_the_argument_and_value() {
        for (args, needles) in [
            (
                vec!["check", "--bogus"],
                vec!["unexpected argument '--bogus'", "memtx-check check"],
            ),
            (
                vec!["check", "--threads"],
                vec!["'--threads <N>'", "a value is required"],
            ),
            (vec!["replay"], vec!["<FILE>", "required"]),
            (
                vec!["frobnicate"],
                vec!["unrecognized subcommand 'frobnicate'"],
            ),
            (
                vec!["check", "a.json", "b.json"],
                vec!["unexpected argument 'b.json'"],
            ),
            (
                vec!["explore", "m.json", "--trace", "t.json"],
                vec!["--trace", "cannot be used with"],
            ),
            (
                vec!["check", "--thread", "2"],
                vec!["'--thread'", "'--threads'"],
            ),
            (vec![], vec!["a subcommand is required"]),
        ] {
            let line = usage(&args);
            assert!(
                !line.contains('\n') && !line.starts_with("error"),
                "{line:?}"
            );
            assert!(
                !line.contains("--help' ") && !line.contains("For more"),
                "{line:?}"
            );
            for needle in needles {
                assert!(line.contains(needle), "{args:?}: {line:?} lacks {needle:?}");
            }
        }
    }

    #[test]
    fn help_and_version_keep_clap_s_output() {
        for args in [["memtx-check", "--help"], ["memtx-check", "--version"]] {
            assert!(matches!(parse_command_line(args), Err(NotRun::Display(_))));
        }
        let Err(NotRun::Display(help)) = parse_command_line(["memtx-check", "check", "--help"])
        else {
            panic!("check --help displays help");
        };
        assert!(help.render().to_string().lines().count() > 10);
    }
}
