//! Expansion through the public API: determinism across thread counts, and the
//! walked-root rules outside Git.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use camino::Utf8Path;
use ledger_core::expand::{Entry, Inventory, Scope};
use ledger_testkit::{Git, utf8};

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
    let expand_with = |threads: usize| Inventory::expand(&with_threads(&scope, threads)).unwrap();
    let one = expand_with(1);
    assert_eq!(one.entries.len(), 600);
    for threads in [2, 3, 8] {
        assert_eq!(expand_with(threads), one, "{threads} threads");
    }
}

/// The default pool's threads at the lowest priority leave large files to the
/// others (docs/performance.md, Threads): every large file is still read, once,
/// whether the index knows its size, the walk finds it, or it sits among small
/// files of its directory.
#[test]
fn large_files_are_read_whatever_the_pool() {
    let dir = repository(60);
    let large = |i: usize| vec![(i * 7 % 251) as u8; (1 << 20) + i * 4099];
    for i in 0..6 {
        std::fs::write(dir.path().join(format!("d{}/large{i}", i % 3)), large(i)).unwrap();
    }
    let repo = Git::isolated().identity("t", "t@t");
    repo.run(dir.path(), &["add", "d0", "d1"]);
    repo.run(dir.path(), &["commit", "-qm", "large files"]);
    for i in 6..9 {
        std::fs::write(dir.path().join(format!("d{}/large{i}", i % 3)), large(i)).unwrap();
    }
    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root(".").unwrap();
    let one = Inventory::expand(&with_threads(&scope, 1)).unwrap();
    let larges = one
        .entries
        .iter()
        .filter(|e| e.path.as_str().contains("/large"));
    assert_eq!(larges.count(), 9);
    for threads in [0, 3] {
        assert_eq!(
            Inventory::expand(&with_threads(&scope, threads)).unwrap(),
            one
        );
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
        let err = Inventory::expand(&with_threads(&scope, threads)).unwrap_err();
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
    assert!(inv.scope.workspace().is_absolute());
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

#[test]
fn a_workspace_that_is_a_file_is_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let scope = Scope::new(Utf8Path::from_path(&file).unwrap());
    let err = Inventory::expand(&scope).unwrap_err();
    assert_eq!(err.code(), "unreadable", "{err}");
    assert!(err.to_string().contains("file.txt"), "{err}");
}

/// The store of a workspace that does not exist is not an empty, clean store.
#[test]
fn the_store_of_a_missing_workspace_is_unreadable() {
    let store =
        ledger_core::records::Store::open(camino::Utf8Path::new("/nonexistent/ledger/workspace"))
            .unwrap();
    for err in [
        store.check().unwrap_err(),
        store.head("changes/x").unwrap_err(),
    ] {
        assert_eq!(err.code(), "unreadable", "{err}");
        assert!(
            err.to_string().contains("/nonexistent/ledger/workspace"),
            "{err}"
        );
    }
    // An existing workspace without a store is empty and clean.
    let dir = tempfile::tempdir().unwrap();
    let store = ledger_core::records::Store::open(utf8(dir.path())).unwrap();
    assert!(store.check().unwrap().is_clean());
    assert_eq!(store.head("changes/x").unwrap(), None);
}

mod generated_trees {
    use super::*;
    use proptest::prelude::*;
    use sha2::{Digest as _, Sha256};
    use std::os::unix::fs::PermissionsExt;

    /// A file: name, content, executable.
    type Spec = (String, Vec<u8>, bool);

    fn tree() -> impl Strategy<Value = Vec<Spec>> {
        prop::collection::btree_map(
            "[a-c]{1,2}(/[a-c]{1,2})?\\.f",
            (prop::collection::vec(any::<u8>(), 0..64), any::<bool>()),
            1..8,
        )
        .prop_map(|m| m.into_iter().map(|(p, (c, x))| (p, c, x)).collect())
    }

    fn build(files: &[Spec]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, content, executable) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, content).unwrap();
            let mode = if *executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        dir
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 24,
            failure_persistence: crate::regressions(),
            ..ProptestConfig::default()
        })]

        #[test]
        fn a_tree_compared_with_itself_matches(files in tree()) {
            let dir = build(&files);
            let inventory = Inventory::expand(&scope_of(&dir)).unwrap();
            prop_assert_eq!(inventory.entries.len(), files.len());
            let c = inventory.compare().unwrap();
            prop_assert!(c.matches && c.changes.is_empty());
            prop_assert_eq!(c.unchanged, files.len());
        }

        /// Edit, chmod, delete, replace by a symlink: each single mutation is
        /// reported, on that path only, and changes the fingerprint.
        #[test]
        fn every_single_file_mutation_is_detected(files in tree(), pick in any::<prop::sample::Index>(), how in 0u8..4) {
            let dir = build(&files);
            let before = Inventory::expand(&scope_of(&dir)).unwrap();
            let (path, content, executable) = &files[pick.index(files.len())];
            let full = dir.path().join(path);
            match how {
                0 => { let mut c = content.clone(); c.push(b'!'); std::fs::write(&full, c).unwrap(); }
                1 => std::fs::set_permissions(&full, std::fs::Permissions::from_mode(if *executable { 0o644 } else { 0o744 })).unwrap(),
                2 => std::fs::remove_file(&full).unwrap(),
                _ => { std::fs::remove_file(&full).unwrap(); std::os::unix::fs::symlink("target", &full).unwrap(); }
            }
            let c = before.compare().unwrap();
            prop_assert!(!c.matches);
            prop_assert!(!c.changes.is_empty());
            prop_assert!(c.changes.iter().all(|ch| ch.path() == path.as_str()), "{:?}", c.changes);
        }

        /// File digests do not depend on where the read chunks end: sizes
        /// around multiples of the 256 KiB read size hash like the whole.
        #[test]
        fn digests_are_independent_of_chunk_boundaries(chunks in 0usize..3, delta in -2i64..3, seed in any::<u8>()) {
            let size = usize::try_from((chunks as i64 * 262_144 + delta).max(0)).unwrap();
            let data: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("f"), &data).unwrap();
            let entry = Entry::read(dir.path(), &ledger_core::WorkspacePath::new("f").unwrap(), false).unwrap();
            let expected: [u8; 32] = Sha256::digest(&data).into();
            prop_assert_eq!(entry.digest().unwrap().0, expected);
        }
    }
}

