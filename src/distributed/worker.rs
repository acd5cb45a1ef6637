//! One worker's part of the run: the engine's own run (`engine::Run`: its
//! level loop, expansion, properties, labels, checkpoints and report) on
//! one thread, its levels in the store across processes ([`Peers`]),
//! which keeps the states this worker owns (see `word::Word::owner`) and
//! exchanges the rest with the other workers. The rules are the
//! engine's (docs/architecture.md, "The engine's semantics"): a level's counts are sums, a
//! property is decided by the smallest deciding fingerprint at the
//! shallowest depth, a state's parent is its smallest (parent
//! fingerprint, action index).

use super::peers::Peers;
use super::setup::Setup;
use super::word::Word;
use crate::engine::{EngineOptions, EngineReport, LevelStats, Run, RunObserver, Silent};
use crate::engine::{StateCodec, Transitions};
use stateright::Model;
use std::hash::Hash;
use std::sync::Arc;
use timely::worker::Worker;

/// Runs this worker's part; worker 0 returns the report, with traces.
pub(crate) fn run<M, T, W>(
    worker: &mut Worker,
    setup: &Arc<Setup<M>>,
) -> Option<EngineReport<M::State, M::Action>>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Clone + Send + Sync,
    M::Action: Clone,
    T: Transitions<M>,
    W: Word,
{
    let properties = setup.model.properties();
    let opts = options(setup, worker.index());
    let codec: &dyn StateCodec<M::State> = &*setup.codec;
    let mut peers = Peers::<M, T, W>::new(worker, setup, properties.len());
    peers.agree();
    let model = &*setup.model;
    let run = match &setup.checkpoint {
        Some(c) if c.resume => {
            let from = peers.resume(c);
            Run::<M, T, W>::restored(
                model,
                &properties,
                &opts,
                Some(codec),
                Box::new(peers),
                from,
            )
        }
        _ => {
            peers.start_afresh();
            Run::<M, T, W>::new(model, &properties, &opts, Some(codec), Box::new(peers))
        }
    };
    run.finish()
}

/// The engine's options for worker `index`: the run's bounds and
/// fingerprints on one thread (each worker is one), never stopping at a
/// violation mid-level (its peers would wait for its rounds), with files
/// and the memory guard left to [`Peers`]; the first worker of each
/// process tells the run's observer of each level.
fn options<M: Model + Send + Sync + 'static>(setup: &Arc<Setup<M>>, index: usize) -> EngineOptions {
    let o = &setup.opts;
    let observer: Box<dyn RunObserver> = if index.is_multiple_of(setup.threads) {
        Box::new(Levels(Arc::clone(setup)))
    } else {
        Box::new(Silent)
    };
    EngineOptions {
        max_depth: o.max_depth,
        threads: 1,
        stop_on_violation: false,
        observer,
        fingerprint: o.fingerprint,
        identity: o.identity.clone(),
        max_levels: o.max_levels,
        ..EngineOptions::default()
    }
}

/// Tells the run's observer of each level (the levels' totals are the
/// same on every worker); within a level a worker knows only its part,
/// so no heartbeat.
struct Levels<M: Model>(Arc<Setup<M>>);

impl<M: Model + Send + Sync> RunObserver for Levels<M> {
    fn level_done(&self, level: &LevelStats) {
        self.0.opts.observer.level_done(level);
    }
}
