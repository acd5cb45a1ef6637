//! Two dumps (`check --dump DIR`, `docs/dumps.md`) compared as graphs,
//! never replayed through the running build: per depth, the states only
//! in A and only in B (a state is its canonical fingerprint,
//! [`crate::check::dump::canonical`], so the two runs may be of two
//! versions of the spec); the one-sided states paired by (parent, action)
//! across the two `transitions.csv` ("used to lead to X, now leads to
//! Y"); and, for each side's shallowest one-sided state, a trace built
//! from that dump's own `step` column under its own `model.json`.

use crate::check::dump::canonical::hex;
use crate::check::dump::manifest::DumpManifest;
use crate::check::dump::{STATES_HEADER, TRANSITIONS_HEADER};
use crate::config::ModelConfig;
use crate::input::{read_text, InputError};
use crate::trace::{parse_step_value, Trace};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

/// Whether `dir` holds a dump, or what a dump leaves (its manifest is
/// checked when it is loaded): an unfinished one, whose files are still
/// under their `.partial` names, is then refused as such rather than read
/// as a report folder.
pub fn is_dump(dir: &Path) -> bool {
    dir.is_dir()
        && [
            "states.csv",
            "dump.json",
            ".states.csv.partial",
            ".model.json.partial",
        ]
        .iter()
        .any(|name| dir.join(name).is_file())
}

/// One row of `states.csv`, as the diff needs it.
struct StateRow {
    depth: usize,
    parent: Option<u128>,
    /// The action's index in [`Dump::labels`].
    action: u32,
    records: Box<str>,
    transactions: Box<str>,
    /// The trace step from the parent, as JSON (empty at depth 0).
    step: Box<str>,
}

/// One dump, as the diff needs it.
pub struct Dump {
    pub origin: String,
    pub config: ModelConfig,
    pub manifest: DumpManifest,
    states: HashMap<u128, StateRow>,
    /// `states.csv` as named in errors.
    states_origin: String,
    labels: Vec<String>,
    label_ids: HashMap<String, u32>,
    /// `transitions.csv`: (from, action) → to.
    moves: HashMap<(u128, u32), u128>,
}

fn bad(origin: &str, what: String) -> InputError {
    InputError::new(format!("{origin}: {what}"))
}

fn fp(origin: &str, text: &str) -> Result<u128, InputError> {
    if text.len() != 32 {
        return Err(bad(origin, format!("{text:?} is not a 32-digit state")));
    }
    u128::from_str_radix(text, 16).map_err(|_| bad(origin, format!("{text:?} is not a state")))
}

/// The rows of the CSV file at `path` with header `header`, one by one.
fn each_row(
    path: &Path,
    header: &[&str],
    mut row: impl FnMut(&str, &csv::StringRecord) -> Result<(), InputError>,
) -> Result<u64, InputError> {
    let origin = path.display().to_string();
    let end = Rc::new(Cell::new(MAX_ROW_BYTES));
    let mut reader = csv::Reader::from_reader(RowLimit {
        inner: open_dump(path)?,
        read: 0,
        end: Rc::clone(&end),
    });
    let found = reader.headers().map_err(|e| bad(&origin, e.to_string()))?;
    if found.iter().ne(header.iter().copied()) {
        return Err(bad(
            &origin,
            format!(
                "header is not {} (re-dump it with this build)",
                header.join(",")
            ),
        ));
    }
    let mut count = 0;
    let mut record = csv::StringRecord::new();
    loop {
        end.set(reader.position().byte() + MAX_ROW_BYTES);
        let at = format!("{origin}: row {}", count + 1);
        if !reader
            .read_record(&mut record)
            .map_err(|e| bad(&at, e.to_string()))?
        {
            return Ok(count);
        }
        row(&at, &record)?;
        count += 1;
    }
}

