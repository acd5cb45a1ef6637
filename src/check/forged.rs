//! A checkpoint forged: damaged content whose seals were recomputed, as
//! a build that wrote it would have (issue 51.12). A seal cannot tell it
//! from the run's own files, so what a resume reads is judged too: every
//! state of the frontier must decode, encode back to its bytes and have
//! the fingerprint recorded beside it, and every parent link must name a
//! state of the level before. Each forgery is refused before the run in
//! one line, never resumed into a panic.

use super::{resumable, run, CheckOptions};
use crate::config::ModelConfig;
use crate::engine::reseal_file;
use crate::engine::EngineOptions;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memtx-forged-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config() -> ModelConfig {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ablations/no-gate.json");
    let mut config = ModelConfig::load(&file).unwrap();
    config.bounds.depth = crate::config::Depth::Bounded(6);
    config
}

fn options(dir: &Path, resume: bool) -> CheckOptions {
    CheckOptions {
        engine: EngineOptions {
            checkpoint: Some(dir.to_path_buf()),
            resume: resume.then(|| dir.to_path_buf()),
            max_levels: (!resume).then_some(4),
            ..EngineOptions::new(None, 2)
        },
        ..CheckOptions::quiet(2)
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A checkpoint of no-gate stopped after four levels (level 3 kept).
fn checkpoint(name: &str) -> PathBuf {
    let dir = scratch(name);
    run(&config(), options(&dir, false));
    assert_eq!(resumable(&config(), &options(&dir, true), &dir), Ok(vec![]));
    dir
}

/// The refusal of the forged checkpoint `dir`: one line.
fn refused(dir: &Path, what: &str) -> String {
    match resumable(&config(), &options(dir, true), dir) {
        Ok(skipped) => panic!("{what}: accepted ({skipped:?})"),
        Err(e) => {
            assert!(!e.contains('\n'), "{what}: {e}");
            e
        }
    }
}

#[test]
fn a_forged_state_of_the_frontier_is_refused() {
    let dir = checkpoint("frontier");
    let frontier = dir.join("level-0003/frontier.bin");
    let len = std::fs::metadata(&frontier).unwrap().len() as usize;
    // Every byte of the last shard's encodings, one at a time (the
    // file ends with them), changed and resealed.
    for back in 1..=64.min(len) {
        let copy = scratch(&format!("frontier-{back}"));
        copy_dir(&dir, &copy);
        let file = copy.join("level-0003/frontier.bin");
        reseal_file(&copy, 3, &file, |b| b[len - back] ^= 0xA5);
        let e = refused(&copy, &format!("byte {back} from the end"));
        assert!(e.contains("frontier.bin"), "{e}");
        let _ = std::fs::remove_dir_all(&copy);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_forged_parent_link_is_refused() {
    let dir = checkpoint("links");
    let links = dir.join("links-0002.bin");
    // The first state's parent, past the states of level 1.
    reseal_file(&dir, 3, &links, |b| {
        b[..4].copy_from_slice(&u32::MAX.to_le_bytes())
    });
    let e = refused(&dir, "a parent past the level");
    assert!(e.contains("links-0002.bin"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
