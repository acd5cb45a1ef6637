//! Blessed baselines: a report folder that `ci --bless` wrote holds
//! `baseline.json` (its format, the model, the depth it was blessed at and
//! the build), and whatever is not `ci --bless` refuses to write into
//! such a folder, so a plain run can never rewrite what `ci` compares
//! against (a baseline changes only on purpose).

use std::path::Path;

/// The marker's file name in a blessed report folder.
pub const BASELINE_MARKER: &str = "baseline.json";

/// What its `format` says.
pub const BASELINE_FORMAT: &str = "memtx-check baseline 1";

/// `Err` with a one-line refusal when `dir` is a blessed baseline; `flag`
/// names how the user chose the folder.
pub fn refuse_blessed(dir: &Path, flag: &str) -> Result<(), String> {
    let marker = dir.join(BASELINE_MARKER);
    if marker.symlink_metadata().is_err() {
        return Ok(());
    }
    let blessed = std::fs::read_to_string(&marker)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let depth = blessed
        .as_ref()
        .and_then(|b| b.get("depth"))
        .map_or_else(|| "?".to_owned(), |d| d.to_string());
    Err(format!(
        "{}: {flag}: this folder is a blessed baseline (ci --bless, depth {depth}; {}): \
         only `memtx-check ci --bless` rewrites it; write this run elsewhere (--out DIR)",
        dir.display(),
        marker.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_folder_is_refused_and_an_unmarked_one_is_not() {
        let dir = std::env::temp_dir().join(format!("memtx-blessed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(refuse_blessed(&dir, "--out").is_ok());
        std::fs::write(dir.join(BASELINE_MARKER), r#"{"depth": 8}"#).unwrap();
        let e = refuse_blessed(&dir, "--out").unwrap_err();
        assert!(e.contains("blessed baseline (ci --bless, depth 8"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
