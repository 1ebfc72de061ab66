//! How far the expansions running in this process have come: files listed,
//! files answered (read, or found unchanged in the digest cache), bytes read,
//! worktree walks replayed from their memo, and how many expansions are under
//! way. A front door samples it to show a
//! progress line on long work (the CLI on a terminal); nothing here prints.
//!
//! The counts are process-wide totals since the process started, kept with
//! relaxed atomics (one addition per batch of listed paths, per piece read
//! and per chunk hashed, so the cost is lost in the reads): a caller takes
//! the difference of two samples. Two expansions running at once add into
//! the same totals, which is what a line about "the work now" wants.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static LISTED: AtomicU64 = AtomicU64::new(0);
static ANSWERED: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static WALKS_REPLAYED: AtomicU64 = AtomicU64::new(0);
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static ON_IDLE: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

/// Calls `hook` each time the last expansion under way ends, on the thread
/// that ran it, before that expansion returns: a front door that draws a
/// progress line clears it there, so that nothing the caller prints next
/// lands beside it. One hook per process: `false` when one was set already.
pub fn on_idle(hook: Box<dyn Fn() + Send + Sync>) -> bool {
    ON_IDLE.set(hook).is_ok()
}

/// A sample of the expansions' progress ([`progress`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Expansions under way now.
    pub active: usize,
    /// Paths listed as candidates, in total.
    pub listed: u64,
    /// Paths answered: read and hashed, or found unchanged in the digest cache.
    pub answered: u64,
    /// Bytes read from files and hashed.
    pub bytes: u64,
    /// Worktree walks answered from the walk memo (docs/performance.md, The
    /// walk memo) instead of reading the directories again.
    pub walks_replayed: u64,
}

/// The progress of this process's expansions now.
///
/// ```
/// let before = ledger_core::expand::progress();
/// // ... an expansion ...
/// let after = ledger_core::expand::progress();
/// assert!(after.listed >= before.listed);
/// ```
pub fn progress() -> Progress {
    Progress {
        active: ACTIVE.load(Ordering::Relaxed),
        listed: LISTED.load(Ordering::Relaxed),
        answered: ANSWERED.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
        walks_replayed: WALKS_REPLAYED.load(Ordering::Relaxed),
    }
}

pub(crate) fn listed(paths: usize) {
    LISTED.fetch_add(paths as u64, Ordering::Relaxed);
}

pub(crate) fn answered(paths: usize) {
    ANSWERED.fetch_add(paths as u64, Ordering::Relaxed);
}

/// A walk replayed from its memo.
pub(crate) fn walk_replayed() {
    WALKS_REPLAYED.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn hashed(bytes: usize) {
    BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
}

/// Counts an expansion as under way while it lives.
pub(crate) struct UnderWay(());

impl UnderWay {
    pub(crate) fn start() -> UnderWay {
        ACTIVE.fetch_add(1, Ordering::Relaxed);
        UnderWay(())
    }
}

impl Drop for UnderWay {
    fn drop(&mut self) {
        if ACTIVE.fetch_sub(1, Ordering::Relaxed) == 1
            && let Some(hook) = ON_IDLE.get()
        {
            hook();
        }
    }
}