/// A Git repository holding `tree(files)`: nine of its thirteen directories committed, the rest
/// untracked, plus one ignored file.
fn repository(files: usize) -> tempfile::TempDir {
    let dir = tree(files);
    let repo = Git::isolated().identity("t", "t@t");
    let git = |args: &[&str]| {
        repo.run(dir.path(), args);
    };
    git(&["init", "-q"]);
    std::fs::write(dir.path().join(".gitignore"), "*.log\n").unwrap();
    std::fs::write(dir.path().join("d0/ignored.log"), "x").unwrap();
    for d in 0..9 {
        git(&["add", &format!("d{d}")]);
    }
    git(&["add", ".gitignore"]);
    git(&["commit", "-qm", "tree"]);
    dir
}

/// `scope` expanded by `threads` threads: a setting of the scope's own, so
/// tests with different counts run side by side.
fn with_threads(scope: &Scope, threads: usize) -> Scope {
    scope.clone().with_settings(ledger_core::Settings {
        threads,
        ..ledger_core::Settings::default()
    })
}

#[test]
fn in_a_repository_tracked_and_untracked_files_are_read_once_whatever_the_threads() {
    let dir = repository(600);
    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root(".").unwrap();
    let one = Inventory::expand(&with_threads(&scope, 1)).unwrap();
    // 600 files and .gitignore; the ignored file is not listed.
    assert_eq!(one.entries.len(), 601);
    assert!(one.entries.windows(2).all(|w| w[0].path < w[1].path));
    for entry in &one.entries {
        assert_eq!(&Entry::read(dir.path(), &entry.path, false).unwrap(), entry);
    }
    for threads in [2, 3, 8] {
        assert_eq!(
            Inventory::expand(&with_threads(&scope, threads)).unwrap(),
            one,
            "{threads} threads"
        );
    }
    // Paths named again (explicitly, or as previous paths) are still read once.
    let tracked = one.entries[0].path.clone();
    let untracked = one.entries.last().unwrap().path.clone();
    let mut named = scope.clone();
    named.add_root(".").unwrap();
    named.add_path(tracked.as_str()).unwrap();
    let again = Inventory::expand_with(&named, [&tracked, &untracked]).unwrap();
    assert_eq!(again.entries.len(), one.entries.len());
    assert!(again.entries == one.entries);
}

#[test]
fn in_a_repository_a_listing_error_comes_before_any_reading_error() {
    let dir = repository(60);
    // A tracked file replaced by a FIFO fails when read (while the worktree is
    // still being walked); an untracked nested repository fails the listing.
    let fifo = dir.path().join("d0/f0");
    std::fs::remove_file(&fifo).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let nested = dir.path().join("zz");
    std::fs::create_dir(&nested).unwrap();
    assert!(Git::isolated().succeeds(&nested, &["init", "-q"]));
    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root(".").unwrap();
    for threads in [1, 2, 8] {
        let err = Inventory::expand(&with_threads(&scope, threads)).unwrap_err();
        assert_eq!(err.code(), "nested-repository", "{threads} threads");
        assert_eq!(err.path(), Some("zz"));
    }
    std::fs::remove_dir_all(&nested).unwrap();
    let err = Inventory::expand(&scope).unwrap_err();
    assert_eq!(err.code(), "special-file");
    assert_eq!(err.path(), Some("d0/f0"));
}

