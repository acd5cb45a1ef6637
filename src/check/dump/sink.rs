//! The dump's writer: a [`StateStream`] that names each state by its
//! canonical fingerprint and streams a `states.csv` row (with the trace
//! step that reached it) the first time a state is reached and a
//! `transitions.csv` row for every transition, each file (and the model as
//! run) under a dot-prefixed `.partial` name beside the set;
//! [`DumpSink::finish`] moves the three into place and writes the manifest
//! last, so the folder holds one dump whole or none a reader accepts.
//! What it holds is one entry a state (fingerprint and depth, 18 bytes and
//! the map's overhead); the rows go to disk as they come.
//!
//! Run on one thread, the engine reports states and transitions in its
//! own order, so the first transition to reach a state is from its parent
//! under the engine's parent rule, and the rows are the same every run.

use super::canonical::{fingerprint, hex};
use super::manifest::{DumpManifest, MANIFEST};
use super::{records_text, transactions_text, STATES_HEADER, TRANSITIONS_HEADER};
use crate::engine::StateStream;
use crate::model::{Action, MemtxModel, ModelState};
use crate::outcome_text::brief;
use crate::trace::Step;
use stateright::{Expectation, Model, Property};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

type Csv = csv::Writer<BufWriter<File>>;

/// Streams a run's states and transitions into a folder.
pub struct DumpSink<'a> {
    model: &'a MemtxModel,
    invariants: Vec<Property<MemtxModel>>,
    dir: PathBuf,
    inner: Mutex<Inner>,
}

struct Inner {
    /// Each state seen: its depth.
    seen: HashMap<u128, u16>,
    states: Csv,
    transitions: Csv,
    state_rows: u64,
    transition_rows: u64,
    /// The first write error; later rows are not written.
    error: Option<String>,
    /// The state last processed (its address) and its fingerprint: the
    /// engine takes a state's transitions right after processing it, so
    /// their source is fingerprinted once, not once per transition.
    last: Option<(usize, u128)>,
}

/// What a dump wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpTotals {
    pub states_path: PathBuf,
    pub transitions_path: PathBuf,
    pub state_rows: u64,
    pub transition_rows: u64,
    pub states_bytes: u64,
    pub transitions_bytes: u64,
}

const STATES: &str = "states.csv";
const TRANSITIONS: &str = "transitions.csv";
const MODEL: &str = "model.json";

fn partial(name: &str) -> String {
    format!(".{name}.partial")
}

/// Removes the files an unfinished dump staged in `dir` (this run's or a
/// killed one's: the names are the dump's own, dot-prefixed).
fn remove_partials(dir: &Path) {
    for name in [STATES, TRANSITIONS, MODEL] {
        let _ = std::fs::remove_file(dir.join(partial(name)));
    }
}

/// A dump file could not be written: one line naming it and the cause.
fn cannot_write(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write {}: {e}", path.display())
}

