//! Expansion at a revision (`Inventory::expand_at`) against the working tree's
//! expansion and the git CLI: a clean checkout fingerprints the same either
//! way, the revision ignores later edits, revisions resolve as `git rev-parse`
//! resolves them, and what the working tree refuses is refused with its code.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use ledger_core::expand::{AtRevision, Inventory, Scope};
use ledger_core::tasks::TaskRule;
use ledger_testkit::{Git, utf8};

fn git() -> Git {
    Git::isolated().identity("t", "t@t")
}

/// A new repository with branch `main`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git().init(dir.path(), &["-b", "main"]);
    dir
}

fn write(root: &Path, path: &str, bytes: &[u8], executable: bool) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(&full, bytes).unwrap();
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn link(root: &Path, path: &str, target: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    symlink(target, full).unwrap();
}

/// The whole workspace `dir`.
fn whole(dir: &Path) -> Scope {
    let mut scope = Scope::new(utf8(dir));
    scope.add_root(".").unwrap();
    scope
}

fn at(scope: &Scope, rev: &str) -> AtRevision {
    Inventory::expand_at(scope, rev).unwrap_or_else(|e| panic!("{rev}: {e}"))
}

fn rev_parse(dir: &Path, rev: &str) -> String {
    let out = git().stdout(
        dir,
        &["rev-parse", "--verify", "-q", &format!("{rev}^{{commit}}")],
    );
    String::from_utf8(out).unwrap().trim().to_owned()
}

fn paths(inventory: &Inventory) -> Vec<&str> {
    inventory.entries.iter().map(|e| e.path.as_str()).collect()
}

mod generated_trees {
    use super::*;
    use proptest::prelude::*;

    /// How a generated path is made.
    #[derive(Debug, Clone)]
    enum Kind {
        File(Vec<u8>),
        Executable(Vec<u8>),
        Symlink(String),
    }

    /// Directories have no `.`, file names end in `.f`: no path is both.
    /// Names hold spaces, tabs, newlines, quotes, backslashes and non-ASCII.
    fn tree() -> impl Strategy<Value = Vec<(String, Kind)>> {
        let kind = prop_oneof![
            prop::collection::vec(any::<u8>(), 0..48).prop_map(Kind::File),
            prop::collection::vec(any::<u8>(), 0..48).prop_map(Kind::Executable),
            // Existing, dangling, upward and odd targets alike.
            "[a-c./ é\\\\-]{1,8}".prop_map(Kind::Symlink),
        ];
        prop::collection::btree_map(
            "([a-c]{1,2}/){0,2}[a-c][a-c \\t\\n\"\\\\é*?#-]{0,3}\\.f",
            kind,
            1..10,
        )
        .prop_map(|m| m.into_iter().collect())
    }

    const TASKS: &[u8] = b"- [x] 1.1 [core] A\n- [ ] 1.2 [docs] B\n  * [X] 2.1 C\r\n1. [x] D";