impl Dump {
    /// Reads `dir/dump.json` (refusing a dump without it), `dir/model.json`,
    /// `dir/states.csv` and `dir/transitions.csv`, whose row counts must be
    /// the manifest's.
    pub fn load(dir: &Path) -> Result<Dump, InputError> {
        let manifest = DumpManifest::read(dir)?;
        let model_path = dir.join("model.json");
        let config =
            ModelConfig::parse(&read_text(&model_path)?, &model_path.display().to_string())?;
        let mut dump = Dump {
            origin: dir.display().to_string(),
            config,
            manifest,
            states: HashMap::new(),
            states_origin: dir.join("states.csv").display().to_string(),
            labels: Vec::new(),
            label_ids: HashMap::new(),
            moves: HashMap::new(),
        };
        let states_path = dir.join("states.csv");
        let rows = each_row(&states_path, &STATES_HEADER, |at, row| {
            let state = fp(at, &row[0])?;
            let depth: usize = row[1]
                .parse()
                .map_err(|_| bad(at, format!("depth: {:?} is not a depth", &row[1])))?;
            let parent = match &row[2] {
                "" if depth == 0 => None,
                "" => return Err(bad(at, "parent: a state below depth 0 names none".into())),
                p => Some(fp(at, p)?),
            };
            let action = dump.label_id(&row[3]);
            let entry = StateRow {
                depth,
                parent,
                action,
                records: row[4].into(),
                transactions: row[5].into(),
                step: row[7].into(),
            };
            if dump.states.insert(state, entry).is_some() {
                return Err(bad(at, format!("state {} listed twice", &row[0])));
            }
            Ok(())
        })?;
        let m = &dump.manifest;
        check_total(&states_path, rows, (m.states, m.states_bytes), "states")?;
        let transitions_path = dir.join("transitions.csv");
        let rows = each_row(&transitions_path, &TRANSITIONS_HEADER, |at, row| {
            let (from, to) = (fp(at, &row[0])?, fp(at, &row[2])?);
            let action = dump.label_id(&row[1]);
            dump.moves.entry((from, action)).or_insert(to);
            Ok(())
        })?;
        let m = &dump.manifest;
        let said = (m.transitions, m.transitions_bytes);
        check_total(&transitions_path, rows, said, "transitions")?;
        Ok(dump)
    }

    fn label_id(&mut self, label: &str) -> u32 {
        if let Some(&id) = self.label_ids.get(label) {
            return id;
        }
        let id = self.labels.len() as u32;
        self.labels.push(label.to_owned());
        self.label_ids.insert(label.to_owned(), id);
        id
    }

    /// The states from the initial state to `state`, `state` last.
    fn lineage(&self, mut state: u128) -> Result<Vec<u128>, InputError> {
        let mut states = vec![state];
        while let Some(StateRow {
            parent: Some(parent),
            ..
        }) = self.states.get(&state)
        {
            state = *parent;
            states.push(state);
            if states.len() > self.states.len() + 1 {
                return Err(bad(&self.states_origin, "the parent links loop".into()));
            }
        }
        if !self.states.contains_key(&state) {
            return Err(bad(
                &self.states_origin,
                format!("parent {} is not listed", hex(state)),
            ));
        }
        states.reverse();
        Ok(states)
    }

    /// The action labels from the initial state to `state`.
    fn path(&self, state: u128) -> Result<Vec<String>, InputError> {
        Ok(self.lineage(state)?[1..]
            .iter()
            .map(|s| self.labels[self.states[s].action as usize].clone())
            .collect())
    }

    /// The trace to `state` from the dump's own `step` column, under its
    /// own `model.json`: no step is run through the protocol.
    fn trace(&self, state: u128) -> Result<Trace, InputError> {
        let mut steps = Vec::new();
        for s in &self.lineage(state)?[1..] {
            let field = format!("state {}: step", hex(*s));
            let text = &self.states[s].step;
            let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                bad(
                    &self.states_origin,
                    format!("{field}: {text:?} is not a trace step ({e})"),
                )
            })?;
            steps.push(parse_step_value(
                &value,
                &self.config,
                &self.states_origin,
                &field,
            )?);
        }
        Ok(Trace::new(self.config.clone(), steps, None))
    }

    /// Where the action labelled `label` leads from `from`, if this dump
    /// took it.
    fn leads(&self, from: u128, label: &str) -> Option<u128> {
        let id = *self.label_ids.get(label)?;
        self.moves.get(&(from, id)).copied()
    }

    fn state(&self, state: u128) -> Result<&StateRow, InputError> {
        self.states.get(&state).ok_or_else(|| {
            bad(
                &self.origin,
                format!(
                    "transitions.csv leads to {}, which states.csv does not list",
                    hex(state)
                ),
            )
        })
    }

    /// Whether the state is at that depth in this dump.
    fn has_at(&self, state: u128, depth: usize) -> bool {
        self.states.get(&state).map(|s| s.depth) == Some(depth)
    }
}

/// A half-written or edited file has other rows or bytes than the
/// manifest counts (`said`: its `field` and `field_bytes` there).
fn check_total(path: &Path, rows: u64, said: (u64, u64), field: &str) -> Result<(), InputError> {
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let (said, bytes_said) = said;
    if rows == said && bytes == bytes_said {
        return Ok(());
    }
    Err(bad(
        &path.display().to_string(),
        format!("{rows} rows of {bytes} bytes, but dump.json counts {field} = {said} of {field}_bytes = {bytes_said}: the file is not the one the dump wrote; re-dump it"),
    ))
}

/// The longest row a dump's CSV file may have: a row is one state or
/// transition, a few kilobytes at the largest bounds, so 16 MiB is far
/// beyond any dump a build wrote, and small enough to hold (a row is
/// read whole before it is parsed).
pub const MAX_ROW_BYTES: u64 = 16 << 20;

