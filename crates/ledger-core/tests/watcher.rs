//! The opt-in watcher (docs/performance.md, The watcher) against a real
//! Watchman: with it on, a remembered walk is replayed on Watchman's word
//! only when every change since its clock is one the walk does not depend on;
//! otherwise the directories are looked at, or the worktree walked, as
//! without it. Every answer equals an expansion without the cache and git's
//! listing. One test: it sets the process's `WATCHMAN_SOCK` first.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::time::Duration;

use ledger_core::expand::{Inventory, Scope, progress, set_digest_cache, set_watchman};
use ledger_testkit::{Git, SharedWriter, WatchmanServer, utf8};

fn git() -> Git {
    Git::isolated().identity("t", "t@t")
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository with tracked, untracked and ignored files and a store, on a
/// file system with writeback (see tests/digest_cache.rs).
fn repository() -> tempfile::TempDir {
    let temp = std::env::temp_dir();
    let on_tmpfs = rustix::fs::statfs(&temp).is_ok_and(|fs| fs.f_type as u64 == 0x0102_1994);
    let dir = match on_tmpfs {
        true => tempfile::tempdir_in("/var/tmp").unwrap(),
        false => tempfile::tempdir_in(temp).unwrap(),
    };
    let root = dir.path();
    git().init(root, &[]);
    for (path, text) in [
        (".ledger/.gitignore", "*\n"),
        (".gitignore", "build/\n"),
        ("src/lib.rs", "lib"),
        ("src/big.bin", &"b".repeat(8192)),
    ] {
        write(root, path, text);
    }
    git().commit_all(root, "start");
    for (path, text) in [("notes.txt", "n"), ("new/a.txt", "a"), ("build/out", "o")] {
        write(root, path, text);
    }
    dir
}

/// A change to a worktree, named.
type Change<'a> = (&'a str, &'a dyn Fn(&Path));

/// How an expansion went: whether its walk was replayed, and on Watchman's word.
#[derive(Debug, PartialEq, Eq)]
enum Walk {
    Walked,
    Looked,
    Vouched,
}

/// Expands `root` with the cache and the watcher, checks the answer against
/// one without either and against git's listing.
fn expand_checked(root: &Path) -> Walk {
    let mut scope = Scope::new(utf8(root));
    scope.add_root(".").unwrap();
    let before = progress();
    let watched = Inventory::expand(&scope).unwrap();
    let after = progress();
    set_digest_cache(false);
    set_watchman(false);
    let plain = Inventory::expand(&scope).unwrap();
    set_digest_cache(true);
    set_watchman(true);
    assert_eq!(watched.fingerprint, plain.fingerprint);
    assert_eq!(watched.entries, plain.entries);
    let listed: Vec<Vec<u8>> = watched
        .entries
        .iter()
        .map(|e| e.path.as_str().as_bytes().to_vec())
        .collect();
    let mut oracle = git().listed(root);
    oracle.retain(|p| !p.starts_with(b".ledger/"));
    assert_eq!(listed, oracle.into_iter().collect::<Vec<_>>());
    match (
        after.walks_vouched - before.walks_vouched,
        after.walks_replayed - before.walks_replayed,
    ) {
        (0, 0) => Walk::Walked,
        (0, 1) => Walk::Looked,
        (1, 1) => Walk::Vouched,
        other => panic!("one walk, counted {other:?}"),
    }
}

/// Waits (bounded) until the tree is old enough for its walk to be
/// remembered, and returns once an expansion replays it on Watchman's word.
fn settle(root: &Path) {
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(120));
        expand_checked(root);
        if expand_checked(root) == Walk::Vouched {
            return;
        }
    }
    panic!("an aged, unchanged tree was never vouched for");
}

#[test]
fn the_watcher_vouches_only_for_what_cannot_change_the_answer() {
    let mut server = WatchmanServer::start();
    // SAFETY: the only test of this binary sets it before any thread reads
    // the environment.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("WATCHMAN_SOCK", server.sock());
    }
    set_watchman(true);

    let dir = repository();
    let root = dir.path();
    settle(root);

    // Rewrites of files the walk knew, and of ignored ones: vouched, and the
    // digest cache still reads each rewritten file.
    write(root, "notes.txt", "rewritten");
    write(root, "src/lib.rs", "rewritten");
    write(root, "build/out", "rewritten");
    write(root, "build/more/new", "ignored");
    assert_eq!(expand_checked(root), Walk::Vouched);

    // A write through a shared mapping moves no inotify event: Watchman says
    // nothing, and the file is still answered by its status, never by Watchman.
    let mut map = SharedWriter::open(&root.join("src/big.bin"));
    map.poke(0, b'M');
    map.msync();
    assert_eq!(expand_checked(root), Walk::Vouched);
    map.poke(1, b'N');
    assert_eq!(expand_checked(root), Walk::Vouched);
    map.close();

    // What the walk depends on: never vouched for.
    let structural: [Change<'_>; 6] = [
        ("a new untracked file", &|r| write(r, "new/b.txt", "b")),
        ("a removed untracked file", &|r| {
            std::fs::remove_file(r.join("notes.txt")).unwrap()
        }),
        ("a new directory", &|r| write(r, "fresh/f", "f")),
        ("a .gitignore rewritten", &|r| {
            write(r, ".gitignore", "build/\n*.txt\n")
        }),
        ("a file added to the index", &|r| {
            git().run(r, &["add", "-f", "new/a.txt"]);
        }),
        ("a renamed directory", &|r| {
            std::fs::rename(r.join("new"), r.join("newer")).unwrap()
        }),
    ];
    for (what, change) in structural {
        change(root);
        assert_ne!(expand_checked(root), Walk::Vouched, "{what}");
        settle(root);
    }

    // A restarted Watchman (a fresh instance) vouches for nothing: the
    // directories are looked at instead, and the clock is taken anew.
    server.restart();
    assert_eq!(expand_checked(root), Walk::Looked);
    settle(root);

    // Without Watchman the same answer, by looking at the directories.
    drop(server);
    assert_eq!(expand_checked(root), Walk::Looked);
}
