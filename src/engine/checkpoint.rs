//! Checkpoints at level boundaries: after each completed level, everything
//! needed to continue — the visited set, the level to expand next, the
//! counts, the property decisions and the label counts — goes into
//! `DIR/level-DDDD/`, and the parent links into `DIR/links-DDDD.bin` (the
//! run's link store lives in the checkpoint directory). A level's
//! directory is written under a temporary name and renamed when complete,
//! so it is complete or absent (`level_files`, shared with the distributed
//! engine); older ones are then removed. A resumed
//! run continues from the deepest complete level and ends exactly as a run
//! that was never interrupted would (only timings differ).
//!
//! `meta.json` names what was explored (the caller's identity, the depth
//! bound, the fingerprint width); resuming anything else is refused.

use super::bfs::Run;
use super::codec::StateCodec;
use super::decisions::{Decision, Decisions, Witness};
use super::fingerprint::{scheme_mismatch, unnumbered_scheme, FINGERPRINT_SCHEME};
use super::fp::{Fp, SHARDS};
use super::labels::Transitions;
use super::level_files::{
    complete_levels, hex, io, level_dir, level_row, level_stats, open, read_bytes, read_u64,
    save_level, unhex, write_file,
};
use super::links::{Link, LinkStore};
use super::options::EngineOptions;
use super::part::Part;
use super::table::FpTable;
use super::visited::{Visited, LOAD};
use serde::{Deserialize, Serialize};
use stateright::{Model, Property};
use std::fs;
use std::hash::Hash;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What `meta.json` holds.
#[derive(Serialize, Deserialize)]
struct Meta {
    identity: String,
    max_depth: Option<usize>,
    fingerprint_bits: u32,
    /// [`FINGERPRINT_SCHEME`] of the build that made it.
    #[serde(default = "unnumbered_scheme")]
    fingerprint_scheme: u32,
    depth: usize,
    /// Per level: depth, new, total, transitions, total transitions, ms.
    levels: Vec<[u64; 6]>,
    /// Per property: `[depth, position or u64::MAX, parent, action]` and
    /// the fingerprint in hex, or nothing.
    decisions: Vec<Option<([u64; 4], String)>>,
    label_transitions: Vec<u64>,
    label_first_depths: Vec<Option<usize>>,
}

/// The deepest complete level directory in `dir`, if any.
fn last_level(dir: &Path) -> Option<(usize, PathBuf)> {
    let depth = *complete_levels(dir).last()?;
    Some((depth, level_dir(dir, depth)))
}

