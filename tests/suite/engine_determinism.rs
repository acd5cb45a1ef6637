//! The exhaustive check gives identical counts, verdicts and
//! counterexamples for every thread count, and agrees with stateright's
//! own single-threaded BFS on small bounds (see
//! `memtx_check::engine::stateright_mapping` for the exact relation).

use crate::support::model_at as config;

use memtx_check::check::{self, CheckOptions};
use memtx_check::engine::stateright_mapping::stateright_bfs_unique_states;
use memtx_check::engine::{Engine, EngineOptions, LevelStats};
use memtx_check::model::{MemtxModel, ModelSpec};

#[test]
fn counts_and_counterexamples_do_not_depend_on_the_thread_count() {
    // Depth 7 of the default model: 1.4 million states, in chunks on
    // every thread, and every example and violation its properties have.
    for (path, depth) in [
        ("models/default.json", 7),
        ("models/ablations/no-cascade.json", 7),
    ] {
        let runs: Vec<_> = [1, 2, 3]
            .into_iter()
            .map(|threads| check::run(&config(path, depth), CheckOptions::quiet(threads)))
            .collect();
        let key = |r: &check::CheckReport| {
            let levels: Vec<_> = r.levels.iter().map(LevelStats::counts).collect();
            let traces: Vec<_> = r
                .counterexamples
                .iter()
                .map(|c| c.trace.to_json_string())
                .collect();
            (levels, r.properties.clone(), traces)
        };
        for r in &runs[1..] {
            assert_eq!(key(r), key(&runs[0]), "{path} with {} threads", r.threads);
        }
    }
}

#[test]
fn the_same_run_twice_gives_the_same_counts() {
    let a = check::run(
        &config("models/full-surface.json", 6),
        CheckOptions::quiet(2),
    );
    let b = check::run(
        &config("models/full-surface.json", 6),
        CheckOptions::quiet(2),
    );
    assert_eq!(a.unique_states, b.unique_states);
    assert_eq!(a.transitions, b.transitions);
}

/// Stateright's `target_max_depth(k + 1)` counts exactly our states at
/// depth ≤ k (it checks only up to k − 1, which is why we do not use it).
#[test]
fn per_depth_totals_match_stateright_bfs_on_small_bounds() {
    for path in ["models/default.json", "models/full-surface.json"] {
        let model = MemtxModel::new(ModelSpec::from_config(&config(path, 5)));
        let ours = Engine::new(&model)
            .options(&EngineOptions::new(Some(5), 1))
            .run();
        for (k, level) in ours.levels.iter().enumerate() {
            let theirs = stateright_bfs_unique_states(model.clone(), k + 1);
            assert_eq!(level.total_states, theirs as u64, "{path}, depth {k}");
        }
    }
}
