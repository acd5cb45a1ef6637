//! Shrinking a violating walk: cut it just after the violating step, then
//! greedily remove single steps, then pairs of steps (an open with the
//! commit that closes it, a stage with the revoke of its record), keeping
//! a candidate whenever its re-run through the model (every action still
//! an enabled transition) still violates the same invariant, cut again
//! after the new first violation. Repeats until no removal helps. The
//! result is 1-minimal for singles and, up to [`PAIR_LIMIT`] steps, for
//! pairs; it is not necessarily a shortest counterexample (the exhaustive
//! check gives those).

use super::walk::first_failure;
use crate::model::{Action, MemtxModel, Predicate};

/// Pairs are tried on sequences up to this long (their number grows with
/// the square of the length, and each costs one re-run).
pub const PAIR_LIMIT: usize = 64;

/// The shrunk action sequence; `actions` must violate `holds` somewhere
/// (if it does not, it is returned unchanged).
pub fn shrink(model: &MemtxModel, actions: &[Action], holds: Predicate) -> Vec<Action> {
    let Some(at) = first_failure(model, actions, holds) else {
        return actions.to_vec();
    };
    let mut best = actions[..=at].to_vec();
    loop {
        let before = best.len();
        remove_singles(model, &mut best, holds);
        if best.len() <= PAIR_LIMIT {
            remove_pairs(model, &mut best, holds);
        }
        if best.len() == before {
            return best;
        }
    }
}

/// The candidate cut after its first failure, if it fails.
fn still_fails(
    model: &MemtxModel,
    candidate: Vec<Action>,
    holds: Predicate,
) -> Option<Vec<Action>> {
    let at = first_failure(model, &candidate, holds)?;
    let mut kept = candidate;
    kept.truncate(at + 1);
    Some(kept)
}

fn remove_singles(model: &MemtxModel, best: &mut Vec<Action>, holds: Predicate) {
    let mut i = 0;
    while i < best.len() {
        let mut candidate = best.clone();
        candidate.remove(i);
        match still_fails(model, candidate, holds) {
            Some(shorter) => *best = shorter,
            None => i += 1,
        }
    }
}

fn remove_pairs(model: &MemtxModel, best: &mut Vec<Action>, holds: Predicate) {
    let mut i = 0;
    while i < best.len() {
        let mut j = i + 1;
        let mut removed = false;
        while j < best.len() {
            let mut candidate = best.clone();
            candidate.remove(j);
            candidate.remove(i);
            if let Some(shorter) = still_fails(model, candidate, holds) {
                *best = shorter;
                removed = true;
                break;
            }
            j += 1;
        }
        if !removed {
            i += 1;
        }
    }
}
