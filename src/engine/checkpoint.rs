//! Checkpoints at level boundaries: after each completed level, everything
//! needed to continue — the visited set, the level to expand next, the
//! counts, the property decisions and the label counts — goes into
//! `DIR/level-DDDD/`, and the parent links into `DIR/links-DDDD.bin` (the
//! run's link store lives in the checkpoint directory). A level's
//! directory is written under a temporary name and renamed when complete,
//! so it is complete or absent (`level_files`); older ones are then
//! removed. The distributed workers write their parts with the same
//! level directories and, for their visited sets and frontiers, the same
//! files ([`save_memory_level`], [`read_memory_level`]). A resumed
//! run continues from the deepest complete level and ends exactly as a run
//! that was never interrupted would (only timings differ).
//!
//! `meta.json` names what was explored and seals every file of the level
//! and each links file; [`check_resumable`] reads them all back before a
//! run starts. What is refused, and why: docs/checkpoints.md.

use super::bfs::{Restored, Run};
use super::codec::StateCodec;
use super::decisions::{Decision, Decisions, Witness};
use super::disk::{is_part_name, is_run_name, DiskMeta};
use super::fp::FingerprintWidth;
use super::fp::{Fp, SHARDS};
use super::labels::Transitions;
use super::level_files::{
    complete_levels, hex, is_discarded_name, level_dir, level_row, level_stats, links_file,
    read_meta, save_level, unhex, write_file, write_meta, LevelSeals, RunIdentity,
};
use super::links::{Link, LinkStore};
use super::options::EngineOptions;
use super::part::Part;
use super::seal::{check_records, damaged, Seal, SealedReader};
use super::state_check::StateCheck;
use super::store::pick::{self, Stored};
use super::table::FpTable;
use super::visited::{Visited, LOAD};
use serde::{Deserialize, Serialize};
use stateright::{Model, Property};
use std::hash::Hash;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `meta.json` holds (a level store fills in what it stores:
/// `visited` and `frontier`, or `disk`).
#[derive(Serialize, Deserialize)]
struct Meta {
    /// What the checkpoint is of.
    #[serde(flatten)]
    run: RunIdentity,
    #[serde(flatten)]
    record: LevelRecord,
    /// A `--disk` run's level: its parts and visited runs (`visited` and
    /// `frontier` are then empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) disk: Option<DiskMeta>,
}

/// What a checkpoint level records of the run, whichever store wrote it
/// (a distributed worker's part records it too).
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct LevelRecord {
    pub(crate) depth: usize,
    /// Per level: depth, new, total, transitions, total transitions, ms.
    levels: Vec<[u64; 6]>,
    /// Per property: its decision ([`SavedDecision`]), or nothing.
    decisions: Vec<Option<SavedDecision>>,
    /// The label counts and the seals of the level's files.
    #[serde(flatten)]
    pub(crate) seals: LevelSeals,
}

/// Level `depth`'s meta in `dir`, if a run with `opts` may resume it as
/// far as the meta tells: `Err` with one line saying why not. The files
/// are not read (see [`check_resumable`]).
fn resumable_meta(dir: &Path, depth: usize, opts: &EngineOptions) -> Result<Meta, String> {
    let level_dir = level_dir(dir, depth);
    let meta: Meta = read_meta(&level_dir)?;
    let asked = RunIdentity::new(&opts.identity, opts.max_depth, opts.fingerprint.bits());
    if let Some(line) = meta.run.mismatch(dir, &asked, &opts.near_identities) {
        return Err(line);
    }
    pick::check_kind(dir, meta.disk.is_some(), opts)?;
    let bytes = opts.fingerprint.bits() as usize / 8;
    (meta.record.check(depth, bytes))
        .map_err(|what| damaged(&level_dir.join("meta.json"), what))?;
    Ok(meta)
}

/// The level a resume of `dir` continues from: the deepest that is
/// complete and sealed (its meta of this run, every file read back
/// against it, `each` loading it), with a line per deeper level skipped
/// saying why; `Err` with the deepest level's reason when none is.
fn deepest_sound<T>(
    dir: &Path,
    opts: &EngineOptions,
    mut each: impl FnMut(usize, Meta) -> Result<T, String>,
) -> Result<(T, Vec<String>), String> {
    let levels = complete_levels(dir);
    let mut skipped = Vec::new();
    let mut first_reason = None;
    for &depth in levels.iter().rev() {
        match resumable_meta(dir, depth, opts).and_then(|meta| each(depth, meta)) {
            Ok(found) => return Ok((found, skipped)),
            Err(why) => {
                skipped.push(format!(
                    "{}: skipped ({why})",
                    level_dir(dir, depth).display()
                ));
                first_reason.get_or_insert(why);
            }
        }
    }
    Err(first_reason
        .unwrap_or_else(|| format!("{}: no complete checkpoint to resume", dir.display())))
}

/// What [`check_resumable`] found: the level a resume continues from, and
/// a line per deeper level it skips (not complete, damaged, or not of this
/// run), for the caller to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resumable {
    pub depth: usize,
    pub skipped: Vec<String>,
}

