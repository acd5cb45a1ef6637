//! Tests of the `--disk` run's pieces: buffers, runs and their merges,
//! and the names its folder's files are given.

use super::buffer::ShardBuffer;
use super::runs::{
    Candidate, CandidateMerge, CandidateReader, CandidateSource, CandidateWriter, FpReader,
};
use super::{is_part_name, is_run_name};
use crate::engine::links::Link;

fn link(parent: u32) -> Link {
    Link { parent, action: 0 }
}

#[test]
fn a_flushed_run_is_sorted_and_keeps_the_first_discoverer_of_each_state() {
    let mut b = ShardBuffer::<u64>::default();
    for (fp, parent) in [(30, 0), (10, 1), (30, 2), (20, 3), (10, 4)] {
        b.push_state(fp, link(parent), &[1, fp as u8]);
    }
    let dir = std::env::temp_dir().join(format!("memtx-buffer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cand-00-0000.bin");
    // Read from memory and from the file alike.
    let mut from_memory = Vec::new();
    let mut source = b.source();
    let mut c = Candidate::default();
    while source.next(&mut c).unwrap() {
        from_memory.push((c.fp, c.link.parent, c.encoding.clone()));
    }
    b.flush(&path, false).unwrap();
    assert_eq!(b.len(), 0);
    let mut reader = CandidateReader::<u64>::open(&path, false).unwrap();
    let mut from_file = Vec::new();
    while reader.next(&mut c).unwrap() {
        from_file.push((c.fp, c.link.parent, c.encoding.clone()));
    }
    let expected = vec![
        (10, 1, vec![1, 10]),
        (20, 3, vec![1, 20]),
        (30, 0, vec![1, 30]),
    ];
    assert_eq!(from_memory, expected);
    assert_eq!(from_file, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Candidates given in ascending order, from memory.
struct Given(std::vec::IntoIter<(u64, u32)>);

impl CandidateSource<u64> for Given {
    fn next(&mut self, into: &mut Candidate<u64>) -> Result<bool, String> {
        Ok(self.0.next().is_some_and(|(fp, parent)| {
            into.fp = fp;
            into.link = Link { parent, action: 0 };
            true
        }))
    }
}

#[test]
fn a_merge_keeps_the_earliest_runs_copy_of_each_state() {
    let runs: Vec<Box<dyn CandidateSource<u64>>> = vec![
        Box::new(Given(vec![(2, 0), (5, 0)].into_iter())),
        Box::new(Given(vec![(1, 1), (2, 1), (9, 1)].into_iter())),
        Box::new(Given(vec![(2, 2), (5, 2), (7, 2)].into_iter())),
    ];
    let mut merge = CandidateMerge::new(runs).unwrap();
    let mut c = Candidate::default();
    let mut got = Vec::new();
    while merge.next(&mut c).unwrap() {
        got.push((c.fp, c.link.parent));
    }
    assert_eq!(got, vec![(1, 1), (2, 0), (5, 0), (7, 2), (9, 1)]);
}

#[test]
fn last_level_records_carry_a_link_only_when_they_decide_something() {
    let path = std::env::temp_dir().join(format!("memtx-leaf-{}.bin", std::process::id()));
    let mut out = CandidateWriter::create(&path, true).unwrap();
    let link = Link {
        parent: 7,
        action: 3,
    };
    out.push(5u64, link, 0, &[]).unwrap();
    out.push(9u64, link, 0b101, &[]).unwrap();
    assert_eq!(out.finish().unwrap(), 9 + 25);
    let mut reader = CandidateReader::<u64>::open(&path, true).unwrap();
    let mut c = Candidate::default();
    assert!(reader.next(&mut c).unwrap());
    assert_eq!((c.fp, c.hits), (5, 0));
    assert!(reader.next(&mut c).unwrap());
    assert_eq!((c.fp, c.hits, c.link), (9, 0b101, link));
    assert!(!reader.next(&mut c).unwrap());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_run_cut_inside_a_record_is_an_error_naming_it() {
    let path = std::env::temp_dir().join(format!("memtx-runs-{}.bin", std::process::id()));
    std::fs::write(&path, [1u8, 2, 3]).unwrap();
    let mut reader = FpReader::<u64>::open(&path).unwrap();
    let err = reader.next().unwrap_err();
    assert!(
        err.contains(&path.display().to_string()) && err.contains("ends inside a record"),
        "{err}"
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn only_the_names_this_layout_gives_are_its_own() {
    assert!(is_run_name("visited-07-0000-0012.bin"));
    assert!(!is_run_name("visited-7-0000-0012.bin"));
    assert!(!is_run_name("visited-07-0000-0012.bin.bak"));
    assert!(!is_run_name("visited-07-00a0-0012.bin"));
    assert!(is_part_name("part-63.fps") && is_part_name("part-00.enc"));
    assert!(!is_part_name("part-63.txt") && !is_part_name("part-6.fps"));
}

#[test]
fn a_flushed_buffer_holds_nothing_so_the_next_batch_does_not_flush_at_once() {
    let path = std::env::temp_dir().join(format!("memtx-flush-{}.bin", std::process::id()));
    let mut buffer = super::buffer::ShardBuffer::<u64>::default();
    for fp in 0..1000u64 {
        buffer.push_state(fp, Link::default(), &[1, 2, 3]);
    }
    assert!(buffer.held_bytes() >= 1000 * 3);
    buffer.flush(&path, false).unwrap();
    assert_eq!(
        buffer.held_bytes(),
        0,
        "a flush empties what the budget counts"
    );
    buffer.push_state(1, Link::default(), &[1]);
    assert!(buffer.held_bytes() < 100);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn many_runs_of_a_shard_are_merged_down_to_the_fan_in_keeping_first_discoverers() {
    let dir = std::env::temp_dir().join(format!("memtx-narrow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut disk = super::DiskLevels::<u64>::new(&dir, Some(1));
    disk.fan_in = 2;
    // Seven batches; state 5 is found by every batch, first by batch 0.
    for batch in 0..7u32 {
        disk.buffers[0].push_state(5, link(batch), &[5]);
        disk.buffers[0].push_state(10 + u64::from(batch), link(batch), &[1]);
        disk.flush(false, 1).unwrap();
    }
    assert_eq!(disk.flushed[0].len(), 7);
    disk.narrow(0, false).unwrap();
    assert!(disk.flushed[0].len() <= 2, "{:?}", disk.flushed[0]);
    let sources: Vec<Box<dyn CandidateSource<u64>>> = disk.flushed[0]
        .iter()
        .map(|p| Box::new(CandidateReader::<u64>::open(p, false).unwrap()) as _)
        .collect();
    let mut merge = CandidateMerge::new(sources).unwrap();
    let mut c = Candidate::default();
    let mut got = Vec::new();
    while merge.next(&mut c).unwrap() {
        got.push((c.fp, c.link.parent));
    }
    let mut want = vec![(5, 0)];
    want.extend((0..7).map(|b| (10 + u64::from(b), b)));
    assert_eq!(got, want);
    let left = std::fs::read_dir(disk.scratch()).unwrap().count();
    assert_eq!(left, disk.flushed[0].len(), "merged runs are removed");
    disk.abandon_level();
    std::fs::remove_dir_all(&dir).unwrap();
}
