//! A baseline's branch coverage against a run's: which branches of the
//! protocol the baseline's check reached (`reports/NAME/coverage.csv`, as
//! `check` writes it: `branch,transitions,first_depth`, read by column
//! name) and at what depth each was first taken, and what changed.
//!
//! The comparison is of reached branches and their first depths, not of
//! per-branch transition counts, because the first depth is what survives
//! a depth cap exactly: the engine counts a branch's first depth as the
//! shallowest level whose incoming transitions took it, and breadth-first
//! levels do not depend on the thread count or on how deep the run goes.
//! So a run capped at depth D reaches exactly the baseline's branches
//! whose first depth is at most D, each first at the same depth
//! ([`BaselineCoverage::capped`]); its transition counts, summed over the
//! missing deeper levels, cannot be told from the baseline.
//!
//! A change is a branch reached in the baseline and not now (lost), one
//! reached now and not in the baseline (gained), or one first reached at
//! another depth (moved). `expect.coverage` can only say that branches
//! are reached, so the one change it predicts is a gain of a branch it
//! names (or of any, for `"all"`): the model says it should be reached.

use crate::config::ExpectCoverage;
use crate::model::coverage::Coverage;

/// The reached branches of a baseline, each with its first depth, in the
/// file's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaselineCoverage {
    pub reached: Vec<(String, usize)>,
}

/// Reads `coverage.csv`'s text: `branch` and `first_depth` columns
/// wherever they are, `transitions` checked against `first_depth` (a
/// branch is reached exactly when it has a first depth).
pub fn parse(text: &str) -> Result<BaselineCoverage, String> {
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
    let mut reached = Vec::new();
    let mut seen = std::collections::HashSet::new();
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
            (0, None) => {}
            (n, Some(d)) if n > 0 => reached.push((name.to_owned(), d)),
            _ => {
                return Err(format!(
                    "line {line}: {name} has {count} transitions but first_depth {:?}",
                    field(first)
                ))
            }
        }
    }
    Ok(BaselineCoverage { reached })
}

impl BaselineCoverage {
    /// What a run of the same model to depth `cap` reaches: the branches
    /// first reached at `cap` or shallower (see the module docs).
    pub fn capped(&self, cap: usize) -> BaselineCoverage {
        BaselineCoverage {
            reached: self
                .reached
                .iter()
                .filter(|(_, d)| *d <= cap)
                .cloned()
                .collect(),
        }
    }

    fn first_depth(&self, branch: &str) -> Option<usize> {
        self.reached
            .iter()
            .find(|(name, _)| name == branch)
            .map(|&(_, d)| d)
    }
}

/// One branch whose coverage changed: its first depth in the baseline
/// and now (`None`: not reached).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub branch: String,
    pub before: Option<usize>,
    pub after: Option<usize>,
}

/// The branches whose reach or first depth differs, in the run's branch
/// order, then the baseline's branches this build does not know.
pub fn changes(base: &BaselineCoverage, run: &Coverage) -> Vec<Change> {
    let now = run
        .branches
        .iter()
        .map(|b| (b.name, b.first_depth.filter(|_| b.transitions > 0)));
    let gone = base
        .reached
        .iter()
        .filter(|(name, _)| !run.branches.iter().any(|b| b.name == name))
        .map(|(name, _)| (name.as_str(), None));
    now.chain(gone)
        .map(|(branch, after)| Change {
            branch: branch.to_owned(),
            before: base.first_depth(branch),
            after,
        })
        .filter(|c| c.before != c.after)
        .collect()
}

