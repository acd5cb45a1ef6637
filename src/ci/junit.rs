//! JUnit XML, as CI dashboards read it (Jenkins, GitLab, GitHub test
//! reporters): `<testsuites>` holding one `<testsuite>` per model, one
//! `<testcase>` per property and one for the baseline; a failed case
//! carries `<failure message="…">` with the details as its text. Written
//! by hand: the format is a dozen elements, and every attribute and text
//! goes through [`escape`].

use super::ModelResult;
pub(crate) use crate::outputs::xml_escape as escape;
use std::fmt::Write as _;

/// The suite's JUnit XML document.
pub fn render(name: &str, results: &[ModelResult]) -> String {
    let tests: usize = results.iter().map(|r| r.cases.len()).sum();
    let failures: usize = results.iter().map(ModelResult::failures).sum();
    let seconds: f64 = results.iter().map(|r| r.seconds).sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"{seconds:.3}\">",
        escape(name)
    );
    for r in results {
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3}\" file=\"{}\">",
            escape(&r.model),
            r.cases.len(),
            r.failures(),
            r.seconds,
            escape(&r.file)
        );
        for case in &r.cases {
            let _ = write!(
                x,
                "    <testcase classname=\"{}\" name=\"{}\"",
                escape(&r.model),
                escape(&case.name)
            );
            match (&case.failure, &case.output) {
                (None, None) => x.push_str("/>\n"),
                (Some(f), _) => {
                    let _ = writeln!(
                        x,
                        ">\n      <failure message=\"{}\" type=\"memtx-check\">{}</failure>\n    </testcase>",
                        escape(&f.message),
                        escape(&f.detail)
                    );
                }
                (None, Some(out)) => {
                    let _ = writeln!(
                        x,
                        ">\n      <system-out>{}</system-out>\n    </testcase>",
                        escape(out)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n");
    }
    x.push_str("</testsuites>\n");
    x
}
