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
//! The run is the single-process engine's own run (`engine::Run`) on
//! each worker, its levels in a store split by fingerprint owner
//! (`peers`): each worker keeps the visited set of the fingerprints it
//! owns and the parent links of its states, and every worker learns every
//! level's totals, so all of them stop together. Results — growth counts,
//! verdicts, counterexample traces — are the engine's for every number of
//! processes and threads, because every choice follows the engine's
//! order-independent rules (docs/architecture.md, "The engine's
//! semantics"; `worker`).
//! Traces are walked back through the owners of their states (`chain`)
//! and replayed forward on worker 0 by the engine's report.
//!
//! Its files, one concept each, are mapped in docs/architecture.md.
//!
//! How a transition is taken is the engine's own strategy (the `T` of
//! [`enumerate`]: [`Unlabelled`](crate::engine::Unlabelled),
//! [`Labelled`](crate::engine::Labelled), under a symmetry
//! [`Reduced`](crate::engine::Reduced)), and the run is the engine's, so
//! that properties, labels, boundary and self-loops are judged by one
//! piece of code.
//!
//! What a run promises under a symmetry, with branch labels, with
//! checkpoints ([`EngineOptions::checkpoint`], `resume`: per worker,
//! `checkpoint`) and with the memory guard ([`EngineOptions::max_memory`]:
//! per process, `guard`), and how it fails (timely is fail-stop: a command
//! calls [`install_failure_hook`] first, to turn a peer's death into one
//! line and exit code 3; a silent peer is told by `heartbeat`), is in
//! docs/distributed.md.

mod chain;
mod checkpoint;
mod connect;
mod guard;
mod heartbeat;
mod hosts;
mod links;
mod net;
mod outbox;
mod parts;
mod peers;
mod setup;
mod shard;
mod totals;
mod wire;
mod word;
mod worker;

#[cfg(test)]
mod tests;

pub use checkpoint::{check_resumable, part_dir, worker_of, Layout};
pub use hosts::{Hosts, MAX_PROCESSES};
pub use parts::{
    common_level, part_folder, prepare_part, prepare_spill, refuse_foreign,
    refuse_in_the_way_of_resume,
};
use setup::{Checkpointing, Setup};

use crate::engine::level_files::RunIdentity;
use crate::engine::{EngineOptions, EngineReport, FingerprintWidth, StateCodec, Transitions};
use crate::outputs::scratch;
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
    /// How long to wait for the other processes to connect, and, once
    /// the run is on, for a heartbeat of each.
    pub connect_timeout: Duration,
    /// What this process was asked to run (model, bounds, options), as
    /// the caller names it: every process must name the same, or the run
    /// stops before its first level.
    pub identity: String,
}

impl Layout {
    /// The layout a run of `cluster` with `opts` checkpoints under.
    pub fn of(cluster: &Cluster, opts: &EngineOptions) -> Layout {
        Layout {
            run: RunIdentity::new(&cluster.identity, opts.max_depth, opts.fingerprint.bits()),
            processes: cluster.addresses.len(),
            threads: cluster.threads.max(1),
        }
    }
}

/// Explores `model` as one process of `cluster`, taking transitions as
/// `T` says (the engine's strategies): the same semantics and results as
/// the single-process engine run the matching way ([`crate::engine::Engine`]
/// with a codec, `.labelled()` for [`Labelled`](crate::engine::Labelled),
/// `.symmetric()` too for [`Reduced`](crate::engine::Reduced)), its memory
/// guard per process. `opts` are the engine's: its threads and identity
/// are the cluster's, and `disk` and `stop_on_violation` are not read; its
/// observer is told of each level on the first worker of each process.
/// Process 0 returns the report; the others `None`.
/// `Err` (one line) when the processes could not connect. A process that
/// dies mid-run makes this one panic (see [`install_failure_hook`]).
pub fn enumerate<M, T>(
    model: Arc<M>,
    codec: Arc<dyn StateCodec<M::State> + Send + Sync>,
    cluster: &Cluster,
    opts: EngineOptions,
) -> Result<Option<Report<M>>, String>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone + Send,
    T: Transitions<M> + 'static,
{
    let threads = cluster.threads.max(1);
    let me = cluster.process;
    let links = connect::connect(&cluster.addresses, me, cluster.connect_timeout)?;
    // Held until the dataflow is over: a peer silent that long mid-run
    // ends this process (exit 3), one line naming it.
    let watch = heartbeat::watch(links.beats, me, &cluster.addresses, cluster.connect_timeout);
    let links = links.data;
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, comms) = initialize_networking_from_sockets(local, links, me, threads, hooks)
        .map_err(|e| format!("process {me}: cannot start the links to the other processes: {e}"))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    let layout = Layout::of(cluster, &opts);
    let fingerprint = opts.fingerprint;
    // A resume checkpoints on into the folder it resumes.
    let dir = opts.resume.clone().or_else(|| opts.checkpoint.clone());
    let setup = Arc::new(Setup {
        model,
        codec,
        threads,
        identity: format!(
            "{} threads={threads} fingerprint={} depth={:?} levels={:?} checkpoint={} resume={} guard={}",
            cluster.identity,
            opts.fingerprint.bits(),
            opts.max_depth,
            opts.max_levels,
            dir.is_some(),
            opts.resume.is_some(),
            opts.max_memory.is_some()
        ),
        checkpoint: dir.map(|dir| Checkpointing {
            dir,
            resume: opts.resume.is_some(),
            layout,
        }),
        opts,
    });
    let guards = timely::execute::execute_from(
        builders,
        Box::new(comms),
        WorkerConfig::default(),
        move |w| match fingerprint {
            FingerprintWidth::Bits64 => worker::run::<M, T, u64>(w, &setup),
            FingerprintWidth::Bits128 => worker::run::<M, T, u128>(w, &setup),
        },
    )
    .map_err(|e| format!("process {me}: cannot start timely: {e}"))?;
    let mut results = guards.join().into_iter();
    drop(watch);
    let first = results
        .next()
        .expect("a process runs at least one worker")
        .map_err(|e| format!("process {me}: a worker failed: {e}"))?;
    Ok(first)
}

/// What a worker found wrong with the run's input once the processes
/// were connected (parts of two runs' checkpoints with no level in
/// common, on machines that could not see each other's before): the
/// failure hook ends the process with it, exit 2, as bad input.
pub(crate) struct BadInput(pub(crate) String);

/// From now on, a panic anywhere in this process — timely's links
/// panic when a peer dies or a connection breaks ("timely communication
/// error: …"), and its other threads then fail on poisoned queues — ends
/// the process at once with one line on stderr and exit code 3
/// (inconclusive), instead of a dump of panics or a hang; a [`BadInput`]
/// one with exit code 2. Either way it first removes what the process
/// registered as its temporaries (`outputs::scratch`: its spilled parent
/// links, the links files past its checkpoint's last sealed level), as a
/// signal does.
pub fn install_failure_hook(process: usize) {
    static REPORTED: AtomicBool = AtomicBool::new(false);
    std::panic::set_hook(Box::new(move |info| {
        if REPORTED.swap(true, Ordering::SeqCst) {
            // The first thread to panic reports and exits; this one waits
            // for it rather than unwind into the run's end.
            loop {
                std::thread::park();
            }
        }
        scratch::remove_all_and_hold();
        if let Some(BadInput(line)) = info.payload().downcast_ref::<BadInput>() {
            eprintln!("memtx-check: error: {}", crate::input::one_line(line));
            std::process::exit(2);
        }
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
        std::process::exit(3);
    }));
}
