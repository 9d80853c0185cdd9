//! A cost bound per expression evaluation and per validation. cel 0.15 has no cost tracking,
//! so kadmit charges what can grow with the data: every comprehension iteration costs one
//! unit (`all`/`exists` per iteration; `map`/`filter`/`exists_one`, whose loop cel-rust runs
//! on its own, for their whole range up front), so nested comprehensions pay for every inner
//! iteration; list
//! builders such as `lists.range(n)` charge `n` before allocating, and the library functions
//! kadmit implements charge the elements or bytes they walk. Evaluation stops with an error
//! once the per-call limit or the per-validation budget is spent. Not bounded: the work of a
//! single standard-library call on values already in memory (one string operation, one
//! comparison of two lists), whose size the input bounds.

use cel::ExecutionError;
use std::cell::Cell;

/// Units one expression evaluation may spend (Kubernetes' `PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// Units all the rules of one object may spend (Kubernetes' `RuntimeCELCostBudget`).
pub const VALIDATION_BUDGET: u64 = 10_000_000;
/// cel-go's text when a limit is hit.
pub const EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

thread_local! {
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// Spends `units`, failing when the current evaluation has run out.
pub fn charge(units: u64) -> Result<(), ExecutionError> {
    LEFT.with(|left| {
        let now = left.get();
        if units > now {
            left.set(0);
            Err(ExecutionError::function_error("cost", EXCEEDED))
        } else {
            left.set(now - units);
            Ok(())
        }
    })
}

/// Runs `f` with `limit` units to spend and returns its result and the units it spent.
pub fn metered<T>(limit: u64, f: impl FnOnce() -> T) -> (T, u64) {
    let saved = LEFT.with(|left| left.replace(limit));
    let out = f();
    let left = LEFT.with(|left| left.replace(saved));
    (out, limit - left)
}
