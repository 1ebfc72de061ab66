//! How far the expansions running in this process have come: files listed,
//! files answered (read, or found unchanged in the digest cache), bytes read,
//! worktree walks replayed from their memo, and how many expansions are under
//! way. A front door samples it to show a
//! progress line on long work (the CLI on a terminal); nothing here prints.
//! When an expansion ends, it tells the progress sink of its workspace's
//! settings ([`crate::ProgressSink`]), not a hook of the process.
//!
//! The counts are process-wide totals since the process started, kept with
//! relaxed atomics (one addition per batch of listed paths, per piece read
//! and per chunk hashed, so the cost is lost in the reads): a caller takes
//! the difference of two samples. Two expansions running at once add into
//! the same totals, which is what a line about "the work now" wants.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static LISTED: AtomicU64 = AtomicU64::new(0);
static ANSWERED: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static WALKS_REPLAYED: AtomicU64 = AtomicU64::new(0);
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

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

/// Counts an expansion as under way while it lives, in the process's count
/// and in its settings' progress sink (which hears when its last one ends).
pub(crate) struct UnderWay(Option<crate::ProgressSink>);

impl UnderWay {
    pub(crate) fn start(sink: Option<&crate::ProgressSink>) -> UnderWay {
        ACTIVE.fetch_add(1, Ordering::Relaxed);
        if let Some(sink) = sink {
            sink.start();
        }
        UnderWay(sink.cloned())
    }
}

impl Drop for UnderWay {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::Relaxed);
        if let Some(sink) = &self.0 {
            sink.end();
        }
    }
}
