//! Two runs' branch coverage compared: which branches each reached and
//! first at what depth, and how many transitions took each branch — the
//! most telling sign of what a changed rule did (a rule that quarantines
//! more shows as more transitions through `record.quarantined.*` long
//! before any verdict moves).
//!
//! A saved run's coverage is `coverage.csv` (`branch,transitions,
//! first_depth`, read by column name) and, when the run wrote it,
//! `coverage-depths.csv` (`depth,branch,transitions`: the transitions of
//! each depth that took each branch). Runs to different depths are
//! compared on the depths both explored ([`RunCoverage::capped`]): first
//! depths are exact under a cap (breadth-first levels do not depend on
//! how deep a run goes or on its thread count), and so are transition
//! counts summed over the depths up to the cap — when the counts per
//! depth are known; without them a capped count is unknown and not
//! compared.

use crate::human::count;
use crate::model::coverage::Coverage;
use std::collections::HashSet;
use std::fmt::Write as _;

/// One branch of a run's coverage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchRow {
    pub name: String,
    /// Transitions that took it; `None` when unknown (capped without
    /// counts per depth).
    pub transitions: Option<u64>,
    pub first_depth: Option<usize>,
    /// Per depth, the transitions of that depth that took it.
    pub by_depth: Option<Vec<u64>>,
}

/// A run's coverage, every branch it names, in its order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunCoverage {
    pub branches: Vec<BranchRow>,
}

impl RunCoverage {
    /// A run's coverage as the engine counted it.
    pub fn of(coverage: &Coverage) -> RunCoverage {
        RunCoverage {
            branches: coverage
                .branches
                .iter()
                .map(|b| BranchRow {
                    name: b.name.to_owned(),
                    transitions: Some(b.transitions),
                    first_depth: b.first_depth.filter(|_| b.transitions > 0),
                    by_depth: b.by_depth.clone(),
                })
                .collect(),
        }
    }

    /// Reads `coverage.csv`'s text and, when given, `coverage-depths.csv`'s.
    pub fn parse(totals: &str, depths: Option<&str>) -> Result<RunCoverage, String> {
        let mut coverage = parse_totals(totals)?;
        if let Some(text) = depths {
            add_depths(&mut coverage, text).map_err(|e| format!("coverage-depths.csv: {e}"))?;
        }
        Ok(coverage)
    }

    /// What a run of the same model to depth `cap` would report: the
    /// branches first reached at `cap` or shallower, each with its
    /// transitions of those depths (unknown without counts per depth,
    /// unless nothing deeper was explored).
    pub fn capped(&self, cap: usize) -> RunCoverage {
        RunCoverage {
            branches: self
                .branches
                .iter()
                .map(|b| {
                    let reached = b.first_depth.filter(|&d| d <= cap);
                    let by_depth = b
                        .by_depth
                        .as_ref()
                        .map(|d| d.iter().take(cap + 1).copied().collect::<Vec<_>>());
                    let transitions = match (&by_depth, reached) {
                        (_, None) => Some(0),
                        (Some(d), _) => Some(d.iter().sum()),
                        (None, _) => None,
                    };
                    BranchRow {
                        name: b.name.clone(),
                        transitions,
                        first_depth: reached,
                        by_depth,
                    }
                })
                .collect(),
        }
    }

    /// The branches reached, each with its first depth.
    pub fn reached(&self) -> Vec<(&str, usize)> {
        self.branches
            .iter()
            .filter_map(|b| b.first_depth.map(|d| (b.name.as_str(), d)))
            .collect()
    }

    fn row(&self, name: &str) -> Option<&BranchRow> {
        self.branches.iter().find(|b| b.name == name)
    }
}

/// `coverage.csv`: `branch` and `first_depth` columns wherever they are,
/// `transitions` checked against `first_depth` (a branch is reached
/// exactly when it has a first depth).
fn parse_totals(text: &str) -> Result<RunCoverage, String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("no `{name}` column (headers: {})", headers.as_slice()))
    };
    let (branch, transitions, first) = (
        column("branch")?,
        column("transitions")?,
        column("first_depth")?,
    );
    let mut branches = Vec::new();
    let mut seen = HashSet::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| e.to_string())?;
        let line = i + 2;
        let field = |at: usize| row.get(at).unwrap_or("");
        let name = field(branch);
        if !seen.insert(name.to_owned()) {
            return Err(format!("line {line}: branch {name:?} is listed twice"));
        }
        let count: u64 = field(transitions)
            .parse()
            .map_err(|_| format!("line {line}: transitions {:?}", field(transitions)))?;
        let depth = match field(first) {
            "" => None,
            d => Some(
                d.parse::<usize>()
                    .map_err(|_| format!("line {line}: first_depth {d:?}"))?,
            ),
        };
        match (count, depth) {
            (0, None) | (1.., Some(_)) => branches.push(BranchRow {
                name: name.to_owned(),
                transitions: Some(count),
                first_depth: depth,
                by_depth: None,
            }),
            _ => {
                return Err(format!(
                    "line {line}: {name} has {count} transitions but first_depth {:?}",
                    field(first)
                ))
            }
        }
    }
    Ok(RunCoverage { branches })
}

