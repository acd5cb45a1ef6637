//! [`path_inside`]: the one way an output path is built from a name the
//! input chose (a model's name, a trace's stem). The folder is the user's
//! choice (`--out`, `--traces`, or the default `reports/`, `traces/`);
//! the name must stay a single file name inside it.

use crate::input::{name_problem, NAME_RULE};
use std::path::{Path, PathBuf};

/// `dir/name`, or a one-line error when `name` is not a plain file name
/// ([`crate::input::name_problem`]): no separator, no `..`, nothing
/// absolute or hidden, so the path cannot leave `dir`.
pub fn path_inside(dir: &Path, name: &str) -> Result<PathBuf, String> {
    match name_problem(name) {
        None => Ok(dir.join(name)),
        Some(why) => Err(format!(
            "{}: refusing to write {name:?} there: {why} ({NAME_RULE})",
            dir.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_join() {
        let dir = Path::new("reports");
        assert_eq!(
            path_inside(dir, "no-gate-I1.itf.json").unwrap(),
            Path::new("reports/no-gate-I1.itf.json")
        );
        for bad in [
            "",
            ".",
            "..",
            "../escape",
            "/tmp/escape",
            "a/b",
            ".hidden",
            "a\\b",
            "nul\0",
            "é",
        ] {
            let e = path_inside(dir, bad).unwrap_err();
            assert!(e.starts_with("reports: refusing to write"), "{e}");
            assert!(!e.contains('\n'));
        }
        assert!(path_inside(dir, &"x".repeat(101)).is_err());
        assert!(path_inside(dir, &"x".repeat(100)).is_ok());
    }
}
