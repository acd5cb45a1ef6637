//! Blessed baselines: a report folder that `ci --bless` wrote holds
//! `baseline.json` (its format, the model, the depth it was blessed at,
//! the build and, from format 2 on, the model's definition it was
//! blessed with), and whatever is not `ci --bless` refuses to write into
//! such a folder, so a plain run can never rewrite what `ci` compares
//! against (a baseline changes only on purpose). The marker is read as
//! every input is ([`crate::input::read_text`]: a regular file, bounded).

use crate::input::{from_value, parse_json, read_text};
use serde::Deserialize;
use std::path::Path;

/// The marker's file name in a blessed report folder.
pub const BASELINE_MARKER: &str = "baseline.json";

/// What its `format` says: format 2 records the blessed model's
/// definition (`model_definition`).
pub const BASELINE_FORMAT: &str = "memtx-check baseline 2";

/// The format before the definition was recorded; still read.
const BASELINE_FORMAT_1: &str = "memtx-check baseline 1";

/// A `baseline.json` as read.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineMarker {
    /// The depth it was blessed at.
    pub depth: usize,
    /// The model's definition it was blessed with (what it checks, bounds
    /// included); `None` in a format 1 marker, which did not record it.
    pub definition: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MarkerIn {
    format: String,
    #[allow(dead_code)]
    model: String,
    depth: usize,
    #[allow(dead_code)]
    build: serde_json::Value,
    #[serde(default)]
    model_definition: Option<serde_json::Value>,
}

/// The marker of the blessed baseline `dir`: `Ok(None)` when it has none;
/// a one-line error when it is there but not a marker (not a regular
/// file, too large, malformed, of an unknown format).
pub fn read_marker(dir: &Path) -> Result<Option<BaselineMarker>, String> {
    let path = dir.join(BASELINE_MARKER);
    if path.symlink_metadata().is_err() {
        return Ok(None);
    }
    let origin = path.display().to_string();
    let text = read_text(&path).map_err(|e| e.0)?;
    let value = parse_json(&text, &origin).map_err(|e| e.0)?;
    let m: MarkerIn =
        from_value(&value).map_err(|e| format!("{origin}: not a baseline marker: {e}"))?;
    let definition = match (m.format.as_str(), m.model_definition) {
        (BASELINE_FORMAT, Some(d)) => Some(d),
        (BASELINE_FORMAT, None) => {
            return Err(format!(
                "{origin}: model_definition: missing ({BASELINE_FORMAT:?} records it)"
            ))
        }
        (BASELINE_FORMAT_1, None) => None,
        (format, _) => {
            return Err(format!(
                "{origin}: format: {format:?} is not {BASELINE_FORMAT:?} or {BASELINE_FORMAT_1:?}"
            ))
        }
    };
    Ok(Some(BaselineMarker {
        depth: m.depth,
        definition,
    }))
}

/// `Err` with a one-line refusal when `dir` is a blessed baseline; `flag`
/// names how the user chose the folder.
pub fn refuse_blessed(dir: &Path, flag: &str) -> Result<(), String> {
    let Some(marker) = read_marker(dir)? else {
        return Ok(());
    };
    Err(format!(
        "{}: {flag}: this folder is a blessed baseline (ci --bless, depth {}; {}): \
         only `memtx-check ci --bless` rewrites it; write this run elsewhere (--out DIR)",
        dir.display(),
        marker.depth,
        dir.join(BASELINE_MARKER).display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("memtx-blessed-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_marked_folder_is_refused_and_an_unmarked_one_is_not() {
        let dir = scratch("marked");
        assert!(refuse_blessed(&dir, "--out").is_ok());
        std::fs::write(
            dir.join(BASELINE_MARKER),
            r#"{"format": "memtx-check baseline 1", "model": "m", "depth": 8, "build": {}}"#,
        )
        .unwrap();
        let e = refuse_blessed(&dir, "--out").unwrap_err();
        assert!(e.contains("blessed baseline (ci --bless, depth 8"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn both_formats_are_read_and_format_2_holds_the_definition() {
        let dir = scratch("formats");
        let write = |text: &str| std::fs::write(dir.join(BASELINE_MARKER), text).unwrap();
        write(r#"{"format": "memtx-check baseline 1", "model": "m", "depth": 6, "build": {}}"#);
        let old = read_marker(&dir).unwrap().unwrap();
        assert_eq!((old.depth, old.definition), (6, None));
        write(
            r#"{"format": "memtx-check baseline 2", "model": "m", "depth": 6, "build": {},
                "model_definition": {"agents": 2}}"#,
        );
        let new = read_marker(&dir).unwrap().unwrap();
        assert_eq!(new.definition, Some(serde_json::json!({"agents": 2})));
        for bad in [
            r#"{"format": "memtx-check baseline 2", "model": "m", "depth": 6, "build": {}}"#,
            r#"{"format": "memtx-check baseline 9", "model": "m", "depth": 6, "build": {}}"#,
            "{",
        ] {
            write(bad);
            let e = read_marker(&dir).unwrap_err();
            assert!(
                e.starts_with(&dir.join(BASELINE_MARKER).display().to_string()),
                "{e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_marker_that_is_no_regular_file_is_refused_without_reading_it() {
        let dir = scratch("fifo");
        std::os::unix::fs::symlink("/dev/zero", dir.join(BASELINE_MARKER)).unwrap();
        let e = refuse_blessed(&dir, "--out").unwrap_err();
        assert!(
            e.contains("a character device is not a regular file"),
            "{e}"
        );
        std::fs::remove_file(dir.join(BASELINE_MARKER)).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join(BASELINE_MARKER))
            .status();
        if made.is_ok_and(|s| s.success()) {
            // Would block for a writer were it opened.
            let e = read_marker(&dir).unwrap_err();
            assert!(e.contains("a FIFO is not a regular file"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
