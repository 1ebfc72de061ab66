//! The store's file-system steps: directories, temp files, fsync.
//!
//! Files are created `0o644` and directories `0o755`; the process umask may take
//! bits away but can never add any, so nothing the store creates is writable by
//! other users.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{DisplayPath, Error, Result};

/// A path as shown in messages (full path, invalid bytes escaped).
pub(super) fn shown(path: &Path) -> DisplayPath {
    DisplayPath::from_bytes(path.as_os_str().as_bytes())
}

pub(super) fn unreadable(path: &Path, operation: &'static str, source: io::Error) -> Error {
    Error::Unreadable {
        path: shown(path),
        operation,
        source,
    }
}

pub(super) fn unwritable(path: &Path, operation: &'static str, source: io::Error) -> Error {
    Error::Unwritable {
        path: shown(path),
        operation,
        source,
    }
}

/// A path that does not exist, or whose parent is not a directory (the ref
/// `a/b` when `a` is a ref file): either way there is nothing there.
pub(super) fn is_absent(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Makes sure `dir` exists, creating missing ancestors. Each new directory's
/// parent is synced: a directory entry survives a crash only once the directory
/// holding it is on disk, or a synced record could vanish with its directory.
pub(super) fn ensure_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    ensure_dir(parent)?;
    match DirBuilder::new().mode(0o755).create(dir) {
        Ok(()) => sync_dir(parent),
        // Another writer created it between our check and our attempt.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(unwritable(dir, "create directory", e)),
    }
}

/// Syncs a directory, making the names created in it (link, rename) durable:
/// fsync of a file covers its bytes, not the directory entry that names it.
pub(super) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| unwritable(dir, "sync directory", e))
}

/// Tells temp files of one process apart.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// A file in the store's `tmp/`, removed when dropped unless renamed away.
/// A crash skips the drop: the file stays, and `check` lists it.
pub(super) struct TempFile {
    path: PathBuf,
    file: File,
    /// Whether the file still has its temp name (so drop must remove it).
    owned: bool,
}

impl TempFile {
    /// Creates a new, empty temp file named after `what`, this process and a
    /// sequence number. `create_new`: a leftover of a crashed process with the
    /// same pid is never reused, the next number is tried instead.
    pub(super) fn create(dir: &Path, what: &str) -> Result<TempFile> {
        ensure_dir(dir)?;
        let pid = std::process::id();
        let mut attempts = 0;
        loop {
            let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("{what}-{pid}-{seq}.tmp"));
            let opened = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(&path);
            match opened {
                Ok(file) => {
                    return Ok(TempFile {
                        path,
                        file,
                        owned: true,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => {
                    attempts += 1;
                }
                Err(e) => return Err(unwritable(&path, "create temp file", e)),
            }
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes all of `bytes` and syncs them, so that whatever name the file
    /// gets next names complete content.
    pub(super) fn write_synced(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all(bytes)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| unwritable(&self.path, "write temp file", e))
    }

    /// Renames the file over `target` (atomically replacing it).
    pub(super) fn rename_to(mut self, target: &Path) -> Result<()> {
        fs::rename(&self.path, target).map_err(|e| unwritable(target, "replace", e))?;
        self.owned = false;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.owned {
            // Best effort: a failure leaves a leftover that `check` reports.
            let _ = fs::remove_file(&self.path);
        }
    }
}
