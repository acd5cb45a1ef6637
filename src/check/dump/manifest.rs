//! `dump.json`, the dump's manifest: written last, atomically, once both
//! CSV files are in place, so a folder with a manifest holds a finished
//! dump. It names the format version ([`FORMAT`]), the build that made
//! the dump, the row and byte totals of both CSV files and whether the run reached its bound.

use super::DumpTotals;
use crate::build_info::BuildInfo;
use crate::input::{read_text, InputError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format this build writes and reads; `docs/dumps.md` is its contract.
pub const FORMAT: &str = "memtx-check dump 2";

/// The manifest's file name in a dump folder.
pub const MANIFEST: &str = "dump.json";

/// What `dump.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumpManifest {
    pub format: String,
    pub build: BuildInfo,
    /// Rows of `states.csv` (the header aside).
    pub states: u64,
    /// Rows of `transitions.csv` (the header aside).
    pub transitions: u64,
    /// Bytes of `states.csv`.
    pub states_bytes: u64,
    /// Bytes of `transitions.csv`.
    pub transitions_bytes: u64,
    /// Whether the run reached its bound (not stopped early).
    pub whole: bool,
}

impl DumpManifest {
    /// This build's manifest for the dump `totals` describes.
    pub fn new(totals: &DumpTotals, whole: bool) -> DumpManifest {
        DumpManifest {
            format: FORMAT.to_owned(),
            build: BuildInfo::this(),
            states: totals.state_rows,
            transitions: totals.transition_rows,
            states_bytes: totals.states_bytes,
            transitions_bytes: totals.transitions_bytes,
            whole,
        }
    }

    /// Writes `dir/dump.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(MANIFEST);
        let mut text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        text.push('\n');
        crate::outputs::atomic_file::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads `dir/dump.json`, refusing a dump without one (made before
    /// format 2, or unfinished), a manifest that does not parse, or one of
    /// another format.
    pub fn read(dir: &Path) -> Result<DumpManifest, InputError> {
        let path = dir.join(MANIFEST);
        let origin = path.display().to_string();
        if !path.exists() {
            return Err(InputError::new(format!(
                "{origin}: no manifest: the dump is from before \"{FORMAT}\" or did not finish; re-dump it with check --dump"
            )));
        }
        let text = read_text(&path)?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| InputError::new(format!("{origin}: not JSON ({e}): re-dump it")))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => {
                return Err(InputError::new(format!(
                    "{origin}: format: {other:?} is not {FORMAT:?} (this build's); re-dump it with this build"
                )))
            }
            None => {
                return Err(InputError::new(format!(
                    "{origin}: format: missing; re-dump it with check --dump"
                )))
            }
        }
        serde_json::from_value(value).map_err(|e| InputError::new(format!("{origin}: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("memtx-manifest-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_manifest_reads_back() {
        let dir = scratch("back");
        let totals = DumpTotals {
            states_path: dir.join("states.csv"),
            transitions_path: dir.join("transitions.csv"),
            state_rows: 7,
            transition_rows: 12,
            states_bytes: 700,
            transitions_bytes: 1200,
        };
        let m = DumpManifest::new(&totals, true);
        m.write(&dir).unwrap();
        assert_eq!(DumpManifest::read(&dir).unwrap(), m);
    }

    #[test]
    fn missing_half_written_and_foreign_manifests_are_refused() {
        let dir = scratch("refused");
        let err = DumpManifest::read(&dir).unwrap_err().to_string();
        assert!(
            err.contains("dump.json: no manifest") && err.contains("re-dump"),
            "{err}"
        );
        std::fs::write(
            dir.join(MANIFEST),
            "{\"format\": \"memtx-check dump 2\", \"bui",
        )
        .unwrap();
        let err = DumpManifest::read(&dir).unwrap_err().to_string();
        assert!(err.contains("dump.json: not JSON"), "{err}");
        std::fs::write(dir.join(MANIFEST), "{\"format\": \"memtx-check dump 9\"}").unwrap();
        let err = DumpManifest::read(&dir).unwrap_err().to_string();
        assert!(err.contains("format: \"memtx-check dump 9\""), "{err}");
        assert!(!err.contains('\n'));
    }
}
