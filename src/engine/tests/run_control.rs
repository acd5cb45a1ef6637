//! Run control: 128-bit fingerprints, parent links spilled to files,
//! checkpoints and resuming (a resumed run ends exactly as an
//! uninterrupted one), and the memory guard.

use super::labels::LabelledCounter;
use super::models::{Counter, Grid};
use super::TableCodec;
use crate::engine::{
    check_resumable, prepare_checkpoint, Engine, EngineOptions, EngineReport, FingerprintWidth,
    Resumable, Stopped, Verdict,
};
use std::path::PathBuf;

fn grid() -> Grid {
    Grid {
        w: 9,
        h: 7,
        four_way: true,
        max_x: None,
        limit: 9,
    }
}

/// A fresh directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memtx-engine-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// What must not differ between two runs of the same model and bounds.
fn key<S, A>(r: &EngineReport<S, A>) -> impl PartialEq + std::fmt::Debug + '_
where
    S: PartialEq + Clone + std::fmt::Debug,
    A: PartialEq + Clone + std::fmt::Debug,
{
    (r.level_counts(), &r.properties, r.complete, &r.labels)
}

#[test]
fn wide_fingerprints_give_the_same_counts_and_traces() {
    for bound in [Some(6), None] {
        let narrow = Engine::new(&grid())
            .options(&EngineOptions::new(bound, 2))
            .run();
        let wide = Engine::new(&grid())
            .options(&EngineOptions {
                fingerprint: FingerprintWidth::Bits128,
                ..EngineOptions::new(bound, 3)
            })
            .run();
        assert_eq!(wide.level_counts(), narrow.level_counts());
        assert_eq!((narrow.fingerprint_bits, wide.fingerprint_bits), (64, 128));
        for (w, n) in wide.properties.iter().zip(&narrow.properties) {
            match (&w.verdict, &n.verdict) {
                (Verdict::Violated { depth: a, trace }, Verdict::Violated { depth: b, .. })
                | (Verdict::Reached { depth: a, trace }, Verdict::Reached { depth: b, .. }) => {
                    assert_eq!(a, b);
                    super::assert_valid_trace(&grid(), trace);
                }
                (w, n) => assert_eq!(w, n),
            }
        }
        assert!(wide.collision_probability() < narrow.collision_probability() * 1e-18);
    }
}

#[test]
fn links_spilled_to_files_give_the_same_report_and_are_removed() {
    let dir = scratch("spill");
    let memory = Engine::new(&grid())
        .options(&EngineOptions::new(None, 2))
        .run();
    let spilled = Engine::new(&grid())
        .options(&EngineOptions {
            spill_dir: Some(dir.clone()),
            ..EngineOptions::new(None, 2)
        })
        .run();
    assert_eq!(key(&spilled), key(&memory));
    assert!(!dir.exists(), "the link files are removed at the end");
}

