//! The store's file-system steps, all `openat`-style from the store directory
//! (docs/errors.md, Security model): no symlink is followed below it, every entry must be the kind of
//! file ledger creates there (a directory or a regular file) and be owned by
//! this user, and every read is bounded.
//!
//! Files are created `0o600` and directories `0o700`: the store holds what
//! gates printed and what reviewers decided, which other users of the machine
//! have no business reading (seed 001 keeps its tool output at 0600/0700). The
//! process umask may take bits away but never add any. Records shared through
//! Git live in Git's objects and refs, written as Git writes them (the
//! repository's own modes), not by these steps.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{DisplayPath, Error, Result};
use crate::nofollow::describe;
pub(crate) use crate::own_file::RECORD_LIMIT;
use crate::platform::{self, Access, Errno, FileType, Follow, Handle, OsStrBytes, Stat};

/// Files being written; anything left here was interrupted.
pub(crate) const TMP: &str = "tmp";

/// The most ledger reads of a ref: one id and a newline, with room to spare.
pub(crate) const REF_LIMIT: u64 = 4096;

/// The file that makes the store ignore itself in Git.
pub(crate) const GITIGNORE: &str = ".gitignore";

/// A path as shown in messages (full path, invalid bytes escaped).
pub(crate) fn shown(path: &Path) -> DisplayPath {
    DisplayPath::from_bytes(path.as_os_str().as_bytes())
}

pub(crate) fn unreadable(path: &Path, operation: &'static str, source: io::Error) -> Error {
    Error::Unreadable {
        path: shown(path),
        operation,
        source,
    }
}

pub(crate) fn unwritable(path: &Path, operation: &'static str, source: io::Error) -> Error {
    Error::Unwritable {
        path: shown(path),
        operation,
        source,
    }
}

/// `untrusted-store` for `path`.
pub(crate) fn untrusted(path: &Path, reason: String) -> Error {
    Error::UntrustedStore {
        path: shown(path),
        reason,
    }
}

/// What a store entry must be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Directory,
    File,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Directory => "directory",
            Kind::File => "regular file",
        }
    }

    fn file_type(self) -> FileType {
        match self {
            Kind::Directory => FileType::Directory,
            Kind::File => FileType::RegularFile,
        }
    }
}

/// Refuses an entry that is not of the kind ledger creates there, or that
/// another user owns: ledger never follows it, never reads it, never writes
/// through it.
pub(crate) fn expect(path: &Path, stat: &Stat, kind: Kind) -> Result<()> {
    let found = stat.file_type();
    if found != kind.file_type() {
        let why = if found == FileType::Symlink {
            "ledger follows no symlink in its store"
        } else {
            "ledger opens nothing there that it did not create"
        };
        let reason = format!(
            "it is a {} where ledger keeps a {}; {why}",
            describe(found),
            kind.name()
        );
        return Err(untrusted(path, reason));
    }
    let me = platform::current_uid();
    if stat.st_uid != me {
        let reason = format!(
            "it is owned by uid {}, not by this user (uid {me}); a store another user wrote is not trusted",
            stat.st_uid
        );
        return Err(untrusted(path, reason));
    }
    Ok(())
}

/// What [`StoreDir::sub`] makes of a directory that is not there.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// Absent: `Ok(None)`.
    Absent,
    /// Absent, and so is a regular file where the directory would be: the ref
    /// `a/b` when `a` is a ref has nothing below it.
    AbsentOrFile,
    /// Create it (its parent synced, so the entry survives a crash).
    Create,
}

/// An open directory of the store, with its path for messages.
pub(crate) struct StoreDir {
    fd: Handle,
    path: PathBuf,
}

impl StoreDir {
    /// Opens the store directory `root` (`None`: it does not exist, unless
    /// `missing` creates it). Its parent, the workspace, is the caller's choice
    /// and opened as given; the store itself is not followed if it is a
    /// symlink. A store ledger writes to gets a `.gitignore` holding `*` (when
    /// it has none), so that Git ignores it and it never comes with a checkout.
    pub(crate) fn open_root(root: &Path, missing: Missing) -> Result<Option<StoreDir>> {
        let parent = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let Some(name) = root.file_name() else {
            // `/` or `..`: no name to refuse as a symlink; the caller chose it.
            let fd = platform::open_dir(root, Follow::Yes)
                .map_err(|e| unreadable(root, "open store", e.into()))?;
            return StoreDir::checked(fd, root.to_path_buf()).map(Some);
        };
        let workspace = StoreDir::open_workspace(parent, missing)?;
        if missing == Missing::Create {
            workspace.make_dir(name)?;
        }
        let store = workspace.open_sub(name, root.to_path_buf(), missing)?;
        if let (Missing::Create, Some(store)) = (missing, &store) {
            store.write_gitignore()?;
        }
        Ok(store)
    }