/// Whether `dir` holds a checkpoint that a run with `opts` may resume:
/// its deepest level that is complete and sealed (see [`Resumable`]), or
/// `Err` with one line saying why none is. Reads every file of the level
/// and every links file back against the seals and counts its meta
/// records (see the module docs); a resume reads them once more, and
/// takes the same level.
pub fn check_resumable(
    dir: &Path,
    opts: &EngineOptions,
    states: Option<&StateCheck>,
) -> Result<Resumable, String> {
    refuse_in_the_way(dir)?;
    let (depth, skipped) = deepest_sound(dir, opts, |depth, meta| {
        let level = level_dir(dir, depth);
        match opts.fingerprint {
            FingerprintWidth::Bits64 => meta.check_files::<u64>(dir, &level, states)?,
            FingerprintWidth::Bits128 => meta.check_files::<u128>(dir, &level, states)?,
        }
        Ok(depth)
    })?;
    Ok(Resumable { depth, skipped })
}

/// The names a checkpoint folder holds (`level-DDDD/`, its temporary
/// `.level-DDDD.tmp/`, a level whose removal a kill cut short
/// `.level-DDDD.old/`, `links-DDDD.bin`), and those a level holds.
const LEVEL_FILES: [&str; 3] = ["visited.bin", "frontier.bin", "meta.json"];

/// What an entry of a checkpoint folder is, by its name and type.
enum Entry {
    Level(usize),
    Temporary,
    Links,
}

/// What a name in a checkpoint folder is, by the name alone, and whether
/// a checkpoint makes it a folder (else a regular file).
fn named(name: &str) -> Option<(Entry, bool)> {
    let number = |s: &str| (s.len() == 4 && s.bytes().all(|b| b.is_ascii_digit())).then_some(());
    if let Some(d) = name.strip_prefix("level-") {
        number(d)?;
        return Some((Entry::Level(d.parse().ok()?), true));
    }
    if let Some(d) = name
        .strip_prefix(".level-")
        .and_then(|d| d.strip_suffix(".tmp"))
    {
        number(d)?;
        return Some((Entry::Temporary, true));
    }
    if is_discarded_name(name) || name == ".scratch" || name == "visited" {
        return Some((Entry::Temporary, true));
    }
    let d = name.strip_prefix("links-")?.strip_suffix(".bin")?;
    number(d)?;
    Some((Entry::Links, false))
}

/// What the entry `e` of a checkpoint folder is: its name one a
/// checkpoint gives ([`named`]) and its type the one it gives it.
fn entry_of(e: &std::fs::DirEntry) -> Option<Entry> {
    let (entry, folder) = named(e.file_name().to_str()?)?;
    let kind = e.file_type().ok()?;
    (if folder {
        kind.is_dir()
    } else {
        kind.is_file()
    })
    .then_some(entry)
}

