//! [`ReportSet`]: the files one run of one command writes for one model,
//! made visible together. Each file is an atomic rename, but a run writes
//! several (growth.csv, summary.json, and more to come), so a reader could
//! meet the growth of one run beside the summary of another. A report set
//! streams each file to a temporary name as it is added and, on
//! [`ReportSet::commit`]:
//!
//! 1. marks the command's set in `manifest.json` as being written;
//! 2. renames every file into place;
//! 3. removes what earlier runs left that this one did not rewrite: the
//!    command's earlier files and traces, the sets (and traces) of other
//!    commands made from another model (its digest differs), and the
//!    traces the run said it owns ([`ReportSet::retire_traces`]);
//! 4. writes the manifest with the set complete, each file's and each
//!    trace's size and checksum.
//!
//! A reader that checks the manifest ([`super::verify_set`]) sees all of
//! one run or refuses; a signal (SIGINT, SIGTERM, SIGHUP) during steps 1
//! to 4 waits for step 4 before the process exits, so only a run killed
//! outright (`kill -9`) or failing a write there leaves a set marked
//! incomplete, and temporary files are removed when a set is dropped
//! uncommitted. Only files in the report folder and in this run's traces
//! folder are ever removed, and a trace an earlier manifest names only if
//! it is still the file that run wrote (its checksum): a manifest is
//! input too, and must not steer a run into removing anything else.
//!
//! Using it, for any file a command adds to a model's report folder:
//!
//! ```no_run
//! # use memtx_check::outputs::ReportSet;
//! # use std::path::Path;
//! # fn main() -> Result<(), String> {
//! let mut set = ReportSet::new(Path::new("reports/default"), "check", "default", "digest")
//!     .with_traces(Path::new("traces"));
//! set.add("summary.json", b"{}\n")?;
//! set.add_with("growth.csv", |w| w.write_all(b"depth\n"))?;
//! let trace = set.add_trace("default-I1.json", b"{}\n")?;
//! set.retire_traces(["default-I2.json".to_owned()]);
//! set.commit()?;
//! # let _ = trace; Ok(()) }
//! ```

use super::checksum::{checksum, Checksum, Summing};
use super::manifest::{Manifest, SetEntry};
use super::path::path_inside;
use super::scratch;
use crate::input::read_bytes;
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes the runs of one process.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// One run's files for one model's report folder; see the module docs.
#[derive(Debug)]
pub struct ReportSet {
    dir: PathBuf,
    command: String,
    model: String,
    model_digest: String,
    run: String,
    /// The run's traces folder.
    traces: PathBuf,
    /// Written to temporary names, renamed at commit.
    staged: Vec<Staged>,
    /// Traces that earlier runs may have left: removed at commit unless
    /// this run wrote them.
    retired: Vec<String>,
}

#[derive(Debug)]
struct Staged {
    tmp: PathBuf,
    dest: PathBuf,
    name: String,
    checksum: Checksum,
    /// A trace, in the traces folder, rather than a report file.
    trace: bool,
}

impl ReportSet {
    /// A set for `command`'s run on model `model` (its definition hashed
    /// as `model_digest`), to be committed into `dir`.
    pub fn new(dir: &Path, command: &str, model: &str, model_digest: &str) -> ReportSet {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        ReportSet {
            dir: dir.to_path_buf(),
            command: command.to_owned(),
            model: model.to_owned(),
            model_digest: model_digest.to_owned(),
            run: format!(
                "{millis}-{}-{}",
                std::process::id(),
                RUNS.fetch_add(1, Ordering::Relaxed)
            ),
            traces: PathBuf::from("traces"),
            staged: Vec::new(),
            retired: Vec::new(),
        }
    }

    /// The folder of the run's traces (default `traces`).
    pub fn with_traces(mut self, dir: &Path) -> ReportSet {
        self.traces = dir.to_path_buf();
        self
    }

