//! The walk memo (docs/performance.md, The walk memo): an expansion of a Git
//! worktree replays its last walk for untracked files only when nothing the
//! walk depends on changed, and then lists exactly what `git ls-files
//! --cached --others --exclude-standard` lists; after any change it walks.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use ledger_core::expand::{Inventory, Scope, progress};
use ledger_testkit::{Git, utf8, write_below};
use proptest::prelude::*;

use crate::disk::writeback_tempdir;

/// The replay count is process-wide: each test here runs alone in a process
/// of its own (`own_process`), where no other test's expansion replays a walk.
/// Whether the test `name` ran there (and the caller returns).
fn ran_alone(name: &str) -> bool {
    crate::own_process::ran_in_child(&format!("walk_memo::{name}"))
}

/// A step of the wait for a tree to age past the cache's timestamp
/// granularity (a tenth of a second where times keep fractions, two seconds
/// where they do not).
const STEP: Duration = Duration::from_millis(120);

fn git() -> Git {
    Git::isolated().identity("t", "t@t")
}

/// A repository with tracked and untracked files, ignored ones, a store, and
/// a `.gitignore` below the top.
fn repository() -> tempfile::TempDir {
    let dir = writeback_tempdir();
    let root = dir.path();
    git().init(root, &[]);
    for (path, text) in [
        (".ledger/.gitignore", "*\n"),
        (".gitignore", "*.log\nbuild/\n"),
        ("src/lib.rs", "lib"),
        ("src/deep/mod.rs", "mod"),
        ("docs/.gitignore", "*.tmp\n"),
        ("docs/guide.md", "guide"),
    ] {
        write_below(root, path, text);
    }
    git().commit_all(root, "start");
    for (path, text) in [
        ("notes.txt", "untracked"),
        ("new/a.txt", "a"),
        ("new/deeper/b.txt", "b"),
        ("docs/draft.tmp", "ignored"),
        ("run.log", "ignored"),
        ("build/out.bin", "ignored"),
    ] {
        write_below(root, path, text);
    }
    dir
}

fn replays() -> u64 {
    progress().walks_replayed
}

/// Expands `root` as a whole; whether the walk was replayed from its memo.
/// The answer (entries and fingerprint, or the error) is checked against an
/// expansion without the cache, and a listing against git's.
fn expand_checked(root: &Path) -> bool {
    let mut scope = Scope::new(utf8(root));
    scope.add_root(".").unwrap();
    let (answer, replayed) = expand_compared(&scope);
    if let Ok(inventory) = answer {
        let listed: Vec<String> = inventory
            .entries
            .iter()
            .map(|entry| entry.path.as_str().to_owned())
            .collect();
        let mut oracle = git().listed(root);
        oracle.retain(|path| !path.starts_with(b".ledger/"));
        let oracle: Vec<String> = oracle
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        assert_eq!(listed, oracle);
    }
    replayed
}

/// Expands `scope` with the cache (and the walk memo) and without, and checks
/// that both answer the same; the answer with the cache, and whether its walk
/// was replayed.
fn expand_compared(scope: &Scope) -> (Result<Inventory, String>, bool) {
    let before = replays();
    let cached = Inventory::expand(scope).map_err(|e| e.to_string());
    let replayed = replays() > before;
    let uncached = Inventory::expand(&uncached_scope(scope)).map_err(|e| e.to_string());
    let fingerprint = |answer: &Result<Inventory, String>| {
        answer.as_ref().map(|i| i.fingerprint).map_err(Clone::clone)
    };
    assert_eq!(
        fingerprint(&cached),
        fingerprint(&uncached),
        "replayed: {replayed}"
    );
    (cached, replayed)
}

/// Waits until the tree has aged past the granularity: an expansion then
/// remembers the walk, and the next one replays it. The wait is bounded.
fn settle(root: &Path) {
    for _ in 0..50 {
        std::thread::sleep(STEP);
        expand_checked(root);
        if expand_checked(root) {
            return;
        }
    }
    panic!("an aged, unchanged tree was never replayed");
}

