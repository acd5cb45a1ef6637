//! Log completeness (ours; card §3.4, "Every repair writes an entry to a
//! rollback log"): judged against the retractions the actions performed
//! (the model's [`Monitor`]), never against the log's own root flags.
//! Every retracted record has exactly one root entry in the rollback log,
//! and every tool action a retraction reaches (a retracted tool action, or
//! one descending from a retracted record and existing when it was
//! retracted) has exactly one compensated or leaked entry.
//!
//! Clauses: `root_entry`, `tool_action_entry`.

use super::invariant::Invariant;
use super::monitor::Monitor;
use super::violation::Violation;
use crate::protocol::{Kind, RecordId, RecordSet, Repair, StoreView};

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
    if retracted.is_empty() {
        return None;
    }
    let (mut roots, mut tool_entries) = (Counts::default(), Counts::default());
    for e in store.rollback_log() {
        if e.root {
            roots.add(e.record);
        }
        if matches!(e.repair, Repair::Compensated | Repair::Leaked) {
            tool_entries.add(e.record);
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
    let t = tool_entries.not_exactly_once(tool_actions).iter().next()?;
    Some(Violation::new(
        Invariant::LogCompleteness,
        "tool_action_entry",
        RecordSet::single(t),
        format!(
            "tool action r{t} was reached by a retraction but the rollback log holds {} compensated or leaked entries for it, not one",
            if tool_entries.once.contains(t) { "several" } else { "no" }
        ),
    ))
}
