//! Checkpoints at level boundaries: after each completed level, everything
//! needed to continue — the visited set, the level to expand next, the
//! counts, the property decisions and the label counts — goes into
//! `DIR/level-DDDD/`, and the parent links into `DIR/links-DDDD.bin` (the
//! run's link store lives in the checkpoint directory). A level's
//! directory is written under a temporary name and renamed when complete,
//! so it is complete or absent; older ones are then removed. A resumed
//! run continues from the deepest complete level and ends exactly as a run
//! that was never interrupted would (only timings differ).
//!
//! `meta.json` names what was explored (the caller's identity, the depth
//! bound, the fingerprint width); resuming anything else is refused.

use super::bfs::Run;
use super::codec::StateCodec;
use super::decisions::{Decision, Decisions, Witness};
use super::fp::{Fp, SHARDS};
use super::labels::Transitions;
use super::links::{Link, LinkStore};
use super::options::EngineOptions;
use super::part::Part;
use super::report::LevelStats;
use super::table::FpTable;
use super::visited::{Visited, LOAD};
use serde::{Deserialize, Serialize};
use stateright::{Model, Property};
use std::fs::{self, File};
use std::hash::Hash;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// What `meta.json` holds.
#[derive(Serialize, Deserialize)]
struct Meta {
    identity: String,
    max_depth: Option<usize>,
    fingerprint_bits: u32,
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
    fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let depth = name.strip_prefix("level-")?.parse().ok()?;
            Some((depth, e.path()))
        })
        .max_by_key(|(d, _)| *d)
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

fn io<T>(what: &Path, r: std::io::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("checkpoint {}: {e}", what.display()))
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
        let tmp = dir.join(format!(".level-{:04}.tmp", self.depth));
        let _ = fs::remove_dir_all(&tmp);
        io(&tmp, fs::create_dir_all(&tmp));
        write_meta(&tmp.join("meta.json"), &self.meta());
        self.write_visited(&tmp.join("visited.bin"));
        write_frontier(&tmp.join("frontier.bin"), &self.frontier);
        let done = dir.join(format!("level-{:04}", self.depth));
        io(&done, fs::rename(&tmp, &done));
        for depth in 0..self.depth {
            let _ = fs::remove_dir_all(dir.join(format!("level-{depth:04}")));
        }
    }

    fn meta(&self) -> Meta {
        let (label_transitions, label_first_depths) = self.labels.counts();
        Meta {
            identity: self.opts.identity.clone(),
            max_depth: self.opts.max_depth,
            fingerprint_bits: 8 * W::BYTES as u32,
            depth: self.depth,
            levels: self
                .levels
                .iter()
                .map(|l| {
                    let (d, n, t, tr, ttr) = l.counts();
                    [d as u64, n, t, tr, ttr, l.elapsed_ms]
                })
                .collect(),
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
        let mut out = BufWriter::new(io(path, File::create(path)));
        let mut buf = Vec::with_capacity(1 << 16);
        for s in 0..SHARDS {
            let table = self.visited.shard(s);
            io(path, out.write_all(&(table.len() as u64).to_le_bytes()));
            for fp in table.iter() {
                fp.write(&mut buf);
                if buf.len() >= 1 << 16 {
                    io(path, out.write_all(&buf));
                    buf.clear();
                }
            }
            io(path, out.write_all(&buf));
            buf.clear();
        }
        io(
            path,
            io(path, out.into_inner().map_err(|e| e.into_error())).sync_all(),
        );
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
        let level_dir = dir.join(format!("level-{depth:04}"));
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

fn level_stats(l: &[u64; 6]) -> LevelStats {
    LevelStats {
        depth: l[0] as usize,
        new_states: l[1],
        total_states: l[2],
        transitions: l[3],
        total_transitions: l[4],
        elapsed_ms: l[5],
    }
}

fn encode_decision<W: Fp>(d: Decision<W>) -> ([u64; 4], String) {
    let mut fp = Vec::new();
    d.fp.write(&mut fp);
    let hex = fp.iter().map(|b| format!("{b:02x}")).collect();
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
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("a hex fingerprint"))
        .collect();
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
    let mut out = BufWriter::new(io(path, File::create(path)));
    for part in frontier {
        let (fps, bytes) = part.encoded();
        let mut head = Vec::with_capacity(fps.len() * W::BYTES + 16);
        head.extend_from_slice(&(fps.len() as u64).to_le_bytes());
        fps.iter().for_each(|fp| fp.write(&mut head));
        head.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        io(path, out.write_all(&head));
        io(path, out.write_all(bytes));
    }
    io(
        path,
        io(path, out.into_inner().map_err(|e| e.into_error())).sync_all(),
    );
}

fn read_u64(path: &Path, input: &mut impl Read) -> u64 {
    let mut b = [0; 8];
    io(path, input.read_exact(&mut b));
    u64::from_le_bytes(b)
}

fn read_fps<W: Fp>(path: &Path, input: &mut impl Read, n: usize) -> Vec<W> {
    let mut bytes = vec![0; n * W::BYTES];
    io(path, input.read_exact(&mut bytes));
    bytes.chunks_exact(W::BYTES).map(W::read).collect()
}

fn read_frontier<S, W: Fp>(path: &Path) -> Vec<Part<S, W>> {
    let mut input = BufReader::new(io(path, File::open(path)));
    (0..SHARDS)
        .map(|_| {
            let n = read_u64(path, &mut input) as usize;
            let fps = read_fps(path, &mut input, n);
            let mut bytes = vec![0; read_u64(path, &mut input) as usize];
            io(path, input.read_exact(&mut bytes));
            Part::from_encoded(fps, bytes)
        })
        .collect()
}

fn read_visited<W: Fp>(path: &Path) -> Visited<W> {
    let mut input = BufReader::new(io(path, File::open(path)));
    let shards = (0..SHARDS)
        .map(|_| {
            let n = read_u64(path, &mut input) as usize;
            let fps = read_fps::<W>(path, &mut input, n);
            FpTable::from_sorted(fps.into_iter(), n, (n as f64 / LOAD) as usize)
        })
        .collect();
    Visited::from_shards(shards)
}
