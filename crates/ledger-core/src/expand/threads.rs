//! How many threads ledger reads and hashes files with.
//!
//! Every expansion runs on ledger's own thread pool, never on rayon's global one,
//! so a host program's own rayon work neither slows ledger down nor is slowed by
//! it. The pool's size is, in order: what [`set_threads`] last set, else the
//! `LEDGER_THREADS` environment variable (read when the pool is first needed),
//! else one thread per available core. `0` means "one per core" wherever a count
//! is given.
//!
//! With that default, reads that wait on the disk get helpers: each thread
//! reads and hashes, so on a cold disk as many reads wait on the device at once
//! as there are threads, and with only one per core the disk would rarely see
//! more than two requests (docs/performance.md, Cold reads). The first time a
//! read finds a file's bytes outside the page cache (a read made with
//! `RWF_NOWAIT`, or a probe of the store's cache file, see
//! `read::read_without_waiting`), [`disk_helpers`] starts enough threads to make
//! [`READS_IN_FLIGHT`] in all, kept for the rest of the process, and they join
//! every later expansion's reading. Files in the page cache never make a reader
//! wait, so a warm run starts no more threads than there are cores (starting
//! sixteen cost a one-file repository 1.5 ms of its 5).
//!
//! An expansion lists on its own thread and then reads with the pool, so the
//! default pool leaves that thread a core: one thread per core but one runs at
//! the process's priority, the others (and the helpers) at the lowest (nice
//! 19): the listing, on the critical path, is not slowed by reads that can
//! wait, and the host program's own threads keep their share of the cores.
//! While the page cache serves the reads, a thread at the lowest priority
//! leaves files of a mebibyte or more to the others (one it took while every
//! core was busy would be finished by it alone, at the end). An explicit count
//! is exactly that many threads, all at the process's priority, and no helpers.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! ledger_core::expand::set_threads(1)?;
//! assert_eq!(ledger_core::expand::threads(), 1);
//! ledger_core::expand::set_threads(0)?; // back to one per core
//! assert_eq!(ledger_core::expand::threads(), std::thread::available_parallelism()?.get());
//! # Ok(())
//! # }
//! ```

use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError, RwLock};

use crate::error::{Error, Result};

/// The environment variable that sizes the pool when [`set_threads`] was not called.
pub const THREADS_ENV: &str = "LEDGER_THREADS";

/// The pool and the count it was asked for (0 resolved to one per core), built
/// on first use; replaced by [`set_threads`]. Work already running keeps the pool
/// it started on.
static POOL: RwLock<Option<(usize, Arc<rayon::ThreadPool>)>> = RwLock::new(None);

/// Whether the pool is the default one (so that reads waiting on the disk get
/// [`disk_helpers`]); set with the pool.
static DEFAULT_POOL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// The helpers, once started: `None` inside when the cores alone make
/// [`READS_IN_FLIGHT`].
static HELPERS: std::sync::OnceLock<Option<Arc<rayon::ThreadPool>>> = std::sync::OnceLock::new();

/// How many threads read at once with the default count when the reads wait
/// on the disk, the pool's and the helpers together (measured: 100,000 small
/// files read cold in 12.9 s with 2 threads, 3.2 s with 8, 2.2 s with 16, on a
/// 2-core VM).
pub const READS_IN_FLIGHT: usize = 16;

/// The most threads ledger starts: more would only cost memory (reading is bound
/// by the disk and the cores long before).
pub const MAX_THREADS: usize = 1024;

/// Sets the number of threads every later call uses (`0`: one per core).
///
/// Refused with `invalid-argument` above [`MAX_THREADS`] or when the threads cannot
/// be started.
pub fn set_threads(count: usize) -> Result<()> {
    let pool = build(count)?;
    *POOL.write().unwrap_or_else(PoisonError::into_inner) = Some(pool);
    Ok(())
}