/// A root inside an untracked nested repository selects part of it: the nested
/// repository is in scope and blocks until declared (git lists none of its files from
/// the enclosing repository); declared, its own listing is used.
#[test]
fn a_root_inside_an_untracked_nested_repository_blocks_until_declared() {
    let dir = repository(13);
    let nested = dir.path().join("d12/nested");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("inside.txt"), "x").unwrap();
    assert!(Git::isolated().succeeds(&nested, &["init", "-q"]));
    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root("d12/nested/inside.txt").unwrap();
    let err = Inventory::expand(&scope).unwrap_err();
    assert_eq!(err.code(), "nested-repository", "{err}");
    assert_eq!(err.path(), Some("d12/nested"));
    scope.add_repository(".").unwrap();
    scope.add_repository("d12/nested").unwrap();
    let inventory = Inventory::expand(&scope).unwrap();
    let paths: Vec<&str> = inventory.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["d12/nested/inside.txt"]);
}

/// Large files read by themselves, whatever the order a directory lists them in
/// (a walked root is read in `readdir` order): a directory of only large files,
/// between small ones, gives every file its own content, in path order.
#[test]
fn large_files_among_small_ones_are_each_read_once_and_right() {
    let dir = tempfile::tempdir().unwrap();
    let big = |seed: u8| vec![seed; (1 << 20) + usize::from(seed)];
    for name in ["z.txt", "a.txt", "m/one", "m/two"] {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, name).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("data")).unwrap();
    for (i, name) in ["big1", "big2", "big3"].iter().enumerate() {
        std::fs::write(dir.path().join("data").join(name), big(i as u8)).unwrap();
    }
    let scope = scope_of(&dir);
    for threads in [1, 2, 8] {
        let inventory = Inventory::expand(&with_threads(&scope, threads)).unwrap();
        let paths: Vec<&str> = inventory.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "a.txt",
                "data/big1",
                "data/big2",
                "data/big3",
                "m/one",
                "m/two",
                "z.txt"
            ]
        );
        for entry in &inventory.entries {
            let alone = Entry::read(dir.path(), &entry.path, false).unwrap();
            assert_eq!(entry, &alone, "{}", entry.path);
        }
    }
}

/// Within `opened_once`, the repository opened to find the default workspace
/// is the one the expansion lists: a configuration written in between is not
/// read (as one git command reads its configuration once). Outside it, every
/// expansion reads the configuration anew.
#[test]
fn within_opened_once_each_repository_is_opened_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let git = Git::isolated().identity("t", "t@t");
    git.init(root, &[]);
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/kept.txt"), "kept").unwrap();
    git.commit_all(root, "one file");
    std::fs::write(root.join("extra.txt"), "untracked").unwrap();
    std::fs::write(root.join("excludes"), "extra.txt\nexcludes\n").unwrap();
    let listed = |inventory: &Inventory| -> Vec<String> {
        let paths = inventory.entries.iter().map(|e| e.path.as_str().to_owned());
        paths.collect()
    };
    let expand = |workspace: &Utf8Path| {
        let mut scope = Scope::new(workspace);
        scope.add_root(".").unwrap();
        Inventory::expand(&scope).unwrap()
    };
    let once = ledger_core::expand::opened_once(|| {
        let workspace = ledger_core::expand::default_workspace(&root.join("sub")).unwrap();
        git.run(root, &["config", "core.excludesFile", "excludes"]);
        expand(&workspace)
    });
    assert_eq!(listed(&once), ["excludes", "extra.txt", "sub/kept.txt"]);
    let anew = expand(once.scope.workspace());
    assert_eq!(listed(&anew), ["sub/kept.txt"]);
}