/// Adds `coverage-depths.csv`'s counts, which must add up to each
/// branch's total and start at its first depth.
fn add_depths(coverage: &mut RunCoverage, text: &str) -> Result<(), String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    if headers.iter().ne(["depth", "branch", "transitions"]) {
        return Err(format!(
            "header {:?} is not \"depth,branch,transitions\"",
            headers.as_slice()
        ));
    }
    for b in &mut coverage.branches {
        b.by_depth = Some(Vec::new());
    }
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| e.to_string())?;
        let line = i + 2;
        let depth: usize = row[0]
            .parse()
            .map_err(|_| format!("line {line}: depth {:?}", &row[0]))?;
        let count: u64 = row[2]
            .parse()
            .map_err(|_| format!("line {line}: transitions {:?}", &row[2]))?;
        let Some(b) = coverage.branches.iter_mut().find(|b| b.name == row[1]) else {
            return Err(format!(
                "line {line}: {:?} is not a branch of coverage.csv",
                &row[1]
            ));
        };
        let by_depth = b.by_depth.get_or_insert_with(Vec::new);
        if by_depth.len() <= depth {
            by_depth.resize(depth + 1, 0);
        }
        if by_depth[depth] != 0 {
            return Err(format!(
                "line {line}: {} at depth {depth} listed twice",
                b.name
            ));
        }
        by_depth[depth] = count;
    }
    for b in &coverage.branches {
        let by_depth = b.by_depth.as_deref().unwrap_or(&[]);
        let sum: u64 = by_depth.iter().sum();
        let first = by_depth.iter().position(|&n| n > 0);
        if Some(sum) != b.transitions || first != b.first_depth {
            return Err(format!(
                "{}: the depths add up to {sum} transitions, first at {first:?}; coverage.csv says {:?}, first at {:?}",
                b.name, b.transitions, b.first_depth
            ));
        }
    }
    Ok(())
}

/// One branch whose reach changed: its first depth before and after
/// (`None`: not reached).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReachChange {
    pub branch: String,
    pub before: Option<usize>,
    pub after: Option<usize>,
}

/// One branch taken by another number of transitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CountChange {
    pub branch: String,
    pub before: u64,
    pub after: u64,
}

impl CountChange {
    fn absolute(&self) -> u64 {
        self.before.abs_diff(self.after)
    }

    /// How many times more (or fewer) transitions: ≥ 1, the larger over
    /// the smaller (a branch from or to 0 counts as infinitely moved).
    fn relative(&self) -> f64 {
        let (lo, hi) = (self.before.min(self.after), self.before.max(self.after));
        if lo == 0 {
            f64::INFINITY
        } else {
            hi as f64 / lo as f64
        }
    }

    /// `record.quarantined.stale_write 1,204 → 2,950 (+1,746, ×2.45)`.
    pub fn line(&self) -> String {
        let ratio = if self.before == 0 {
            "new".to_owned()
        } else {
            format!("×{:.2}", self.after as f64 / self.before as f64)
        };
        let sign = if self.after >= self.before {
            '+'
        } else {
            '−'
        };
        format!(
            "{} {} → {} ({sign}{}, {ratio})",
            self.branch,
            count(self.before),
            count(self.after),
            count(self.absolute())
        )
    }
}

/// What two runs' coverage disagree on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoverageDiff {
    /// Branches reached on one side only, or first at another depth, in
    /// the after side's order, then the before side's own.
    pub reach: Vec<ReachChange>,
    /// Branches whose transition counts are known on both sides and
    /// differ.
    pub counts: Vec<CountChange>,
    /// Branches whose counts could not be compared (unknown on a side).
    pub uncounted: usize,
}

impl CoverageDiff {
    pub fn is_empty(&self) -> bool {
        self.reach.is_empty() && self.counts.is_empty()
    }