    /// The workspace directory, created (with its ancestors) only for a write.
    fn open_workspace(path: &Path, missing: Missing) -> Result<StoreDir> {
        let open = || platform::open_dir(path, Follow::Yes);
        let fd = match (open(), missing) {
            (Ok(fd), _) => fd,
            (Err(Errno::NOENT), Missing::Create) => {
                platform::create_dir_all(path, 0o755)
                    .map_err(|e| unwritable(path, "create directory", e))?;
                open().map_err(|e| unwritable(path, "open the directory of the store", e.into()))?
            }
            (Err(e), Missing::Create) => {
                return Err(unwritable(
                    path,
                    "open the directory of the store",
                    e.into(),
                ));
            }
            (Err(e), _) => return Err(unreadable(path, "open workspace", e.into())),
        };
        Ok(StoreDir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// An opened directory, once it is known to be this user's.
    fn checked(fd: Handle, path: PathBuf) -> Result<StoreDir> {
        let stat = platform::fstat(&fd).map_err(|e| unreadable(&path, "stat", e.into()))?;
        expect(&path, &stat, Kind::Directory)?;
        Ok(StoreDir { fd, path })
    }

    /// The directory's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The path of the entry `name`, for messages.
    pub(crate) fn join(&self, name: impl AsRef<OsStr>) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// The subdirectory `name`, never through a symlink; `None` as `missing`
    /// says. Anything but a directory of this user's is `untrusted-store`.
    pub(crate) fn sub(&self, name: &str, missing: Missing) -> Result<Option<StoreDir>> {
        if missing == Missing::Create {
            self.make_dir(name)?;
        }
        self.open_sub(name, self.join(name), missing)
    }

    /// The subdirectory `name`, created if needed.
    pub(crate) fn make_sub(&self, name: &str) -> Result<StoreDir> {
        self.sub(name, Missing::Create)?.ok_or_else(|| {
            let gone = io::Error::new(io::ErrorKind::NotFound, "removed as it was created");
            unwritable(&self.join(name), "create directory", gone)
        })
    }

    /// Creates the directory `name` unless it exists, syncing this directory
    /// so that the new entry survives a crash.
    fn make_dir<P: AsRef<Path>>(&self, name: P) -> Result<()> {
        let path = self.join(name.as_ref());
        match platform::make_dir_at(&self.fd, name, 0o700) {
            Ok(()) => self.sync(),
            // Exists, perhaps made by another writer: opening it checks what it is.
            Err(Errno::EXIST) => Ok(()),
            Err(e) => Err(unwritable(&path, "create directory", e.into())),
        }
    }

    fn open_sub<P: AsRef<Path> + Copy>(
        &self,
        name: P,
        path: PathBuf,
        missing: Missing,
    ) -> Result<Option<StoreDir>> {
        match platform::open_dir_at(&self.fd, name) {
            Ok(fd) => StoreDir::checked(fd, path).map(Some),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let Some(stat) = self.stat(name, &path)? else {
                    return Ok(None);
                };
                let regular = stat.file_type() == FileType::RegularFile;
                match missing {
                    Missing::AbsentOrFile if regular => Ok(None),
                    // A ref where a directory of refs belongs: refused as ever.
                    Missing::Create if regular => Err(unwritable(
                        &path,
                        "create directory",
                        io::ErrorKind::NotADirectory.into(),
                    )),
                    _ => expect(&path, &stat, Kind::Directory).map(|()| None),
                }
            }
            Err(e) => Err(unreadable(&path, "open directory", e.into())),
        }
    }

    /// `lstat` of the entry `name` (`None`: it does not exist).
    pub(crate) fn stat(&self, name: impl AsRef<Path>, path: &Path) -> Result<Option<Stat>> {
        match platform::stat_at(&self.fd, name) {
            Ok(stat) => Ok(Some(stat)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(unreadable(path, "stat", e.into())),
        }
    }

    /// Opens the regular file `name` without following a symlink: checked by
    /// `lstat` before the open (a FIFO or device is never opened) and by `fstat`
    /// after it (the entry may have been swapped in between).
    fn open_file(&self, name: &str, access: Access) -> Result<Option<File>> {
        let path = self.join(name);
        let Some(before) = self.stat(name, &path)? else {
            return Ok(None);
        };
        expect(&path, &before, Kind::File)?;
        // Should a FIFO have been swapped in, the open does not wait (`Access`).
        let fd = match platform::open_file_at(&self.fd, name, access) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(unreadable(&path, "open", e.into())),
        };
        let after = platform::fstat(&fd).map_err(|e| unreadable(&path, "stat", e.into()))?;
        expect(&path, &after, Kind::File)?;
        Ok(Some(File::from(fd)))
    }

    /// Reads the regular file `name` whole (`what` names it in errors), refused
    /// past `limit` bytes. `Ok(None)` when it does not exist.
    pub(crate) fn read(
        &self,
        name: &str,
        what: &'static str,
        limit: u64,
    ) -> Result<Option<Vec<u8>>> {
        let Some(file) = self.open_file(name, Access::Read)? else {
            return Ok(None);
        };
        crate::expand::disk_waits::note_if_uncached(&file);
        let path = self.join(name);
        let too_large = || Error::TooLarge {
            path: shown(&path),
            what,
            limit,
        };
        let size = file.metadata().map_or(0, |m| m.len());
        if size > limit {
            return Err(too_large());
        }
        // A file that grows while it is read is still read no further than the limit.
        // Sized up front: growing by doubling could hold twice a large file at once.
        let mut bytes = Vec::with_capacity(usize::try_from(size).map_or(0, |s| s + 1));
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| unreadable(&path, "read", e))?;
        if bytes.len() as u64 > limit {
            return Err(too_large());
        }
        Ok(Some(bytes))
    }

