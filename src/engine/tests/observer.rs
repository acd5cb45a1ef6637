//! The observer is told of every level in order, and of progress within a
//! level that takes more than a second.

use super::models::Grid;
use crate::engine::{Engine, EngineOptions, LevelProgress, LevelStats, RunObserver};
use stateright::{Model, Property};
use std::sync::{Arc, Mutex};

/// Records what it is told.
#[derive(Default)]
struct Recorder {
    levels: Mutex<Vec<usize>>,
    beats: Mutex<Vec<LevelProgress>>,
}

impl RunObserver for Arc<Recorder> {
    fn level_done(&self, level: &LevelStats) {
        self.levels.lock().unwrap().push(level.depth);
    }
    fn heartbeat(&self, progress: &LevelProgress) {
        self.beats.lock().unwrap().push(progress.clone());
    }
}

#[test]
fn every_level_is_reported_in_order() {
    let seen = Arc::new(Recorder::default());
    let grid = Grid {
        w: 12,
        h: 9,
        four_way: true,
        max_x: None,
        limit: 100,
    };
    let opts = EngineOptions {
        observer: Box::new(seen.clone()),
        ..EngineOptions::new(Some(3), 1)
    };
    Engine::new(&grid).options(&opts).run();
    assert_eq!(*seen.levels.lock().unwrap(), vec![0, 1, 2, 3]);
    assert!(
        seen.beats.lock().unwrap().is_empty(),
        "a fast run has no heartbeat"
    );
}

/// 2,000 initial states; expanding state 0 takes over a second.
struct SlowStart;

impl Model for SlowStart {
    type State = u32;
    type Action = ();
    fn init_states(&self) -> Vec<u32> {
        (0..2000).collect()
    }
    fn actions(&self, &s: &u32, actions: &mut Vec<()>) {
        if s == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1100));
        }
        actions.push(());
    }
    fn next_state(&self, &s: &u32, _: ()) -> Option<u32> {
        Some(s + 2000)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        Vec::new()
    }
}

#[test]
fn a_slow_level_reports_its_progress() {
    // One thread: a batch is 16 chunks of 4 states (the test sizes). The
    // batch after the one holding state 0 starts more than a second into
    // the level; each state expanded so far has added one new state.
    let seen = Arc::new(Recorder::default());
    let opts = EngineOptions {
        observer: Box::new(seen.clone()),
        ..EngineOptions::new(Some(1), 1)
    };
    let report = Engine::new(&SlowStart).options(&opts).run();
    assert_eq!(report.unique_states, 4000);
    let beats = seen.beats.lock().unwrap();
    let first = beats.first().expect("a heartbeat during the slow level");
    assert!(first.elapsed_ms >= 1100, "{first:?}");
    assert_eq!((first.depth, first.level_size), (0, 2000));
    assert!(first.expanded > 0 && first.expanded < 2000, "{first:?}");
    assert_eq!(first.discovered, 2000 + first.expanded);
}