/// Reads on from `inner` only up to byte `end`, which the reader moves
/// to [`MAX_ROW_BYTES`] past the start of each row: an endless row (no
/// newline in gigabytes) is an error, not a whole read.
struct RowLimit<R> {
    inner: R,
    read: u64,
    end: Rc<Cell<u64>>,
}

impl<R: Read> Read for RowLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = self.end.get().saturating_sub(self.read);
        if room == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "longer than {} MiB, which no dump's row is",
                    MAX_ROW_BYTES >> 20
                ),
            ));
        }
        let take = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..take])?;
        self.read += n as u64;
        Ok(n)
    }
}

/// A dump is streamed, not read whole: it may be far larger than the
/// 64 MiB the input layer reads at once. A regular file only, as every
/// input.
fn open_dump(path: &Path) -> Result<std::io::BufReader<std::fs::File>, InputError> {
    let origin = path.display().to_string();
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return Err(bad(&origin, "not a regular file".into())),
        Err(e) => return Err(bad(&origin, e.to_string())),
    }
    let file = std::fs::File::open(path).map_err(|e| bad(&origin, e.to_string()))?;
    Ok(std::io::BufReader::with_capacity(1 << 20, file))
}

/// Per depth: states only in A, only in B.
pub type DepthCounts = Vec<(usize, u64, u64)>;

/// What two dumps disagree on.
pub struct StateDiff {
    pub per_depth: DepthCounts,
    /// States only on one side (at their depth), both sides counted.
    pub one_sided: u64,
    /// Those of them in a [`Pair`].
    pub paired: u64,
    /// Every pair, shallowest first.
    pub pairs: Vec<Pair>,
    /// Per side with one-sided states ('A' first), the shallowest one.
    pub firsts: Vec<FirstDifference>,
    /// "protocol changed between these runs" when the two manifests name
    /// different protocol hashes.
    pub build_note: Option<String>,
}

/// One action from a state both dumps have that leads to different
/// states: it used to lead to `a`, now leads to `b`.
pub struct Pair {
    /// The depth of the states it leads to.
    pub depth: usize,
    pub parent: u128,
    /// The action labels from the initial state to the parent (in A).
    pub path: Vec<String>,
    pub action: String,
    pub a: Shown,
    pub b: Shown,
}

/// A state as its dump's row shows it.
pub struct Shown {
    pub state: u128,
    pub records: String,
    pub transactions: String,
}

impl Pair {
    /// The `; `-separated items of `a`'s and `b`'s column that the other
    /// lacks (records, or transactions).
    pub fn differing(a: &str, b: &str) -> (Vec<String>, Vec<String>) {
        let items = |t: &str| -> Vec<String> {
            t.split("; ")
                .filter(|i| !i.is_empty())
                .map(str::to_owned)
                .collect()
        };
        let (x, y) = (items(a), items(b));
        let only =
            |p: &[String], q: &[String]| p.iter().filter(|i| !q.contains(i)).cloned().collect();
        (only(&x, &y), only(&y, &x))
    }
}

pub struct FirstDifference {
    pub side: char,
    pub depth: usize,
    pub state: u128,
    pub labels: Vec<String>,
    pub trace: Trace,
}

