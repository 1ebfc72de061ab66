//! What POSIX gives every Unix ledger runs on (Linux, macOS), through rustix:
//! descriptors, `openat`-style opens that never follow a symlink, file status,
//! ownership, directory listing, path bytes and process groups.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, ExitStatus};

use rustix::fs::{AtFlags, Mode, OFlags};

use super::Stat;

pub(crate) use rustix::io::Errno;
pub(crate) use std::os::fd::{AsFd as AsHandle, BorrowedFd as BorrowedHandle, OwnedFd as Handle};

/// The result of a platform call: the POSIX error number on failure (which
/// converts into `std::io::Error`).
pub(crate) type Result<T> = std::result::Result<T, Errno>;

/// Whether an open follows the last component if it is a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Follow {
    /// Follow it: a path the caller chose (the workspace, canonicalized).
    Yes,
    /// Never: a symlink fails the open with [`Errno::LOOP`].
    No,
}

/// How a file below a directory is opened. Every way adds `O_NOFOLLOW` (the
/// file's own name is never followed), `O_NONBLOCK` (a FIFO never hangs the
/// open) and `O_CLOEXEC` (no gate inherits it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read only.
    Read,
    /// Write at the end.
    Append,
    /// Read and write, created with these permissions if missing.
    ReadWriteCreate(u32),
    /// Write, created with these permissions; it must not exist yet.
    CreateNew(u32),
}

impl Access {
    fn flags(self) -> (OFlags, Mode) {
        let (flags, mode) = match self {
            Access::Read => (OFlags::RDONLY, 0),
            Access::Append => (OFlags::WRONLY | OFlags::APPEND, 0),
            Access::ReadWriteCreate(mode) => (OFlags::RDWR | OFlags::CREATE, mode),
            Access::CreateNew(mode) => (OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL, mode),
        };
        let always = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        (flags | always, Mode::from_raw_mode(mode as _))
    }
}

fn dir_flags(follow: Follow) -> OFlags {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    match follow {
        Follow::Yes => flags,
        Follow::No => flags | OFlags::NOFOLLOW,
    }
}

/// Opens the directory `path`.
pub(crate) fn open_dir(path: &Path, follow: Follow) -> Result<Handle> {
    rustix::fs::open(path, dir_flags(follow), Mode::empty())
}

/// Opens the directory `name` below `dir` without following a symlink.
pub(crate) fn open_dir_at(dir: impl AsHandle, name: impl AsRef<Path>) -> Result<Handle> {
    rustix::fs::openat(dir, name.as_ref(), dir_flags(Follow::No), Mode::empty())
}

/// Opens the file `name` below `dir` as `access` says, never following it.
pub(crate) fn open_file_at(
    dir: impl AsHandle,
    name: impl AsRef<Path>,
    access: Access,
) -> Result<Handle> {
    let (flags, mode) = access.flags();
    rustix::fs::openat(dir, name.as_ref(), flags, mode)
}

/// A second descriptor of the same open directory or file.
pub(crate) fn duplicate(fd: impl AsHandle) -> Result<Handle> {
    rustix::io::dup(fd)
}

/// The status of the open `fd`.
pub(crate) fn fstat(fd: impl AsHandle) -> Result<Stat> {
    rustix::fs::fstat(fd).map(portable)
}

/// The status of `name` below `dir`, not following it.
pub(crate) fn stat_at(dir: impl AsHandle, name: impl AsRef<Path>) -> Result<Stat> {
    rustix::fs::statat(dir, name.as_ref(), AtFlags::SYMLINK_NOFOLLOW).map(portable)
}

/// The status of `path`, not following its last component.
pub(crate) fn lstat(path: impl AsRef<Path>) -> Result<Stat> {
    rustix::fs::lstat(path.as_ref()).map(portable)
}

/// The status of `path`, following symlinks (a path the caller chose).
pub(crate) fn stat(path: impl AsRef<Path>) -> Result<Stat> {
    rustix::fs::stat(path.as_ref()).map(portable)
}

