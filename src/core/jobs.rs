//! How many threads a run spreads its independent work over (`--jobs`): decoding the
//! documents of a stream, admitting resources, encoding them. Work is handed over as an
//! ordered batch and comes back in the same order, so what a run writes never depends on
//! how many threads did it (docs/architecture.md, "Parallel stages").

use rayon::prelude::*;
use std::sync::mpsc;

/// The run's threads: none of its own for one job (the work runs on the calling thread),
/// else a pool of its own (never rayon's global pool, which a library must not size).
pub struct Jobs {
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

/// How many bytes of input one thread is given per batch: two batches are what is held
/// in memory at once beyond the input and output ([`Jobs::map_in_order`]; a parsed tree
/// costs several times its text), so their size bounds peak memory (docs/security.md,
/// "Memory").
const BATCH_BYTES_PER_THREAD: usize = 256 * 1024;

/// A worker's stack: what the main thread usually has (Linux's default 8 MiB), not
/// rayon's 2 MiB, so a document as deep as the limits allow (512 levels, walked
/// recursively by the reader, the schema and the writer) is handled on any thread as on
/// the main one. Only the pages touched are resident.
const WORKER_STACK_BYTES: usize = 8 * 1024 * 1024;

impl Jobs {
    /// `threads` threads (at least one). A pool that cannot be started (the system refuses
    /// threads) leaves the run on the calling thread: the output is the same either way.
    pub fn new(threads: usize) -> Jobs {
        let threads = threads.max(1);
        if threads == 1 {
            return Jobs::sequential();
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(WORKER_STACK_BYTES)
            .build();
        match pool {
            Ok(pool) => Jobs {
                pool: Some(pool),
                threads,
            },
            Err(_) => Jobs::sequential(),
        }
    }

    /// One job: everything on the calling thread, no pool started.
    pub fn sequential() -> Jobs {
        Jobs {
            pool: None,
            threads: 1,
        }
    }

    /// How many threads work is spread over.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether work is spread over more than one thread.
    pub fn is_parallel(&self) -> bool {
        self.pool.is_some()
    }

    /// How many bytes of input a batch may cover before it is handed over; one thread
    /// takes one unit at a time.
    pub fn batch_bytes(&self) -> usize {
        if self.is_parallel() {
            BATCH_BYTES_PER_THREAD * self.threads
        } else {
            0
        }
    }

    /// `work` on every item, its result given to `take` on the calling thread, in the
    /// order of `items`. The items are handed over in batches of about
    /// [`Jobs::batch_bytes`] (as `size` measures an item) and pipelined: while `take` goes
    /// through the results of one batch, the threads already work on the next, so the
    /// in-order part of a stage does not leave the threads idle. At most two batches are
    /// alive at once: the one whose results are being taken and the one being worked on.
    /// With one job, each item is worked on and taken in turn.
    pub fn map_in_order<T: Send, R: Send>(
        &self,
        items: impl IntoIterator<Item = T>,
        size: impl Fn(&T) -> usize,
        work: impl Fn(T) -> R + Sync,
        mut take: impl FnMut(R),
    ) {
        let Some(pool) = &self.pool else {
            return items.into_iter().map(work).for_each(take);
        };
        let limit = self.batch_bytes();
        let mut items = items.into_iter();
        let mut next_batch = || {
            let mut batch = Vec::new();
            let mut bytes = 0;
            while bytes < limit {
                let Some(item) = items.next() else { break };
                bytes += size(&item);
                batch.push(item);
            }
            (!batch.is_empty()).then_some(batch)
        };
        // In place: the scope's own closure (the in-order part) runs on the calling
        // thread, not on one of the pool's, which stay free for the batches.
        pool.in_place_scope(|scope| {
            let work = &work;
            let mut in_flight = None;
            while let Some(batch) = next_batch() {
                let (results, received) = mpsc::sync_channel(1);
                scope.spawn(move |_| {
                    let done: Vec<R> = batch.into_par_iter().map(work).collect();
                    // The receiver is gone only when `take` panicked: nothing to do.
                    let _ = results.send(done);
                });
                if let Some(previous) = in_flight.replace(received) {
                    if !take_all(previous, &mut take) {
                        return;
                    }
                }
            }
            if let Some(last) = in_flight {
                take_all(last, &mut take);
            }
        });
    }

    /// `work` on every item, results in the order of `items`.
    pub fn map<T: Send, R: Send>(&self, items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
        match &self.pool {
            None => items.into_iter().map(work).collect(),
            Some(pool) => pool.install(|| items.into_par_iter().map(&work).collect()),
        }
    }
}

/// Gives `take` a batch's results once they are there; `false` when they never will be
/// (`work` panicked: the scope re-raises the panic once every batch is done).
fn take_all<R>(received: mpsc::Receiver<Vec<R>>, take: &mut impl FnMut(R)) -> bool {
    match received.recv() {
        Ok(done) => {
            done.into_iter().for_each(take);
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items_whatever_the_threads() {
        let items: Vec<u64> = (0..10_000).collect();
        let expected: Vec<u64> = items.iter().map(|n| n * n).collect();
        for threads in [1, 2, 4] {
            let jobs = Jobs::new(threads);
            assert_eq!(jobs.is_parallel(), threads > 1);
            assert_eq!(jobs.map(items.clone(), |n| n * n), expected);
        }
    }

    #[test]
    fn pipelined_results_are_taken_in_the_order_of_the_items() {
        let items: Vec<u64> = (0..10_000).collect();
        let expected: Vec<u64> = items.iter().map(|n| n * n).collect();
        for threads in [1, 2, 4] {
            let jobs = Jobs::new(threads);
            // Items of various sizes, so batches hold different numbers of them.
            let size = |n: &u64| (*n as usize % 7) * 1024;
            let mut taken = Vec::new();
            jobs.map_in_order(items.clone(), size, |n| n * n, |r| taken.push(r));
            assert_eq!(taken, expected, "{threads} threads");
        }
    }

    #[test]
    fn pipelining_holds_at_most_two_batches() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let jobs = Jobs::new(2);
        let limit = jobs.batch_bytes();
        // One item per batch: an item is alive from its work until it is taken.
        let alive = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        jobs.map_in_order(
            0..64,
            |_| limit,
            |n| {
                let now = alive.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                n
            },
            |_| {
                alive.fetch_sub(1, Ordering::SeqCst);
            },
        );
        assert_eq!(alive.load(Ordering::SeqCst), 0);
        assert!(most.load(Ordering::SeqCst) <= 2, "{most:?}");
    }

    #[test]
    #[should_panic(expected = "item 5")]
    fn a_panic_in_the_work_reaches_the_caller() {
        Jobs::new(2).map_in_order(
            0..64,
            |_| 100 * 1024,
            |n| assert!(n != 5, "item {n}"),
            |_| {},
        );
    }

    #[test]
    fn one_job_holds_one_unit_per_batch() {
        assert_eq!(Jobs::new(1).batch_bytes(), 0);
        assert_eq!(Jobs::new(0).batch_bytes(), 0);
        assert_eq!(Jobs::new(2).batch_bytes(), 2 * BATCH_BYTES_PER_THREAD);
    }
}
