//! A `--disk` run ([`EngineOptions::disk`](super::EngineOptions::disk)):
//! the visited set and the levels live in one folder, so memory holds only
//! a batch of candidates and the frontier parts being expanded, whatever
//! the state count (external-memory breadth-first search with delayed
//! duplicate detection).
//!
//! The folder (its entries: docs/disk.md, "The folder") holds the level
//! to expand next as a part per shard (`part-SS.fps`, `part-SS.enc`) with
//! a checkpoint's `meta.json`, so the folder is the run's checkpoint, and
//! the visited set as sorted runs per shard (`visited/`).
//!
//! A level is built in batches as in memory (`expand`), but its
//! candidates go to per-shard buffers (`buffer`) instead of the visited
//! tables; a buffer that passes its share of the budget is sorted and
//! written out as a run. At the end of the level each shard's runs are
//! merged against its visited runs (`merge`): what is new becomes the
//! shard's part of the next level. Discovery order is kept through the
//! runs, so the parent rule, the counts and the traces are those of the
//! in-memory engine (docs/architecture.md, "The engine's semantics").

mod buffer;
mod merge;
mod runs;

use super::fp::{Fp, SHARDS};
use super::level_files::{
    cannot_write, is_discarded_name, seal_level, sync_files, tmp_level_dir, SealedOut,
};
use super::parallel::{for_each_dynamic, map_dynamic, threads_for};
use super::part::Part;
use super::seal::{Seal, SealedReader};
use super::state_check::StateCheck;
use buffer::ShardBuffer;
use merge::{merge_shard, Merged, Outputs, MAX_RUNS};
use runs::{Candidate, CandidateMerge, CandidateReader, CandidateSource, CandidateWriter};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

pub(super) use super::absorb::LeafHits;

/// A visited run as a level's meta names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunFile {
    pub(crate) name: String,
    pub(crate) states: u64,
    pub(crate) seal: Seal,
}

/// What a `--disk` level's meta records beyond a checkpoint's: per shard,
/// the seals of its part's two files and its visited runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct DiskMeta {
    pub(crate) parts: Vec<(Seal, Seal)>,
    pub(crate) runs: Vec<Vec<RunFile>>,
}

/// What the end of a level found (see [`DiskLevels::end_level`]).
pub(super) struct LevelEnd<W> {
    pub(super) new: u64,
    /// At the last level, per shard: its smallest new deciding states.
    pub(super) leaf_hits: Vec<LeafHits<W>>,
    /// Below it: the links files of the new level, in shard order.
    pub(super) links: Vec<PathBuf>,
}

/// The most candidate runs of one shard merged at once (see `narrow`):
/// far below the usual limit of 1,024 open files, with a shard merged on
/// each thread.
const MAX_FAN_IN: usize = 64;

/// The smallest budget a batch is given, whatever `--max-memory` says.
const MIN_BUDGET: usize = 64 << 10;

/// The disk side of a run (see the module docs).
pub(super) struct DiskLevels<W> {
    pub(super) dir: PathBuf,
    /// Bytes the candidate buffers may hold before they are written out.
    budget: usize,
    buffers: Vec<ShardBuffer<W>>,
    /// Per shard: the candidate runs written this level, earliest first.
    flushed: Vec<Vec<PathBuf>>,
    flushes: usize,
    /// The most candidate runs of a shard a merge opens at once.
    fan_in: usize,
    /// The frontier's parts: their sizes and their files' seals.
    pub(super) sizes: Vec<u64>,
    pub(super) parts: Vec<(Seal, Seal)>,
    /// Per shard: its visited runs.
    pub(super) runs: Vec<Vec<RunFile>>,
    /// Runs a compaction replaced, removed once the level that no longer
    /// names them is sealed.
    retired: Vec<PathBuf>,
    /// Bytes written and read so far (the benchmark's figures).
    pub(super) written: u64,
    pub(super) read: u64,
}

impl<W: Fp> DiskLevels<W> {
    /// A run in `dir` whose batches may hold `max_memory / 4` bytes.
    pub(super) fn new(dir: &Path, max_memory: Option<u64>) -> Self {
        let budget = max_memory.map_or(1 << 30, |m| (m / 4) as usize);
        DiskLevels {
            dir: dir.to_path_buf(),
            budget: budget.max(MIN_BUDGET),
            buffers: (0..SHARDS).map(|_| ShardBuffer::default()).collect(),
            flushed: vec![Vec::new(); SHARDS],
            flushes: 0,
            fan_in: MAX_FAN_IN,
            sizes: vec![0; SHARDS],
            parts: Vec::new(),
            runs: vec![Vec::new(); SHARDS],
            retired: Vec::new(),
            written: 0,
            read: 0,
        }
    }

