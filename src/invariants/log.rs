//! Log completeness (ours; card §3.4, "Every repair writes an entry to a
//! rollback log"): judged against the retractions the actions performed
//! (the model's [`Monitor`]), never against the log's own root flags.
//! Every retracted record has exactly one root entry in the rollback log,
//! every tool action a retraction reaches (a retracted tool action, or
//! one descending from a retracted record and existing when it was
//! retracted) has exactly one compensated or leaked entry, and every other
//! repair has its entry too: a record a retraction reached and revoked has
//! an entry naming it, one it held back a quarantined entry.
//!
//! And the other direction: the log holds nothing a retraction did not
//! do. Every entry names a record a retraction reached, and every root
//! entry a record one retracted.
//!
//! Clauses: `root_entry`, `tool_action_entry`, `repair_entry` (a revoked
//! or held-back record without its entry), `stray_entry` (an entry for a
//! record no retraction reached, or a root entry for one none retracted).

use super::fields::where_state;
use super::invariant::Invariant;
use super::monitor::Monitor;
use super::violation::Violation;
use crate::protocol::{Kind, Lifecycle, RecordId, RecordSet, Repair, StoreView};

/// Records with at least one, and with more than one, entry of a kind.
#[derive(Default)]
struct Counts {
    once: RecordSet,
    twice: RecordSet,
}

impl Counts {
    fn add(&mut self, id: RecordId) {
        if self.once.contains(id) {
            self.twice.insert(id);
        }
        self.once.insert(id);
    }

    /// The records of `set` without exactly one entry.
    fn not_exactly_once(&self, set: RecordSet) -> RecordSet {
        set.difference(self.once)
            .union(set.intersection(self.twice))
    }
}

pub fn check(store: StoreView<'_>, monitor: &Monitor) -> Option<Violation> {
    let retracted = monitor.retracted();
    let log = store.rollback_log();
    if retracted.is_empty() && log.is_empty() {
        return None;
    }
    let (mut roots, mut tool_entries) = (Counts::default(), Counts::default());
    let (mut named, mut quarantined) = (RecordSet::EMPTY, RecordSet::EMPTY);
    for e in log {
        if e.root {
            roots.add(e.record);
        }
        if matches!(e.repair, Repair::Compensated | Repair::Leaked) {
            tool_entries.add(e.record);
        }
        if e.repair == Repair::Quarantined {
            quarantined.insert(e.record);
        } else {
            named.insert(e.record);
        }
    }
    if let Some(r) = roots.not_exactly_once(retracted).iter().next() {
        return Some(Violation::new(
            Invariant::LogCompleteness,
            "root_entry",
            RecordSet::single(r),
            format!(
                "r{r} was retracted but the rollback log holds {} root entries for it, not one",
                if roots.once.contains(r) {
                    "several"
                } else {
                    "no"
                }
            ),
        ));
    }
    let mut tool_actions = RecordSet::EMPTY;
    for id in monitor.reached().iter() {
        if store
            .record(id)
            .is_some_and(|r| r.kind() == Kind::ToolAction)
        {
            tool_actions.insert(id);
        }
    }
    if let Some(t) = tool_entries.not_exactly_once(tool_actions).iter().next() {
        return Some(Violation::new(
            Invariant::LogCompleteness,
            "tool_action_entry",
            RecordSet::single(t),
            format!(
                "tool action r{t} was reached by a retraction but the rollback log holds {} compensated or leaked entries for it, not one",
                if tool_entries.once.contains(t) { "several" } else { "no" }
            ),
        ));
    }
    let reached = monitor.reached();
    let revoked = where_state(store, |s| s == Lifecycle::Revoked).intersection(reached);
    if let Some(r) = revoked.difference(named).iter().next() {
        return Some(unlogged(r, "revoked", "no entry names it"));
    }
    if let Some(r) = monitor.held_back().difference(quarantined).iter().next() {
        return Some(unlogged(r, "held back", "no quarantined entry names it"));
    }
    let stray = named
        .union(quarantined)
        .difference(reached)
        .union(roots.once.difference(retracted));
    let r = stray.iter().next()?;
    Some(Violation::new(
        Invariant::LogCompleteness,
        "stray_entry",
        RecordSet::single(r),
        if reached.contains(r) {
            format!("the rollback log holds a root entry for r{r}, which no retraction retracted")
        } else {
            format!("the rollback log holds an entry for r{r}, which no retraction reached")
        },
    ))
}

/// Clause `repair_entry`: a retraction repaired record `r` (`how`) and
/// the log does not say so.
fn unlogged(r: RecordId, how: &str, why: &str) -> Violation {
    Violation::new(
        Invariant::LogCompleteness,
        "repair_entry",
        RecordSet::single(r),
        format!("a retraction {how} r{r}, but {why} in the rollback log"),
    )
}
