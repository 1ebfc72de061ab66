//! Whether this process has met the disk: a read that finds a file's bytes
//! outside the page cache (it would have waited) says so once, and from then
//! on the reading calls for more threads (`threads::disk_helpers`), so that
//! more reads wait on the device at once. Its own room, below both the reads
//! of the tree (`read`) and of the store's files (`ledger_dir`), which note
//! it alike.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::platform::{self, CachedRead};

/// Whether a read of this process found a file's bytes outside the page cache
/// (it would have waited on the disk): the reading then calls for more threads
/// (`threads::disk_helpers`), so that more reads wait on the device at once.
static DISK_WAITED: AtomicBool = AtomicBool::new(false);

/// The device of a file system in memory (tmpfs) that refused a read that
/// asks not to wait, once one did (`u64::MAX` until then): its files are read
/// without asking.
static MEMORY_DEVICE: AtomicU64 = AtomicU64::new(u64::MAX);

/// Whether a read of this process has found a file's bytes outside the page cache.
pub(crate) fn disk_waited() -> bool {
    DISK_WAITED.load(Ordering::Relaxed)
}

/// Notes whether `file`'s first byte is outside the page cache ([`disk_waited`]),
/// without waiting for it: the store's files are read before the tree, so a
/// cold store (after a reboot, or with the caches dropped) calls the helpers
/// before the tree's `stat`s, which wait on the disk as reads do, begin.
pub(crate) fn note_if_uncached(file: &File) {
    if let Ok(stat) = platform::fstat(file) {
        read_without_waiting(file, &mut [0u8; 1], 0, stat.st_dev);
    }
}

/// Reads into `buffer` at `offset` (`u64::MAX`: from the file's position,
/// which the read advances) only what the page cache holds (`RWF_NOWAIT`),
/// until the process has met the disk: `None` when nothing was read, and the
/// first time the bytes are not cached, [`disk_waited`] says so from then on.
/// A file system that cannot tell (it refuses `RWF_NOWAIT`) counts as met
/// too — a network or FUSE one may well wait — unless it lives in memory.
pub(crate) fn read_without_waiting(
    file: &File,
    buffer: &mut [u8],
    offset: u64,
    device: u64,
) -> Option<usize> {
    if DISK_WAITED.load(Ordering::Relaxed) || MEMORY_DEVICE.load(Ordering::Relaxed) == device {
        return None;
    }
    // A platform that cannot read only the cache never tells: its reads are
    // ordinary ones, and no helper is started on its account.
    if !platform::READS_WITHOUT_WAITING {
        return None;
    }
    match platform::read_cached(file, buffer, offset) {
        // A kernel may answer 0 instead of EAGAIN: the ordinary read decides.
        CachedRead::Read(0) => None,
        CachedRead::Read(n) => Some(n),
        CachedRead::WouldWait => {
            DISK_WAITED.store(true, Ordering::Relaxed);
            None
        }
        CachedRead::Unsupported if platform::fs_kind(file).in_memory() => {
            MEMORY_DEVICE.store(device, Ordering::Relaxed);
            None
        }
        CachedRead::Unsupported => {
            DISK_WAITED.store(true, Ordering::Relaxed);
            None
        }
        // Whatever it is, the ordinary read meets it too and reports it.
        CachedRead::Failed => None,
    }
}
