//! What a run writes, and where: every output path is built inside the
//! folder the user chose ([`path_inside`]), so no name read from an input
//! can send a file elsewhere.

mod path;

pub use path::path_inside;