    /// Appends `bytes` to the existing regular file `name` in one `O_APPEND`
    /// write, never through a symlink (checked as [`StoreDir::read`] checks).
    /// `Ok(false)` when there is no such file (nothing is created) or when it
    /// has another name too: a hard link planted in the store could name a file
    /// outside it, which ledger never writes.
    pub(crate) fn append(&self, name: &str, bytes: &[u8]) -> Result<bool> {
        let Some(mut file) = self.open_file(name, Access::Append)? else {
            return Ok(false);
        };
        let links = platform::fstat(&file)
            .map_err(|e| unreadable(&self.join(name), "stat", e.into()))?
            .st_nlink;
        if links != 1 {
            return Ok(false);
        }
        file.write_all(bytes)
            .map_err(|e| unwritable(&self.join(name), "append", e))?;
        Ok(true)
    }

    /// Opens (creating it if needed) the regular file `name` for writing,
    /// never through a symlink: `O_CREAT|O_NOFOLLOW`, then checked by `fstat`.
    pub(crate) fn open_or_create(&self, name: &str) -> Result<File> {
        let path = self.join(name);
        // A FIFO or device planted under the name is refused before any open.
        if let Some(stat) = self.stat(name, &path)? {
            expect(&path, &stat, Kind::File)?;
        }
        let fd = platform::open_file_at(&self.fd, name, Access::ReadWriteCreate(0o600)).map_err(
            |e| match e {
                // Swapped in since the stat: still never followed.
                Errno::LOOP => unwritable(&path, "open (a symlink, never followed)", e.into()),
                e => unwritable(&path, "open", e.into()),
            },
        )?;
        let stat = platform::fstat(&fd).map_err(|e| unreadable(&path, "stat", e.into()))?;
        expect(&path, &stat, Kind::File)?;
        Ok(File::from(fd))
    }

    /// Creates the new file `name` (`None`: the name is taken). `O_EXCL` never
    /// follows a symlink, not even a dangling one.
    fn create_new(&self, name: &str) -> Result<Option<File>> {
        match platform::open_file_at(&self.fd, name, Access::CreateNew(0o600)) {
            Ok(fd) => Ok(Some(File::from(fd))),
            Err(Errno::EXIST) => Ok(None),
            Err(e) => Err(unwritable(&self.join(name), "create", e.into())),
        }
    }

