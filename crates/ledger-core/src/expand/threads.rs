//! How many threads ledger reads and hashes files with.
//!
//! Every expansion runs on ledger's own thread pool, never on rayon's global one,
//! so a host program's own rayon work neither slows ledger down nor is slowed by
//! it. The pool's size is the workspace's [`Settings::threads`]: `0` means
//! "one per core" wherever a count is given.
//!
//! With that default, reads that wait on the disk get helpers: each thread
//! reads and hashes, so on a cold disk as many reads wait on the device at once
//! as there are threads, and with only one per core the disk would rarely see
//! more than two requests (docs/performance.md, Cold reads). The first time a
//! read finds a file's bytes outside the page cache (a read made with
//! `RWF_NOWAIT`, or a probe of the store's cache file, see
//! `disk_waits::read_without_waiting`), [`disk_helpers`] starts enough threads
//! to make [`READS_IN_FLIGHT`] in all, kept for the rest of the process, and
//! they join every later expansion's reading. Files in the page cache never make
//! a reader wait, so a warm run starts no more threads than there are cores
//! (starting sixteen cost a one-file repository 1.5 ms of its 5).
//!
//! An expansion lists on its own thread and then reads with the pool, so the
//! default pool leaves that thread a core: one thread per core but one runs at
//! the process's priority, the others (and the helpers) at the lowest (nice
//! 19): the listing, on the critical path, is not slowed by reads that can
//! wait, and the host program's own threads keep their share of the cores.
//! While the page cache serves the reads, a thread at the lowest priority
//! leaves files of a mebibyte or more to the others (one it took while every
//! core was busy would be finished by it alone, at the end, or not for as long
//! as the host keeps every core busy), and no thread stops reading while
//! another may still put a large file back, so that the threads at the
//! process's priority, one per core once the listing is done, hash the large
//! files (docs/performance.md, The pool's rule). An explicit count is exactly
//! that many threads, all at the process's priority, and no helpers
//! ([`priorities`]).
//!
//! The count is a setting of the workspace ([`Settings::threads`]): each call
//! reads with the pool of its own count. The pools themselves are a resource
//! of the process, built on first use and kept, one per count, so that two
//! workspaces with different counts each get theirs and a later call with the
//! same count starts no thread.
//!
//! ```
//! use ledger_core::{Settings, expand::pool_threads};
//! let one = Settings { threads: 1, ..Settings::default() };
//! assert_eq!(pool_threads(&one), 1);
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};
use crate::settings::{MAX_THREADS, Settings, cores};

/// The pools built so far, by the count asked for (`0`: the default one).
/// A pool is a resource, not a setting: which one a call uses comes from its
/// settings, and a pool once built is kept for the rest of the process.
static POOLS: Mutex<Option<HashMap<usize, Arc<rayon::ThreadPool>>>> = Mutex::new(None);

/// The helpers, once started: `None` inside when the cores alone make
/// [`READS_IN_FLIGHT`].
static HELPERS: std::sync::OnceLock<Option<Arc<rayon::ThreadPool>>> = std::sync::OnceLock::new();

/// How many threads read at once with the default count when the reads wait
/// on the disk, the pool's and the helpers together (measured: 100,000 small
/// files read cold in 12.9 s with 2 threads, 3.2 s with 8, 2.2 s with 16, on a
/// 2-core VM).
pub const READS_IN_FLIGHT: usize = 16;

/// The most threads that read at once with `settings`: their count, or at
/// least [`READS_IN_FLIGHT`] with the default count (the pool's threads and
/// the helpers started when reads wait on the disk).
pub fn pool_threads(settings: &Settings) -> usize {
    match settings.threads {
        0 => cores().max(READS_IN_FLIGHT),
        n => n,
    }
}

