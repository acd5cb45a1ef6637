//! `memtx-check check DIR`: a directory of models is a suite. Every model
//! file under it (recursively, `*.json`) is checked in path order, each
//! writing its files as `check MODEL` does (into `--out`/NAME, by default
//! `reports/NAME`); one summary line per model, then the coverage of the
//! models together (`coverage: N of M branches (union)`). With `--expect`
//! the suite passes only when every model's verdicts and coverage
//! expectations hold.

use super::check::{check_and_write, load};
use super::check_plan::CheckPlan;
use super::exit::{CliError, Verdict};
use super::files::{inside, RUNS};
use super::output::print;
use crate::check::summary::coverage_lines;
use crate::check::{CheckReport, Outcome};
use crate::ci::suite::model_files;
use crate::model::coverage::Coverage;
use crate::model::PropertyKind;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Checks every model under `plan.model` (a directory).
pub fn run(plan: &CheckPlan) -> Result<Verdict, CliError> {
    let bounds = &plan.bounds;
    let started = Instant::now();
    let files = model_files(&plan.model).map_err(CliError)?;
    if files.is_empty() {
        return Err(CliError(format!(
            "{}: no model file (*.json) in this directory",
            plan.model.display()
        )));
    }
    let configs = files
        .iter()
        .map(|path| load(path, bounds, plan.symmetry))
        .collect::<Result<Vec<_>, _>>()?;
    distinct_names(&files, configs.iter().map(|c| c.name.as_str()))?;
    let out_dir = plan.out.clone().unwrap_or_else(|| PathBuf::from(RUNS));
    let mut union = Coverage::new();
    let (mut violated, mut as_expected, mut stopped) = (false, true, false);
    for (path, config) in files.iter().zip(&configs) {
        let out = inside(&out_dir, &config.name)?;
        let Some((report, _)) = check_and_write(plan, config, &out)? else {
            continue;
        };
        stopped |= report.stopped.is_some();
        print(&model_line(path, &report, plan.expect))?;
        union.merge(&report.coverage);
        violated |= report.violated();
        as_expected &= report.as_expected();
    }
    let mut text = coverage_lines(&union, " (union)");
    text.push_str(&format!(
        "checked {} models in {}; reports in {}\n",
        configs.len(),
        crate::human::duration(started.elapsed()),
        out_dir.display()
    ));
    print(&text)?;
    let failed = if plan.expect { !as_expected } else { violated };
    Ok(if stopped && (plan.expect || !violated) {
        Verdict::Inconclusive
    } else {
        Verdict::violated_if(failed)
    })
}

/// Two models of one name would write the same report directory.
fn distinct_names<'a>(
    files: &[PathBuf],
    names: impl Iterator<Item = &'a str>,
) -> Result<(), CliError> {
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    for (path, name) in files.iter().zip(names) {
        if let Some(first) = seen.insert(name, path) {
            return Err(CliError(format!(
                "{}: name \"{name}\" is also the name of {}: their reports would overwrite each other",
                path.display(),
                first.display()
            )));
        }
    }
    Ok(())
}

/// One model in a line: its file, bounds, time, invariant verdicts,
/// companions and coverage, and with `--expect` whether it is as expected.
fn model_line(path: &Path, report: &CheckReport, expect: bool) -> String {
    let b = &report.config.bounds;
    let violations: Vec<String> = report
        .invariants()
        .filter_map(|p| match (p.kind, p.outcome) {
            (PropertyKind::Invariant(inv), Outcome::Violated { depth }) => {
                Some(format!("{} at {depth}", inv.name()))
            }
            _ => None,
        })
        .collect();
    let verdict = if violations.is_empty() {
        "invariants hold".to_owned()
    } else {
        format!("VIOLATED {}", violations.join(", "))
    };
    let companions = report.companions().count();
    let companions_reached = report.companions_reached();
    let expectation = match (expect, report.as_expected()) {
        (false, _) => String::new(),
        (true, true) => "; as expected".to_owned(),
        (true, false) => {
            let missing = report.coverage_missing();
            if missing.is_empty() {
                "; UNEXPECTED verdict".to_owned()
            } else {
                format!("; UNEXPECTED: unreached {}", missing.join(", "))
            }
        }
    };
    format!(
        "{}: r{} t{} d{}, {} states, {}; {verdict}; companions {companions_reached}/{companions}; coverage {}/{}{expectation}\n",
        path.display(),
        b.records,
        b.transactions,
        b.depth,
        crate::human::count(report.unique_states),
        crate::human::duration(report.elapsed),
        report.coverage.reached(),
        report.coverage.branches.len(),
    )
}
