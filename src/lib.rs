//! memtx-check: a model checker and invariant verifier for the MemTX
//! transactional belief-commit protocol.

pub mod engine;
pub mod protocol;
