//! The platform layer (the ground floor): every operating-system call ledger
//! makes that is not plain std, behind one small portable API. Nothing else in
//! the crate names `libc`, `rustix` or `std::os` (`tests/core/platform_wall.rs`).
//!
//! One file per platform family implements it: `unix.rs` (what POSIX gives
//! Linux and macOS alike: `openat`-style opens without following symlinks,
//! file identity and times, ownership, process groups), `linux.rs` and
//! `macos.rs` (what differs). Windows is one more file with the same items.
//!
//! # Capability answers
//!
//! Each guarantee of SPEC §16 that rests on the kernel has a constant saying
//! whether this platform can prove it. Where it cannot, the caller takes the
//! slow, safe answer — the file is re-read, not answered from the cache; the
//! tree is walked, not remembered — never an unproven "unchanged".
//!
//! | capability | Linux (glibc, musl) | macOS |
//! |---|---|---|
//! | [`PROVES_WRITEBACK`] | yes, on ext4, XFS, Btrfs | no: no digest is cached |
//! | [`PROVES_DIRECTORY_TIMES`] | yes, on ext4, XFS, Btrfs, tmpfs | no: untracked files are walked |
//! | [`READS_WITHOUT_WAITING`] | yes (`RWF_NOWAIT`) | no: reads as usual |
//! | [`ADVISES_READ_AHEAD`] | yes (`posix_fadvise`) | no (speed only) |
//! | [`LOWERS_THREAD_PRIORITY`] | yes (nice 19 per thread) | no (speed only) |
//!
//! # Platform behavior
//!
//! The rest holds everywhere ledger runs: no symlink is followed below a
//! directory, a FIFO is opened without waiting for a writer, and a gate runs
//! in a process group of its own that ledger can signal.

use std::path::Path;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux;
#[cfg(any(target_os = "linux", target_os = "android"))]
use linux as imp;

#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
mod macos;
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
use macos as imp;

/// Whether a digest read after [`force_writeback`] on a file system that
/// [`FsKind::writeback_protects`] can be cached: a later write, through a
/// shared mapping too, then moves the file's times.
pub(crate) const PROVES_WRITEBACK: bool = imp::PROVES_WRITEBACK;

/// Whether a directory's times are known to move with every change of its
/// entries on the file systems [`FsKind::directory_times_move`] names, so
/// that a walk may be remembered and answered by its directories' status.
pub(crate) const PROVES_DIRECTORY_TIMES: bool = imp::PROVES_DIRECTORY_TIMES;

/// Whether [`read_cached`] can read only what the page cache holds.
pub(crate) const READS_WITHOUT_WAITING: bool = imp::READS_WITHOUT_WAITING;

/// Whether [`advise_sequential`] tells the kernel anything.
pub(crate) const ADVISES_READ_AHEAD: bool = imp::ADVISES_READ_AHEAD;

/// Whether [`lowest_thread_priority`] can lower one thread's priority.
pub(crate) const LOWERS_THREAD_PRIORITY: bool = imp::LOWERS_THREAD_PRIORITY;

/// The exact bytes of an OS string, and the OS string of bytes: Unix names
/// are bytes, so both ways are exact there (Windows will use the encoded
/// bytes, which round-trip too). Paths are hashed and compared as these bytes.
pub trait OsStrBytes {
    /// The bytes of the string.
    fn as_bytes(&self) -> &[u8];
    /// The string of `bytes`.
    fn from_bytes(bytes: &[u8]) -> &Self;
}

/// What a file is, from its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileType {
    /// A regular file.
    RegularFile,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix-domain socket.
    Socket,
    /// A character device.
    CharacterDevice,
    /// A block device.
    BlockDevice,
    /// Anything else.
    Unknown,
}

impl FileType {
    /// The type of the POSIX mode `mode` (its `S_IFMT` bits, the same numbers
    /// on every platform ledger runs on).
    pub(crate) fn from_raw_mode(mode: u32) -> FileType {
        match mode & 0o170_000 {
            0o100_000 => FileType::RegularFile,
            0o040_000 => FileType::Directory,
            0o120_000 => FileType::Symlink,
            0o010_000 => FileType::Fifo,
            0o140_000 => FileType::Socket,
            0o020_000 => FileType::CharacterDevice,
            0o060_000 => FileType::BlockDevice,
            _ => FileType::Unknown,
        }
    }
}

/// A file's status, in the widths every platform fits (macOS has a 32-bit
/// device number, Linux a 64-bit one), named as POSIX names it. The identity
/// (`st_dev`, `st_ino`) and both times with their nanoseconds are what the
/// digest cache and the walk memo compare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stat {
    /// The device the file is on.
    pub(crate) st_dev: u64,
    /// The file's number on its device.
    pub(crate) st_ino: u64,
    /// Type and permission bits.
    pub(crate) st_mode: u32,
    /// The number of hard links.
    pub(crate) st_nlink: u64,
    /// The owner's user id.
    pub(crate) st_uid: u32,
    /// The size in bytes.
    pub(crate) st_size: i64,
    /// Last modification, whole seconds since the epoch.
    pub(crate) st_mtime: i64,
    /// Last modification, nanoseconds within the second.
    pub(crate) st_mtime_nsec: i64,
    /// Last status change, whole seconds since the epoch.
    pub(crate) st_ctime: i64,
    /// Last status change, nanoseconds within the second.
    pub(crate) st_ctime_nsec: i64,
}