/// The most threads that read at once: [`threads`], or at least
/// [`READS_IN_FLIGHT`] with the default count (the pool's threads and the
/// helpers started when reads wait on the disk).
pub fn pool_threads() -> usize {
    match pool() {
        Ok(pool) if DEFAULT_POOL.load(Ordering::Relaxed) => {
            pool.current_num_threads().max(READS_IN_FLIGHT)
        }
        Ok(pool) => pool.current_num_threads(),
        Err(_) => default_count().max(READS_IN_FLIGHT),
    }
}

/// The threads that join the reading when reads wait on the disk: with the
/// default count, enough to make [`READS_IN_FLIGHT`] with the pool's (at the
/// lowest priority), started on the first call; `None` with an explicit count,
/// or when the cores alone make that many.
pub(crate) fn disk_helpers() -> Option<Arc<rayon::ThreadPool>> {
    if !DEFAULT_POOL.load(Ordering::Relaxed) {
        return None;
    }
    let helpers = HELPERS.get_or_init(|| {
        let count = READS_IN_FLIGHT
            .checked_sub(default_count())
            .filter(|n| *n > 0)?;
        rayon::ThreadPoolBuilder::new()
            .num_threads(count)
            .thread_name(|i| format!("ledger-disk-{i}"))
            .start_handler(|_| lowest_priority())
            .build()
            .ok()
            .map(Arc::new)
    });
    helpers.clone()
}

/// The number of threads calls run with now (building the pool if needed).
///
/// When `LEDGER_THREADS` is malformed, the pool cannot be built and every
/// expansion reports why; this answer is then the count of one per core.
pub fn threads() -> usize {
    if let Some((count, _)) = POOL.read().unwrap_or_else(PoisonError::into_inner).as_ref() {
        return *count;
    }
    match pool() {
        Ok(_) => threads(),
        Err(_) => default_count(),
    }
}

/// The current pool (built from `LEDGER_THREADS` the first time): every parallel
/// read runs on it.
pub(crate) fn pool() -> Result<Arc<rayon::ThreadPool>> {
    if let Some((_, pool)) = POOL.read().unwrap_or_else(PoisonError::into_inner).as_ref() {
        return Ok(Arc::clone(pool));
    }
    let mut slot = POOL.write().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, pool)) = slot.as_ref() {
        return Ok(Arc::clone(pool));
    }
    let (count, pool) = build(count_from_env(std::env::var_os(THREADS_ENV).as_deref())?)?;
    *slot = Some((count, Arc::clone(&pool)));
    Ok(pool)
}

/// The pool for work that more than one thread can share; `None` for work that
/// one thread does soonest alone (the pool is then neither started nor woken:
/// starting it and handing work to it and back cost a one-file fingerprint 0.6
/// ms of its 4, docs/performance.md, The fixed cost of a run). A malformed
/// `LEDGER_THREADS` is refused either way.
pub(crate) fn pool_if(shared: bool) -> Result<Option<Arc<rayon::ThreadPool>>> {
    if shared {
        return pool().map(Some);
    }
    let set = POOL
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .is_some();
    if !set {
        let count = count_from_env(std::env::var_os(THREADS_ENV).as_deref())?;
        check_count(count)?;
        // As `build` would: an explicit count gets no disk helpers.
        DEFAULT_POOL.store(count == 0, Ordering::Relaxed);
    }
    Ok(None)
}

/// Runs `job` on `pool` while this thread runs `main`, and returns what `main`
/// returns; without a pool, runs `job` and then `main` on this thread.
pub(crate) fn alongside<R>(
    pool: Option<&rayon::ThreadPool>,
    job: impl FnOnce() + Send,
    main: impl FnOnce() -> R,
) -> R {
    match pool {
        Some(pool) => pool.in_place_scope(|scope| {
            scope.spawn(|_| job());
            main()
        }),
        None => {
            job();
            main()
        }
    }
}

