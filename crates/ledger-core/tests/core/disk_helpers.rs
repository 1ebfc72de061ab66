//! Reads that wait on the disk call for helper threads (`threads` module docs),
//! and only then: a tree in the page cache is read by one thread per core, a
//! tree whose bytes are not cached gets more threads, and the answer is the
//! same. In a process of its own (`own_process`): whether this process met the
//! disk is process-wide, so no other test may run first, and the helpers
//! counted are the process's threads.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;

use camino::Utf8Path;
use ledger_core::expand::{Inventory, Scope};

use crate::disk::{cached, drop_pages};

/// The threads of this process whose name starts with `prefix`.
fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter(|task| {
            let comm = std::fs::read_to_string(task.as_ref().unwrap().path().join("comm"));
            comm.is_ok_and(|name| name.starts_with(prefix))
        })
        .count()
}

/// Writes `bytes` to `path` and drops the file's pages from the page cache.
fn write_uncached(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
    drop_pages(path);
}

#[test]
fn reads_that_wait_on_the_disk_get_helpers_and_the_same_answer() {
    if crate::own_process::ran_in_child(
        "disk_helpers::reads_that_wait_on_the_disk_get_helpers_and_the_same_answer",
    ) {
        return;
    }
    // On the target directory's file system (a disk, where /tmp may be tmpfs),
    // in a repository of its own (the target directory is ignored by ledger's).
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(init.success());
    let root = dir.path().join("tree");
    for d in 0..3 {
        std::fs::create_dir_all(root.join(format!("d{d}"))).unwrap();
    }
    let files: Vec<_> = (0..600)
        .map(|i| {
            (
                root.join(format!("d{}/f{i}", i % 3)),
                vec![(i % 251) as u8; 5000 + i],
            )
        })
        .collect();
    for (path, bytes) in &files {
        std::fs::write(path, bytes).unwrap();
    }
    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root("tree").unwrap();
    let scope = scope.with_settings(ledger_core::Settings {
        digest_cache: false,
        ..ledger_core::Settings::default()
    });

    let warm = Inventory::expand(&scope).unwrap();
    assert_eq!(warm.entries.len(), files.len());
    assert_eq!(
        threads_named("ledger-disk"),
        0,
        "helpers for files in the page cache"
    );

    // A file system in memory refuses reads that must not wait; it never waits.
    match tempfile::tempdir_in("/dev/shm") {
        Ok(shm) => {
            std::fs::write(shm.path().join("f"), b"in memory").unwrap();
            let mut scope = Scope::new(Utf8Path::from_path(shm.path()).unwrap());
            scope.add_root(".").unwrap();
            assert_eq!(Inventory::expand(&scope).unwrap().entries.len(), 1);
            assert_eq!(threads_named("ledger-disk"), 0, "helpers for a tmpfs");
        }
        Err(e) => eprintln!("no tmpfs at /dev/shm ({e}): that part is skipped"),
    }

    let probe = dir.path().join("probe");
    write_uncached(&probe, b"probe");
    if cached(&probe) {
        eprintln!(
            "skipped: this file system keeps every page cached (tmpfs?) or reads that must not wait are not supported"
        );
        return;
    }
    for (path, bytes) in &files {
        write_uncached(path, bytes);
    }
    let cold = Inventory::expand(&scope).unwrap();
    assert_eq!(cold.fingerprint, warm.fingerprint);
    assert_eq!(cold.entries, warm.entries);
    let cores = std::thread::available_parallelism().unwrap().get();
    let helpers = ledger_core::expand::READS_IN_FLIGHT.saturating_sub(cores);
    assert_eq!(
        threads_named("ledger-disk"),
        helpers,
        "helpers started for uncached files"
    );

    // The helpers stay, and later expansions read with them.
    let again = Inventory::expand(&scope).unwrap();
    assert_eq!(again.fingerprint, warm.fingerprint);
    assert_eq!(threads_named("ledger-disk"), helpers);
}
