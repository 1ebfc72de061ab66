//! What only Linux gives (glibc and musl alike): writeback of a file's dirty
//! pages, reads of only the page cache, the file system's magic number,
//! read-ahead advice, per-thread priority and `O_PATH`.

use std::fs::File;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::Path;

use rustix::fs::{Mode, OFlags};
use rustix::io::{Errno, ReadWriteFlags};

use super::{CachedRead, FsKind, Handle};

pub(super) const PROVES_WRITEBACK: bool = true;
pub(super) const PROVES_DIRECTORY_TIMES: bool = true;
pub(super) const READS_WITHOUT_WAITING: bool = true;
pub(super) const ADVISES_READ_AHEAD: bool = true;
pub(super) const LOWERS_THREAD_PRIORITY: bool = true;

/// `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)`, which is
/// `WB_SYNC_ALL` writeback — no page is skipped for being under writeback
/// already — without `fsync`'s journal commit and device cache flush. A file
/// with no dirty page costs a look at its page cache's dirty tag (about a
/// microsecond); one with dirty pages, their write to the device. ext4, XFS
/// and Btrfs then write-protect the cleaned pages in every mapping
/// (`folio_clear_dirty_for_io` → `folio_mkclean`), and a write fault calls
/// `page_mkwrite`, which moves the file's times before the page is writable.
pub(super) fn force_writeback(file: &File) -> std::io::Result<()> {
    let flags = libc::SYNC_FILE_RANGE_WAIT_BEFORE
        | libc::SYNC_FILE_RANGE_WRITE
        | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    // SAFETY: a system call on a descriptor `file` keeps open, with integer
    // arguments only: no memory is passed or retained. (rustix has no wrapper.)
    #[allow(unsafe_code)]
    let done = unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, flags) };
    match done {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// The `statfs` magic number names the file system.
pub(super) fn fs_kind(fd: BorrowedFd<'_>) -> FsKind {
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    rustix::fs::fstatfs(fd).map_or(FsKind::Other, |fs| kind_of_magic(fs.f_type as u64))
}

/// The file system of the `statfs` magic number `magic`.
fn kind_of_magic(magic: u64) -> FsKind {
    const EXT4: u64 = 0xEF53;
    const XFS: u64 = 0x5846_5342;
    const BTRFS: u64 = 0x9123_683E;
    const TMPFS: u64 = 0x0102_1994;
    const RAMFS: u64 = 0x8584_58f6;
    match magic {
        EXT4 => FsKind::Ext4,
        XFS => FsKind::Xfs,
        BTRFS => FsKind::Btrfs,
        TMPFS => FsKind::Tmpfs,
        RAMFS => FsKind::Ramfs,
        _ => FsKind::Other,
    }
}

/// `preadv2(RWF_NOWAIT)`.
pub(super) fn read_cached(file: &File, buffer: &mut [u8], offset: u64) -> CachedRead {
    let slices = &mut [std::io::IoSliceMut::new(buffer)];
    match rustix::io::preadv2(file, slices, offset, ReadWriteFlags::NOWAIT) {
        Ok(n) => CachedRead::Read(n),
        Err(Errno::AGAIN) => CachedRead::WouldWait,
        Err(Errno::OPNOTSUPP | Errno::INVAL | Errno::NOSYS) => CachedRead::Unsupported,
        Err(_) => CachedRead::Failed,
    }
}

/// `posix_fadvise(POSIX_FADV_SEQUENTIAL)`: a larger read-ahead window.
pub(super) fn advise_sequential(file: &File) {
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::Sequential);
}

/// `posix_fadvise(POSIX_FADV_DONTNEED)`: the clean pages are dropped.
pub(super) fn drop_pages(file: &File) -> std::io::Result<()> {
    Ok(rustix::fs::fadvise(
        file,
        0,
        None,
        rustix::fs::Advice::DontNeed,
    )?)
}

/// Nice 19 for this thread alone: Linux's nice value is per thread.
pub(super) fn lowest_thread_priority() -> bool {
    rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19).is_ok()
}

/// An `O_PATH` descriptor serves `fstat`, `fstatfs` and `statat` alike.
pub(super) fn open_for_looking(dir: &Path) -> rustix::io::Result<Handle> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    rustix::fs::open(dir, flags, Mode::empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ext4, XFS and Btrfs are the ones whose writeback protects mapped
    /// pages; tmpfs and ramfs live in memory; overlayfs, NFS and FUSE are
    /// nothing ledger assumes anything of.
    #[test]
    fn magic_numbers_name_the_file_systems() {
        assert!(kind_of_magic(0xEF53).writeback_protects());
        assert!(kind_of_magic(0x5846_5342).writeback_protects());
        assert!(kind_of_magic(0x9123_683E).writeback_protects());
        assert!(kind_of_magic(0x0102_1994).in_memory());
        assert!(kind_of_magic(0x0102_1994).directory_times_move());
        assert!(!kind_of_magic(0x0102_1994).writeback_protects());
        for magic in [0x794C_7630, 0x6969, 0x6573_5546] {
            assert_eq!(kind_of_magic(magic), FsKind::Other);
            assert!(!kind_of_magic(magic).directory_times_move());
        }
    }
}
