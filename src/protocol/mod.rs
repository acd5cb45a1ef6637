//! MemTX semantics.