/// The count `LEDGER_THREADS` asks for: unset or empty is `0` (one per core); anything
/// but a decimal number is refused, naming the variable.
fn count_from_env(value: Option<&std::ffi::OsStr>) -> Result<usize> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(0);
    };
    value
        .to_str()
        .and_then(|text| text.trim().parse().ok())
        .ok_or_else(|| Error::InvalidArgument {
            message: format!(
                "{THREADS_ENV}='{}' is not a thread count (a whole number, 0 for one per core)",
                crate::quote::escape(value.as_encoded_bytes())
            ),
        })
}

/// The count asked for (0 resolved) and its pool.
fn build(count: usize) -> Result<(usize, Arc<rayon::ThreadPool>)> {
    check_count(count)?;
    // With the default count, one core is left to the thread that lists (an
    // expansion lists on its own thread, then reads with the pool).
    let default = count == 0;
    let (count, normal) = match count {
        0 => {
            let cores = default_count();
            (cores, cores.saturating_sub(1).max(1))
        }
        n => (n, n),
    };
    let size = count;
    rayon::ThreadPoolBuilder::new()
        .num_threads(size)
        .thread_name(|i| format!("ledger-{i}"))
        .start_handler(move |index| {
            if index >= normal {
                lowest_priority();
            }
        })
        .build()
        .map(|pool| {
            DEFAULT_POOL.store(default, Ordering::Relaxed);
            (count, Arc::new(pool))
        })
        .map_err(|err| Error::InvalidArgument {
            message: format!("cannot start {size} threads: {err}"),
        })
}

thread_local! {
    /// Whether this thread runs at the lowest priority ([`lowest_priority`]).
    static AT_LOWEST_PRIORITY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes the calling thread the last to get a core (nice 19). Raising one's own
/// nice value needs no privilege; should it fail, the thread runs as it is.
pub(crate) fn lowest_priority() {
    if crate::platform::LOWERS_THREAD_PRIORITY && crate::platform::lowest_thread_priority() {
        AT_LOWEST_PRIORITY.set(true);
    }
}

/// Whether the calling thread is one of ledger's that run at the lowest
/// priority (a pool thread but the first, with the default count, or a disk
/// helper).
pub(crate) fn at_lowest_priority() -> bool {
    AT_LOWEST_PRIORITY.get()
}

/// Refuses a count above [`MAX_THREADS`].
fn check_count(count: usize) -> Result<()> {
    if count > MAX_THREADS {
        return Err(Error::InvalidArgument {
            message: format!("{count} threads is more than ledger starts ({MAX_THREADS})"),
        });
    }
    Ok(())
}

fn default_count() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_environment_count_is_a_whole_number_or_refused() {
        assert_eq!(count_from_env(None).unwrap(), 0);
        assert_eq!(count_from_env(Some(OsStr::new(""))).unwrap(), 0);
        assert_eq!(count_from_env(Some(OsStr::new("3"))).unwrap(), 3);
        assert_eq!(count_from_env(Some(OsStr::new(" 2\n"))).unwrap(), 2);
        for bad in ["-1", "two", "1.5"] {
            let err = count_from_env(Some(OsStr::new(bad))).unwrap_err();
            assert_eq!(err.code(), "invalid-argument");
            assert!(err.to_string().contains("LEDGER_THREADS="), "{err}");
        }
    }

    #[test]
    fn work_runs_on_the_pool_set() {
        // The only test in this crate's unit tests that sets the pool.
        set_threads(2).unwrap();
        assert_eq!(threads(), 2);
        let inside = pool().unwrap().install(rayon::current_num_threads);
        assert_eq!(inside, 2);
        assert_eq!(pool_threads(), 2);
        set_threads(0).unwrap();
        assert_eq!(threads(), default_count());
        assert_eq!(pool_threads(), default_count().max(READS_IN_FLIGHT));
        let err = set_threads(MAX_THREADS + 1).unwrap_err();
        assert_eq!(err.code(), "invalid-argument");
        assert_eq!(
            threads(),
            default_count(),
            "a refused count changes nothing"
        );
    }
}
