//! The binary's allocator: mimalloc instead of glibc's. With `--jobs`, a document's
//! memory is allocated on one thread and freed on another; glibc's per-thread arenas do
//! that slowly (the arena's lock, consolidation), and the extra CPU was most of what kept
//! two jobs from being twice as fast as one. mimalloc hands such frees back to the owning
//! thread's pages without a lock (docs/performance.md, "`--jobs` scaling").

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's defaults trade memory for speed in ways a short run does not need: it
/// reserves and commits a 1 GiB arena up front and keeps freed pages for a second before
/// giving them back, which left peak RSS 1.7–2x glibc's on the corpora. Reserving only
/// what is needed keeps it near glibc's (docs/security.md, "Memory"). Freed pages are
/// given back after 10 ms rather than at once: each return is a TLB flush on every core
/// the process runs on, which at once cost two `--jobs` a tenth of their CPU on the
/// rules run, for a peak RSS a few percent higher (docs/performance.md). The options must be set before the first allocation
/// reserves an arena, so this runs as a constructor, before `main` and before anything
/// Rust allocates; mimalloc reads no environment for options that are set.
extern "C" fn configure_allocator() {
    // SAFETY: plain calls that set an option's value, before any allocation.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS);
    }
}

// mimalloc 3's `mi_option_e` (include/mimalloc.h); libmimalloc-sys names only the
// options mimalloc 2 also has.
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long freed pages are kept before they are given back.
const PURGE_DELAY_MS: std::os::raw::c_long = 10;

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CONFIGURE_ALLOCATOR: extern "C" fn() = configure_allocator;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_options_are_set_before_anything_allocates() {
        // SAFETY: reads an option's value.
        let (eager, purge) = unsafe {
            (
                libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT),
                libmimalloc_sys::mi_option_get(PURGE_DELAY),
            )
        };
        assert_eq!((eager, purge), (0, PURGE_DELAY_MS));
    }
}
