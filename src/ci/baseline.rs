//! A baseline seen at a depth cap: `ci --max-depth D` checks a deeper
//! model only to depth D, and compares it with what its baseline says of
//! depths 0..=D. Breadth-first levels do not depend on how deep the run
//! goes, so the baseline's first D+1 rows are exactly what a run to D
//! finds; a violation or example deeper than D is one the capped run
//! cannot see, so it reads as holds (or not reached). The baseline's
//! branch coverage is capped by the same rule, by each branch's first
//! depth ([`super::coverage::BaselineCoverage::capped`]).

use crate::diff::{Side, Verdict};

/// `side` as a run of the same model to depth `cap` would report it.
pub fn capped(side: &Side, cap: usize) -> Side {
    let levels: Vec<_> = side.levels.iter().take(cap + 1).copied().collect();
    let (states, transitions) = levels.last().map_or((0, 0), |l| (l.2, l.4));
    let bounds = match side.bounds.rfind(", depth ") {
        Some(at) => format!("{}, depth {cap}", &side.bounds[..at]),
        None => side.bounds.clone(),
    };
    Side {
        origin: format!("{} (depths 0..={cap})", side.origin),
        bounds,
        states,
        transitions,
        complete: side.complete && side.levels.len() <= cap + 1,
        properties: side.properties.iter().map(|p| seen_by(p, cap)).collect(),
        levels,
        ..side.clone()
    }
}

fn seen_by(v: &Verdict, cap: usize) -> Verdict {
    match v.depth {
        Some(d) if d > cap => Verdict {
            verdict: if v.verdict == "violated" {
                "holds"
            } else {
                "not_reached"
            }
            .to_owned(),
            depth: None,
            ..v.clone()
        },
        _ => v.clone(),
    }
}
