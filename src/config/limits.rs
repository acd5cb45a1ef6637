//! Every limit an input may ask for, in one place: the model file's
//! fields, the trace format's ids and the command-line flags are all
//! checked against these, so a limit changes here or nowhere.

/// Records in a store: the protocol's bitset capacity, and so the largest
/// record bound and the record ids a trace may name (`0..MAX_RECORDS`).
pub use crate::protocol::MAX_RECORDS;

/// The most bytes an input file (a model, a trace, a saved report) may
/// hold; the input layer reads no further.
pub use crate::input::MAX_INPUT_BYTES;

/// The largest transaction bound: transaction ids are bytes.
pub const MAX_TRANSACTIONS: usize = 255;
/// The largest transaction id a trace may name.
pub const MAX_TRANSACTION_ID: usize = 255;
/// Agents are numbered by a byte.
pub const MAX_AGENTS: usize = 255;
/// The deepest bounded depth a configuration may ask for.
pub const MAX_DEPTH: usize = 1000;
/// Templates: what the store packer can tell apart (the other half of the
/// origin byte); also far below the symbol table's 65,536 strings (four a
/// template).
pub use crate::protocol::MAX_PACKED_PROPOSALS as MAX_TEMPLATES;
/// Tools: what the store packer can tell apart (a record's origin is one
/// byte, half of it for tools), so every valid model can be checked.
pub use crate::protocol::MAX_PACKED_TOOLS as MAX_TOOLS;
/// Worker threads a run may ask for.
pub const MAX_THREADS: usize = 1024;
/// Driver processes a run may start at once (`--jobs`).
pub const MAX_JOBS: usize = 64;
/// Random walks one `random` run may ask for.
pub const MAX_TRACES: u64 = 100_000_000;
/// Steps one random walk may ask for.
pub const MAX_STEPS: u64 = 100_000;
/// Processes one run across machines may name in its hosts file (the
/// hosts file's own limit, read there).
pub use crate::distributed::MAX_PROCESSES;
/// Processes `--local-processes` may start on one machine.
pub const MAX_LOCAL_PROCESSES: usize = 64;
/// The longest `--connect-timeout`, in seconds (an hour).
pub const MAX_CONNECT_TIMEOUT_SECS: u64 = 3600;