    /// A run continued from a level whose meta recorded `meta`.
    pub(super) fn resumed(dir: &Path, max_memory: Option<u64>, meta: &DiskMeta) -> Self {
        let mut disk = DiskLevels::new(dir, max_memory);
        disk.sizes = (0..SHARDS)
            .map(|s| meta.parts[s].0.len / W::BYTES as u64)
            .collect();
        disk.parts = meta.parts.clone();
        disk.runs = meta.runs.clone();
        disk
    }

    /// What building a level on `threads` threads adds to memory at its
    /// peak (docs/disk.md, "Memory and disk"): the batch budget, a
    /// frontier part being expanded and a merge's read buffers on each
    /// thread, for the memory guard's address-space bound.
    pub(super) fn peak_bytes(&self, threads: usize) -> u64 {
        let part = self.parts.iter().map(|(f, e)| f.len + e.len).max();
        let merge = (MAX_FAN_IN as u64 + 1) * runs::READ_BUFFER as u64;
        self.budget as u64 + threads.max(1) as u64 * (part.unwrap_or(0) + merge)
    }

    /// The states held in the visited runs.
    pub(super) fn visited(&self) -> u64 {
        self.runs.iter().flatten().map(|r| r.states).sum()
    }

    /// What the level's meta records of it.
    pub(super) fn meta(&self) -> DiskMeta {
        DiskMeta {
            parts: self.parts.clone(),
            runs: self.runs.clone(),
        }
    }

    fn scratch(&self) -> PathBuf {
        self.dir.join(".scratch")
    }

    /// The folder of the visited runs.
    fn runs_dir(dir: &Path) -> PathBuf {
        dir.join("visited")
    }

    fn run_name(shard: usize, first: usize, last: usize) -> String {
        format!("visited-{shard:02}-{first:04}-{last:04}.bin")
    }

    /// The level directory being built for `depth`, made afresh.
    fn begin_level(&self, depth: usize) -> Result<PathBuf, String> {
        let tmp = tmp_level_dir(&self.dir, depth);
        remove_level_dir(&tmp);
        fs::create_dir_all(&tmp).map_err(|e| cannot_write(&tmp, e))?;
        Ok(tmp)
    }

    /// Writes level 0 (the initial states, each part sorted) as the first
    /// level: its parts and its visited runs. Left for [`Self::seal`].
    pub(super) fn store_initial<S: Clone>(&mut self, parts: &[Part<S, W>]) -> Result<(), String> {
        let tmp = self.begin_level(0)?;
        let runs_dir = Self::runs_dir(&self.dir);
        fs::create_dir_all(&runs_dir).map_err(|e| cannot_write(&runs_dir, e))?;
        let mut stored = Vec::with_capacity(SHARDS);
        let mut runs = Vec::with_capacity(SHARDS);
        for (s, part) in parts.iter().enumerate() {
            let (fps, bytes) = part.encoded();
            let mut words = Vec::with_capacity(fps.len() * W::BYTES);
            fps.iter().for_each(|fp| fp.write(&mut words));
            let fps_seal = write_whole(&part_file(&tmp, s, "fps"), &words)?;
            let enc_seal = write_whole(&part_file(&tmp, s, "enc"), bytes)?;
            let name = Self::run_name(s, 0, 0);
            let run = write_whole(&runs_dir.join(&name), &words)?;
            self.written += 2 * words.len() as u64 + bytes.len() as u64;
            stored.push((fps_seal, enc_seal));
            runs.push(vec![RunFile {
                name,
                states: fps.len() as u64,
                seal: run,
            }]);
        }
        self.sizes = parts.iter().map(|p| p.len() as u64).collect();
        self.parts = stored;
        self.runs = runs;
        Ok(())
    }