    fn build(dir: &Path, files: &[(String, Kind)], tasks_executable: bool) {
        for (path, kind) in files {
            match kind {
                Kind::File(bytes) => write(dir, path, bytes, false),
                Kind::Executable(bytes) => write(dir, path, bytes, true),
                Kind::Symlink(target) => link(dir, path, target),
            }
        }
        write(dir, "b/tasks.md", TASKS, tasks_executable);
        write(dir, ".gitignore", b"*.log\n", false);
        write(dir, "a/ignored.log", b"ignored", false);
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 32,
            failure_persistence: crate::regressions(),
            ..ProptestConfig::default()
        })]

        /// A clean checkout: the commit's tree and the disk give the same
        /// entries and fingerprint, whatever the roots, exclusions and rule.
        #[test]
        fn a_clean_checkout_fingerprints_as_its_head(
            files in tree(),
            openspec in any::<bool>(),
            tasks_executable in any::<bool>(),
            exclude_a in any::<bool>(),
            only_b in any::<bool>(),
        ) {
            let dir = repository();
            build(dir.path(), &files, tasks_executable);
            git().commit_all(dir.path(), "tree");
            let mut scope = Scope::new(utf8(dir.path()));
            scope.add_root(if only_b { "b" } else { "." }).unwrap();
            if exclude_a {
                scope.exclude("a", "generated").unwrap();
            }
            let rule = if openspec { TaskRule::OpenspecCheckbox } else { TaskRule::TaskCheckboxV1 };
            scope.add_tasks_with("b/tasks.md", rule).unwrap();
            scope.add_path("gone/nowhere.f").unwrap();
            let disk = Inventory::expand(&scope).unwrap();
            let head = at(&scope, "HEAD");
            prop_assert_eq!(&head.inventory.entries, &disk.entries);
            prop_assert_eq!(head.inventory.fingerprint, disk.fingerprint);
            prop_assert_eq!(&head.inventory, &disk);
            prop_assert_eq!(head.commit, rev_parse(dir.path(), "HEAD"));
        }
    }
}

