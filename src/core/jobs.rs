//! How many threads a run spreads its independent work over (`--jobs`): decoding the
//! documents of a stream, admitting resources, encoding them. Work is handed over as an
//! ordered batch and comes back in the same order, so what a run writes never depends on
//! how many threads did it (docs/architecture.md, "Parallel stages").

use rayon::prelude::*;

/// The run's threads: none of its own for one job (the work runs on the calling thread),
/// else a pool of its own (never rayon's global pool, which a library must not size).
pub struct Jobs {
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

/// How many bytes of input one thread is given per batch: batches are what is held in
/// memory at once beyond the input and output (a parsed tree costs several times its
/// text), so their size bounds peak memory (docs/security.md, "Memory").
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

    /// `work` on every item, results in the order of `items`.
    pub fn map<T: Send, R: Send>(&self, items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
        match &self.pool {
            None => items.into_iter().map(work).collect(),
            Some(pool) => pool.install(|| items.into_par_iter().map(&work).collect()),
        }
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
    fn one_job_holds_one_unit_per_batch() {
        assert_eq!(Jobs::new(1).batch_bytes(), 0);
        assert_eq!(Jobs::new(0).batch_bytes(), 0);
        assert_eq!(Jobs::new(2).batch_bytes(), 2 * BATCH_BYTES_PER_THREAD);
    }
}
