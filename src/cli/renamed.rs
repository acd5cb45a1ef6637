//! Flags renamed so that one name means one thing on every subcommand
//! (issue 29 item 4; the table is in docs/command-line.md): each old
//! spelling stays for one release as a hidden flag of its own, and using it
//! prints one warning line on stderr. clap's own aliases cannot say which
//! spelling was typed, hence a flag each.

use super::exit::CliError;

/// The one line an old spelling prints.
pub fn warning(old: &str, new: &str) -> String {
    format!("memtx-check: warning: {old} is now {new}; the old spelling goes in the next release")
}

/// Prints [`warning`] on stderr.
pub fn warn(old: &str, new: &str) {
    eprintln!("{}", warning(old, new));
}

/// The value of a renamed flag: the new spelling's, or the old one's
/// with a warning; both at once is a usage error (exit 2), since they
/// are one flag.
pub fn either<T>(new: (&str, Option<T>), old: (&str, Option<T>)) -> Result<Option<T>, CliError> {
    match (new.1, old.1) {
        (Some(_), Some(_)) => Err(CliError(format!(
            "{} and {} are one flag ({} is its old spelling): give it once",
            new.0, old.0, old.0
        ))),
        (Some(v), None) => Ok(Some(v)),
        (None, Some(v)) => {
            warn(old.0, new.0);
            Ok(Some(v))
        }
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warning_is_one_line_naming_both_spellings() {
        let line = warning("--traces-dir", "--traces");
        assert_eq!(
            line,
            "memtx-check: warning: --traces-dir is now --traces; \
             the old spelling goes in the next release"
        );
    }

    #[test]
    fn either_spelling_gives_the_value_and_both_are_refused() {
        assert_eq!(
            either(("--new", Some(1)), ("--old", None)).unwrap(),
            Some(1)
        );
        assert_eq!(
            either(("--new", None), ("--old", Some(2))).unwrap(),
            Some(2)
        );
        assert_eq!(
            either::<u8>(("--new", None), ("--old", None)).unwrap(),
            None
        );
        let e = either(("--new", Some(1)), ("--old", Some(2))).unwrap_err();
        assert!(e.0.contains("--new and --old are one flag"), "{e}");
    }
}
