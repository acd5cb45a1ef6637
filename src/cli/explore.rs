//! `memtx-check explore [MODEL]`: serves stateright's web explorer for a
//! model. With `--trace`, the model is the trace's own configuration and
//! the command first prints the deep link that opens the explorer on the
//! trace's last state. Serving blocks until the process is stopped.

use super::exit::{CliError, Verdict};
use super::model::load_model;
use super::output::print;
use crate::explore::{self, deep_link, is_loopback, trace_actions, DEFAULT_ADDR};
use crate::model::{MemtxModel, ModelSpec};
use crate::trace::Trace;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// The model configuration (default: models/default.json). Not with
    /// --trace, which brings its own.
    #[arg(conflicts_with = "trace")]
    pub model: Option<PathBuf>,
    /// Where to listen. The explorer has no authentication: it listens on
    /// loopback unless another address is given, and then warns.
    #[arg(long, default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// Open on this trace's last state (traces/*.json): print the link
    /// before serving.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

pub fn run(args: &ExploreArgs) -> Result<Verdict, CliError> {
    let loopback = is_loopback(&args.addr).map_err(CliError)?;
    // `127.0.0.1:0` asks for any free port: the link names the one bound.
    let listener = explore::listen(&args.addr).map_err(CliError)?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError(format!("--addr {}: {e}", args.addr)))?
        .to_string();
    let (model, link, note) = match &args.trace {
        Some(path) => {
            let trace = Trace::load(path)?;
            let model = MemtxModel::new(ModelSpec::from_config(&trace.config));
            let actions = trace_actions(&model, &trace)
                .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
            let link = deep_link(&model, &actions, &addr).ok_or_else(|| {
                CliError(format!(
                    "{}: the steps are not a path of the model",
                    path.display()
                ))
            })?;
            let note = match &trace.violation {
                Some(v) => format!(
                    "{}: {} steps; declares {} violated after step {}",
                    path.display(),
                    trace.steps.len(),
                    v.property,
                    v.step
                ),
                None => format!("{}: {} steps", path.display(), trace.steps.len()),
            };
            (model, link, note)
        }
        None => {
            let path = args
                .model
                .clone()
                .unwrap_or_else(|| PathBuf::from("models/default.json"));
            let config = load_model(&path)?;
            let model = MemtxModel::new(ModelSpec::from_config(&config));
            let link = deep_link(&model, &[], &addr).ok_or_else(|| {
                CliError(format!(
                    "{}: the model has no initial state",
                    path.display()
                ))
            })?;
            (model, link, format!("model {}", config.name))
        }
    };
    if !loopback {
        eprintln!(
            "memtx-check: warning: the explorer has no authentication and {} is not a loopback \
             address: anyone who can reach it can browse and drive this model checker",
            args.addr
        );
    }
    print(&format!("{note}\nexplorer: {link}\n"))?;
    eprintln!("serving the explorer on {addr} (stop with Ctrl-C)");
    explore::serve_on(model, listener).map_err(CliError)?;
    Ok(Verdict::Holds)
}