#[test]
fn a_resumed_run_ends_as_an_uninterrupted_one() {
    let m = LabelledCounter(Counter { m: 5_003, bad: 777 });
    let codec = TableCodec {
        table: Default::default(),
    };
    for bound in [Some(8), None] {
        let whole = Engine::new(&m)
            .options(&EngineOptions::new(bound, 2))
            .codec(&codec)
            .labelled()
            .run();
        for k in [1, 3, 7] {
            let dir = scratch(&format!("resume-{k}-{bound:?}"));
            let opts = |threads, resume: bool, max_levels| EngineOptions {
                checkpoint: Some(dir.clone()),
                resume: resume.then(|| dir.clone()),
                identity: "counter 5003".into(),
                max_levels,
                ..EngineOptions::new(bound, threads)
            };
            let cut = Engine::new(&m)
                .options(&opts(1, false, Some(k)))
                .codec(&codec)
                .labelled()
                .run();
            assert_eq!(cut.stopped, Some(Stopped::LevelLimit));
            assert_eq!(cut.levels.len(), k);
            let resumed = Engine::new(&m)
                .options(&opts(3, true, None))
                .codec(&codec)
                .labelled()
                .run();
            assert_eq!(
                key(&resumed),
                key(&whole),
                "bound {bound:?}, cut after {k} levels"
            );
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[test]
fn a_checkpoint_of_another_model_or_bound_is_refused() {
    let dir = scratch("refuse");
    let codec = TableCodec {
        table: Default::default(),
    };
    let opts = |identity: &str, depth| EngineOptions {
        checkpoint: Some(dir.clone()),
        identity: identity.into(),
        max_levels: Some(2),
        ..EngineOptions::new(depth, 1)
    };
    assert!(
        check_resumable(&dir, &opts("grid", Some(5)), None).is_err(),
        "nothing yet"
    );
    Engine::new(&grid())
        .options(&opts("grid", Some(5)))
        .codec(&codec)
        .run();
    assert_eq!(
        check_resumable(&dir, &opts("grid", Some(5)), None).map(|r| r.depth),
        Ok(1)
    );
    let other = check_resumable(&dir, &opts("ladder", Some(5)), None).unwrap_err();
    assert!(
        other.contains("another model") && !other.contains('\n'),
        "{other}"
    );
    assert!(check_resumable(&dir, &opts("grid", Some(6)), None).is_err());
    // A checkpoint of a build before fingerprint schemes were numbered
    // names none: its fingerprints are not this build's.
    crate::engine::checkpoint::reseal_meta(&dir.join("level-0001"), |meta| {
        meta.as_object_mut().unwrap().remove("fingerprint_scheme");
    });
    let older = check_resumable(&dir, &opts("grid", Some(5)), None).unwrap_err();
    assert!(
        older.contains("other state fingerprints (scheme 1, this build 2)")
            && !older.contains('\n'),
        "{older}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_memory_guard_stops_cleanly_before_a_level_that_would_not_fit() {
    let roomy = Engine::new(&grid())
        .options(&EngineOptions {
            max_memory: Some(u64::MAX),
            ..EngineOptions::new(None, 2)
        })
        .run();
    assert!(roomy.complete && roomy.stopped.is_none());
    // Nothing fits in one byte: level 0 is checked, never expanded.
    let m = Grid { limit: 0, ..grid() };
    let tight = Engine::new(&m)
        .options(&EngineOptions {
            max_memory: Some(1),
            ..EngineOptions::new(None, 2)
        })
        .run();
    assert!(!tight.complete);
    assert!(matches!(
        tight.stopped,
        Some(Stopped::MemoryBound { depth: 1, limit: 1, needed, disk_needed: Some(disk), .. }) if needed > 1 && disk > 0
    ));
    assert_eq!(tight.level_counts(), vec![(0, 1, 1, 0, 0)]);
    assert!(
        matches!(
            tight.property("sum below"),
            Some(Verdict::Violated { depth: 0, .. })
        ),
        "the levels explored are checked"
    );
}

#[test]
fn a_full_disk_under_the_spilled_links_stops_the_run_on_the_levels_before_it() {
    use crate::engine::level_files::inject;
    let dir = scratch("spill-full");
    let memory = Engine::new(&grid())
        .options(&EngineOptions::new(None, 2))
        .run();
    // The links of levels 1 and 2 are written, level 3's fail.
    inject::fail_after(Some(2));
    let full = Engine::new(&grid())
        .options(&EngineOptions {
            spill_dir: Some(dir.clone()),
            ..EngineOptions::new(None, 2)
        })
        .run();
    inject::fail_after(None);
    let Some(Stopped::WriteFailed { depth: 3, error }) = &full.stopped else {
        panic!("stopped: {:?}", full.stopped);
    };
    let file = dir.join("links-0003.bin");
    assert_eq!(
        error,
        &format!(
            "cannot write {}: No space left on device (os error 28)",
            file.display()
        )
    );
    assert!(!full.complete);
    assert_eq!(full.level_counts(), memory.level_counts()[..3]);
    assert!(!dir.exists(), "nothing of the spill is left");
}

#[test]
fn a_checkpoint_cut_by_a_full_disk_resumes_to_the_uninterrupted_end() {
    use crate::engine::level_files::inject;
    let m = LabelledCounter(Counter { m: 5_003, bad: 777 });
    let codec = TableCodec {
        table: Default::default(),
    };
    let bound = Some(6);
    let whole = Engine::new(&m)
        .options(&EngineOptions::new(bound, 2))
        .codec(&codec)
        .labelled()
        .run();
    // Level 0 writes 3 files (visited, frontier, meta), each later level
    // its links file first: every file of the first three levels fails once.
    for written in 0..11 {
        let dir = scratch(&format!("checkpoint-full-{written}"));
        let opts = |resume: bool| EngineOptions {
            checkpoint: Some(dir.clone()),
            resume: resume.then(|| dir.clone()),
            identity: "counter 5003".into(),
            ..EngineOptions::new(bound, 2)
        };
        inject::fail_after(Some(written));
        let cut = Engine::new(&m)
            .options(&opts(false))
            .codec(&codec)
            .labelled()
            .run();
        inject::fail_after(None);
        let Some(Stopped::WriteFailed { depth, error }) = &cut.stopped else {
            panic!("{written} files written, stopped: {:?}", cut.stopped);
        };
        assert!(
            error.starts_with(&format!("cannot write {}", dir.display()))
                && error.ends_with("No space left on device (os error 28)"),
            "{error}"
        );
        assert_eq!(cut.levels.len(), *depth, "the levels before {depth}");
        assert_eq!(cut.level_counts(), whole.level_counts()[..*depth]);
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        let last = names
            .iter()
            .filter_map(|n| n.strip_prefix("level-")?.parse::<usize>().ok())
            .max();
        let links = names.iter().filter(|n| n.starts_with("links-")).count();
        assert!(
            names.iter().all(|n| !n.ends_with(".tmp")) && links == last.unwrap_or(0),
            "no temporary level, no links past level {last:?}: {names:?}"
        );
        match check_resumable(&dir, &opts(true), None) {
            Ok(resumable) => {
                let level = resumable.depth;
                // The frontier's checkpoint failed (stopped after it) or
                // the next level's links did (stopped after the level).
                assert!(
                    level + 1 == *depth || level + 2 == *depth,
                    "the last level written whole: {level}, stopped before {depth}"
                );
                let resumed = Engine::new(&m)
                    .options(&opts(true))
                    .codec(&codec)
                    .labelled()
                    .run();
                assert_eq!(key(&resumed), key(&whole), "{written} files written");
            }
            Err(e) => assert!(written < 3 && e.contains("no complete checkpoint"), "{e}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Every name under `dir`, relative to it, sorted.
fn tree(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            found.push(path.strip_prefix(dir).unwrap().display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn a_fresh_checkpoint_clears_only_an_earlier_one_of_the_same_run() {
    let m = LabelledCounter(Counter { m: 5_003, bad: 777 });
    let codec = TableCodec {
        table: Default::default(),
    };
    let dir = scratch("fresh");
    let opts = |identity: &str, max_levels| EngineOptions {
        checkpoint: Some(dir.clone()),
        identity: identity.into(),
        max_levels,
        ..EngineOptions::new(Some(8), 1)
    };
    assert_eq!(
        prepare_checkpoint(&dir, &opts("counter", None)),
        Ok(()),
        "missing"
    );
    // A checkpoint of another run: kept, and refused naming its level.
    Engine::new(&m)
        .options(&opts("another", Some(4)))
        .codec(&codec)
        .labelled()
        .run();
    let before = tree(&dir);
    let err = prepare_checkpoint(&dir, &opts("counter", None)).unwrap_err();
    assert!(
        err.contains("level-0003: not a checkpoint of this run")
            && err.contains("another model")
            && !err.contains('\n'),
        "{err}"
    );
    assert_eq!(tree(&dir), before, "nothing removed");
    std::fs::remove_dir_all(&dir).unwrap();
    // Of this run: cleared, every level and links file; a stray empty
    // level, a user's file beside it or inside a level: refused by name.
    Engine::new(&m)
        .options(&opts("counter", Some(4)))
        .codec(&codec)
        .labelled()
        .run();
    for (stray, named) in [
        ("level-0009", "level-0009: not a checkpoint of this run"),
        ("notes.txt", "(notes.txt)"),
        ("level-0003/mine.txt", "level-0003/mine.txt"),
        ("links-1.bin", "(links-1.bin)"),
    ] {
        let path = dir.join(stray);
        if stray.ends_with(".txt") || stray.ends_with(".bin") {
            std::fs::write(&path, "mine").unwrap();
        } else {
            std::fs::create_dir(&path).unwrap();
        }
        let before = tree(&dir);
        let err = prepare_checkpoint(&dir, &opts("counter", None)).unwrap_err();
        assert!(err.contains(named) && !err.contains('\n'), "{stray}: {err}");
        assert_eq!(tree(&dir), before, "{stray}: nothing removed");
        if path.is_dir() {
            std::fs::remove_dir(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    std::fs::create_dir(dir.join(".level-0004.tmp")).unwrap();
    std::fs::write(dir.join(".level-0004.tmp/visited.bin"), "half").unwrap();
    assert_eq!(prepare_checkpoint(&dir, &opts("counter", None)), Ok(()));
    assert_eq!(tree(&dir), Vec::<String>::new(), "cleared");
    // Links files with no level to prove them the run's are not removed.
    std::fs::write(dir.join("links-0001.bin"), "mine").unwrap();
    let err = prepare_checkpoint(&dir, &opts("counter", None)).unwrap_err();
    assert!(
        err.contains("parent-links files but no checkpoint level"),
        "{err}"
    );
    assert!(dir.join("links-0001.bin").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resume_takes_the_deepest_sound_level_and_names_the_ones_it_skips() {
    let m = LabelledCounter(Counter { m: 5_003, bad: 777 });
    let codec = TableCodec {
        table: Default::default(),
    };
    let bound = Some(8);
    let whole = Engine::new(&m)
        .options(&EngineOptions::new(bound, 2))
        .codec(&codec)
        .labelled()
        .run();
    let (dir, other) = (scratch("deepest"), scratch("deepest-other"));
    let opts = |dir: &PathBuf, identity: &str, resume: bool, max_levels| EngineOptions {
        checkpoint: Some(dir.clone()),
        resume: resume.then(|| dir.clone()),
        identity: identity.into(),
        max_levels,
        ..EngineOptions::new(bound, 2)
    };
    Engine::new(&m)
        .options(&opts(&dir, "counter", false, Some(3)))
        .codec(&codec)
        .labelled()
        .run();
    // Deeper: a level of another run, and an empty stray one.
    Engine::new(&m)
        .options(&opts(&other, "another", false, Some(6)))
        .codec(&codec)
        .labelled()
        .run();
    std::fs::rename(other.join("level-0005"), dir.join("level-0005")).unwrap();
    std::fs::create_dir(dir.join("level-0009")).unwrap();
    let Resumable { depth, skipped } =
        check_resumable(&dir, &opts(&dir, "counter", true, None), None).unwrap();
    assert_eq!(depth, 2);
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped[0].contains("level-0009: skipped (") && skipped[0].contains("meta.json"),
        "{}",
        skipped[0]
    );
    assert!(
        skipped[1].contains("level-0005: skipped (") && skipped[1].contains("another model"),
        "{}",
        skipped[1]
    );
    let resumed = Engine::new(&m)
        .options(&opts(&dir, "counter", true, None))
        .codec(&codec)
        .labelled()
        .run();
    assert_eq!(key(&resumed), key(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}
