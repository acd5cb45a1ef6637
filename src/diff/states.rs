//! Two dumps (`check --dump DIR`) compared state by state: per depth, the
//! states only in A and only in B (a state is its canonical fingerprint,
//! [`crate::check::dump::canonical`], so the two runs may be of two
//! versions of the spec), and for the shallowest such state its path
//! from the initial state, read from its dump's parent links and rebuilt
//! as a replayable trace under the dump's own `model.json`.

use crate::check::dump::canonical::{fingerprint, hex};
use crate::check::dump::STATES_HEADER;
use crate::config::ModelConfig;
use crate::input::{read_text, InputError};
use crate::model::{MemtxModel, ModelSpec};
use crate::trace::{Step, Trace};
use stateright::Model;
use std::collections::HashMap;
use std::path::Path;

/// Whether `dir` holds a dump.
pub fn is_dump(dir: &Path) -> bool {
    dir.is_dir() && dir.join("states.csv").is_file() && dir.join("model.json").is_file()
}

/// One dump, as the diff needs it.
pub struct Dump {
    pub origin: String,
    pub config: ModelConfig,
    /// Each state: its depth, parent and the action's index in `actions`.
    states: HashMap<u128, (usize, Option<u128>, u32)>,
    actions: Vec<String>,
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

impl Dump {
    /// Reads `dir/states.csv` and `dir/model.json`.
    pub fn load(dir: &Path) -> Result<Dump, InputError> {
        let model_path = dir.join("model.json");
        let config =
            ModelConfig::parse(&read_text(&model_path)?, &model_path.display().to_string())?;
        let path = dir.join("states.csv");
        let origin = path.display().to_string();
        let mut reader = csv::Reader::from_reader(open_dump(&path)?);
        let header = reader.headers().map_err(|e| bad(&origin, e.to_string()))?;
        if header.iter().ne(STATES_HEADER) {
            return Err(bad(
                &origin,
                format!("header is not {}", STATES_HEADER.join(",")),
            ));
        }
        let mut states = HashMap::new();
        let mut labels: HashMap<String, u32> = HashMap::new();
        let mut actions = Vec::new();
        for (i, row) in reader.records().enumerate() {
            let row = row.map_err(|e| bad(&origin, e.to_string()))?;
            let at = format!("{origin}: row {}", i + 1);
            let state = fp(&at, &row[0])?;
            let depth: usize = row[1]
                .parse()
                .map_err(|_| bad(&at, format!("{:?} is not a depth", &row[1])))?;
            let parent = match &row[2] {
                "" if depth == 0 => None,
                "" => return Err(bad(&at, "a state below depth 0 names no parent".into())),
                p => Some(fp(&at, p)?),
            };
            let next = labels.len() as u32;
            let action = *labels.entry(row[3].to_owned()).or_insert_with(|| {
                actions.push(row[3].to_owned());
                next
            });
            if states.insert(state, (depth, parent, action)).is_some() {
                return Err(bad(&at, format!("state {} listed twice", &row[0])));
            }
        }
        Ok(Dump {
            origin: dir.display().to_string(),
            config,
            states,
            actions,
        })
    }

    /// The action labels from the initial state to `state`.
    fn path(&self, mut state: u128) -> Result<Vec<String>, InputError> {
        let mut labels = Vec::new();
        while let Some(&(_, Some(parent), action)) = self.states.get(&state) {
            labels.push(self.actions[action as usize].clone());
            state = parent;
            if labels.len() > self.states.len() {
                return Err(bad(&self.origin, "the parent links loop".into()));
            }
        }
        if !self.states.contains_key(&state) {
            return Err(bad(
                &self.origin,
                format!("parent {} is not listed", hex(state)),
            ));
        }
        labels.reverse();
        Ok(labels)
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
    /// The shallowest state in one dump and not at that depth in the other
    /// (the smallest fingerprint among them; A's before B's): which side
    /// ('A' or 'B'), its depth, its fingerprint, its path, and its trace.
    pub first: Option<FirstDifference>,
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
    let mut first: Option<(usize, char, u128)> = None;
    for (side, mine, other) in [('A', a, b), ('B', b, a)] {
        for (&state, &(depth, _, _)) in &mine.states {
            if other.states.get(&state).map(|s| s.0) == Some(depth) {
                continue;
            }
            let c = counts.entry(depth).or_default();
            if side == 'A' {
                c.0 += 1;
            } else {
                c.1 += 1;
            }
            let key = (depth, side, state);
            if first.is_none_or(|f| key < f) {
                first = Some(key);
            }
        }
    }
    let mut per_depth: DepthCounts = counts.into_iter().map(|(d, (x, y))| (d, x, y)).collect();
    per_depth.sort_unstable();
    let first = match first {
        None => None,
        Some((depth, side, state)) => {
            let dump = if side == 'A' { a } else { b };
            let labels = dump.path(state)?;
            let trace = rebuild(dump, &labels, state)?;
            Some(FirstDifference {
                side,
                depth,
                state,
                labels,
                trace,
            })
        }
    };
    Ok(StateDiff { per_depth, first })
}

/// The trace of `labels` under the dump's model, checked to end in `state`.
fn rebuild(dump: &Dump, labels: &[String], state: u128) -> Result<Trace, InputError> {
    let model = MemtxModel::new(ModelSpec::from_config(&dump.config));
    let spec = &model.spec;
    let mut current = model
        .init_states()
        .into_iter()
        .next()
        .ok_or_else(|| bad(&dump.origin, "the model has no initial state".into()))?;
    let mut steps = Vec::new();
    let mut offered = Vec::new();
    for label in labels {
        offered.clear();
        model.actions(&current, &mut offered);
        let action = offered
            .iter()
            .find(|a| &a.describe(spec) == label)
            .ok_or_else(|| {
                bad(
                    &dump.origin,
                    format!("{label:?} is not an action of its model.json there"),
                )
            })?;
        steps.push(Step::from_op(&model.op(action), &spec.compiled));
        current = model.next_state(&current, *action).ok_or_else(|| {
            bad(
                &dump.origin,
                format!("{label:?} is refused by its model.json"),
            )
        })?;
    }
    if fingerprint(spec, &current) != state {
        return Err(bad(
            &dump.origin,
            format!(
                "the path to {} does not lead to it under model.json",
                hex(state)
            ),
        ));
    }
    Ok(Trace::new(dump.config.clone(), steps, None))
}
