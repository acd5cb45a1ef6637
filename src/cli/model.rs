//! The model a command runs: loaded and validated, its warnings (allowed
//! but probably not meant, [`ModelConfig::warnings`]) one line each on
//! stderr, so `check`, `random` and `explore` say the same.

use super::exit::CliError;
use crate::config::ModelConfig;
use std::path::Path;

/// Loads `path` and prints its warnings.
pub fn load_model(path: &Path) -> Result<ModelConfig, CliError> {
    let config = ModelConfig::load(path)?;
    warn(&config.warnings());
    Ok(config)
}

/// One `memtx-check: warning:` line each.
pub fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("memtx-check: warning: {w}");
    }
}