impl<'a> DumpSink<'a> {
    /// A sink writing into `dir` (created if missing), `model_json` (the
    /// configuration as run) saved beside the set at once, as
    /// `.model.json.partial`: like the CSV files, it takes its place only
    /// when the dump is finished ([`DumpSink::finish`]), so an interrupted
    /// dump never puts its model beside another dump's states.
    pub fn create(model: &'a MemtxModel, dir: &Path, model_json: &str) -> Result<Self, String> {
        let fail = |e: std::io::Error| format!("{}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(fail)?;
        // An earlier dump's manifest would vouch for files being rewritten.
        match std::fs::remove_file(dir.join(MANIFEST)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(fail(e)),
            _ => {}
        }
        let staged = dir.join(partial(MODEL));
        let _ = std::fs::remove_file(&staged);
        if let Err(e) = std::fs::write(&staged, model_json) {
            let _ = std::fs::remove_file(&staged);
            return Err(cannot_write(&staged, e));
        }
        let open = |name: &str, header: &[&str]| -> Result<Csv, String> {
            let path = dir.join(partial(name));
            let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut w = csv::Writer::from_writer(BufWriter::with_capacity(1 << 20, file));
            w.write_record(header)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(w)
        };
        let invariants = model
            .properties()
            .into_iter()
            .filter(|p| matches!(p.expectation, Expectation::Always))
            .collect();
        let files = open(STATES, &STATES_HEADER)
            .and_then(|states| Ok((states, open(TRANSITIONS, &TRANSITIONS_HEADER)?)));
        let (states, transitions) = match files {
            Ok(files) => files,
            Err(e) => {
                remove_partials(dir);
                return Err(e);
            }
        };
        Ok(DumpSink {
            model,
            invariants,
            dir: dir.to_path_buf(),
            inner: Mutex::new(Inner {
                seen: HashMap::new(),
                states,
                transitions,
                state_rows: 0,
                transition_rows: 0,
                error: None,
                last: None,
            }),
        })
    }

    /// Flushes both files, moves them into place and writes the manifest
    /// (`whole`: the run reached its bound). A write that failed, then or
    /// during the run (a full disk), is `Err`, one line naming the file and
    /// the cause; the partial files are then removed, and without a
    /// manifest the folder is no dump a reader accepts.
    pub fn finish(self, whole: bool) -> Result<DumpTotals, String> {
        let dir = self.dir.clone();
        let finished = self.finish_files(whole);
        if finished.is_err() {
            remove_partials(&dir);
        }
        finished
    }

    fn finish_files(self, whole: bool) -> Result<DumpTotals, String> {
        let inner = self.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = inner.error {
            return Err(e);
        }
        // Every file is flushed and synced before the first takes its
        // place, so a failure moves none; the manifest comes last.
        for (name, w) in [(STATES, inner.states), (TRANSITIONS, inner.transitions)] {
            let from = self.dir.join(partial(name));
            let fail = |e: String| cannot_write(&from, e);
            w.into_inner()
                .map_err(|e| fail(e.to_string()))?
                .into_inner()
                .map_err(|e| fail(e.error().to_string()))?
                .sync_all()
                .map_err(|e| fail(e.to_string()))?;
        }
        let mut sizes = Vec::new();
        for name in [STATES, TRANSITIONS, MODEL] {
            let from = self.dir.join(partial(name));
            let to = self.dir.join(name);
            std::fs::rename(&from, &to).map_err(|e| cannot_write(&to, e))?;
            sizes.push((to.clone(), std::fs::metadata(&to).map_or(0, |m| m.len())));
        }
        let totals = DumpTotals {
            states_path: sizes[0].0.clone(),
            transitions_path: sizes[1].0.clone(),
            state_rows: inner.state_rows,
            transition_rows: inner.transition_rows,
            states_bytes: sizes[0].1,
            transitions_bytes: sizes[1].1,
        };
        DumpManifest::new(&totals, whole).write(&self.dir)?;
        Ok(totals)
    }

    /// The invariants `state` violates, space-separated.
    fn violations(&self, state: &ModelState) -> String {
        self.invariants
            .iter()
            .filter(|p| !(p.condition)(self.model, state))
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Writes `state`'s row if it is new: reached from `parent` by the
    /// action labelled so at `depth`.
    fn reached(
        &self,
        inner: &mut Inner,
        fp: u128,
        state: &ModelState,
        depth: u16,
        parent: Option<(u128, &str, &Action)>,
    ) {
        if inner.seen.contains_key(&fp) {
            return;
        }
        inner.seen.insert(fp, depth);
        inner.state_rows += 1;
        let (parent, label, step) = parent.map_or_else(
            || (String::new(), "", String::new()),
            |(p, label, action)| {
                let step = Step::from_op(&self.model.op(action), &self.model.spec.compiled);
                (hex(p), label, step.to_json_line())
            },
        );
        let row = [
            hex(fp),
            depth.to_string(),
            parent,
            label.to_owned(),
            records_text(&state.store),
            transactions_text(&state.store),
            self.violations(state),
            step,
        ];
        if let Err(e) = inner.states.write_record(&row) {
            let path = self.dir.join(partial(STATES));
            inner.error.get_or_insert_with(|| cannot_write(&path, e));
        }
    }
}

impl StateStream<MemtxModel> for DumpSink<'_> {
    fn state(&self, state: &ModelState) {
        let fp = fingerprint(&self.model.spec, state);
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.last = Some((state as *const ModelState as usize, fp));
        // Only an initial state is processed before any transition reaches it.
        self.reached(&mut inner, fp, state, 0, None);
    }

    fn transition(&self, from: &ModelState, action: &Action, to: &ModelState) {
        let spec = &self.model.spec;
        let to_fp = fingerprint(spec, to);
        let label = action.describe(spec);
        let outcome = match self.model.step(from, action) {
            Ok((_, outcome)) => brief(&outcome),
            Err(e) => format!("{e:?}"),
        };
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let from_fp = match inner.last {
            Some((at, fp)) if at == from as *const ModelState as usize => fp,
            _ => fingerprint(spec, from),
        };
        let depth = inner.seen.get(&from_fp).map_or(0, |d| d + 1);
        self.reached(
            &mut inner,
            to_fp,
            to,
            depth,
            Some((from_fp, &label, action)),
        );
        inner.transition_rows += 1;
        let row = [hex(from_fp), label, hex(to_fp), outcome];
        if let Err(e) = inner.transitions.write_record(&row) {
            let path = self.dir.join(partial(TRANSITIONS));
            inner.error.get_or_insert_with(|| cannot_write(&path, e));
        }
    }
}