    /// Shard `s`'s part of the frontier at `depth`, read back against its
    /// seals.
    pub(super) fn load_part<S: Clone>(
        &mut self,
        depth: usize,
        s: usize,
    ) -> Result<Part<S, W>, String> {
        let level = super::level_files::level_dir(&self.dir, depth);
        let (fps_seal, enc_seal) = self.parts[s];
        let words = read_whole(&part_file(&level, s, "fps"), fps_seal)?;
        let bytes = read_whole(&part_file(&level, s, "enc"), enc_seal)?;
        self.read += words.len() as u64 + bytes.len() as u64;
        let fps = words.chunks_exact(W::BYTES).map(W::read).collect();
        Part::from_encoded(fps, bytes).ok_or_else(|| {
            format!(
                "cannot read {}: its encodings do not match its states",
                part_file(&level, s, "enc").display()
            )
        })
    }

    /// Phase 2 of a batch in a `--disk` run: each shard's candidates of
    /// the batch's chunk slots, in chunk order, into its buffer; past the
    /// budget, every buffer is written out as a run.
    pub(super) fn absorb_batch<S: Clone + Send + Sync>(
        &mut self,
        slots: &[super::chunk::ChunkSlot<S, W>],
        leaf: bool,
        threads: usize,
    ) -> Result<(), String> {
        let candidates: usize = slots
            .iter()
            .flat_map(|s| s.buckets.iter())
            .map(Vec::len)
            .sum();
        let work: Vec<_> = self.buffers.iter_mut().enumerate().collect();
        for_each_dynamic(threads_for(candidates, threads), work, &|(s, buffer)| {
            for slot in slots {
                let (held, bucket) = (&slot.held[s], &slot.buckets[s]);
                let mut cursor = 0;
                for c in bucket {
                    if leaf {
                        buffer.push_leaf(c.fp, c.link, c.hits);
                    } else {
                        buffer.push_state(c.fp, c.link, held.encoded_at(cursor));
                        cursor = held.skip(cursor);
                    }
                }
            }
        });
        let held: usize = self.buffers.iter().map(ShardBuffer::held_bytes).sum();
        if held > self.budget {
            self.flush(leaf, threads)?;
        }
        Ok(())
    }