/// A change to a worktree, named.
type Change = (&'static str, Box<dyn Fn(&Path)>);

/// Each change a walk depends on: what it does to the worktree.
fn changes() -> Vec<Change> {
    vec![
        (
            "a new untracked file",
            Box::new(|r| write_below(r, "src/new.rs", "n")),
        ),
        (
            "a new file in an untracked directory",
            Box::new(|r| write_below(r, "new/deeper/c.txt", "c")),
        ),
        (
            "an untracked file removed",
            Box::new(|r| std::fs::remove_file(r.join("notes.txt")).unwrap()),
        ),
        (
            "an untracked file renamed",
            Box::new(|r| std::fs::rename(r.join("new/a.txt"), r.join("new/z.txt")).unwrap()),
        ),
        (
            "a new directory",
            Box::new(|r| write_below(r, "fresh/dir/f.txt", "f")),
        ),
        (
            "a .gitignore rewritten",
            Box::new(|r| write_below(r, "docs/.gitignore", "*.md\n")),
        ),
        (
            "a .gitignore added below",
            Box::new(|r| write_below(r, "new/.gitignore", "*.txt\n")),
        ),
        (
            "info/exclude rewritten",
            Box::new(|r| write_below(r, ".git/info/exclude", "src/\n")),
        ),
        (
            "a file added to the index",
            Box::new(|r| {
                git().run(r, &["add", "notes.txt"]);
            }),
        ),
        (
            "a file removed from the index",
            Box::new(|r| {
                git().run(r, &["rm", "-q", "--cached", "src/lib.rs"]);
            }),
        ),
        (
            "core.excludesFile set",
            Box::new(|r| {
                write_below(r, ".git/excludes", "*.rs\n");
                let file = r.join(".git/excludes");
                git().run(r, &["config", "core.excludesFile", file.to_str().unwrap()]);
            }),
        ),
        (
            "an ignored directory replaced by a symlink",
            Box::new(|r| {
                std::fs::remove_dir_all(r.join("build")).unwrap();
                symlink("src", r.join("build")).unwrap();
            }),
        ),
        (
            "a file replaced by a directory",
            Box::new(|r| {
                std::fs::remove_file(r.join("notes.txt")).unwrap();
                write_below(r, "notes.txt/inner", "i");
            }),
        ),
    ]
}

#[test]
fn every_change_a_walk_depends_on_is_seen() {
    if ran_alone("every_change_a_walk_depends_on_is_seen") {
        return;
    }
    for (what, change) in changes() {
        let dir = repository();
        let root = dir.path();
        settle(root);
        change(root);
        // Whether the walk after it is remembered depends on how long ago the
        // change was (the racily-clean rule): only the first is asserted.
        assert!(!expand_checked(root), "{what}: replayed after the change");
    }
}

#[test]
fn a_nested_repository_made_is_seen() {
    if ran_alone("a_nested_repository_made_is_seen") {
        return;
    }
    let dir = repository();
    let root = dir.path();
    settle(root);
    git().init(&root.join("new"), &[]);
    let mut scope = Scope::new(utf8(root));
    scope.add_root(".").unwrap();
    let (answer, _) = expand_compared(&scope);
    assert!(answer.unwrap_err().contains("new"));
}

/// Expands `root` `times` times, a step apart, asserting that no walk is
/// replayed: the tree ages past the granularity meanwhile, so a memo that
/// were kept would be replayed.
fn never_replayed(root: &Path, times: usize, what: &str) {
    for _ in 0..times {
        std::thread::sleep(STEP);
        assert!(!expand_checked(root), "{what}: replayed");
    }
}

/// What decides that a directory is a nested repository lies in its `.git`,
/// which can change without moving the directory's times: a `.git` file
/// rewritten in place to name a real gitdir turns `sub` into a nested
/// repository. A walk that met a `.git` file is never remembered.
#[test]
fn a_git_file_rewritten_in_place_is_seen() {
    if ran_alone("a_git_file_rewritten_in_place_is_seen") {
        return;
    }
    let dir = repository();
    let root = dir.path();
    let other = tempfile::tempdir().unwrap();
    git().init(other.path(), &[]);
    write_below(root, "sub/f", "f");
    write_below(root, "sub/.git", "gitdir: /nonexistent/ledger-test\n");
    never_replayed(root, 20, "a walk that met a .git file");
    let real = format!("gitdir: {}\n", other.path().join(".git").display());
    std::fs::write(root.join("sub/.git"), real).unwrap();
    let mut scope = Scope::new(utf8(root));
    scope.add_root(".").unwrap();
    let (answer, _) = expand_compared(&scope);
    assert!(answer.unwrap_err().contains("'sub'"));
}

/// An empty `.git` directory makes no repository; `git init` fills it
/// without moving its parent's times, but moves its own.
#[test]
fn an_empty_git_directory_filled_is_seen() {
    if ran_alone("an_empty_git_directory_filled_is_seen") {
        return;
    }
    let dir = repository();
    let root = dir.path();
    write_below(root, "sub/f", "f");
    std::fs::create_dir(root.join("sub/.git")).unwrap();
    settle(root);
    git().init(&root.join("sub"), &[]);
    let mut scope = Scope::new(utf8(root));
    scope.add_root(".").unwrap();
    let (answer, _) = expand_compared(&scope);
    assert!(answer.unwrap_err().contains("'sub'"));
}

#[test]
fn declared_repositories_are_remembered_apart_and_a_lost_git_is_seen() {
    if ran_alone("declared_repositories_are_remembered_apart_and_a_lost_git_is_seen") {
        return;
    }
    let dir = repository();
    let root = dir.path();
    git().init(&root.join("new/deeper"), &[]);
    write_below(root, "new/deeper/inner/early.txt", "e");
    let mut scope = Scope::new(utf8(root));
    scope.add_repository(".").unwrap();
    scope.add_repository("new/deeper").unwrap();
    scope.add_root(".").unwrap();
    let replayed = |scope: &Scope| {
        let before = replays();
        let (answer, _) = expand_compared(scope);
        answer.unwrap();
        replays() - before
    };
    let mut settled = false;
    for _ in 0..50 {
        std::thread::sleep(STEP);
        replayed(&scope);
        if replayed(&scope) == 2 {
            settled = true;
            break;
        }
    }
    assert!(
        settled,
        "both repositories' walks are replayed from one store"
    );
    // The outer walk watches the nested repository's top directory (and its
    // `.git`), not what lies below.
    write_below(root, "new/deeper/inner/late.txt", "l");
    assert_eq!(
        replayed(&scope),
        1,
        "only the worktree whose directory changed walks"
    );
    std::fs::remove_dir_all(root.join("new/deeper/.git")).unwrap();
    let (answer, _) = expand_compared(&scope);
    assert!(answer.is_err());
}

#[test]
fn a_subdirectory_is_remembered_in_its_own_store() {
    if ran_alone("a_subdirectory_is_remembered_in_its_own_store") {
        return;
    }
    let dir = repository();
    let root = dir.path();
    let sub = root.join("new");
    write_below(root, "new/.ledger/.gitignore", "*\n");
    settle(&sub);
    write_below(root, "new/deeper/late.txt", "l");
    assert!(!expand_checked(&sub));
    write_below(root, "src/elsewhere.txt", "e");
    settle(&sub);
    // The listed directory itself is watched: a file made in it, and its own
    // `.gitignore` rewritten.
    write_below(root, "new/direct.txt", "d");
    assert!(!expand_checked(&sub));
    settle(&sub);
    write_below(root, "new/.gitignore", "*.txt\n");
    assert!(!expand_checked(&sub));
    settle(&sub);
}

#[test]
fn a_damaged_memo_is_discarded() {
    if ran_alone("a_damaged_memo_is_discarded") {
        return;
    }
    let dir = repository();
    let root = dir.path();
    settle(root);
    let memo = root.join(".ledger/walk-memo");
    let mut bytes = std::fs::read(&memo).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&memo, bytes).unwrap();
    assert!(!expand_checked(root));
}