/// The target of the symlink `name` below `dir`, as bytes.
pub(crate) fn read_link_at(dir: impl AsHandle, name: impl AsRef<Path>) -> Result<Vec<u8>> {
    rustix::fs::readlinkat(dir, name.as_ref(), Vec::new()).map(|target| target.into_bytes())
}

/// The names in the directory `dir` (not `.` and `..`), in the order read.
pub(crate) fn read_dir_names(dir: impl AsHandle) -> Result<Vec<Vec<u8>>> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let name = entry?.file_name().to_bytes().to_vec();
        if name != b"." && name != b".." {
            names.push(name);
        }
    }
    Ok(names)
}

/// Makes the directory `name` below `dir` with the permissions `mode`.
pub(crate) fn make_dir_at(dir: impl AsHandle, name: impl AsRef<Path>, mode: u32) -> Result<()> {
    rustix::fs::mkdirat(dir, name.as_ref(), Mode::from_raw_mode(mode as _))
}

/// Links `from` below `from_dir` as `to` below `to_dir` (never following `from`).
pub(crate) fn link_at(
    from_dir: impl AsHandle,
    from: impl AsRef<Path>,
    to_dir: impl AsHandle,
    to: impl AsRef<Path>,
) -> Result<()> {
    rustix::fs::linkat(
        from_dir,
        from.as_ref(),
        to_dir,
        to.as_ref(),
        AtFlags::empty(),
    )
}

/// Renames `from` below `from_dir` to `to` below `to_dir`.
pub(crate) fn rename_at(
    from_dir: impl AsHandle,
    from: impl AsRef<Path>,
    to_dir: impl AsHandle,
    to: impl AsRef<Path>,
) -> Result<()> {
    rustix::fs::renameat(from_dir, from.as_ref(), to_dir, to.as_ref())
}

/// Removes the file `name` below `dir`.
pub(crate) fn unlink_at(dir: impl AsHandle, name: impl AsRef<Path>) -> Result<()> {
    rustix::fs::unlinkat(dir, name.as_ref(), AtFlags::empty())
}

/// Flushes `fd` (a directory: the names in it) to the device.
pub(crate) fn sync(fd: impl AsHandle) -> Result<()> {
    rustix::fs::fsync(fd)
}

/// Sets the modification time of `fd` to the file system's now and returns
/// its status: the file system's clock, which may differ from ours.
pub(crate) fn touch_now(fd: impl AsHandle) -> Result<Stat> {
    let omit = rustix::fs::Timespec {
        tv_sec: 0,
        tv_nsec: rustix::fs::UTIME_OMIT,
    };
    let now = rustix::fs::Timespec {
        tv_sec: 0,
        tv_nsec: rustix::fs::UTIME_NOW,
    };
    let times = rustix::fs::Timestamps {
        last_access: omit,
        last_modification: now,
    };
    rustix::fs::futimens(&fd, &times)?;
    fstat(fd)
}

/// The effective user id of this process, which owns every file ledger may trust.
pub(crate) fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether this process runs as root (which no permission stops).
#[cfg(test)]
pub(crate) fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

