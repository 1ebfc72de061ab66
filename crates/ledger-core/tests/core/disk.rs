//! The disk helpers of the core's integration tests: a temporary directory
//! whose file system has writeback, and the page-cache probes that set up a
//! cold read. They call the platform layer's probes (`ledger_core::probe`),
//! so no test names the operating system for them; they live here rather
//! than in `ledger-testkit`, which must not depend on ledger-core (the
//! packaged crate's tests take the test kit from the checkout, and a second
//! ledger-core there would collide with the unpacked one).
#![allow(dead_code, clippy::panic)]

use std::fs::File;
use std::path::{Path, PathBuf};

fn fail(message: &str) -> ! {
    panic!("{message}")
}

/// A new temporary directory on a file system with writeback: the digest cache
/// records only files on one whose writeback it can force (docs/performance.md,
/// The cache's safety rule), and the temporary directory may be a tmpfs — then
/// one in `/var/tmp`, which is kept on disk.
pub fn writeback_tempdir() -> tempfile::TempDir {
    let temp = std::env::temp_dir();
    let parent = match is_tmpfs(&temp) {
        true => PathBuf::from("/var/tmp"),
        false => temp,
    };
    tempfile::tempdir_in(&parent)
        .unwrap_or_else(|e| fail(&format!("cannot make a directory in {parent:?}: {e}")))
}

/// Whether `dir` is on a file system in memory (a tmpfs).
pub fn is_tmpfs(dir: &Path) -> bool {
    ledger_core::probe::in_memory(dir)
}

/// Drops the page cache's copy of the file `path` (written back first), so
/// that the next read of it waits on the disk — where the file system lets go
/// of its pages ([`cached`] tells).
pub fn drop_pages(path: &Path) {
    let dropped = File::open(path).and_then(|file| {
        file.sync_all()?;
        // Linux lets go of them; elsewhere the pages stay and [`cached`]
        // says so.
        ledger_core::probe::drop_pages(&file)
    });
    if let Err(e) = dropped {
        fail(&format!("cannot drop the pages of {path:?}: {e}"));
    }
}

/// Whether a read that must not wait (`RWF_NOWAIT`) finds the start of `path`
/// in the page cache: after [`drop_pages`], `false` where the file system let
/// go of them (a tmpfs keeps every page; some file systems refuse such reads).
pub fn cached(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    ledger_core::probe::cached(&file)
}
