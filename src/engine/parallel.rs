//! How the engine shares work between threads: scoped threads claiming
//! items from one queue, and below a minimum amount of work no threads at
//! all. Results never depend on which thread took which item.

use std::sync::Mutex;

/// Below this many states (phase 1) or candidates (phase 2) a batch is
/// processed on the calling thread only.
pub(super) const PAR_MIN: usize = if cfg!(test) { 8 } else { 1024 };

/// The threads worth using for `work` items of work (states or
/// candidates).
pub(super) fn threads_for(work: usize, threads: usize) -> usize {
    if work >= PAR_MIN {
        threads
    } else {
        1
    }
}

/// [`for_each_dynamic`] keeping what `f` returns, in item order.
pub(super) fn map_dynamic<T: Send, R: Send>(
    threads: usize,
    items: Vec<T>,
    f: &(dyn Fn(T) -> R + Sync),
) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = items.into_iter().enumerate().collect();
    for_each_dynamic(threads, work, &|(i, item)| {
        *slots[i].lock().expect("results poisoned") = Some(f(item));
    });
    let done = |slot: Mutex<Option<R>>| slot.into_inner().expect("results poisoned");
    slots
        .into_iter()
        .map(|s| done(s).expect("every item done"))
        .collect()
}

/// Calls `f` on every item, on up to `threads` threads (the caller's
/// included), each claiming the next unclaimed item.
pub(super) fn for_each_dynamic<T: Send>(threads: usize, items: Vec<T>, f: &(dyn Fn(T) + Sync)) {
    let threads = threads.min(items.len());
    if threads <= 1 {
        items.into_iter().for_each(f);
        return;
    }
    let queue = Mutex::new(items.into_iter());
    let work = || loop {
        let item = queue.lock().expect("work queue poisoned").next();
        match item {
            Some(item) => f(item),
            None => return,
        }
    };
    std::thread::scope(|sc| {
        let handles: Vec<_> = (1..threads).map(|_| sc.spawn(work)).collect();
        work();
        for h in handles {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_dynamic_keeps_the_results_in_item_order_on_any_thread_count() {
        let items: Vec<u64> = (0..1000).collect();
        let squares: Vec<u64> = items.iter().map(|i| i * i).collect();
        for threads in [1, 2, 7] {
            assert_eq!(map_dynamic(threads, items.clone(), &|i| i * i), squares);
        }
        assert!(map_dynamic(3, Vec::<u64>::new(), &|i| i).is_empty());
    }
}