impl super::OsStrBytes for OsStr {
    fn as_bytes(&self) -> &[u8] {
        std::os::unix::ffi::OsStrExt::as_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> &OsStr {
        std::os::unix::ffi::OsStrExt::from_bytes(bytes)
    }
}

/// The OS string of these bytes, exactly.
pub(crate) fn os_str_from_bytes(bytes: &[u8]) -> &OsStr {
    <OsStr as super::OsStrBytes>::from_bytes(bytes)
}

/// The path of these bytes, exactly.
pub(crate) fn path_from_bytes(bytes: &[u8]) -> &Path {
    Path::new(os_str_from_bytes(bytes))
}

/// Makes `command` start in a process group of its own (its id is the
/// child's pid), so that what it leaves behind can be signalled as one.
pub(crate) fn in_own_process_group(command: &mut Command) -> &mut Command {
    std::os::unix::process::CommandExt::process_group(command, 0)
}

/// The signal that ended a process, if one did.
pub(crate) fn exit_signal(status: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

/// The exit status of a process that exited with `code`.
pub(crate) fn exit_status(code: i32) -> ExitStatus {
    std::os::unix::process::ExitStatusExt::from_raw(code)
}

/// A process group: the id of its leader (see [`in_own_process_group`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcessGroup(rustix::process::Pid);

impl ProcessGroup {
    /// The group the child `child` leads (it was started in its own).
    pub(crate) fn of(child: &std::process::Child) -> ProcessGroup {
        ProcessGroup(rustix::process::Pid::from_child(child))
    }

    /// Whether any process is left in the group.
    pub(crate) fn alive(self) -> bool {
        rustix::process::test_kill_process_group(self.0).is_ok()
    }

    /// Sends the signal numbered `signal` to every process in the group. A
    /// group that is gone already needs no signal.
    pub(crate) fn signal(self, signal: i32) {
        if let Some(signal) = rustix::process::Signal::from_named_raw(signal) {
            let _ = rustix::process::kill_process_group(self.0, signal);
        }
    }
}

/// Creates a FIFO at `path` (tests: a special file that must never hang a
/// read), with the `mkfifo` every Unix has: rustix has no `mknodat` on macOS.
#[cfg(test)]
pub(crate) fn make_fifo(path: &Path) -> std::io::Result<()> {
    let status = Command::new("mkfifo").arg(path).status()?;
    match status.success() {
        true => Ok(()),
        false => Err(std::io::Error::other(format!("mkfifo {path:?}: {status}"))),
    }
}

/// Makes the symlink `link` pointing to `target` (tests' fixtures).
#[cfg(test)]
pub(crate) fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// The portable status of a raw one. The casts widen (macOS's 32-bit device
/// number, its `i64` times) or keep the width Linux already has.
#[allow(
    clippy::unnecessary_cast,
    clippy::useless_conversion,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]
fn portable(st: rustix::fs::Stat) -> Stat {
    Stat {
        st_dev: st.st_dev as u64,
        st_ino: st.st_ino as u64,
        st_mode: st.st_mode as u32,
        st_nlink: st.st_nlink as u64,
        st_uid: st.st_uid as u32,
        st_size: st.st_size as i64,
        st_mtime: st.st_mtime as i64,
        st_mtime_nsec: st.st_mtime_nsec as i64,
        st_ctime: st.st_ctime as i64,
        st_ctime_nsec: st.st_ctime_nsec as i64,
    }
}

/// Creates the directory `path` and its missing ancestors with the
/// permissions `mode` (the umask may take bits away, never add any).
pub(crate) fn create_dir_all(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(path)
}

/// Sets the permission bits of `path` (tests' fixtures).
#[cfg(test)]
pub(crate) fn set_mode(path: impl AsRef<Path>, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Writes `data` at `offset` of `file` in one call (tests: a writer in place).
#[cfg(test)]
pub(crate) fn write_at(file: &std::fs::File, data: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, data, offset)
}

/// Binds a Unix-domain socket at `path` (tests: a special file); it is
/// removed from listening when the returned value drops.
#[cfg(test)]
pub(crate) fn bind_socket(path: impl AsRef<Path>) -> std::io::Result<impl Drop> {
    std::os::unix::net::UnixListener::bind(path).map(SocketGuard)
}

#[cfg(test)]
struct SocketGuard(#[allow(dead_code)] std::os::unix::net::UnixListener);

#[cfg(test)]
impl Drop for SocketGuard {
    fn drop(&mut self) {}
}

/// Hands the file `path` to the user and group `id` (tests run as root).
#[cfg(test)]
pub(crate) fn chown(path: impl AsRef<Path>, id: u32) -> std::io::Result<()> {
    std::os::unix::fs::chown(path, Some(id), Some(id))
}

/// The number of names (hard links) of the file `meta` describes.
pub(crate) fn link_count(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

/// The device of the file `meta` describes.
pub(crate) fn device(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::dev(meta)
}

/// The permission bits (and type) of the file `meta` describes.
#[cfg(test)]
pub(crate) fn mode(meta: &std::fs::Metadata) -> u32 {
    std::os::unix::fs::MetadataExt::mode(meta)
}

/// Creates the new file `path` with the permissions `mode` (less the umask);
/// it must not exist yet, so no symlink is followed.
pub(crate) fn create_new(path: impl AsRef<Path>, mode: u32) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}
