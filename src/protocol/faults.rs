//! Test-only faults: protocol bugs that tests switch on to show that a
//! property catches them (and, as telling, where it cannot). Compiled in
//! test builds only, so no shipped protocol can carry one.

/// The faults a test protocol carries; none by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Faults {
    /// The gate's first clause ignores the snapshot: every tentative
    /// record blocks an irreversible call, read or not (card §3.3 says
    /// only records "that the transaction did not read" do).
    pub gate_ignores_snapshot: bool,
}