/// One structural step on a worktree.
#[derive(Debug, Clone)]
enum Op {
    File(u8, u8),
    Remove(u8, u8),
    Ignore(u8, u8),
    Add(u8, u8),
    Expand,
}

fn op() -> impl Strategy<Value = Op> {
    let d = 0u8..4;
    let f = 0u8..4;
    prop_oneof![
        (d.clone(), f.clone()).prop_map(|(d, f)| Op::File(d, f)),
        (d.clone(), f.clone()).prop_map(|(d, f)| Op::Remove(d, f)),
        (d.clone(), f.clone()).prop_map(|(d, f)| Op::Ignore(d, f)),
        (d, f).prop_map(|(d, f)| Op::Add(d, f)),
        Just(Op::Expand),
    ]
}

fn apply(root: &Path, op: &Op) {
    let file = |d: u8, f: u8| format!("d{d}/f{f}.txt");
    match *op {
        Op::File(d, f) => write_below(root, &file(d, f), "x"),
        Op::Remove(d, f) => {
            let _ = std::fs::remove_file(root.join(file(d, f)));
        }
        Op::Ignore(d, f) => write_below(root, &format!("d{d}/.gitignore"), &format!("f{f}.txt\n")),
        Op::Add(d, f) => {
            if root.join(file(d, f)).is_file() {
                git().run(root, &["add", "-f", &file(d, f)]);
            }
        }
        Op::Expand => {
            expand_checked(root);
        }
    }
}

/// Random structural steps on a remembered worktree: every expansion lists
/// what git lists.
#[test]
fn a_replayed_walk_never_changes_the_answer() {
    if ran_alone("a_replayed_walk_never_changes_the_answer") {
        return;
    }
    let config = ProptestConfig {
        cases: 12,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    };
    proptest!(config, |(steps in prop::collection::vec(op(), 1..10))| {
        let dir = repository();
        let root = dir.path();
        settle(root);
        for step in &steps {
            apply(root, step);
        }
        expand_checked(root);
    });
}

/// `scope` expanded without the digest cache (a setting of its own).
fn uncached_scope(scope: &Scope) -> Scope {
    scope.clone().with_settings(ledger_core::Settings {
        digest_cache: false,
        ..ledger_core::Settings::default()
    })
}