/// `Err` naming the first entry of `dir` in a resume's way: under a name
/// a checkpoint writes itself, a symlink (a resume writes into, and
/// removes from, `.scratch/`, `visited/` and the levels' folders by
/// name, and must not follow it, issue 38.6) or an entry of another type
/// than the checkpoint gives that name (a folder where a links file goes:
/// the resume would explore up to it and stop there, issue 51.12). A
/// fresh run refuses both as foreign.
pub(crate) fn refuse_in_the_way(dir: &Path) -> Result<(), String> {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let loosely_ours = [".scratch", "visited"].contains(&name.as_str())
            || ["level-", ".level-", "links-"]
                .iter()
                .any(|p| name.starts_with(p));
        let is_link = e.file_type().is_ok_and(|t| t.is_symlink());
        if loosely_ours && is_link {
            return Err(format!(
                "{}: a symlink where a checkpoint keeps its own files; a resume never follows it \
                 (remove it, or resume a folder of this run's)",
                e.path().display()
            ));
        }
        if let Some((_, folder)) = named(&name).filter(|_| entry_of(&e).is_none()) {
            return Err(format!(
                "{}: not the {} a checkpoint keeps under this name, where the resume would write \
                 one (move it away, or resume a folder of this run's)",
                e.path().display(),
                if folder { "folder" } else { "file" }
            ));
        }
    }
    Ok(())
}

/// The entries of the level folder `level` that a checkpoint does not
/// write, by name.
fn foreign_in_level(level: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(level).map_err(|e| format!("{}: {e}", level.display()))?;
    let mut foreign = Vec::new();
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", level.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let regular = e.file_type().is_ok_and(|t| t.is_file());
        if !(regular && is_known_file(&name)) {
            foreign.push(level.join(name).display().to_string());
        }
    }
    Ok(foreign)
}

/// Makes `dir` ready for a fresh checkpoint of a run with `opts`: a
/// missing or empty folder is; one that holds a checkpoint of this same
/// run (every level's meta says so) is cleared of it, its levels, their
/// temporaries and its links files, by name, and nothing else; anything
/// else is refused, in one line naming what is in the way: a name that
/// is no checkpoint's, a level that is not this run's (another model,
/// other bounds, or damaged), or links files without a level.
pub fn prepare_checkpoint(dir: &Path, opts: &EngineOptions) -> Result<(), String> {
    let ours = survey(dir, &|depth| resumable_meta(dir, depth, opts).map(drop))?;
    clear(ours)
}

/// What a fresh checkpoint clears of the folder `dir` (its levels, their
/// temporaries and its links files: a folder or not, by path), if it may
/// go there: `Err` in one line naming what is in the way (see
/// [`prepare_checkpoint`]); `same_run(depth)` says whether level `depth`
/// is of this run. Nothing is removed yet ([`clear`]): a caller with
/// several folders surveys them all first.
pub(crate) fn survey(
    dir: &Path,
    same_run: &dyn Fn(usize) -> Result<(), String>,
) -> Result<Vec<(PathBuf, bool)>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let (mut ours, mut foreign, mut levels) = (Vec::new(), Vec::new(), 0);
    for e in entries {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = e.path();
        match entry_of(&e) {
            None => foreign.push(e.file_name().to_string_lossy().into_owned()),
            Some(Entry::Level(depth)) => {
                same_run(depth).map_err(|why| {
                    format!(
                        "{}: not a checkpoint of this run, so it is not replaced ({why})",
                        path.display()
                    )
                })?;
                levels += 1;
                ours.push((path, true));
            }
            Some(Entry::Temporary) => ours.push((path, true)),
            Some(Entry::Links) => ours.push((path, false)),
        }
    }
    if !foreign.is_empty() {
        foreign.sort();
        return Err(format!(
            "{}: holds {} that no checkpoint writes ({}): a checkpoint goes into an empty folder or over one of the same run",
            dir.display(),
            if foreign.len() == 1 { "an entry" } else { "entries" },
            cut_list(&foreign)
        ));
    }
    if levels == 0 && ours.iter().any(|(_, dir)| !dir) {
        return Err(format!(
            "{}: holds parent-links files but no checkpoint level that proves them this run's: choose an empty folder",
            dir.display()
        ));
    }
    for (path, is_dir) in &ours {
        if *is_dir {
            let foreign = foreign_in_level(path)?;
            if !foreign.is_empty() {
                return Err(format!(
                    "{}: holds what no checkpoint writes ({}), so it is not replaced",
                    path.display(),
                    cut_list(&foreign)
                ));
            }
        }
    }
    Ok(ours)
}