    /// Writes every non-empty buffer out as its shard's next run.
    fn flush(&mut self, leaf: bool, threads: usize) -> Result<(), String> {
        let scratch = self.scratch();
        fs::create_dir_all(&scratch).map_err(|e| cannot_write(&scratch, e))?;
        let n = self.flushes;
        self.flushes += 1;
        let work: Vec<_> = self
            .buffers
            .iter_mut()
            .enumerate()
            .filter(|(_, b)| b.len() > 0)
            .collect();
        let results = map_dynamic(threads, work, &|(s, buffer)| {
            let path = scratch.join(format!("cand-{s:02}-{n:04}.bin"));
            let written = buffer.flush(&path, leaf);
            (s, path, written)
        });
        let mut failed = None;
        for (s, path, written) in results {
            match written {
                Ok(bytes) => {
                    self.written += bytes;
                    self.flushed[s].push(path);
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// Ends the level built from the frontier at `depth` (see `merge`):
    /// the number of new states and, at the last level (`leaf`), each
    /// shard's smallest new deciding states; below it the next level's
    /// parts go into its directory (left for [`Self::seal`]) and their
    /// links files are returned, in shard order, for the link store.
    pub(super) fn end_level(
        &mut self,
        depth: usize,
        leaf: bool,
        properties: usize,
        threads: usize,
    ) -> Result<LevelEnd<W>, String> {
        for s in 0..SHARDS {
            if let Err(e) = self.narrow(s, leaf) {
                self.clear_scratch();
                return Err(e);
            }
        }
        let next = depth + 1;
        let tmp = if leaf {
            None
        } else {
            Some(self.begin_level(next)?)
        };
        let outputs: Vec<Option<Outputs>> = (0..SHARDS)
            .map(|s| {
                tmp.as_ref().map(|tmp| {
                    let compact = self.runs[s].len() >= MAX_RUNS;
                    let first = if compact { 0 } else { next };
                    Outputs {
                        fps: part_file(tmp, s, "fps"),
                        encodings: part_file(tmp, s, "enc"),
                        links: tmp.join(format!("links-{s:02}.bin")),
                        run: Self::runs_dir(&self.dir).join(Self::run_name(s, first, next)),
                        compact,
                    }
                })
            })
            .collect();
        let this = &*self;
        let merge = |s| this.merge(s, leaf, outputs[s].as_ref(), properties);
        // The first shard's error, once every shard is merged.
        let merged: Result<Vec<_>, _> = map_dynamic(threads, (0..SHARDS).collect(), &merge)
            .into_iter()
            .collect();
        self.clear_scratch();
        let merged = match merged {
            Ok(merged) => merged,
            Err(e) => {
                // What this level wrote goes; the level before it stands.
                for o in outputs.iter().flatten() {
                    let _ = fs::remove_file(&o.run);
                }
                if let Some(tmp) = &tmp {
                    remove_level_dir(tmp);
                }
                return Err(e);
            }
        };
        let new = merged.iter().map(|m| m.new).sum();
        self.read += merged.iter().map(|m| m.read).sum::<u64>();
        if leaf {
            return Ok(LevelEnd {
                new,
                leaf_hits: merged.into_iter().map(|m| m.leaf_hits).collect(),
                links: Vec::new(),
            });
        }
        let mut links = Vec::with_capacity(SHARDS);
        let mut parts = Vec::with_capacity(SHARDS);
        for (s, (m, o)) in merged.iter().zip(&outputs).enumerate() {
            let o = o.as_ref().expect("outputs below the last level");
            let (fps, enc, link_seal, (run, states)) = m.files.expect("files below the last level");
            // The links are written per shard, then read and copied into
            // the level's file.
            self.written += fps.len + enc.len + 2 * link_seal.len + run.len;
            self.read += link_seal.len;
            parts.push((fps, enc));
            links.push(o.links.clone());
            let name = o
                .run
                .file_name()
                .expect("a run's name")
                .to_string_lossy()
                .into_owned();
            let file = RunFile {
                name,
                states,
                seal: run,
            };
            if o.compact {
                let old = std::mem::replace(&mut self.runs[s], vec![file]);
                self.retired.extend(
                    old.into_iter()
                        .map(|r| Self::runs_dir(&self.dir).join(r.name)),
                );
            } else {
                self.runs[s].push(file);
            }
        }
        self.sizes = merged.iter().map(|m| m.new).collect();
        self.parts = parts;
        Ok(LevelEnd {
            new,
            leaf_hits: Vec::new(),
            links,
        })
    }

    /// Removes the files of level `next`, which [`Self::end_level`] built
    /// but which cannot be sealed (its links could not be stored): its
    /// temporary directory and the visited runs it wrote, so that the
    /// folder holds the last sealed level alone. The runs a compaction
    /// retired stay: the sealed level still names them.
    pub(super) fn discard_built(&mut self, next: usize) {
        remove_level_dir(&tmp_level_dir(&self.dir, next));
        let built = format!("-{next:04}.bin");
        for runs in &mut self.runs {
            if runs.last().is_some_and(|r| r.name.ends_with(&built)) {
                let run = runs.pop().expect("just seen");
                let _ = fs::remove_file(Self::runs_dir(&self.dir).join(run.name));
            }
        }
        self.retired.clear();
    }

    /// Merges shard `s`'s flushed runs, `fan_in` consecutive ones at a
    /// time, until at most `fan_in` are left, so that the level's merge
    /// opens a bounded number of files however many batches the level
    /// took. Consecutive runs merged keep the earliest copy of each state,
    /// so the first discoverer stays the parent. On an error every run
    /// still on disk stays listed (and is removed with the level).
    fn narrow(&mut self, s: usize, leaf: bool) -> Result<(), String> {
        while self.flushed[s].len() > self.fan_in {
            let files = std::mem::take(&mut self.flushed[s]);
            let mut next = Vec::new();
            let mut failed = None;
            for group in files.chunks(self.fan_in) {
                if failed.is_some() || group.len() == 1 {
                    next.extend_from_slice(group);
                    continue;
                }
                let n = self.flushes;
                self.flushes += 1;
                let path = self.scratch().join(format!("cand-{s:02}-{n:04}.bin"));
                match self.merge_runs(group, &path, leaf) {
                    Ok(()) => {
                        for file in group {
                            let _ = fs::remove_file(file);
                        }
                        next.push(path);
                    }
                    Err(e) => {
                        let _ = fs::remove_file(&path);
                        next.extend_from_slice(group);
                        failed = Some(e);
                    }
                }
            }
            self.flushed[s] = next;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Writes the candidate runs `group` (earliest first) merged into one
    /// run at `path`.
    fn merge_runs(&mut self, group: &[PathBuf], path: &Path, leaf: bool) -> Result<(), String> {
        let mut sources: Vec<Box<dyn CandidateSource<W>>> = Vec::with_capacity(group.len());
        for file in group {
            sources.push(Box::new(CandidateReader::<W>::open(file, leaf)?));
        }
        let mut merge = CandidateMerge::new(sources)?;
        let mut out = CandidateWriter::create(path, leaf)?;
        let mut c = Candidate::default();
        while merge.next(&mut c)? {
            out.push(c.fp, c.link, c.hits, &c.encoding)?;
        }
        self.read += merge.bytes_read();
        self.written += out.finish()?;
        Ok(())
    }

    /// Shard `s`'s merge: its flushed runs, then what its buffer holds.
    fn merge(
        &self,
        s: usize,
        leaf: bool,
        outputs: Option<&Outputs>,
        properties: usize,
    ) -> Result<Merged<W>, String> {
        let mut sources: Vec<Box<dyn CandidateSource<W> + '_>> = Vec::new();
        for path in &self.flushed[s] {
            sources.push(Box::new(CandidateReader::<W>::open(path, leaf)?));
        }
        sources.push(Box::new(self.buffers[s].source()));
        let visited: Vec<PathBuf> = self.runs[s]
            .iter()
            .map(|r| Self::runs_dir(&self.dir).join(&r.name))
            .collect();
        merge_shard(sources, &visited, outputs, properties)
    }

    /// Gives up the level being built: its candidate runs are removed.
    pub(super) fn abandon_level(&mut self) {
        self.clear_scratch();
    }

    /// Removes the level's candidate runs and empties the buffers.
    fn clear_scratch(&mut self) {
        for path in self.flushed.iter_mut().flat_map(std::mem::take) {
            let _ = fs::remove_file(path);
        }
        let _ = fs::remove_dir(self.scratch());
        self.buffers.iter_mut().for_each(ShardBuffer::clear);
        self.flushes = 0;
    }

    /// Seals level `depth`, whose files are in its temporary directory:
    /// `write_meta` writes its meta there, the directory is renamed into
    /// place, and only then the level before it and the runs no meta
    /// names any more are removed.
    pub(super) fn seal(
        &mut self,
        depth: usize,
        write_meta: impl FnOnce(&Path) -> Result<(), String>,
    ) -> Result<(), String> {
        let tmp = tmp_level_dir(&self.dir, depth);
        // Links files were copied into the link store.
        for s in 0..SHARDS {
            let _ = fs::remove_file(tmp.join(format!("links-{s:02}.bin")));
        }
        // The level's files, its new runs and their folders reach the
        // disk before the level is named complete.
        let mut files: Vec<PathBuf> = (0..SHARDS)
            .flat_map(|s| [part_file(&tmp, s, "fps"), part_file(&tmp, s, "enc")])
            .collect();
        let runs = Self::runs_dir(&self.dir);
        files.extend(
            self.runs
                .iter()
                .filter_map(|r| r.last())
                .map(|r| runs.join(&r.name)),
        );
        files.extend([tmp.clone(), runs, self.dir.clone()]);
        let written = sync_files(&files).and_then(|()| write_meta(&tmp));
        seal_level(&self.dir, depth, depth, written, remove_level_dir)?;
        for path in self.retired.drain(..) {
            let _ = fs::remove_file(path);
        }
        Ok(())
    }

    /// Removes, after a resume, what a later level that never was sealed
    /// left: visited runs no sealed meta names, candidate runs, and
    /// temporary level directories (all by the names this module gives).
    pub(super) fn clear_unsealed(&self) {
        let named: std::collections::HashSet<&str> = self
            .runs
            .iter()
            .flatten()
            .map(|r| r.name.as_str())
            .collect();
        for entry in fs::read_dir(Self::runs_dir(&self.dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_run_name(&name) && !named.contains(name.as_str()) {
                let _ = fs::remove_file(entry.path());
            }
        }
        for entry in fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if (name.starts_with(".level-") && name.ends_with(".tmp")) || is_discarded_name(&name) {
                remove_level_dir(&entry.path());
            }
        }
        for entry in fs::read_dir(self.scratch()).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("cand-") && name.ends_with(".bin") {
                let _ = fs::remove_file(entry.path());
            }
        }
        let _ = fs::remove_dir(self.scratch());
    }

    /// Reads every file `meta` names back against its seal and the counts
    /// (`total` visited states, `last` in the frontier): what does not
    /// hold, in one line.
    pub(super) fn check_files(
        dir: &Path,
        level: &Path,
        meta: &DiskMeta,
        (total, last): (u64, u64),
        states: Option<&StateCheck>,
    ) -> Result<(), String> {
        if meta.parts.len() != SHARDS || meta.runs.len() != SHARDS {
            return Err(super::seal::damaged(
                &level.join("meta.json"),
                "not one part and one list of runs per shard",
            ));
        }
        let mut frontier = 0;
        for (s, &(fps, enc)) in meta.parts.iter().enumerate() {
            let words = read_whole(&part_file(level, s, "fps"), fps)?;
            let bytes = read_whole(&part_file(level, s, "enc"), enc)?;
            let fps: Vec<W> = words.chunks_exact(W::BYTES).map(W::read).collect();
            let states_of = fps.len() as u64;
            let part = (words.len() % W::BYTES == 0
                && fps.iter().all(|fp| fp.shard() == s)
                && fps.windows(2).all(|w| w[0] < w[1]))
            .then(|| Part::<(), W>::from_encoded(fps, bytes))
            .flatten()
            .ok_or_else(|| {
                super::seal::damaged(
                    &part_file(level, s, "fps"),
                    "its states are not its shard's, in order, one encoding each",
                )
            })?;
            if let Some(check) = states {
                check.part(&part_file(level, s, "enc"), &part)?;
            }
            frontier += states_of;
        }
        let mut visited = 0;
        for run in meta.runs.iter().flatten() {
            if !is_run_name(&run.name) || run.seal.len != run.states * W::BYTES as u64 {
                return Err(super::seal::damaged(
                    &level.join("meta.json"),
                    format_args!(
                        "names the run {:?} of {} states in {} bytes",
                        run.name, run.states, run.seal.len
                    ),
                ));
            }
            super::seal::check_file(&Self::runs_dir(dir).join(&run.name), run.seal)?;
            visited += run.states;
        }
        if (visited, frontier) != (total, last) {
            return Err(super::seal::damaged(
                &level.join("meta.json"),
                format_args!("{total} states and {last} in the last level recorded, {visited} and {frontier} stored"),
            ));
        }
        Ok(())
    }
}

/// Whether `dir` holds a `--disk` run's levels (its deepest complete
/// level has parts), which `--resume` then continues as a `--disk` run.
pub fn is_disk_folder(dir: &Path) -> bool {
    let levels = super::level_files::complete_levels(dir);
    levels
        .last()
        .is_some_and(|&d| part_file(&super::level_files::level_dir(dir, d), 0, "fps").is_file())
}

/// Whether `name` is one a visited run is given.
pub(crate) fn is_run_name(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("visited-")
        .and_then(|r| r.strip_suffix(".bin"))
    else {
        return false;
    };
    let fields: Vec<&str> = rest.split('-').collect();
    fields.len() == 3
        && fields[0].len() == 2
        && fields[1..].iter().all(|f| f.len() == 4)
        && fields.iter().all(|f| f.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` is one a `--disk` level's part file is given.
pub(crate) fn is_part_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("part-") else {
        return false;
    };
    let Some((shard, ext)) = rest.split_once('.') else {
        return false;
    };
    shard.len() == 2 && shard.bytes().all(|b| b.is_ascii_digit()) && matches!(ext, "fps" | "enc")
}

fn part_file(level: &Path, s: usize, ext: &str) -> PathBuf {
    level.join(format!("part-{s:02}.{ext}"))
}

/// Removes a level directory this module wrote: the names it gives its
/// files, then the directory, which is left if anything else is in it.
fn remove_level_dir(level: &Path) {
    for entry in fs::read_dir(level).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = is_part_name(&name)
            || name == "meta.json"
            || (name.starts_with("links-") && name.ends_with(".bin") && name.len() == 12);
        if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
    let _ = fs::remove_dir(level);
}

fn write_whole(path: &Path, bytes: &[u8]) -> Result<Seal, String> {
    let mut out = SealedOut::create(path)?;
    out.write(bytes)?;
    out.finish_unsynced()
}

fn read_whole(path: &Path, seal: Seal) -> Result<Vec<u8>, String> {
    let mut input = SealedReader::open(path, seal)?;
    let bytes = input.bytes(seal.len, 1)?;
    input.finish()?;
    Ok(bytes)
}

#[cfg(test)]
mod tests;
