//! The exact bounded BFS across processes, on timely dataflow (issue 11).
//!
//! Why timely (`timely = "=0.32.0"`, pinned: every 0.x release changes
//! its API): it is an existing distributed engine whose progress tracking
//! gives the level barrier for free (the depth's round is a timestamp; a
//! round ends when the probe's frontier passes it), whose `Exchange`
//! partitions candidates to their owners (Stern and Dill's hash-partitioned
//! BFS, as in distributed Murphi and PReach), and which runs the same code
//! on threads of one process and on processes over TCP.
//!
//! The run is the single-process engine's, split by fingerprint owner:
//! each worker keeps the visited set of the fingerprints it owns and the
//! parent links of its states, and every worker learns every level's
//! totals, so all of them stop together. Results — growth counts,
//! verdicts, counterexample traces — are the engine's for every number of
//! processes and threads, because every choice follows the engine's
//! order-independent rules (see `engine`'s module docs and `worker`).
//! Traces are walked back through the owners of their states (`chain`)
//! and replayed forward on worker 0 (`report`).
//!
//! The modules: `hosts` (the hosts file), `connect` (the TCP links, with a
//! deadline), `net` (the dataflow and its rounds), `wire` (packets),
//! `word` (fingerprints and owners), `shard` (a worker's receiving side),
//! `worker` (a worker's levels), `chain`, `report`.
//!
//! Not here: the memory guard, checkpoints and symmetry of the
//! single-process engine (the command line refuses them with `--hosts`).
//! Timely is fail-stop: a process that dies (or a link that breaks) makes
//! the others' timely threads panic; a command calls
//! [`install_failure_hook`] first, to turn that into one line and exit
//! code 3.

mod chain;
mod connect;
mod hosts;
mod net;
mod report;
mod shard;
mod wire;
mod word;
mod worker;

mod decision;
mod setup;
#[cfg(test)]
mod tests;

pub use hosts::Hosts;
pub use setup::Progress;
use setup::Setup;

use crate::engine::{EngineReport, FingerprintWidth, StateCodec};
use stateright::Model;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;
use timely::WorkerConfig;

/// The engine's report on a model.
pub type Report<M> = EngineReport<<M as Model>::State, <M as Model>::Action>;

/// This process's place in the run.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// Every process's `host:port`, in process order.
    pub addresses: Vec<String>,
    /// This process's index in `addresses`.
    pub process: usize,
    /// Worker threads in each process (the same in every process).
    pub threads: usize,
    /// How long to wait for the other processes to connect.
    pub connect_timeout: Duration,
    /// What this process was asked to run (model, bounds, options), as
    /// the caller names it: every process must name the same, or the run
    /// stops before its first level.
    pub identity: String,
}

/// What to explore.
pub struct RunOptions {
    /// Deepest level to discover; `None` explores to the fixpoint.
    pub max_depth: Option<usize>,
    pub fingerprint: FingerprintWidth,
    pub progress: Option<Progress>,
}

/// Explores `model` as one process of `cluster`: the same semantics and
/// results as [`crate::engine::enumerate_with_codec`] (without its memory
/// guard and checkpoints). Process 0 returns the report; the others
/// `None`. `Err` (one line) when the processes could not connect. A
/// process that dies mid-run makes this one panic (see
/// [`install_failure_hook`]).
pub fn enumerate<M>(
    model: Arc<M>,
    codec: Arc<dyn StateCodec<M::State> + Send + Sync>,
    cluster: &Cluster,
    opts: RunOptions,
) -> Result<Option<Report<M>>, String>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + Send,
    M::Action: Clone + Send,
{
    let threads = cluster.threads.max(1);
    let me = cluster.process;
    let links = connect::connect(&cluster.addresses, me, cluster.connect_timeout)?;
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, comms) = initialize_networking_from_sockets(local, links, me, threads, hooks)
        .map_err(|e| format!("process {me}: cannot start the links to the other processes: {e}"))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    let setup = Arc::new(Setup {
        model,
        codec,
        max_depth: opts.max_depth,
        progress: opts.progress,
        threads,
        identity: format!(
            "{} threads={threads} fingerprint={} depth={:?}",
            cluster.identity,
            opts.fingerprint.bits(),
            opts.max_depth
        ),
    });
    let fingerprint = opts.fingerprint;
    let guards = timely::execute::execute_from(
        builders,
        Box::new(comms),
        WorkerConfig::default(),
        move |w| match fingerprint {
            FingerprintWidth::Bits64 => worker::run::<M, u64>(w, &setup),
            FingerprintWidth::Bits128 => worker::run::<M, u128>(w, &setup),
        },
    )
    .map_err(|e| format!("process {me}: cannot start timely: {e}"))?;
    let mut results = guards.join().into_iter();
    let first = results
        .next()
        .expect("a process runs at least one worker")
        .map_err(|e| format!("process {me}: a worker failed: {e}"))?;
    Ok(first)
}

/// From now on, a panic anywhere in this process — timely's links
/// panic when a peer dies or a connection breaks ("timely communication
/// error: …"), and its other threads then fail on poisoned queues — ends
/// the process at once with one line on stderr and exit code 3
/// (inconclusive), instead of a dump of panics or a hang.
pub fn install_failure_hook(process: usize) {
    static REPORTED: AtomicBool = AtomicBool::new(false);
    std::panic::set_hook(Box::new(move |info| {
        if !REPORTED.swap(true, Ordering::SeqCst) {
            let message = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied())
                .unwrap_or("a worker failed");
            let first = message.lines().next().unwrap_or_default();
            if first.contains("timely communication error") {
                eprintln!(
                    "memtx-check: process {process}: lost a peer process ({first}); the run is abandoned"
                );
            } else {
                eprintln!("memtx-check: process {process}: {first}; the run is abandoned");
            }
        }
        std::process::exit(3);
    }));
}