    /// The report folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds `name` to the report folder with these bytes; returns the path
    /// it will have.
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        self.add_with(name, |w| w.write_all(bytes))
    }

    /// Adds `name` to the report folder, written by `write` (streamed to
    /// disk, for files too large to hold); returns the path it will have.
    pub fn add_with(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<PathBuf, String> {
        let dir = self.dir.clone();
        self.stage(&dir, name, false, write)
    }

    /// Adds a trace to the traces folder; returns the path it will have.
    pub fn add_trace(&mut self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let dir = self.traces.clone();
        self.stage(&dir, name, true, |w| w.write_all(bytes))
    }

    /// Traces that earlier runs of this command on this model may have
    /// written, by name (for runs from before report sets, which no
    /// manifest names): each one this run does not write is removed at
    /// commit. Names that are not plain file names are ignored.
    pub fn retire_traces(&mut self, names: impl IntoIterator<Item = String>) {
        self.retired.extend(names);
    }

    fn stage(
        &mut self,
        dir: &Path,
        name: &str,
        trace: bool,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<PathBuf, String> {
        let dest = path_inside(dir, name)?;
        if self.staged.iter().any(|s| s.dest == dest) {
            return Err(format!("{}: added twice to one run", dest.display()));
        }
        let tmp = dir.join(format!(".{name}.{}.tmp", self.run));
        let failed = |e: io::Error| format!("{}: cannot write: {e}", dest.display());
        fs::create_dir_all(dir).map_err(failed)?;
        scratch::track_file(&tmp);
        let written = (|| {
            let file = fs::File::create(&tmp)?;
            let mut out = Summing::new(BufWriter::new(file));
            write(&mut out)?;
            out.flush()?;
            let (sum, buffered) = out.finish();
            let file = buffered.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            Ok(sum)
        })();
        match written {
            Ok(sum) => {
                self.staged.push(Staged {
                    tmp,
                    dest: dest.clone(),
                    name: name.to_owned(),
                    checksum: sum,
                    trace,
                });
                Ok(dest)
            }
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                scratch::forget(&tmp);
                Err(failed(e))
            }
        }
    }

    /// Makes the run's files visible together; see the module docs. A
    /// signal that arrives meanwhile lets it finish ([`scratch::whole`]).
    pub fn commit(self) -> Result<(), String> {
        scratch::whole(|| self.commit_now())
    }

    fn commit_now(mut self) -> Result<(), String> {
        let earlier = Manifest::read(&self.dir).ok().flatten();
        let mut manifest = earlier.clone().unwrap_or_else(Manifest::empty);
        manifest.sets.insert(
            self.command.clone(),
            SetEntry {
                model: self.model.clone(),
                model_digest: self.model_digest.clone(),
                run: self.run.clone(),
                complete: false,
                files: BTreeMap::new(),
                traces: BTreeMap::new(),
            },
        );
        fs::create_dir_all(&self.dir)
            .map_err(|e| format!("{}: cannot write: {e}", self.dir.display()))?;
        manifest.write(&self.dir)?;
        let (mut files, mut traces) = (BTreeMap::new(), BTreeMap::new());
        for staged in std::mem::take(&mut self.staged) {
            scratch::renamed(&staged.tmp, &staged.dest)
                .map_err(|e| format!("{}: cannot write: {e}", staged.dest.display()))?;
            let listing = if staged.trace {
                &mut traces
            } else {
                &mut files
            };
            listing.insert(staged.name, staged.checksum);
        }
        if let Some(earlier) = earlier {
            for (command, set) in &earlier.sets {
                let own = *command == self.command;
                if own || set.model_digest != self.model_digest {
                    self.remove_stale(set, &files, &traces)?;
                    if !own {
                        manifest.sets.remove(command);
                    }
                }
            }
        }
        for name in self.retired.iter().filter(|n| !traces.contains_key(*n)) {
            if let Ok(path) = path_inside(&self.traces, name) {
                remove_if_present(&path)?;
            }
        }
        let set = manifest
            .sets
            .get_mut(&self.command)
            .expect("inserted above");
        (set.files, set.traces, set.complete) = (files, traces, true);
        manifest.write(&self.dir)
    }

    /// Removes an earlier set's files and traces that this run did not
    /// rewrite; a trace only while it is the file that run wrote.
    fn remove_stale(
        &self,
        set: &SetEntry,
        files: &BTreeMap<String, Checksum>,
        traces: &BTreeMap<String, Checksum>,
    ) -> Result<(), String> {
        for name in set.files.keys().filter(|n| !files.contains_key(*n)) {
            if let Ok(path) = path_inside(&self.dir, name) {
                remove_if_present(&path)?;
            }
        }
        for (name, sum) in set.traces.iter().filter(|(n, _)| !traces.contains_key(*n)) {
            if let Ok(path) = path_inside(&self.traces, name) {
                // Read as any input is: a regular file, bounded.
                let unchanged = read_bytes(&path).is_ok_and(|b| checksum(&b) == *sum);
                if unchanged {
                    remove_if_present(&path)?;
                }
            }
        }
        Ok(())
    }
}

impl Drop for ReportSet {
    /// An uncommitted set leaves no temporary file behind.
    fn drop(&mut self) {
        for staged in &self.staged {
            let _ = fs::remove_file(&staged.tmp);
            scratch::forget(&staged.tmp);
        }
    }
}

fn remove_if_present(path: &Path) -> Result<(), String> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(format!(
            "{}: cannot remove a stale file: {e}",
            path.display()
        )),
        _ => Ok(()),
    }
}
