//! memtx-check: a model checker and invariant verifier for the MemTX
//! transactional belief-commit protocol.

pub mod atomic_file;
pub mod check;
pub mod cli;
pub mod config;
pub mod diff;
pub mod engine;
pub mod explore;
pub mod invariants;
pub mod model;
pub mod outcome_text;
pub mod protocol;
pub mod random;
pub mod replay;
pub mod trace;
