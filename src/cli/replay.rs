//! `memtx-check replay FILE.json [--json] [--itf OUT.itf.json]`: runs a
//! trace through the protocol and prints each step's outcome, the final
//! records and the invariant verdicts; exit 1 when an invariant is
//! violated, whether or not the trace declares it.

use super::exit::{CliError, Verdict};
use super::output::print;
use crate::config::ModelConfig;
use crate::outputs::atomic_file::write_atomic;
use crate::replay::{render_json, render_text, replay};
use crate::trace::{to_itf, ConfigRef, Trace};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace file (traces/*.json).
    pub file: PathBuf,
    /// Print one JSON object instead of the readable account.
    #[arg(long)]
    pub json: bool,
    /// Also write the replayed trace in the Informal Trace Format (ITF,
    /// read by Apalache and Quint) to this file.
    #[arg(long, value_name = "FILE")]
    pub itf: Option<PathBuf>,
    /// Replay under this model file instead of the trace's own
    /// configuration; the steps are checked against it (its tools, tiers
    /// and agents), as a `behaviour` diff's trace fits both its models.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<PathBuf>,
}

pub fn run(args: &ReplayArgs) -> Result<Verdict, CliError> {
    let mut trace = Trace::load(&args.file)?;
    if let Some(model) = &args.model {
        trace = under(trace, ModelConfig::load(model)?, model)?;
    }
    let report = replay(&trace)?;
    if let Some(path) = &args.itf {
        let itf = to_itf(&report.stores, &trace.steps, &report.compiled);
        let mut bytes = serde_json::to_vec_pretty(&itf)
            .map_err(|e| CliError(format!("{}: cannot encode ITF: {e}", path.display())))?;
        bytes.push(b'\n');
        write_atomic(path, &bytes)
            .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))?;
    }
    print(&if args.json {
        render_json(&report)
    } else {
        render_text(&report)
    })?;
    Ok(Verdict::violated_if(report.violated()))
}

/// `trace` with `config` in place of its own, its steps validated against
/// it as when a trace is read.
fn under(mut trace: Trace, config: ModelConfig, model: &Path) -> Result<Trace, CliError> {
    let origin = format!("{} (under {})", trace.origin, model.display());
    trace.config = config;
    trace.config_ref = ConfigRef::Inline;
    Ok(Trace::parse(&trace.to_json_string(), &origin, None)?)
}