fn read_meta(level_dir: &Path) -> Result<Meta, String> {
    let path = level_dir.join("meta.json");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether `dir` holds a checkpoint that a run with `opts` may resume:
/// `Err` with one line saying why not.
pub fn check_resumable(dir: &Path, opts: &EngineOptions) -> Result<usize, String> {
    let (depth, level_dir) = last_level(dir)
        .ok_or_else(|| format!("{}: no complete checkpoint to resume", dir.display()))?;
    let meta = read_meta(&level_dir)?;
    if meta.identity != opts.identity {
        return Err(format!(
            "{}: the checkpoint is of another model or bounds ({}), not {}",
            dir.display(),
            meta.identity,
            opts.identity
        ));
    }
    if meta.fingerprint_scheme != FINGERPRINT_SCHEME {
        return Err(scheme_mismatch(dir, meta.fingerprint_scheme));
    }
    if meta.max_depth != opts.max_depth || meta.fingerprint_bits != opts.fingerprint.bits() {
        return Err(format!(
            "{}: the checkpoint was made with depth {:?} and {}-bit fingerprints, not depth {:?} and {}",
            dir.display(),
            meta.max_depth,
            meta.fingerprint_bits,
            opts.max_depth,
            opts.fingerprint.bits()
        ));
    }
    Ok(depth)
}

impl<'a, M, T, W> Run<'a, M, T, W>
where
    M: Model + Sync,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Fp,
{
    /// Writes the checkpoint of the level just completed (see the module
    /// docs). Needs a codec: the frontier is stored as its encodings.
    pub(super) fn save_checkpoint(&self, dir: &Path) {
        assert!(self.codec.is_some(), "checkpoints need a state codec");
        save_level(dir, self.depth, self.depth, |tmp| {
            write_meta(&tmp.join("meta.json"), &self.meta());
            self.write_visited(&tmp.join("visited.bin"));
            write_frontier(&tmp.join("frontier.bin"), &self.frontier);
        });
    }

    fn meta(&self) -> Meta {
        let (label_transitions, label_first_depths) = self.labels.counts();
        Meta {
            identity: self.opts.identity.clone(),
            max_depth: self.opts.max_depth,
            fingerprint_bits: 8 * W::BYTES as u32,
            fingerprint_scheme: FINGERPRINT_SCHEME,
            depth: self.depth,
            levels: self.levels.iter().map(level_row).collect(),
            decisions: self
                .decisions
                .0
                .iter()
                .map(|d| d.map(encode_decision))
                .collect(),
            label_transitions,
            label_first_depths,
        }
    }

    fn write_visited(&self, path: &Path) {
        write_file(path, |out| {
            let mut buf = Vec::with_capacity(1 << 16);
            for s in 0..SHARDS {
                let table = self.visited.shard(s);
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
        });
    }

    /// The run continued from the deepest complete level in `dir`.
    pub(super) fn resume(
        model: &'a M,
        properties: &'a [Property<M>],
        opts: &'a EngineOptions,
        codec: Option<&'a dyn StateCodec<M::State>>,
        dir: &Path,
    ) -> Self {
        let depth = check_resumable(dir, opts).unwrap_or_else(|e| panic!("{e}"));
        let level_dir = level_dir(dir, depth);
        let meta = read_meta(&level_dir).unwrap_or_else(|e| panic!("{e}"));
        let mut run = Run::empty(model, properties, opts, codec);
        run.links = LinkStore::in_dir(dir, depth);
        run.visited = read_visited(&level_dir.join("visited.bin"));
        run.frontier = read_frontier(&level_dir.join("frontier.bin"));
        run.depth = meta.depth;
        run.levels = meta.levels.iter().map(level_stats).collect();
        run.decisions = Decisions(
            meta.decisions
                .iter()
                .map(|d| d.as_ref().map(decode_decision))
                .collect(),
        );
        run.labels
            .restore(meta.label_transitions, meta.label_first_depths);
        run
    }
}

fn encode_decision<W: Fp>(d: Decision<W>) -> ([u64; 4], String) {
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

fn decode_decision<W: Fp>((fields, hex): &([u64; 4], String)) -> Decision<W> {
    let bytes = unhex(hex);
    let witness = match fields[1] {
        u64::MAX => Witness::Via(Link {
            parent: fields[2] as u32,
            action: fields[3] as u32,
        }),
        pos => Witness::At(pos),
    };
    Decision {
        depth: fields[0] as usize,
        fp: W::read(&bytes),
        witness,
    }
}

fn write_meta(path: &Path, meta: &Meta) {
    let text = serde_json::to_string(meta).expect("a checkpoint's meta serialises");
    io(path, fs::write(path, text));
}

/// Per shard: the number of states, their fingerprints, the byte length
/// of their encodings, and the encodings.
fn write_frontier<S, W: Fp>(path: &Path, frontier: &[Part<S, W>]) {
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
    });
}

fn read_fps<W: Fp>(path: &Path, input: &mut impl Read, n: usize) -> Vec<W> {
    let bytes = read_bytes(path, input, n * W::BYTES);
    bytes.chunks_exact(W::BYTES).map(W::read).collect()
}

fn read_frontier<S, W: Fp>(path: &Path) -> Vec<Part<S, W>> {
    let mut input = open(path);
    (0..SHARDS)
        .map(|_| {
            let n = read_u64(path, &mut input) as usize;
            let fps = read_fps(path, &mut input, n);
            let len = read_u64(path, &mut input) as usize;
            Part::from_encoded(fps, read_bytes(path, &mut input, len))
        })
        .collect()
}

fn read_visited<W: Fp>(path: &Path) -> Visited<W> {
    let mut input = open(path);
    let shards = (0..SHARDS)
        .map(|_| {
            let n = read_u64(path, &mut input) as usize;
            let fps = read_fps::<W>(path, &mut input, n);
            FpTable::from_sorted(fps.into_iter(), n, (n as f64 / LOAD) as usize)
        })
        .collect();
    Visited::from_shards(shards)
}
