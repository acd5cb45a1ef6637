use super::*;
use crate::check::summary::{coverage_csv, coverage_depths_csv};
use crate::model::coverage::BRANCHES;

/// A run that took branch `b` at depth `d`, once for each `(b, d)`.
fn run(taken: &[(&str, usize)]) -> Coverage {
    let mut c = Coverage::new();
    for &(b, d) in taken {
        c.add(
            1 << BRANCHES.iter().position(|n| *n == b).expect("a branch"),
            d,
        );
    }
    c
}

fn written(c: &Coverage) -> RunCoverage {
    let totals = String::from_utf8(coverage_csv(c).unwrap()).unwrap();
    let depths = String::from_utf8(coverage_depths_csv(c).unwrap().unwrap()).unwrap();
    RunCoverage::parse(&totals, Some(&depths)).expect("what check writes reads back")
}

#[test]
fn what_check_writes_reads_back_as_the_same_coverage() {
    let c = run(&[
        ("open.low", 1),
        ("stage.belief", 2),
        ("stage.belief", 5),
        ("repair.root_leaked", 3),
    ]);
    let read = written(&c);
    assert_eq!(read, RunCoverage::of(&c));
    assert!(compare(&read, &RunCoverage::of(&c)).is_empty());
    let totals_only =
        RunCoverage::parse(&String::from_utf8(coverage_csv(&c).unwrap()).unwrap(), None).unwrap();
    assert_eq!(totals_only.reached(), read.reached());
}

#[test]
fn columns_are_found_by_name_and_bad_rows_are_refused() {
    let moved = "first_depth,note,branch,transitions\n3,x,open.low,7\n,,open.high,0\n";
    assert_eq!(
        RunCoverage::parse(moved, None).unwrap().reached(),
        vec![("open.low", 3)]
    );
    let e = RunCoverage::parse("branch,transitions\nopen.low,1\n", None).unwrap_err();
    assert!(e.contains("no `first_depth` column"), "{e}");
    let e = RunCoverage::parse("branch,transitions,first_depth\nopen.low,0,2\n", None).unwrap_err();
    assert!(e.contains("line 2: open.low has 0 transitions"), "{e}");
    let twice = "branch,transitions,first_depth\nopen.low,1,1\nopen.low,1,1\n";
    assert!(RunCoverage::parse(twice, None)
        .unwrap_err()
        .contains("listed twice"));
    let totals = "branch,transitions,first_depth\nopen.low,3,1\n";
    let e =
        RunCoverage::parse(totals, Some("depth,branch,transitions\n1,open.low,2\n")).unwrap_err();
    assert!(e.contains("add up to 2"), "{e}");
    let e =
        RunCoverage::parse(totals, Some("depth,branch,transitions\n1,open.lo,3\n")).unwrap_err();
    assert!(e.contains("not a branch"), "{e}");
}

#[test]
fn a_capped_run_keeps_the_branches_and_counts_of_its_first_depths() {
    let deep = written(&run(&[
        ("open.low", 1),
        ("open.low", 4),
        ("stage.belief", 6),
        ("repair.root_leaked", 7),
        ("commit.committed", 2),
    ]));
    let shallow = RunCoverage::of(&run(&[
        ("open.low", 1),
        ("open.low", 4),
        ("stage.belief", 6),
        ("commit.committed", 2),
    ]));
    assert!(
        compare(&deep.capped(6), &shallow).is_empty(),
        "{:?}",
        compare(&deep.capped(6), &shallow)
    );
    let early = deep.capped(3);
    assert_eq!(
        early.reached(),
        vec![("open.low", 1), ("commit.committed", 2)]
    );
    let low = early
        .branches
        .iter()
        .find(|b| b.name == "open.low")
        .unwrap();
    assert_eq!(low.transitions, Some(1));
    // Without counts per depth a capped count is unknown, not compared.
    let text = String::from_utf8(coverage_csv(&run(&[("open.low", 1), ("open.low", 4)])).unwrap())
        .unwrap();
    let no_depths = RunCoverage::parse(&text, None).unwrap().capped(3);
    let d = compare(
        &no_depths,
        &RunCoverage::of(&run(&[("open.low", 1), ("open.low", 2)])),
    );
    assert!(d.counts.is_empty() && d.uncounted >= 1, "{d:?}");
}

#[test]
fn counts_that_moved_are_named_most_first() {
    let mut before = Vec::new();
    let mut after = Vec::new();
    for _ in 0..100 {
        before.push(("record.admitted.superseded_by_same_source", 3));
    }
    for _ in 0..4 {
        after.push(("record.admitted.superseded_by_same_source", 3));
    }
    for _ in 0..10 {
        before.push(("record.quarantined.permission_laundering", 5));
    }
    for _ in 0..25 {
        after.push(("record.quarantined.permission_laundering", 5));
    }
    after.push(("open.high", 1));
    let d = compare(
        &RunCoverage::of(&run(&before)),
        &RunCoverage::of(&run(&after)),
    );
    let (by_count, by_ratio) = d.moved_most(1);
    assert_eq!(
        by_count[0].branch,
        "record.admitted.superseded_by_same_source"
    );
    assert_eq!(
        by_count[0].line(),
        "record.admitted.superseded_by_same_source 100 → 4 (−96, ×0.04)"
    );
    assert_eq!(by_ratio[0].branch, "open.high");
    assert_eq!(by_ratio[0].line(), "open.high 0 → 1 (+1, new)");
    let lines = d.lines();
    assert_eq!(lines[0], "newly reached open.high (first at depth 1)");
    assert!(
        lines[1].starts_with("transitions per branch: 3 branches changed"),
        "{lines:?}"
    );
}

#[test]
fn only_a_predicted_gain_is_set_apart() {
    let before = RunCoverage::of(&run(&[("open.low", 1), ("commit.committed", 3)]));
    let now = RunCoverage::of(&run(&[
        ("open.low", 2),
        ("commit.partial", 4),
        ("gate.reversible_pass", 5),
    ]));
    let d = compare(&before, &now);
    let (unpredicted, predicted) =
        reach_lines(&d.reach, "before", &|c| c.branch == "gate.reversible_pass");
    assert_eq!(
        unpredicted,
        [
            "no longer reached commit.committed (first at depth 3 before)",
            "newly reached commit.partial (first at depth 4)",
            "first reached at another depth open.low (1 → 2)",
        ]
    );
    assert_eq!(
        predicted,
        ["newly reached gate.reversible_pass (first at depth 5) (predicted by expect.coverage)"]
    );
}