    /// Writes `.gitignore` holding `*` into the store unless it has one: when
    /// the store is created, and into a store made before ledger wrote it (or
    /// by a writer that died before writing it).
    fn write_gitignore(&self) -> Result<()> {
        let Some(mut file) = self.create_new(GITIGNORE)? else {
            return Ok(());
        };
        file.write_all(b"*\n")
            .and_then(|()| file.sync_all())
            .map_err(|e| unwritable(&self.join(GITIGNORE), "write", e))?;
        self.sync()
    }

    /// Hard-links `from` in this directory as `to` in `dir`. Fails with
    /// `AlreadyExists` when `to` exists: a link never replaces anything, and
    /// neither name is followed if it is a symlink.
    pub(crate) fn link(&self, from: &str, dir: &StoreDir, to: &str) -> io::Result<()> {
        platform::link_at(&self.fd, from, &dir.fd, to).map_err(io::Error::from)
    }

    /// Renames `from` in this directory over `to` in `dir`, atomically. A
    /// symlink at `to` is replaced, never followed.
    pub(crate) fn rename(&self, from: &str, dir: &StoreDir, to: &str) -> io::Result<()> {
        platform::rename_at(&self.fd, from, &dir.fd, to).map_err(io::Error::from)
    }

    /// Syncs the directory, making the names created in it (link, rename)
    /// durable: fsync of a file covers its bytes, not the entry that names it.
    pub(crate) fn sync(&self) -> Result<()> {
        platform::sync(&self.fd).map_err(|e| unwritable(&self.path, "sync directory", e.into()))
    }

    /// The file system's clock: sets the directory's modification time to now
    /// and reads back its change time (which a network file system takes from
    /// the server's clock, not ours).
    pub(crate) fn now(&self) -> io::Result<Stat> {
        Ok(platform::touch_now(&self.fd)?)
    }

    /// The names in the directory (not `.` and `..`), sorted.
    pub(crate) fn names(&self) -> Result<Vec<Box<OsStr>>> {
        let names = platform::read_dir_names(&self.fd)
            .map_err(|e| unreadable(&self.path, "read directory", e.into()))?;
        let mut names: Vec<Box<OsStr>> = names
            .iter()
            .map(|name| platform::os_str_from_bytes(name).into())
            .collect();
        names.sort();
        Ok(names)
    }
}

/// Tells temp files of one process apart.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A file in the store's `tmp/`, removed when dropped unless renamed away.
/// A crash skips the drop: the file stays, and `check` lists it.
pub(crate) struct TempFile<'a> {
    dir: &'a StoreDir,
    name: String,
    file: File,
    /// Whether the file still has its temp name (so drop must remove it).
    owned: bool,
}

impl<'a> TempFile<'a> {
    /// Creates a new, empty temp file in `dir` named after `what`, this process
    /// and a sequence number. Never an existing file: a leftover of a crashed
    /// process with the same pid is never reused, the next number is tried.
    pub(crate) fn create(dir: &'a StoreDir, what: &str) -> Result<TempFile<'a>> {
        let pid = std::process::id();
        for _ in 0..100 {
            let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
            let name = format!("{what}-{pid}-{seq}.tmp");
            if let Some(file) = dir.create_new(&name)? {
                return Ok(TempFile {
                    dir,
                    name,
                    file,
                    owned: true,
                });
            }
        }
        let taken = io::Error::new(io::ErrorKind::AlreadyExists, "100 names in a row are taken");
        Err(unwritable(dir.path(), "create temp file in", taken))
    }

    /// The file's name in `tmp/`.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Writes all of `bytes` and syncs them, so that whatever name the file
    /// gets next names complete content.
    pub(crate) fn write_synced(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all(bytes)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| unwritable(&self.dir.join(&self.name), "write temp file", e))
    }

    /// Writes all of `bytes` without syncing: for files whose loss in a crash
    /// costs nothing (the digest cache), where a sync would cost every run.
    pub(crate) fn write_unsynced(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all(bytes)
            .map_err(|e| unwritable(&self.dir.join(&self.name), "write temp file", e))
    }

    /// Renames the file over `to` in `dir` (atomically replacing it).
    pub(crate) fn rename_to(mut self, dir: &StoreDir, to: &str) -> Result<()> {
        self.dir
            .rename(&self.name, dir, to)
            .map_err(|e| unwritable(&dir.join(to), "replace", e))?;
        self.owned = false;
        Ok(())
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if self.owned {
            // Best effort: a failure leaves a leftover that `check` reports.
            let _ = platform::unlink_at(&self.dir.fd, self.name.as_str());
        }
    }
}