/// A repository whose `core.worktree` names a directory without a `.git` of
/// its own: found from its git directory, its worktree is the default
/// workspace, which holds no repository when opened itself — within
/// `opened_once` as outside it.
#[test]
fn within_opened_once_a_worktree_elsewhere_is_opened_anew() {
    let dir = tempfile::tempdir().unwrap();
    let (git_dir, worktree) = (dir.path().join("gd"), dir.path().join("wt"));
    std::fs::create_dir(&worktree).unwrap();
    std::fs::write(worktree.join("kept.txt"), "kept").unwrap();
    let git = Git::isolated().identity("t", "t@t");
    git.run(
        dir.path(),
        &["--git-dir=gd", "--work-tree=wt", "init", "-q"],
    );
    git.run(&git_dir, &["config", "core.worktree", "../wt"]);
    git.run(&git_dir, &["add", "kept.txt"]);
    git.run(&git_dir, &["commit", "-qm", "one"]);
    std::fs::write(worktree.join("extra.txt"), "untracked").unwrap();
    let expand = |workspace: &Utf8Path| {
        let mut scope = Scope::new(workspace);
        scope.add_root(".").unwrap();
        Inventory::expand(&scope).unwrap()
    };
    let outside = {
        let workspace = ledger_core::expand::default_workspace(&git_dir).unwrap();
        expand(&workspace)
    };
    let within = ledger_core::expand::opened_once(|| {
        let workspace = ledger_core::expand::default_workspace(&git_dir).unwrap();
        expand(&workspace)
    });
    assert_eq!(within.scope.workspace(), outside.scope.workspace());
    assert_eq!(within, outside);
}

/// Exclusion patterns remove what git's own glob pathspec excludes, in a
/// repository and in a walked root alike; a declared exclusion that removes
/// nothing is refused unless the caller allows it, and `exclusion_matches`
/// lists what each removes.
#[test]
fn exclusion_patterns_remove_what_git_s_glob_pathspec_excludes() {
    use ledger_core::expand::{ScopeLists, exclusion_matches};
    let dir = tempfile::tempdir().unwrap();
    let git = Git::isolated().identity("t", "t@t");
    git.init(dir.path(), &[]);
    for file in [
        "g/case-1.md",
        "g/case-2.md",
        "g/sub/case-3.md",
        "a/case-4.md",
        "risks-1.md",
        "g/x/risks-2.md",
        "handoff-3/part.md",
        "keep.md",
    ] {
        ledger_testkit::write_below(dir.path(), file, "x\n");
    }
    git.commit_all(dir.path(), "c");
    ledger_testkit::write_below(dir.path(), "g/case-5.md", "untracked\n");
    let workspace = Utf8Path::from_path(dir.path()).unwrap();
    for (pattern, pathspec) in [
        ("g/case-*.md", "g/case-*.md"),
        ("case-*.md", "**/case-*.md"),
        ("g/**/risks-*.md", "g/**/risks-*.md"),
        ("risks-*", "**/risks-*"),
        ("handoff-*", "**/handoff-*/**"),
    ] {
        let lists = ScopeLists {
            exclusions: vec![(pattern.into(), Some("the kit's own files".into()))],
            ..ScopeLists::default()
        };
        let scope = Scope::from_lists(workspace, &lists).unwrap();
        let listed: Vec<String> = Inventory::expand(&scope)
            .unwrap()
            .entries
            .iter()
            .map(|e| e.path.as_str().to_owned())
            .collect();
        let exclude = format!(":(glob,exclude){pathspec}");
        let out = git.stdout(
            dir.path(),
            &[
                "ls-files",
                "--cached",
                "--others",
                "--exclude-standard",
                "-z",
                "--",
                ".",
                &exclude,
            ],
        );
        let mut expected: Vec<String> = (out.split(|b| *b == 0))
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8(p.to_vec()).unwrap())
            .collect();
        expected.sort();
        assert_eq!(listed, expected, "{pattern}");
        let matches = exclusion_matches(&scope).unwrap();
        assert_eq!(matches.len(), 1);
        assert!(matches[0].exclusion.pattern);
        let removed = matches[0].paths.len();
        assert_eq!(
            removed + listed.len(),
            9,
            "{pattern}: every candidate is listed or removed"
        );
        let expanded = Inventory::expand(&scope).unwrap();
        let recorded = &expanded.scope.exclusions()[1];
        assert_eq!((recorded.path.as_str(), recorded.pattern), (pattern, true));
    }
    for unmatched in ["nonexistent/dir", "g/nothing-*.md"] {
        let lists = ScopeLists {
            exclusions: vec![(unmatched.into(), None)],
            ..ScopeLists::default()
        };
        let scope = Scope::from_lists(workspace, &lists).unwrap();
        let err = Inventory::expand(&scope).unwrap_err();
        assert_eq!(err.code(), "unmatched-exclusion", "{err}");
        assert_eq!(err.path(), Some(unmatched));
        let allowed = scope.allowing_unmatched_exclusions(true);
        assert_eq!(Inventory::expand(&allowed).unwrap().entries.len(), 9);
        assert_eq!(exclusion_matches(&allowed).unwrap()[0].paths, []);
    }
}