impl Stat {
    /// What the file is.
    pub(crate) fn file_type(&self) -> FileType {
        FileType::from_raw_mode(self.st_mode)
    }
}

/// The kind of file system a file is on, as far as ledger's guarantees care.
// A platform that names no file system (macOS) constructs only `Other`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FsKind {
    /// Linux's ext2/3/4.
    Ext4,
    /// XFS.
    Xfs,
    /// Btrfs.
    Btrfs,
    /// tmpfs (kept in memory).
    Tmpfs,
    /// ramfs (kept in memory).
    Ramfs,
    /// Any other, or one this platform cannot name: nothing is assumed of it.
    Other,
}

impl FsKind {
    /// Whether writeback write-protects what it cleans, so that after
    /// [`force_writeback`] any later write, through a shared mapping too,
    /// moves the file's times (ext4, XFS, Btrfs, where [`PROVES_WRITEBACK`]).
    /// tmpfs and ramfs have no writeback; network and FUSE file systems let
    /// another machine or process set the times.
    pub(crate) fn writeback_protects(self) -> bool {
        PROVES_WRITEBACK && matches!(self, FsKind::Ext4 | FsKind::Xfs | FsKind::Btrfs)
    }

    /// Whether a directory's times move with every change of its entries
    /// (where [`PROVES_DIRECTORY_TIMES`]).
    pub(crate) fn directory_times_move(self) -> bool {
        PROVES_DIRECTORY_TIMES
            && matches!(
                self,
                FsKind::Ext4 | FsKind::Xfs | FsKind::Btrfs | FsKind::Tmpfs
            )
    }

    /// Whether the file system lives in memory, whose reads never wait.
    pub(crate) fn in_memory(self) -> bool {
        matches!(self, FsKind::Tmpfs | FsKind::Ramfs)
    }
}

/// What a read of only the page cache ([`read_cached`]) found.
// A platform that cannot read only the cache answers `Unsupported` alone.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CachedRead {
    /// This many bytes were cached and read (0: the ordinary read decides).
    Read(usize),
    /// The bytes are not cached: an ordinary read would wait on the device.
    WouldWait,
    /// The file system (or the platform) cannot tell.
    Unsupported,
    /// Another failure, which the ordinary read meets too and reports.
    Failed,
}

/// Writes back every page of `file` that is dirty now and waits until it is
/// written (Linux: `sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER)`).
/// Where [`PROVES_WRITEBACK`] is false it fails: nothing is to be cached.
pub(crate) fn force_writeback(file: &std::fs::File) -> std::io::Result<()> {
    imp::force_writeback(file)
}

/// The kind of file system `fd` is on ([`FsKind::Other`] when unknown).
pub(crate) fn fs_kind(fd: impl AsHandle) -> FsKind {
    imp::fs_kind(fd.as_fd())
}

/// Reads into `buffer` at `offset` (`u64::MAX`: at the file's position) only
/// what the page cache holds (Linux: `RWF_NOWAIT`).
pub(crate) fn read_cached(file: &std::fs::File, buffer: &mut [u8], offset: u64) -> CachedRead {
    imp::read_cached(file, buffer, offset)
}

/// Tells the kernel that `file` will be read from start to end (more
/// read-ahead). Speed only: it changes no byte read.
pub(crate) fn advise_sequential(file: &std::fs::File) {
    imp::advise_sequential(file);
}

/// Makes the calling thread the last to get a core. `true` when it did;
/// raising one's own nice value needs no privilege.
pub(crate) fn lowest_thread_priority() -> bool {
    imp::lowest_thread_priority()
}

/// Opens the worktree `dir` only to look at what is below it (`fstat`,
/// `fstatfs`, `statat`): Linux opens it `O_PATH`, which needs no read right.
pub(crate) fn open_for_looking(dir: &Path) -> Result<Handle> {
    imp::open_for_looking(dir)
}

/// Probes of the file system and the page cache for the tests that set up a
/// cold read or a writeback the digest cache must prove (`ledger-testkit`
/// calls them, so that no test crate names the operating system either).
pub mod probe {
    use std::fs::File;
    use std::path::Path;

    /// Whether the directory `dir` is on a file system that lives in memory
    /// (tmpfs, ramfs); `false` when it cannot be told.
    pub fn in_memory(dir: &Path) -> bool {
        super::open_for_looking(dir).is_ok_and(|handle| super::fs_kind(&handle).in_memory())
    }

    /// Asks the kernel to let go of the cached pages of `file` (Linux:
    /// `POSIX_FADV_DONTNEED`); elsewhere the pages stay and [`cached`] says so.
    pub fn drop_pages(file: &File) -> std::io::Result<()> {
        super::imp::drop_pages(file)
    }

    /// Whether a read of the start of `file` finds it in the page cache;
    /// `true` where the platform cannot tell (a test of a cold read then
    /// skips rather than asserting what it cannot set up).
    pub fn cached(file: &File) -> bool {
        let mut buffer = [0u8; 16];
        super::read_cached(file, &mut buffer, 0) != super::CachedRead::WouldWait
    }
}
