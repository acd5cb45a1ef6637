//! What a run writes, and where. Every output path is built inside the
//! folder the user chose ([`path_inside`]), so no name read from an input
//! can send a file elsewhere; a model's report folder is written a whole
//! run at a time ([`ReportSet`], with its `manifest.json`), and a reader
//! checks a run is whole before reading it ([`verify_set`]); one run at
//! a time writes into a folder ([`FolderLock`]), and finds no link or
//! special file planted where it writes ([`refuse_planted`]); a run's temporaries are
//! removed on a signal, and those of killed runs by the next run
//! ([`scratch`]); and a file is written all at once ([`atomic_file`]).

pub mod atomic_file;
mod baseline;
mod checksum;
mod folder_lock;
mod growth_chart;
mod manifest;
mod path;
mod planted;
mod report_set;
pub mod scratch;
mod xml;

pub use baseline::{read_marker, refuse_blessed, BaselineMarker, BASELINE_FORMAT, BASELINE_MARKER};
pub use checksum::{checksum, Checksum};
pub use folder_lock::{first_missing, FolderLock};
pub use growth_chart::{growth_svg, GrowthSeries};
pub use manifest::{verify_set, MANIFEST};
pub use path::path_inside;
pub use planted::{refuse_planted, LINKS};
pub use report_set::ReportSet;
pub use xml::xml_escape;

#[cfg(test)]
mod tests;