/// The threads that join the reading when reads wait on the disk: with the
/// default count, enough to make [`READS_IN_FLIGHT`] with the pool's (at the
/// lowest priority), started on the first call; `None` with an explicit count,
/// or when the cores alone make that many.
pub(crate) fn disk_helpers(count: usize) -> Option<Arc<rayon::ThreadPool>> {
    if count != 0 {
        return None;
    }
    let helpers = HELPERS.get_or_init(|| {
        let count = READS_IN_FLIGHT.checked_sub(cores()).filter(|n| *n > 0)?;
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

/// The pool of `count` threads (`0`: the default one), built on first use.
pub(crate) fn pool(count: usize) -> Result<Arc<rayon::ThreadPool>> {
    check_count(count)?;
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    let pools = pools.get_or_insert_with(HashMap::new);
    if let Some(pool) = pools.get(&count) {
        return Ok(Arc::clone(pool));
    }
    let pool = build(count)?;
    pools.insert(count, Arc::clone(&pool));
    Ok(pool)
}

/// The pool of `count` threads for work that more than one thread can share;
/// `None` for work that one thread does soonest alone (the pool is then
/// neither started nor woken: starting it and handing work to it and back
/// cost a one-file fingerprint 0.6 ms of its 4, docs/performance.md, The
/// fixed cost of a run). A count above [`MAX_THREADS`] is refused either way.
pub(crate) fn pool_if(count: usize, shared: bool) -> Result<Option<Arc<rayon::ThreadPool>>> {
    check_count(count)?;
    // One thread in all is the calling thread alone.
    if shared && count != 1 {
        return pool(count).map(Some);
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

/// The priority a thread of ledger's runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Priority {
    /// The process's.
    Process,
    /// The lowest (nice 19, [`lowest_priority`]).
    Lowest,
}

/// The threads of the pool of `count` (`0`: the default) on `cores` cores,
/// by their priority. With the default count, one per core, all but the last
/// at the process's priority: one core is left to the thread that lists (an
/// expansion lists on its own thread, then reads with the pool, at the
/// process's priority), and the last thread reads on it only when the listing
/// leaves it time. On one core, the one thread at the process's priority. An
/// explicit count is that many threads reading in all, the calling thread
/// among them (it reads once it has listed): the pool is one fewer, at the
/// process's priority, and none for a count of one.
pub(crate) fn priorities(count: usize, cores: usize) -> Vec<Priority> {
    let (count, normal) = match count {
        0 => (cores.max(1), cores.saturating_sub(1).max(1)),
        n => (n - 1, n - 1),
    };
    let priority = |index| match index < normal {
        true => Priority::Process,
        false => Priority::Lowest,
    };
    (0..count).map(priority).collect()
}

/// The pool of `count` threads (`0`: one per core, see [`priorities`]).
fn build(count: usize) -> Result<Arc<rayon::ThreadPool>> {
    check_count(count)?;
    let priorities = priorities(count, cores());
    let size = priorities.len();
    rayon::ThreadPoolBuilder::new()
        .num_threads(size)
        .thread_name(|i| format!("ledger-{i}"))
        .start_handler(move |index| {
            if priorities.get(index) == Some(&Priority::Lowest) {
                lowest_priority();
            }
        })
        .build()
        .map(Arc::new)
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

/// The priority of the calling thread: [`Priority::Lowest`] for one of
/// ledger's that runs at the lowest priority (the default pool's last thread,
/// or a disk helper), else [`Priority::Process`].
pub(crate) fn current_priority() -> Priority {
    match AT_LOWEST_PRIORITY.get() {
        true => Priority::Lowest,
        false => Priority::Process,
    }
}

/// Refuses a count above [`MAX_THREADS`].
fn check_count(count: usize) -> Result<()> {
    if count > MAX_THREADS {
        return Err(Error::InvalidArgument {
            message: format!("threads: {count} is more than ledger starts ({MAX_THREADS})"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn each_count_has_its_own_pool() {
        let two = pool(2).unwrap();
        let three = pool(3).unwrap();
        // The calling thread is the other one.
        assert_eq!(two.install(rayon::current_num_threads), 1);
        assert_eq!(three.install(rayon::current_num_threads), 2);
        assert!(
            pool_if(1, true).unwrap().is_none(),
            "one thread: the caller's"
        );
        assert!(Arc::ptr_eq(&two, &pool(2).unwrap()), "a pool is built once");
        assert_eq!(pool(0).unwrap().current_num_threads(), cores());
        let err = pool(MAX_THREADS + 1).unwrap_err();
        assert_eq!(err.code(), "invalid-argument");
        assert!(
            disk_helpers(2).is_none(),
            "an explicit count gets no helpers"
        );
    }

    /// The default pool on two cores is two threads, the second at the lowest
    /// priority; on more cores, all but the last at the process's; an explicit
    /// count is that many with the calling thread, at the process's priority
    /// (who hashes large files: `read_queue`'s
    /// `large_files_are_hashed_by_a_thread_per_core`).
    #[test]
    fn the_pool_is_a_thread_per_core_or_the_count_given() {
        use Priority::{Lowest, Process};
        assert_eq!(priorities(0, 2), [Process, Lowest]);
        assert_eq!(priorities(0, 4), [Process, Process, Process, Lowest]);
        assert_eq!(priorities(0, 1), [Process]);
        assert_eq!(priorities(1, 2), []);
        assert_eq!(priorities(3, 2), [Process; 2]);
    }
}
