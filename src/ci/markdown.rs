//! The suite as a Markdown table, for GitHub's job summary
//! (`GITHUB_STEP_SUMMARY`): a row per model with its verdicts, states,
//! time and baseline, the failures listed under it.

use super::ModelResult;
use std::fmt::Write as _;

/// The table and the failures, ending in a blank line.
pub fn step_summary(title: &str, results: &[ModelResult]) -> String {
    let failed = results.iter().filter(|r| r.failures() > 0).count();
    let mut md = format!(
        "## {}\n\n{} models, {}\n\n| | model | verdicts | states | time | baseline |\n|---|---|---|---:|---:|---|\n",
        cell(title),
        results.len(),
        if failed == 0 {
            "all pass".to_owned()
        } else {
            format!("{failed} failing")
        }
    );
    for r in results {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.1} s | {} |",
            if r.failures() == 0 { "✅" } else { "❌" },
            cell(&r.model),
            cell(&r.verdicts),
            r.states,
            r.seconds,
            r.baseline
        );
    }
    let failures: Vec<String> = results
        .iter()
        .flat_map(|r| {
            r.cases.iter().filter_map(move |c| {
                c.failure.as_ref().map(|f| {
                    format!(
                        "- **{}** {}: {}",
                        cell(&r.model),
                        cell(&c.name),
                        cell(&f.message)
                    )
                })
            })
        })
        .collect();
    if !failures.is_empty() {
        md.push_str("\n### Failures\n\n");
        md.push_str(&failures.join("\n"));
        md.push('\n');
    }
    md.push('\n');
    md
}

/// `text` inside a table cell: pipes escaped, newlines as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}