/// Edits of the working tree after the commit change the disk's fingerprint,
/// never the commit's.
#[test]
fn the_revision_ignores_the_working_tree() {
    let dir = repository();
    write(dir.path(), "a.txt", b"hello\n", false);
    write(dir.path(), "run.sh", b"#!/bin/sh\n", true);
    write(dir.path(), "d/gone.txt", b"bye\n", false);
    link(dir.path(), "link", "a.txt");
    git().commit_all(dir.path(), "one");
    let scope = whole(dir.path());
    let before = Inventory::expand(&scope).unwrap();
    assert_eq!(at(&scope, "HEAD").inventory, before);

    write(dir.path(), "a.txt", b"changed\n", false);
    std::fs::set_permissions(
        dir.path().join("run.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::remove_file(dir.path().join("d/gone.txt")).unwrap();
    std::fs::remove_file(dir.path().join("link")).unwrap();
    link(dir.path(), "link", "run.sh");
    write(dir.path(), "untracked.txt", b"new\n", false);
    git().run(dir.path(), &["add", "a.txt"]); // staged, not committed

    let now = Inventory::expand(&scope).unwrap();
    let head = at(&scope, "HEAD");
    assert_ne!(now.fingerprint, before.fingerprint);
    assert_eq!(head.inventory.fingerprint, before.fingerprint);
    assert_eq!(head.inventory.entries, before.entries);
    assert_ne!(head.inventory.fingerprint, now.fingerprint);
}

/// Every form of revision names the commit `git rev-parse` names, reported by
/// its full id; what names no commit is refused, naming the revision.
#[test]
fn revisions_resolve_as_git_resolves_them() {
    let dir = repository();
    write(dir.path(), "a.txt", b"one\n", false);
    git().commit_all(dir.path(), "one");
    git().run(dir.path(), &["tag", "-a", "-m", "v1", "v1"]);
    write(dir.path(), "a.txt", b"two\n", false);
    git().commit_all(dir.path(), "two");
    git().run(dir.path(), &["branch", "side", "HEAD~1"]);
    let scope = whole(dir.path());
    let first = rev_parse(dir.path(), "HEAD~1");
    let second = rev_parse(dir.path(), "HEAD");
    let short = &first[..7];
    for (rev, expected) in [
        ("HEAD", &second),
        ("@", &second),
        ("HEAD@{0}", &second),
        ("main", &second),
        ("refs/heads/main", &second),
        ("HEAD~1", &first),
        ("HEAD^", &first),
        ("main^1", &first),
        ("@~", &first),
        ("side", &first),
        ("v1", &first),
        ("v1^{}", &first),
        ("v1^{commit}", &first),
        ("v1~0", &first),
        (short, &first),
        (first.as_str(), &first),
        (&second.to_uppercase()[..10], &second),
    ] {
        assert_eq!(&rev_parse(dir.path(), rev), expected, "git: {rev}");
        let result = at(&scope, rev);
        assert_eq!(&result.commit, expected, "{rev}");
        assert_eq!(result.commit.len(), 40);
        assert!(
            result
                .commit
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }
    assert_ne!(
        at(&scope, "HEAD~1").inventory.fingerprint,
        at(&scope, "HEAD").inventory.fingerprint
    );

    let blob = String::from_utf8(git().stdout(dir.path(), &["rev-parse", "HEAD:a.txt"])).unwrap();
    for rev in [
        "nope",
        "HEAD~2",
        "HEAD^2",
        "HEAD:a.txt",
        "HEAD^{tree}",
        "",
        "~1",
        "deadbeef",
        blob.trim(),
        "0000000000000000000000000000000000000000",
    ] {
        let err = Inventory::expand_at(&scope, rev).unwrap_err();
        assert_eq!(err.code(), "invalid-argument", "{rev}: {err}");
        assert!(err.to_string().contains(&format!("'{rev}'")), "{err}");
    }
}

/// A repository without commits has no `HEAD` to read.
#[test]
fn an_unborn_head_is_refused() {
    let dir = repository();
    write(dir.path(), "a.txt", b"one\n", false);
    let err = Inventory::expand_at(&whole(dir.path()), "HEAD").unwrap_err();
    assert_eq!(err.code(), "invalid-argument", "{err}");
}

/// A submodule (gitlink) in scope blocks as it blocks the working tree; out of
/// scope it is not read; a path below it is not in this repository's objects.
#[test]
fn a_submodule_in_scope_is_refused_with_the_working_tree_s_code() {
    let dir = repository();
    write(dir.path(), "a.txt", b"one\n", false);
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    git().init(&sub, &[]);
    write(&sub, "inside.txt", b"inside\n", false);
    git().commit_all(&sub, "inner");
    git().commit_all(dir.path(), "with a gitlink");
    let tree = git().stdout(dir.path(), &["ls-tree", "HEAD", "sub"]);
    assert!(
        tree.starts_with(b"160000 commit "),
        "{}",
        String::from_utf8_lossy(&tree)
    );

    let mut rooted_inside = Scope::new(utf8(dir.path()));
    rooted_inside.add_root("sub/inside.txt").unwrap();
    for scope in [whole(dir.path()), rooted_inside] {
        let disk = Inventory::expand(&scope).unwrap_err();
        let head = Inventory::expand_at(&scope, "HEAD").unwrap_err();
        assert_eq!(disk.code(), "nested-repository");
        assert_eq!(
            (head.code(), head.path()),
            (disk.code(), disk.path()),
            "{head}"
        );
    }

    let mut excluded = whole(dir.path());
    excluded.exclude("sub", "a submodule").unwrap();
    assert_eq!(
        at(&excluded, "HEAD").inventory,
        Inventory::expand(&excluded).unwrap()
    );
    assert_eq!(paths(&at(&excluded, "HEAD").inventory), ["a.txt"]);

    excluded.add_path("sub/inside.txt").unwrap();
    let err = Inventory::expand_at(&excluded, "HEAD").unwrap_err();
    assert_eq!((err.code(), err.path()), ("nested-repository", Some("sub")));
}

/// Exclusions and the store's exclusion apply to the tree; explicit paths are
/// added, missing where the tree has none.
#[test]
fn exclusions_and_explicit_paths_apply_as_in_the_working_tree() {
    let dir = repository();
    for path in ["src/a.rs", "src/gen/out.rs", "docs/x.md", "notes.txt"] {
        write(dir.path(), path, path.as_bytes(), false);
    }
    write(dir.path(), ".ledger/record", b"committed by mistake", false);
    git().commit_all(dir.path(), "one");
    std::fs::remove_dir_all(dir.path().join(".ledger")).unwrap();

    let mut scope = Scope::new(utf8(dir.path()));
    scope.add_root("src").unwrap();
    scope.add_root(".").unwrap();
    scope.exclude("src/gen", "generated").unwrap();
    scope.exclude("docs", "not reviewed").unwrap();
    scope.add_path("docs/x.md").unwrap();
    scope.add_path("absent.txt").unwrap();
    let head = at(&scope, "HEAD");
    assert_eq!(
        paths(&head.inventory),
        ["absent.txt", "docs/x.md", "notes.txt", "src/a.rs"]
    );
    assert_eq!(head.inventory.entries[0].kind(), "missing");
    git().run(dir.path(), &["rm", "-rq", "--cached", ".ledger"]);
    assert_eq!(head.inventory, Inventory::expand(&scope).unwrap());
}

/// Explicit paths the working tree refuses are refused with the same code.
#[test]
fn explicit_paths_are_read_as_the_working_tree_reads_them() {
    let dir = repository();
    write(dir.path(), "real/f.txt", b"f\n", false);
    write(dir.path(), "plain", b"p\n", false);
    link(dir.path(), "via", "real");
    git().commit_all(dir.path(), "one");
    for (path, code) in [
        ("via/f.txt", Some("symlinked-parent")),
        ("real", Some("special-file")),
        ("plain/below", None),
        ("none/below", None),
    ] {
        let mut scope = Scope::new(utf8(dir.path()));
        scope.add_path(path).unwrap();
        let disk = Inventory::expand(&scope);
        let head = Inventory::expand_at(&scope, "HEAD");
        match code {
            Some(code) => {
                assert_eq!(disk.unwrap_err().code(), code, "{path}");
                let err = head.unwrap_err();
                assert_eq!((err.code(), err.path()), (code, Some(path)), "{err}");
            }
            None => assert_eq!(head.unwrap().inventory, disk.unwrap(), "{path}"),
        }
    }
}

/// A workspace below the top of the worktree reads its own part of the tree.
#[test]
fn a_workspace_below_the_worktree_reads_its_subtree() {
    let dir = repository();
    write(dir.path(), "top.txt", b"top\n", false);
    write(dir.path(), "ws/in.txt", b"in\n", false);
    write(dir.path(), "ws/deep/run.sh", b"run\n", true);
    git().commit_all(dir.path(), "one");
    let scope = whole(&dir.path().join("ws"));
    let head = at(&scope, "HEAD");
    assert_eq!(paths(&head.inventory), ["deep/run.sh", "in.txt"]);
    assert_eq!(head.inventory, Inventory::expand(&scope).unwrap());
}

/// A path that is not UTF-8 is refused as the working tree refuses it.
#[test]
fn a_non_utf8_path_is_refused_with_the_working_tree_s_code() {
    let dir = repository();
    let name = OsStr::from_bytes(b"bad\xff.txt");
    std::fs::write(dir.path().join(name), b"x").unwrap();
    git().commit_all(dir.path(), "one");
    let scope = whole(dir.path());
    let disk = Inventory::expand(&scope).unwrap_err();
    let head = Inventory::expand_at(&scope, "HEAD").unwrap_err();
    assert_eq!(disk.code(), "non-utf8-path");
    assert_eq!((head.code(), head.path()), (disk.code(), disk.path()));
}

/// One repository per revision: outside Git there is none, and a scope that
/// declares nested repositories is refused.
#[test]
fn a_scope_beyond_one_repository_is_refused() {
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "a.txt", b"a\n", false);
    let err = Inventory::expand_at(&whole(plain.path()), "HEAD").unwrap_err();
    assert_eq!(err.code(), "git", "{err}");

    let dir = repository();
    write(dir.path(), "a.txt", b"a\n", false);
    git().commit_all(dir.path(), "one");
    let mut scope = whole(dir.path());
    scope.add_repository(".").unwrap();
    scope.add_repository("nested").unwrap();
    let err = Inventory::expand_at(&scope, "HEAD").unwrap_err();
    assert_eq!(err.code(), "invalid-argument", "{err}");
    assert!(err.to_string().contains("'nested'"), "{err}");
}