    /// The `n` branches that moved most by count, then by ratio (a
    /// branch in both lists is named in the first only).
    pub fn moved_most(&self, n: usize) -> (Vec<&CountChange>, Vec<&CountChange>) {
        let mut by_count: Vec<&CountChange> = self.counts.iter().collect();
        by_count.sort_by(|a, b| {
            b.absolute()
                .cmp(&a.absolute())
                .then(a.branch.cmp(&b.branch))
        });
        by_count.truncate(n);
        let mut by_ratio: Vec<&CountChange> = self
            .counts
            .iter()
            .filter(|c| !by_count.iter().any(|x| x.branch == c.branch))
            .collect();
        by_ratio.sort_by(|a, b| {
            b.relative()
                .total_cmp(&a.relative())
                .then(b.absolute().cmp(&a.absolute()))
                .then(a.branch.cmp(&b.branch))
        });
        by_ratio.truncate(n);
        (by_count, by_ratio)
    }

    /// The report lines: the reach changes a line per kind, then the
    /// branches that moved most.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = reach_lines(&self.reach, "before", &|_| false).0;
        if !self.counts.is_empty() {
            let (by_count, by_ratio) = self.moved_most(3);
            let mut text = format!(
                "transitions per branch: {} branches changed; most by count:",
                self.counts.len()
            );
            for c in by_count {
                let _ = write!(text, "\n    {}", c.line());
            }
            if !by_ratio.is_empty() {
                text.push_str("\n  most by ratio:");
                for c in by_ratio {
                    let _ = write!(text, "\n    {}", c.line());
                }
            }
            lines.push(text);
        }
        lines
    }
}

/// Compares `before` with `after`, both of the same depths.
pub fn compare(before: &RunCoverage, after: &RunCoverage) -> CoverageDiff {
    let mut d = CoverageDiff::default();
    let names = after.branches.iter().map(|b| b.name.as_str()).chain(
        before
            .branches
            .iter()
            .map(|b| b.name.as_str())
            .filter(|n| after.row(n).is_none()),
    );
    for name in names {
        let (b, a) = (before.row(name), after.row(name));
        let first = |r: Option<&BranchRow>| r.and_then(|r| r.first_depth);
        if first(b) != first(a) {
            d.reach.push(ReachChange {
                branch: name.to_owned(),
                before: first(b),
                after: first(a),
            });
        }
        let count = |r: Option<&BranchRow>| match r {
            None => Some(0),
            Some(r) => r.transitions,
        };
        match (count(b), count(a)) {
            (Some(x), Some(y)) if x != y => d.counts.push(CountChange {
                branch: name.to_owned(),
                before: x,
                after: y,
            }),
            (Some(_), Some(_)) => {}
            _ => d.uncounted += 1,
        }
    }
    d
}

/// Reach changes told as lines: the unpredicted ones (one line per kind
/// of change, naming every branch), then the predicted ones; `before`
/// names the earlier side (`before`, `in the baseline`).
pub fn reach_lines(
    changes: &[ReachChange],
    before: &str,
    predicted: &dyn Fn(&ReachChange) -> bool,
) -> (Vec<String>, Vec<String>) {
    let line = |what: &str, picked: Vec<&ReachChange>| {
        let named: Vec<_> = picked
            .iter()
            .map(|c| match (c.before, c.after) {
                (Some(d), None) => format!("{} (first at depth {d} {before})", c.branch),
                (None, Some(d)) => format!("{} (first at depth {d})", c.branch),
                (Some(a), Some(b)) => format!("{} ({a} → {b})", c.branch),
                (None, None) => c.branch.clone(),
            })
            .collect();
        (!named.is_empty()).then(|| format!("{what} {}", named.join(", ")))
    };
    let pick = |keep: &dyn Fn(&ReachChange) -> bool| changes.iter().filter(|c| keep(c)).collect();
    let unpredicted = [
        line(
            "no longer reached",
            pick(&|c| c.before.is_some() && c.after.is_none()),
        ),
        line(
            "newly reached",
            pick(&|c| c.before.is_none() && !predicted(c)),
        ),
        line(
            "first reached at another depth",
            pick(&|c| c.before.is_some() && c.after.is_some()),
        ),
    ];
    let expected = line(
        "newly reached",
        pick(&|c| c.before.is_none() && predicted(c)),
    )
    .map(|l| format!("{l} (predicted by expect.coverage)"));
    (
        unpredicted.into_iter().flatten().collect(),
        expected.into_iter().collect(),
    )
}

#[cfg(test)]
mod tests;
