//! The integration tests, one binary (cargo's own test suite is the
//! model): one module per area, each named as `cargo test --release
//! --test suite AREA::` runs it alone, and `support`, what the areas
//! share (the binary's path, scratch folders, the runner). The
//! spec-change walkthrough, which builds the crate twice, is the second
//! binary (`tests/spec_change_walkthrough.rs`; its module doc says why).
//! docs/testing.md lists the areas.

mod support;

mod behaviour;
mod check;
mod check_run_control;
mod ci;
mod conform;
mod diff;
mod disk_runs;
mod distributed;
mod doc_examples;
mod doc_links;
mod driver;
mod dump;
mod engine_determinism;
mod explore;
mod faults;
mod fuzz;
mod generated;
mod hostile;
mod layering;
mod models_pinned;
mod mutants;
mod progress;
mod python_driver;
mod random;
mod replay;
mod signals;
mod symmetry;