/// Compares dumps `a` and `b`.
pub fn compare_dumps(a: &Dump, b: &Dump) -> Result<StateDiff, InputError> {
    let mut counts: HashMap<usize, (u64, u64)> = HashMap::new();
    let mut firsts = Vec::new();
    let mut one_sided = 0;
    let mut paired = 0;
    // (depth, parent, action) → (where it leads in A, in B).
    let mut pairs: BTreeMap<(usize, u128, String), (u128, u128)> = BTreeMap::new();
    for (side, mine, other) in [('A', a, b), ('B', b, a)] {
        let mut first: Option<(usize, u128)> = None;
        for (&state, row) in &mine.states {
            if other.has_at(state, row.depth) {
                continue;
            }
            one_sided += 1;
            let c = counts.entry(row.depth).or_default();
            if side == 'A' {
                c.0 += 1;
            } else {
                c.1 += 1;
            }
            if first.is_none_or(|f| (row.depth, state) < f) {
                first = Some((row.depth, state));
            }
            let Some(parent) = row.parent.filter(|p| other.states.contains_key(p)) else {
                continue;
            };
            let label = &mine.labels[row.action as usize];
            let Some(there) = other.leads(parent, label).filter(|&t| t != state) else {
                continue;
            };
            paired += 1;
            let ends = if side == 'A' {
                (state, there)
            } else {
                (there, state)
            };
            pairs.insert((row.depth, parent, label.clone()), ends);
        }
        if let Some((depth, state)) = first {
            firsts.push(FirstDifference {
                side,
                depth,
                state,
                labels: mine.path(state)?,
                trace: mine.trace(state)?,
            });
        }
    }
    let mut per_depth: DepthCounts = counts.into_iter().map(|(d, (x, y))| (d, x, y)).collect();
    per_depth.sort_unstable();
    let shown = |dump: &Dump, state: u128| -> Result<Shown, InputError> {
        let row = dump.state(state)?;
        Ok(Shown {
            state,
            records: row.records.to_string(),
            transactions: row.transactions.to_string(),
        })
    };
    let pairs = pairs
        .into_iter()
        .map(|((depth, parent, action), (x, y))| {
            Ok(Pair {
                depth,
                parent,
                path: a.path(parent)?,
                action,
                a: shown(a, x)?,
                b: shown(b, y)?,
            })
        })
        .collect::<Result<Vec<_>, InputError>>()?;
    Ok(StateDiff {
        per_depth,
        one_sided,
        paired,
        pairs,
        firsts,
        build_note: crate::diff::protocol_note(Some(&a.manifest.build), Some(&b.manifest.build)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::dump::DumpTotals;

    const OPEN_LOW: &str = r#"{"op":"open","agent":0,"tier":"low"}"#;

    /// A dump of default.json: the initial state 1, and for each
    /// `(state, label)` a state at depth 1 reached from 1 by `label`.
    fn dump(protocol: &str, children: &[(u128, &str)]) -> Dump {
        let config =
            ModelConfig::parse(include_str!("../../models/default.json"), "default.json").unwrap();
        let totals = DumpTotals {
            states_path: "states.csv".into(),
            transitions_path: "transitions.csv".into(),
            state_rows: 0,
            transition_rows: 0,
            states_bytes: 0,
            transitions_bytes: 0,
        };
        let mut manifest = DumpManifest::new(&totals, true);
        manifest.build.protocol = protocol.to_owned();
        let mut d = Dump {
            origin: "d".into(),
            config,
            manifest,
            states: HashMap::new(),
            states_origin: "d/states.csv".into(),
            labels: Vec::new(),
            label_ids: HashMap::new(),
            moves: HashMap::new(),
        };
        let row = |depth, parent, action| StateRow {
            depth,
            parent,
            action,
            records: "".into(),
            transactions: "T0 low open".into(),
            step: if depth == 0 { "" } else { OPEN_LOW }.into(),
        };
        let root = d.label_id("");
        d.states.insert(1, row(0, None, root));
        for &(state, label) in children {
            let action = d.label_id(label);
            d.states.insert(state, row(1, Some(1), action));
            d.moves.insert((1, action), state);
        }
        d
    }

    #[test]
    fn one_sided_states_pair_by_parent_and_action_and_trace_from_their_own_steps() {
        let a = dump(&"a".repeat(32), &[(2, "opens"), (3, "same")]);
        let b = dump(&"b".repeat(32), &[(4, "opens"), (3, "same")]);
        let d = compare_dumps(&a, &b).unwrap();
        assert_eq!(d.per_depth, vec![(1, 1, 1)]);
        assert_eq!((d.one_sided, d.paired, d.pairs.len()), (2, 2, 1));
        let p = &d.pairs[0];
        assert_eq!(
            (p.parent, p.action.as_str(), p.a.state, p.b.state),
            (1, "opens", 2, 4)
        );
        assert!(p.path.is_empty());
        assert_eq!(d.firsts.len(), 2);
        assert_eq!((d.firsts[0].side, d.firsts[0].state), ('A', 2));
        assert_eq!(d.firsts[1].labels, vec!["opens".to_owned()]);
        assert_eq!(d.firsts[0].trace.steps.len(), 1);
        assert!(d
            .build_note
            .unwrap()
            .starts_with("protocol changed between these runs"));
        let same = compare_dumps(&a, &a).unwrap();
        assert!(same.per_depth.is_empty() && same.firsts.is_empty() && same.build_note.is_none());
    }

    #[test]
    fn a_step_that_is_not_a_trace_step_names_the_state() {
        let mut a = dump(&"a".repeat(32), &[(2, "opens")]);
        a.states.get_mut(&2).unwrap().step = r#"{"op":"fly"}"#.into();
        let err = a.trace(2).unwrap_err().to_string();
        assert!(err.starts_with("d/states.csv"), "{err}");
        assert!(err.contains(&format!("state {}: step", hex(2))), "{err}");
    }

    #[test]
    fn differing_items_are_those_the_other_lacks() {
        let (gone, new) = Pair::differing(
            "r0 belief committed; r1 summary tentative",
            "r0 belief committed; r1 summary quarantined",
        );
        assert_eq!(gone, vec!["r1 summary tentative"]);
        assert_eq!(new, vec!["r1 summary quarantined"]);
        assert_eq!(Pair::differing("", ""), (vec![], vec![]));
    }
}