/// `changes` told as lines: the unpredicted ones (a line per direction,
/// naming every branch), then the predicted ones (a gain `expect`
/// names).
pub fn change_lines(
    changes: &[Change],
    expect: Option<&ExpectCoverage>,
) -> (Vec<String>, Vec<String>) {
    let predicted = |c: &Change| {
        c.before.is_none()
            && match expect {
                Some(ExpectCoverage::All) => true,
                Some(ExpectCoverage::Branches(names)) => names.contains(&c.branch),
                None => false,
            }
    };
    let line = |what: &str, picked: Vec<&Change>| {
        let named: Vec<_> = picked
            .iter()
            .map(|c| match (c.before, c.after) {
                (Some(d), None) => format!("{} (first at depth {d} in the baseline)", c.branch),
                (None, Some(d)) => format!("{} (first at depth {d})", c.branch),
                (Some(a), Some(b)) => format!("{} ({a} → {b})", c.branch),
                (None, None) => c.branch.clone(),
            })
            .collect();
        (!named.is_empty()).then(|| format!("coverage: {what} {}", named.join(", ")))
    };
    let pick = |keep: &dyn Fn(&Change) -> bool| changes.iter().filter(|c| keep(c)).collect();
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
    let expected = line("newly reached", pick(&|c| predicted(c)))
        .map(|l| format!("{l} (predicted by expect.coverage)"));
    (
        unpredicted.into_iter().flatten().collect(),
        expected.into_iter().collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::summary::coverage_csv;
    use crate::model::coverage::branch_index;

    /// A run that took branch `b` first at depth `d`, for each `(b, d)`.
    fn run(taken: &[(&str, usize)]) -> Coverage {
        let mut c = Coverage::new();
        for &(b, d) in taken {
            c.add(1 << branch_index(b).expect("a branch"), d);
        }
        c
    }

    fn base(reached: &[(&str, usize)]) -> BaselineCoverage {
        BaselineCoverage {
            reached: reached.iter().map(|&(b, d)| (b.to_owned(), d)).collect(),
        }
    }

    #[test]
    fn what_check_writes_reads_back_as_the_same_coverage() {
        let c = run(&[
            ("open.low", 1),
            ("stage.belief", 2),
            ("stage.belief", 5),
            ("repair.root_leaked", 3),
        ]);
        let text = String::from_utf8(coverage_csv(&c).unwrap()).unwrap();
        let read = parse(&text).unwrap();
        assert_eq!(
            read,
            base(&[
                ("open.low", 1),
                ("stage.belief", 2),
                ("repair.root_leaked", 3)
            ])
        );
        assert_eq!(changes(&read, &c), vec![]);
    }

    #[test]
    fn columns_are_found_by_name_and_bad_rows_are_refused() {
        let moved = "first_depth,note,branch,transitions\n3,x,open.low,7\n,,open.high,0\n";
        assert_eq!(
            parse(moved).unwrap().reached,
            vec![("open.low".to_owned(), 3)]
        );
        let e = parse("branch,transitions\nopen.low,1\n").unwrap_err();
        assert!(e.contains("no `first_depth` column"), "{e}");
        let e = parse("branch,transitions,first_depth\nopen.low,0,2\n").unwrap_err();
        assert!(e.contains("line 2: open.low has 0 transitions"), "{e}");
        let e = parse("branch,transitions,first_depth\nopen.low,4,\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        let twice = "branch,transitions,first_depth\nopen.low,1,1\nopen.low,1,1\n";
        assert!(parse(twice).unwrap_err().contains("listed twice"));
        let e = parse("branch,transitions,first_depth\nopen.low,1,deep\n").unwrap_err();
        assert!(e.contains("first_depth \"deep\""), "{e}");
    }

    #[test]
    fn a_capped_baseline_keeps_the_branches_first_reached_by_the_cap() {
        let b = base(&[
            ("open.low", 1),
            ("stage.belief", 6),
            ("repair.root_leaked", 7),
            ("commit.committed", 2),
        ]);
        assert_eq!(
            b.capped(6),
            base(&[
                ("open.low", 1),
                ("stage.belief", 6),
                ("commit.committed", 2)
            ])
        );
        assert_eq!(b.capped(0), base(&[]));
        // A run to depth 6 of the model the baseline ran deeper is the same.
        assert_eq!(
            changes(
                &b.capped(6),
                &run(&[
                    ("open.low", 1),
                    ("stage.belief", 6),
                    ("commit.committed", 2)
                ])
            ),
            []
        );
    }

    #[test]
    fn changes_name_the_branch_and_both_first_depths() {
        let mut b = base(&[
            ("open.low", 1),
            ("stage.belief", 2),
            ("commit.committed", 3),
        ]);
        b.reached.push(("gate.retired".to_owned(), 2));
        let now = run(&[
            ("open.low", 1),
            ("stage.belief", 3),
            ("gate.reversible_pass", 5),
        ]);
        let change = |name: &str, before, after| Change {
            branch: name.to_owned(),
            before,
            after,
        };
        assert_eq!(
            changes(&b, &now),
            vec![
                change("stage.belief", Some(2), Some(3)),
                change("commit.committed", Some(3), None),
                change("gate.reversible_pass", None, Some(5)),
                change("gate.retired", Some(2), None),
            ]
        );
    }

    #[test]
    fn only_a_gain_expect_coverage_names_is_predicted() {
        let b = base(&[("open.low", 1), ("commit.committed", 3)]);
        let now = run(&[
            ("open.low", 2),
            ("commit.partial", 4),
            ("gate.reversible_pass", 5),
        ]);
        let found = changes(&b, &now);
        let (unpredicted, predicted) = change_lines(&found, None);
        assert_eq!(
            unpredicted,
            [
                "coverage: no longer reached commit.committed (first at depth 3 in the baseline)",
                "coverage: newly reached commit.partial (first at depth 4), gate.reversible_pass (first at depth 5)",
                "coverage: first reached at another depth open.low (1 → 2)",
            ]
        );
        assert!(predicted.is_empty());
        // Naming a lost branch predicts nothing: expect says it is reached.
        let named = ExpectCoverage::Branches(vec![
            "gate.reversible_pass".to_owned(),
            "commit.committed".to_owned(),
            "open.low".to_owned(),
        ]);
        let (unpredicted, predicted) = change_lines(&found, Some(&named));
        assert_eq!(unpredicted.len(), 3, "{unpredicted:?}");
        assert_eq!(
            unpredicted[1],
            "coverage: newly reached commit.partial (first at depth 4)"
        );
        assert_eq!(
            predicted,
            ["coverage: newly reached gate.reversible_pass (first at depth 5) (predicted by expect.coverage)"]
        );
        let (unpredicted, predicted) = change_lines(&found, Some(&ExpectCoverage::All));
        assert_eq!(unpredicted.len(), 2, "{unpredicted:?}");
        assert!(predicted[0].contains("commit.partial (first at depth 4), gate.reversible_pass"));
    }
}