/// Removes what [`survey`] found, by name: in each folder only the files
/// a checkpoint names, then the folder.
pub(crate) fn clear(ours: Vec<(PathBuf, bool)>) -> Result<(), String> {
    for (path, is_dir) in ours {
        let removed = if is_dir {
            remove_known_files(&path).and_then(|()| std::fs::remove_dir(&path))
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| format!("{}: cannot remove it: {e}", path.display()))?;
    }
    Ok(())
}

/// Removes the files of a checkpoint's folder `dir` (a level, its
/// temporary, or a `--disk` run's scratch) by the names they are given.
fn remove_known_files(dir: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if is_known_file(&name) && e.file_type()?.is_file() {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}

/// Whether `name` is one a checkpoint gives a file inside one of its
/// folders: a level's, a `--disk` run's parts, visited runs and
/// candidate runs.
fn is_known_file(name: &str) -> bool {
    LEVEL_FILES.contains(&name)
        || is_part_name(name)
        || is_run_name(name)
        || (name.starts_with("cand-") && name.ends_with(".bin") && name.len() == 16)
        || (name.starts_with("links-") && name.ends_with(".bin") && name.len() == 12)
}

/// The first three of `names`, and how many more there are.
fn cut_list(names: &[String]) -> String {
    let shown = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match names.len() {
        n if n > 3 => format!("{shown} and {} more", n - 3),
        _ => shown,
    }
}

impl LevelRecord {
    /// The record of `run`'s completed level, whose links files are
    /// sealed `links` (the seals of the level's own files are filled in
    /// once they are written).
    fn of<M: Model, T, W: Fp>(run: &Run<'_, M, T, W>, links: &[Seal]) -> Self {
        LevelRecord {
            depth: run.depth,
            levels: run.levels.iter().map(level_row).collect(),
            decisions: encode_decisions(&run.decisions),
            seals: LevelSeals::new(run.labels.counts(), links),
        }
    }

    /// The run to continue from this level, whose frontier is `frontier`
    /// (its decisions checked by [`LevelRecord::check`]).
    pub(crate) fn restored<S, W: Fp>(&self, frontier: Vec<Part<S, W>>) -> Restored<S, W> {
        Restored {
            depth: self.depth,
            levels: self.levels.iter().map(level_stats).collect(),
            decisions: decode_decisions(&self.decisions).expect("checked decisions"),
            labels: self.seals.labels(),
            frontier,
        }
    }

    /// New states of level `d`.
    pub(super) fn new_states(&self, d: usize) -> u64 {
        self.levels[d][1]
    }

    /// Whether the record is one of level `depth` whose counts and
    /// decisions (of `fp_bytes`-byte fingerprints) agree with each other
    /// (a record this engine wrote always is): what does not, if not.
    pub(crate) fn check(&self, depth: usize, fp_bytes: usize) -> Result<(), String> {
        if self.depth != depth {
            return Err(format!(
                "depth {} in the directory of level {depth}",
                self.depth
            ));
        }
        if self.levels.len() != self.depth + 1 || self.seals.links.len() != self.depth {
            return Err(format!(
                "{} levels and {} links files for depth {}",
                self.levels.len(),
                self.seals.links.len(),
                self.depth
            ));
        }
        let (mut states, mut transitions) = (0u64, 0u64);
        for (d, row) in self.levels.iter().enumerate() {
            states = states.saturating_add(row[1]);
            transitions = transitions.saturating_add(row[3]);
            if row[0] != d as u64 || row[2] != states || row[4] != transitions {
                return Err(format!("the counts of level {d} do not add up"));
            }
        }
        self.seals.check(self.depth)?;
        for (p, d) in self.decisions.iter().enumerate() {
            let Some((fields, fp)) = d else { continue };
            let depth = fields[0];
            let fits = unhex(fp, fp_bytes).is_some()
                && depth <= self.depth as u64
                && match fields[1] {
                    u64::MAX => {
                        depth >= 1
                            && fields[2] < self.new_states(depth as usize - 1)
                            && fields[2] <= u32::MAX as u64
                            && fields[3] <= u32::MAX as u64
                    }
                    pos => pos < self.new_states(depth as usize),
                };
            if !fits {
                return Err(format!("the decision of property {p} names no state"));
            }
        }
        Ok(())
    }
}

impl Meta {
    /// Reads the level's files and the links files back (see
    /// [`check_resumable`]).
    fn check_files<W: Fp>(
        &self,
        dir: &Path,
        level: &Path,
        states: Option<&StateCheck>,
    ) -> Result<(), String> {
        let (stored, counts) = self.stored();
        pick::check_files::<W>(&stored, dir, level, counts, states)?;
        self.check_links(dir)
    }

    /// What the level records of the store's files, and its counts: the
    /// states visited, and those of the frontier.
    fn stored(&self) -> (Stored, (u64, u64)) {
        let r = &self.record;
        let stored = match &self.disk {
            Some(disk) => Stored::Disk(disk.clone()),
            None => Stored::Files {
                visited: r.seals.visited,
                frontier: r.seals.frontier,
            },
        };
        (stored, (r.levels[r.depth][2], r.new_states(r.depth)))
    }

    /// Records what the store put into the level.
    fn fill(&mut self, stored: Stored) {
        match stored {
            Stored::Files { visited, frontier } => {
                (self.record.seals.visited, self.record.seals.frontier) = (visited, frontier);
            }
            Stored::Disk(disk) => self.disk = Some(disk),
        }
    }

    /// Reads the links files of levels 1 to `depth` back against their
    /// seals and the counts recorded: each link must name a state of the
    /// level before (a trace walked back through one that does not would
    /// read past its file).
    fn check_links(&self, dir: &Path) -> Result<(), String> {
        let r = &self.record;
        for (d, &seal) in (1..=r.depth).zip(&r.seals.links) {
            let path = links_file(dir, d);
            if seal.len != r.new_states(d) * Link::BYTES as u64 {
                return Err(damaged(
                    &path,
                    format_args!("{} bytes recorded for {} states", seal.len, r.new_states(d)),
                ));
            }
            let before = r.new_states(d - 1);
            let past = format!("names a parent past the {before} states of level {}", d - 1);
            check_records(&path, seal, Link::BYTES, &past, |link| {
                u64::from(Link::from_bytes(link).parent) < before
            })?;
        }
        Ok(())
    }
}

impl<'a, M, T, W> Run<'a, M, T, W>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    /// Checkpoints the level just completed, if the run keeps
    /// checkpoints: its store writes its files and the meta goes beside
    /// them (see the module docs).
    pub(super) fn checkpoint(&mut self) -> Result<(), String> {
        let record = LevelRecord::of(self, self.links.seals());
        let mut meta = Meta {
            run: RunIdentity::new(
                &self.opts.identity,
                self.opts.max_depth,
                8 * W::BYTES as u32,
            ),
            record: record.clone(),
            disk: None,
        };
        self.store
            .checkpoint(&record, &self.frontier, &mut |tmp, stored| {
                meta.fill(stored);
                write_meta(tmp, &meta).map(drop)
            })
    }

    /// The run continued from the deepest complete level in `dir`, which
    /// [`check_resumable`] accepted (a file that changed since fails
    /// here, with the same line).
    pub(super) fn resume(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
        dir: &Path,
    ) -> Self {
        // The level check_resumable accepted: the deepest that loads whole.
        let ((store, frontier, meta), _) = deepest_sound(dir, opts, |depth, meta| {
            let level = level_dir(dir, depth);
            meta.check_links(dir)?;
            let (stored, counts) = meta.stored();
            let (store, frontier) = pick::resumed(opts, dir, &level, &stored, counts)?;
            Ok((store, frontier, meta))
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let restored = meta.record.restored(frontier);
        let mut run = Run::restored(model, properties, opts, codec, store, restored);
        run.links = LinkStore::in_dir(dir, meta.record.seals.links.clone());
        run
    }
}

/// A decision as a checkpoint's meta records it: `[depth, position or
/// u64::MAX, parent, action]` and the fingerprint in hex.
pub(crate) type SavedDecision = ([u64; 4], String);

/// The decisions as a meta records them.
fn encode_decisions<W: Fp>(decisions: &Decisions<W>) -> Vec<Option<SavedDecision>> {
    decisions.0.iter().map(|d| d.map(encode_decision)).collect()
}

/// The decisions a meta records, if every fingerprint is a word of `W`.
fn decode_decisions<W: Fp>(saved: &[Option<SavedDecision>]) -> Option<Decisions<W>> {
    let decisions = saved.iter().map(|d| match d {
        Some(d) => decode_decision(d).map(Some),
        None => Some(None),
    });
    Some(Decisions(decisions.collect::<Option<_>>()?))
}

/// Writes the checkpoint of level `depth` of an in-memory run (or of a
/// distributed worker's part) into `dir` (see the module docs): its
/// visited set, its frontier `frontier` (as its encodings: a checkpoint
/// needs a codec) and `meta` with their seals; the levels shallower than
/// `keep_from` are removed then. A write that fails is `Err`, one line
/// naming the file and the cause; the level's directory is then absent
/// and the earlier one kept.
pub(crate) fn save_memory_level<S: Clone, W: Fp>(
    dir: &Path,
    (depth, keep_from): (usize, usize),
    visited: &Visited<W>,
    frontier: &[Part<S, W>],
    write_meta: impl FnOnce(&Path, Seal, Seal) -> Result<(), String>,
) -> Result<(), String> {
    save_level(dir, depth, keep_from, |tmp| {
        let visited = write_visited(&tmp.join("visited.bin"), visited)?;
        let frontier = write_frontier(&tmp.join("frontier.bin"), frontier)?;
        write_meta(tmp, visited, frontier)
    })
}

fn write_visited<W: Fp>(path: &Path, visited: &Visited<W>) -> Result<Seal, String> {
    write_file(path, |out| {
        let mut buf = Vec::with_capacity(1 << 16);
        for s in 0..SHARDS {
            let table = visited.shard(s);
            out.write_all(&(table.len() as u64).to_le_bytes())?;
            for fp in table.iter() {
                fp.write(&mut buf);
                if buf.len() >= 1 << 16 {
                    out.write_all(&buf)?;
                    buf.clear();
                }
            }
            out.write_all(&buf)?;
            buf.clear();
        }
        Ok(())
    })
}

fn encode_decision<W: Fp>(d: Decision<W>) -> SavedDecision {
    let mut fp = Vec::new();
    d.fp.write(&mut fp);
    let hex = hex(&fp);
    let fields = match d.witness {
        Witness::At(pos) => [d.depth as u64, pos, 0, 0],
        Witness::Via(link) => [
            d.depth as u64,
            u64::MAX,
            link.parent as u64,
            link.action as u64,
        ],
    };
    (fields, hex)
}

/// The decision `saved` names, if its fingerprint is a word of `W`.
fn decode_decision<W: Fp>((fields, hex): &SavedDecision) -> Option<Decision<W>> {
    let bytes = unhex(hex, W::BYTES)?;
    let witness = match fields[1] {
        u64::MAX => Witness::Via(Link {
            parent: fields[2] as u32,
            action: fields[3] as u32,
        }),
        pos => Witness::At(pos),
    };
    Some(Decision {
        depth: fields[0] as usize,
        fp: W::read(&bytes),
        witness,
    })
}

/// Per shard: the number of states, their fingerprints, the byte length
/// of their encodings, and the encodings.
fn write_frontier<S, W: Fp>(path: &Path, frontier: &[Part<S, W>]) -> Result<Seal, String> {
    write_file(path, |out| {
        for part in frontier {
            let (fps, bytes) = part.encoded();
            let mut head = Vec::with_capacity(fps.len() * W::BYTES + 16);
            head.extend_from_slice(&(fps.len() as u64).to_le_bytes());
            fps.iter().for_each(|fp| fp.write(&mut head));
            head.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            out.write_all(&head)?;
            out.write_all(bytes)?;
        }
        Ok(())
    })
}

/// The next shard's fingerprints in `input`: a count, then the words,
/// each of which must belong to `shard` (in ascending order if `sorted`).
fn read_shard<W: Fp>(
    input: &mut SealedReader,
    shard: usize,
    sorted: bool,
) -> Result<Vec<W>, String> {
    let n = input.u64()?;
    let bytes = input.bytes(n, W::BYTES)?;
    let fps: Vec<W> = bytes.chunks_exact(W::BYTES).map(W::read).collect();
    let misplaced = fps.iter().any(|fp| fp.shard() != shard);
    if misplaced || (sorted && fps.windows(2).any(|w| w[0] >= w[1])) {
        return Err(damaged(
            input.path(),
            format_args!("the fingerprints of shard {shard} are not in it, in order"),
        ));
    }
    Ok(fps)
}

/// A visited set and a frontier as read back, with how many states each
/// holds.
type MemoryLevel<S, W> = (Visited<W>, Vec<Part<S, W>>, (u64, u64));

/// The visited set and the frontier that [`save_memory_level`] wrote into
/// the level directory `level`, read back against the seals of its two
/// files.
pub(crate) fn read_memory_level<S, W: Fp>(
    level: &Path,
    (visited_seal, frontier_seal): (Seal, Seal),
) -> Result<MemoryLevel<S, W>, String> {
    let mut shards = Vec::with_capacity(SHARDS);
    let visited = read_visited::<W>(&level.join("visited.bin"), visited_seal, |fps| {
        let n = fps.len();
        let slots = (n as f64 / LOAD) as usize;
        shards.push(FpTable::from_sorted(fps.into_iter(), n, slots));
    })?;
    let mut frontier = Vec::with_capacity(SHARDS);
    let states = read_frontier::<S, W>(&level.join("frontier.bin"), frontier_seal, |part| {
        frontier.push(part)
    })?;
    Ok((Visited::from_shards(shards), frontier, (visited, states)))
}

/// Reads the visited set and the frontier [`save_memory_level`] wrote
/// into the level directory `level` back against the seals of its two
/// files, without keeping them, each state of the frontier judged by
/// `states`: how many states each holds.
pub(crate) fn check_memory_level<W: Fp>(
    level: &Path,
    (visited_seal, frontier_seal): (Seal, Seal),
    states: Option<&StateCheck>,
) -> Result<(u64, u64), String> {
    let visited = read_visited::<W>(&level.join("visited.bin"), visited_seal, drop)?;
    let file = level.join("frontier.bin");
    let mut unsound = Ok(());
    let frontier = read_frontier::<(), W>(&file, frontier_seal, |part| {
        if let (Some(check), Ok(())) = (states, &unsound) {
            unsound = check.part(&file, &part);
        }
    })?;
    unsound.map(|()| (visited, frontier))
}

/// Reads `visited.bin` against its seal, handing each shard's
/// fingerprints to `each`; returns how many there were.
pub(super) fn read_visited<W: Fp>(
    path: &Path,
    seal: Seal,
    mut each: impl FnMut(Vec<W>),
) -> Result<u64, String> {
    let mut input = SealedReader::open(path, seal)?;
    let mut total = 0;
    for s in 0..SHARDS {
        let fps = read_shard::<W>(&mut input, s, false)?;
        total += fps.len() as u64;
        each(fps);
    }
    input.finish()?;
    Ok(total)
}

/// Reads `frontier.bin` against its seal, handing each shard's part to
/// `each`; returns how many states there were.
pub(super) fn read_frontier<S, W: Fp>(
    path: &Path,
    seal: Seal,
    mut each: impl FnMut(Part<S, W>),
) -> Result<u64, String> {
    let mut input = SealedReader::open(path, seal)?;
    let mut total = 0;
    for s in 0..SHARDS {
        let fps = read_shard::<W>(&mut input, s, true)?;
        total += fps.len() as u64;
        let len = input.u64()?;
        let bytes = input.bytes(len, 1)?;
        let part = Part::from_encoded(fps, bytes).ok_or_else(|| {
            damaged(
                path,
                format_args!("the encodings of shard {s} do not match its states"),
            )
        })?;
        each(part);
    }
    input.finish()?;
    Ok(total)
}

/// Test support: rewrites the meta of level directory `level` as `edit`
/// changes its fields, sealed anew (as a build that wrote such a meta
/// would have).
#[cfg(test)]
pub(crate) fn reseal_meta(level: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let text = std::fs::read_to_string(level.join("meta.json")).unwrap();
    let sealed: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut meta = sealed["meta"].clone();
    edit(&mut meta);
    let meta: Meta = serde_json::from_value(meta).unwrap();
    write_meta(level, &meta).unwrap();
}

/// Test support: rewrites `file` of the checkpoint in `dir` (a file of
/// level `depth`'s folder, or a links file of `dir`) as `edit` changes
/// its bytes, and reseals it in the level's meta: a forgery, which a seal
/// cannot tell from the file the run wrote.
#[cfg(test)]
pub(crate) fn reseal_file(dir: &Path, depth: usize, file: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(file).unwrap();
    edit(&mut bytes);
    std::fs::write(file, &bytes).unwrap();
    let seal = serde_json::to_value(super::seal::seal_of(&bytes)).unwrap();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    reseal_meta(&level_dir(dir, depth), |meta| match name.as_str() {
        "visited.bin" => meta["visited"] = seal,
        "frontier.bin" => meta["frontier"] = seal,
        links => {
            let d: usize = links[6..10].parse().unwrap();
            meta["links"][d - 1] = seal;
        }
    });
}

#[cfg(test)]
mod meta_tests {
    use super::Meta;

    /// The meta's fields in the order builds before `LevelSeals` wrote
    /// them: its checksum is taken over them as serialised, so a change
    /// of order would refuse every older checkpoint as damaged.
    #[test]
    fn the_meta_serialises_as_older_builds_wrote_it() {
        let text = concat!(
            r#"{"identity":"m","max_depth":4,"fingerprint_bits":64,"fingerprint_scheme":2,"#,
            r#""depth":1,"levels":[[0,1,1,0,0,5],[1,2,3,4,4,9]],"decisions":[null,[[1,1,0,0],"00ff"]],"#,
            r#""label_transitions":[4],"label_first_depths":[1],"label_levels":[[0],[4]],"#,
            r#""visited":{"len":24,"sum":7},"frontier":{"len":40,"sum":8},"links":[{"len":16,"sum":9}]}"#
        );
        let meta: Meta = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&meta).unwrap(), text);
        assert_eq!(meta.record.seals.links.len(), 1);
        assert_eq!(meta.record.seals.labels().0, vec![4]);
    }
}
