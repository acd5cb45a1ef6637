//! `manifest.json`, a report folder's table of contents, written last by
//! every run ([`super::ReportSet`]) and checked by every reader
//! ([`verify_set`]). It holds one set per command that wrote into the
//! folder (`check`, `random`): the model and its digest, the run's id,
//! whether the run finished writing, each file's size and checksum, and
//! the traces it wrote in its traces folder.
//!
//! ```json
//! {"format": "memtx-check report set 1",
//!  "sets": {"check": {"model": "default", "model_digest": "…", "run": "…",
//!                     "complete": true,
//!                     "files": {"growth.csv": {"bytes": 364, "fnv1a64": "…"}, …},
//!                     "traces": {"default-I1.json": {…}, …}}}}
//! ```

use super::atomic_file::write_atomic;
use super::checksum::{checksum, Checksum};
use crate::input::{from_value, parse_json, read_bytes};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The manifest's file name in a report folder.
pub const MANIFEST: &str = "manifest.json";

/// What `format` says, so a reader knows the file is ours.
const FORMAT: &str = "memtx-check report set 1";

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub format: String,
    /// By command.
    pub sets: BTreeMap<String, SetEntry>,
}

/// The files one run of one command wrote into the folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetEntry {
    pub model: String,
    /// The model's definition hashed (bounds left out): sets of other
    /// commands made from another model are stale.
    pub model_digest: String,
    pub run: String,
    /// False while the run is writing its files.
    pub complete: bool,
    pub files: BTreeMap<String, Checksum>,
    /// The traces it wrote in its traces folder, by name.
    pub traces: BTreeMap<String, Checksum>,
}

impl Manifest {
    pub fn empty() -> Manifest {
        Manifest {
            format: FORMAT.to_owned(),
            sets: BTreeMap::new(),
        }
    }

    /// The folder's manifest: `Ok(None)` when there is none.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, String> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            return Ok(None);
        }
        let origin = path.display().to_string();
        let bytes = read_bytes(&path).map_err(|e| e.0)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{origin}: not a report manifest: not UTF-8"))?;
        let value = parse_json(&text, &origin).map_err(|e| e.0)?;
        let manifest: Manifest =
            from_value(&value).map_err(|e| format!("{origin}: not a report manifest: {e}"))?;
        if manifest.format != FORMAT {
            return Err(format!(
                "{origin}: format: {:?} is not {FORMAT:?}",
                manifest.format
            ));
        }
        Ok(Some(manifest))
    }

    /// Writes it atomically, by a rename over a regular file only: a
    /// symlink or a special file there is refused, never written through.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(MANIFEST);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(format!(
                "{}: cannot write: not a regular file (a report set's manifest is never \
                 written through a link or into a special file)",
                path.display()
            ));
        }
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| format!("{}: cannot encode: {e}", path.display()))?;
        text.push('\n');
        write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))
    }
}

/// Checks, before reading them, that `files` in `dir` are whole and of one
/// run of `command`: when the folder's manifest names a set for the
/// command, the set must be complete and list each file, and each file
/// must have the size and checksum listed. A folder without a manifest, or
/// whose manifest names no set for the command, was written before report
/// sets existed and is read as it is.
pub fn verify_set(dir: &Path, command: &str, files: &[&str]) -> Result<(), String> {
    let Some(manifest) = Manifest::read(dir)? else {
        return Ok(());
    };
    let Some(set) = manifest.sets.get(command) else {
        return Ok(());
    };
    let origin = dir.join(MANIFEST).display().to_string();
    if !set.complete {
        return Err(format!(
            "{origin}: sets.{command}: run {} did not finish writing its files \
             (interrupted?); run `{command}` again",
            set.run
        ));
    }
    for name in files {
        let Some(listed) = set.files.get(*name) else {
            return Err(format!(
                "{origin}: sets.{command}.files: {name} is not part of run {}",
                set.run
            ));
        };
        let path = dir.join(name);
        let found = checksum(&read_bytes(&path).map_err(|e| e.0)?);
        if &found != listed {
            return Err(format!(
                "{}: not the file run {} of `{command}` wrote ({} bytes, fnv1a64 {}; the manifest \
                 lists {} bytes, {}): the folder mixes runs; run `{command}` again",
                path.display(),
                set.run,
                found.bytes,
                found.fnv1a64,
                listed.bytes,
                listed.fnv1a64
            ));
        }
    }
    Ok(())
}
