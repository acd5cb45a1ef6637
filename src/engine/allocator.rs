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
//! What it saves (peak 3.84 GB against 6.21 GB on the previous default
//! model's complete run, at the same speed) is measured in
//! docs/performance-log.md ("The memory bound of issue 10 and the
//! allocator setting"). 256 KiB took less memory than 1 MiB or 4 MiB at
//! the previous model's depth 9 (peak 271,048, 292,348 and 288,360 kB on
//! one thread; 283,836 kB without the setting) and as little at
//! `--depth full`.
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

// Unit tests, on the one target the setting exists on; `#[cfg(test)]`
// on a line of its own, as .ci/lines recognises a test module.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[cfg(test)]
mod tests {
    use super::*;
    use std::os::raw::c_void;

    extern "C" {
        fn malloc(size: usize) -> *mut c_void;
        fn free(block: *mut c_void);
    }

    /// A fresh `size`-byte block from glibc's malloc, and whether glibc
    /// made it a mapping of its own, read from the block's own chunk
    /// header: the word below the block holds the chunk's size, whose bit
    /// 1 (`IS_MMAPPED`) glibc sets on a mapped chunk and never on one
    /// carved from a heap or an arena (the layout of `malloc/malloc.c`,
    /// unchanged since glibc 2.0). Read per block, so neither other test
    /// threads' allocations (which disturbed the process-wide `mallinfo2`
    /// counter) nor the kernel merging a neighbour's mapping with ours
    /// (which moved the start of the mapping `/proc/self/maps` listed,
    /// failing CI once) can change it. The caller frees the block.
    fn block(size: usize) -> (*mut c_void, bool) {
        // SAFETY: the block comes from glibc's malloc, which always puts
        // its chunk's size word in the 8 bytes just below the pointer it
        // returns. The pointer goes through `black_box` and the word is
        // read volatile, so that the compiler, which knows what `malloc`
        // is, neither removes the allocation nor reads anything else.
        unsafe {
            let block = std::hint::black_box(malloc(size));
            assert!(!block.is_null(), "malloc({size}) failed");
            let size_word = std::ptr::read_volatile((block as *const usize).sub(1));
            (block, size_word & 0x2 != 0)
        }
    }

    /// Whether some fresh `size`-byte block is mapped on its own. Each
    /// block is held while the next is asked for: a free chunk of that
    /// size an earlier test left in this thread's arena is reused before
    /// new memory is asked of the system (where the threshold applies),
    /// and a held block uses it up. From the heap every one would come.
    fn mapped_on_its_own(size: usize) -> bool {
        let mut held = Vec::new();
        let mapped = (0..8).any(|_| {
            let (b, mapped) = block(size);
            held.push(b);
            mapped
        });
        for b in held {
            // SAFETY: each came from `malloc` above and is freed once.
            unsafe { free(std::hint::black_box(b)) };
        }
        mapped
    }

    #[test]
    fn a_block_past_the_threshold_is_mapped_even_after_a_bigger_one_is_freed() {
        assert!(map_large_blocks());
        // Without the setting, freeing this raises glibc's threshold past
        // the block below, which would then come from the heap (seen: the
        // same probe after freeing a mapped 16 MiB block, in a program
        // without the setting, reads a heap chunk).
        drop(std::hint::black_box(vec![1u8; 16 << 20]));
        let size = 2 * MMAP_THRESHOLD as usize;
        assert!(
            mapped_on_its_own(size),
            "a {size}-byte block was not mapped on its own"
        );
        // And a block well below the threshold is not: the bit tells the
        // two apart.
        let (small, mapped) = block(64);
        // SAFETY: from `malloc` above, freed once.
        unsafe { free(small) };
        assert!(!mapped, "a 64-byte block was mapped");
    }
}
