//! macOS (and any other Unix without Linux's calls): where a guarantee of
//! SPEC §16 rests on a Linux-only call, the answer here is the safe one.
//!
//! * No writeback is proven: macOS has no `sync_file_range`, and whether its
//!   file systems write-protect cleaned pages of a shared mapping is not
//!   documented, so every file is re-read, never answered from the cache.
//! * No file system is known to move its directories' times with every
//!   change of their entries: untracked files are walked, never remembered.
//! * No read of only the page cache, no read-ahead advice, no per-thread nice
//!   value (`setpriority` names a process here): speed only.

use std::fs::File;
use std::os::fd::BorrowedFd;
use std::path::Path;

use super::{CachedRead, Follow, FsKind, Handle};

pub(super) const PROVES_WRITEBACK: bool = false;
pub(super) const PROVES_DIRECTORY_TIMES: bool = false;
pub(super) const READS_WITHOUT_WAITING: bool = false;
pub(super) const ADVISES_READ_AHEAD: bool = false;
pub(super) const LOWERS_THREAD_PRIORITY: bool = false;

/// Not proven: fails, so no digest is recorded.
pub(super) fn force_writeback(_: &File) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Not named: nothing is assumed of the file system.
pub(super) fn fs_kind(_: BorrowedFd<'_>) -> FsKind {
    FsKind::Other
}

/// Cannot tell: the ordinary read decides.
pub(super) fn read_cached(_: &File, _: &mut [u8], _: u64) -> CachedRead {
    CachedRead::Unsupported
}

/// Nothing to advise.
pub(super) fn advise_sequential(_: &File) {}

/// The pages stay: nothing here drops them.
pub(super) fn drop_pages(_: &File) -> std::io::Result<()> {
    Ok(())
}

/// The thread runs as it is.
pub(super) fn lowest_thread_priority() -> bool {
    false
}

/// No `O_PATH`: the directory is opened for reading (following it, as `O_PATH` does).
pub(super) fn open_for_looking(dir: &Path) -> rustix::io::Result<Handle> {
    super::open_dir(dir, Follow::Yes)
}
