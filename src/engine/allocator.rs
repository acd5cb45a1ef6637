//! The one setting the engine asks of the C allocator: that every block of
//! [`MMAP_THRESHOLD`] bytes or more be its own mapping, so that freeing it
//! gives its memory back to the system at once and growing it moves no
//! bytes.
//!
//! A run's big buffers — the parts of each level (tens of megabytes each),
//! the visited set's tables — are made, grown by doubling and freed level
//! after level. glibc's malloc raises its mapping threshold to the size of
//! each mapped block freed (up to 32 MiB), so after the first level is
//! freed, buffers of that size come from the heap instead, where a
//! doubling buffer is copied and a freed block is kept for reuse rather
//! than given back (our reading of `mallopt(3)`; the figures below are
//! what we measured). Setting the threshold explicitly turns that raise
//! off.
//!
//! Measured with `/usr/bin/time -v` on two threads, the previous default
//! model at `--depth full` (213,378,584 states), 3 paired rounds against
//! a build without the setting (commit 39af1e7), medians: peak 3.84 GB
//! (18.0 B/state) against 6.21 GB (29.1 B/state), 0.62× [0.61–0.65] a
//! round, at the same speed (wall 1.00× [0.75–1.10]). Today's default
//! model at `--depth full` (569,415,289 states), one run each: 10.35 GB
//! (18.2 B/state) against 14.3 GB (25.2 B/state). 256 KiB took less
//! memory than 1 MiB or 4 MiB at the previous model's depth 9 (peak
//! 271,048, 292,348 and 288,360 kB on one thread; 283,836 kB without the
//! setting) and as little at `--depth full`.
//!
//! Elsewhere (another C library, another system) this does nothing.

/// Blocks of this many bytes or more are mapped on their own.
pub(crate) const MMAP_THRESHOLD: i32 = 1 << 18;

/// Sets the allocator's mapping threshold to [`MMAP_THRESHOLD`] for the
/// whole process (once; later calls do nothing). Returns whether the
/// allocator took the setting.
pub(crate) fn map_large_blocks() -> bool {
    static TAKEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TAKEN.get_or_init(set_threshold)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_threshold() -> bool {
    use std::os::raw::c_int;
    /// glibc's `M_MMAP_THRESHOLD` parameter of `mallopt`.
    const M_MMAP_THRESHOLD: c_int = -3;
    extern "C" {
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    // SAFETY: `mallopt` is glibc's documented, thread-safe way to change a
    // malloc parameter at any time (it takes the arena's lock); it reads
    // and writes no memory of ours, and blocks already allocated keep
    // working whichever way they were made.
    unsafe { mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_threshold() -> bool {
    false
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// Whether `block` is a mapping of its own: glibc maps a large block
    /// as one page-aligned anonymous mapping with a 16-byte chunk header,
    /// so the mapping that holds it (`/proc/self/maps`) starts 16 bytes
    /// below it. A block from a heap or an arena sits inside a mapping
    /// that starts elsewhere (checked apart: without the setting, the
    /// same block after a freed 16 MiB one is not its own mapping). Read
    /// per block, so other test threads' allocations do not disturb it as
    /// they did the process-wide `mallinfo2` counter.
    fn is_own_mapping(block: &[u8]) -> bool {
        let at = block.as_ptr() as usize;
        let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
        maps.lines().any(|line| {
            let range = line.split(' ').next().unwrap_or("");
            let Some((lo, hi)) = range.split_once('-') else {
                return false;
            };
            let parse = |h: &str| usize::from_str_radix(h, 16).unwrap_or(0);
            let (lo, hi) = (parse(lo), parse(hi));
            lo == at - 16 && at + block.len() <= hi
        })
    }

    #[test]
    fn a_block_past_the_threshold_is_mapped_even_after_a_bigger_one_is_freed() {
        assert!(map_large_blocks());
        // Without the setting, freeing this raises glibc's threshold past
        // the block below, which would then come from the heap.
        drop(std::hint::black_box(vec![1u8; 16 << 20]));
        let size = 2 * MMAP_THRESHOLD as usize;
        // Another thread's mapping made just below ours can merge with it
        // in the kernel's list, moving the start: a few fresh blocks, one
        // clean look is enough; a block from the heap fails every one.
        let mapped = (0..20).any(|_| is_own_mapping(&std::hint::black_box(vec![1u8; size])));
        assert!(mapped, "a {size}-byte block was not mapped on its own");
    }
}
