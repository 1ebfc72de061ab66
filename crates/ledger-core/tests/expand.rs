//! Expansion through the public API: determinism across thread counts, and the
//! walked-root rules outside Git.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use camino::Utf8Path;
use ledger_core::{Inventory, Scope};

fn tree(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..files {
        let sub = dir.path().join(format!("d{}", i % 13));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("f{i}")),
            vec![(i % 251) as u8; i * 37 % 5000],
        )
        .unwrap();
    }
    dir
}

fn scope_of(dir: &tempfile::TempDir) -> Scope {
    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root(".").unwrap();
    scope
}

#[test]
fn result_does_not_depend_on_thread_count() {
    let dir = tree(600);
    let scope = scope_of(&dir);
    let expand_with = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Inventory::expand(&scope).unwrap())
    };
    let one = expand_with(1);
    assert_eq!(one.entries.len(), 600);
    for threads in [2, 3, 8] {
        assert_eq!(expand_with(threads), one, "{threads} threads");
    }
}

#[test]
fn the_reported_error_is_the_first_in_path_order_whatever_the_threads() {
    let dir = tree(200);
    for name in ["d3/zz.fifo", "d1/aa.fifo"] {
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join(name))
            .status()
            .unwrap();
        assert!(status.success());
    }
    let scope = scope_of(&dir);
    for threads in [1, 2, 8] {
        let err = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Inventory::expand(&scope).unwrap_err());
        assert_eq!(err.code(), "special-file");
        assert_eq!(err.path(), Some("d1/aa.fifo"), "{threads} threads");
    }
}

#[test]
fn previous_paths_stay_as_missing() {
    let dir = tree(3);
    let scope = scope_of(&dir);
    let before = Inventory::expand(&scope).unwrap();
    std::fs::remove_file(dir.path().join("d0/f0")).unwrap();
    let after = Inventory::expand_with(&scope, before.entries.iter().map(|e| &e.path)).unwrap();
    assert_eq!(after.entries.len(), 3);
    let gone = after
        .entries
        .iter()
        .find(|e| e.path.as_str() == "d0/f0")
        .unwrap();
    assert_eq!(
        (gone.kind(), gone.mode(), gone.digest_text().as_str()),
        ("missing", "-", "-")
    );
    assert_ne!(after.fingerprint, before.fingerprint);
}

#[test]
fn resolved_scope_is_absolute_and_keeps_the_store_exclusion() {
    let dir = tree(1);
    std::fs::create_dir_all(dir.path().join(".ledger")).unwrap();
    std::fs::write(dir.path().join(".ledger/record"), b"r").unwrap();
    let inv = Inventory::expand(&scope_of(&dir)).unwrap();
    assert!(inv.scope.workspace.is_absolute());
    assert_eq!(inv.walked_roots, ["."]);
    assert!(
        inv.entries
            .iter()
            .all(|e| !e.path.as_str().starts_with(".ledger"))
    );
}

#[test]
fn a_missing_workspace_is_unreadable() {
    let scope = Scope::new("/nonexistent/ledger/workspace");
    let err = Inventory::expand(&scope).unwrap_err();
    assert_eq!(err.code(), "unreadable");
    assert!(
        err.to_string().contains("/nonexistent/ledger/workspace"),
        "{err}"
    );
}
