//! Parity of [`list`] with `git ls-files --cached --others --exclude-standard -z`, the git
//! CLI being the oracle. Every case builds real repositories in temporary directories.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::platform::OsStrBytes;

use ledger_testkit::Git;
use tempfile::TempDir;

use super::*;

/// One isolated `HOME` for the whole test process, shared by gix (in process) and the
/// git CLI (given it per command by [`testkit`]).
fn test_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let home = TempDir::new().unwrap().keep();
        let global = home.join(".gitconfig");
        std::fs::write(
            &global,
            format!(
                "[user]\n\tname = Ledger Test\n\temail = ledger@example.invalid\n\
                 [init]\n\tdefaultBranch = main\n\
                 [protocol \"file\"]\n\tallow = always\n\
                 [commit]\n\tgpgsign = false\n\
                 [advice]\n\tdetachedHead = false\n\
                 [safe]\n\tdirectory = {}\n",
                home.join("declared-safe").display()
            ),
        )
        .unwrap();
        std::fs::create_dir_all(home.join(".config")).unwrap();
        // The git CLI does not need this: `testkit()` sets its environment per
        // command. The code under test does, and cannot be told otherwise without
        // changing it: it reads the process environment itself (`HOME` and
        // `XDG_CONFIG_HOME` for the default excludes file, the locating variables
        // removed below), and opens repositories with `gix::open::Options` it builds
        // internally, so gix reads the global configuration (`safe.directory`,
        // `~/` in `core.excludesFile`) from `HOME`/`GIT_CONFIG_GLOBAL` and
        // `GIT_CONFIG_NOSYSTEM`, and ownership from `SUDO_UID`, of this process.
        //
        // SAFETY: runs once, before any test touches the environment or spawns a
        // process: every test starts by calling `test_home()` (through `git` or
        // `new_repo`), and the others block on this `OnceLock` meanwhile.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var("HOME", &home);
            std::env::set_var("XDG_CONFIG_HOME", home.join(".config"));
            std::env::set_var("GIT_CONFIG_GLOBAL", &global);
            std::env::set_var("GIT_CONFIG_NOSYSTEM", "1");
            for var in ledger_testkit::LOCATING_VARIABLES
                .iter()
                .chain(&["SUDO_UID"])
            {
                std::env::remove_var(var);
            }
        }
        home
    })
}

/// The git CLI with [`test_home`] as `HOME` (its `.gitconfig` the global configuration).
fn testkit() -> Git {
    Git::isolated().home(test_home())
}

/// Runs `git -C dir args`, returning its output whatever the exit status.
fn git_output(dir: &Path, args: &[&str]) -> Output {
    testkit().output(dir, args)
}

/// Runs `git -C dir args`, which must succeed; returns stdout.
fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    testkit().stdout(dir, args)
}

/// A fresh repository (branch `main`) in a temporary directory.
fn new_repo() -> TempDir {
    test_home();
    let dir = TempDir::new().unwrap();
    testkit().init(dir.path(), &[]);
    dir
}

/// Writes `content` at `rel` (raw bytes, `/`-separated) below `root`, creating parents.
fn write(root: &Path, rel: &[u8], content: &str) {
    let path = root.join(OsStr::from_bytes(rel));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// Stages everything and commits.
fn commit_all(dir: &Path, message: &str) {
    testkit().commit_all(dir, message);
}

/// What git lists in `dir`: one entry per line (duplicates of conflict stages removed),
/// the trailing `/` of nested repositories stripped.
fn oracle(dir: &Path) -> BTreeSet<Vec<u8>> {
    testkit()
        .listed(dir)
        .into_iter()
        .map(|p| p.strip_suffix(b"/").map_or(p.clone(), <[u8]>::to_vec))
        .collect()
}

/// Takes every tracked file, or every other (as a caller that reads them
/// early), and records what it was told.
#[derive(Default)]
struct Recorder {
    every_other: bool,
    taken: Vec<Vec<u8>>,
    untracked: Vec<Vec<u8>>,
    offered: usize,
}

impl Found for Recorder {
    fn tracked(&mut self, path: &[u8], _: u64) -> bool {
        self.offered += 1;
        let take = !self.every_other || self.offered.is_multiple_of(2);
        if take {
            self.taken.push(path.to_vec());
        }
        take
    }

    fn untracked(&mut self, path: &[u8]) {
        self.untracked.push(path.to_vec());
    }
}

/// Lists what `git -C dir ls-files --cached --others --exclude-standard -z`
/// lists (see [`Listing`]), checking on the way that every early tracked file
/// ([`Listing::tracked_files`]) is listed as tracked, and that a listing whose
/// caller takes tracked files as they are met lists exactly the rest.
fn list(dir: &Path, locate: Locate, display: &str) -> Result<Option<Vec<Candidate>>> {
    let Some(listing) = Listing::open(dir, locate, display)? else {
        return Ok(None);
    };
    let early: Vec<Vec<u8>> = listing.tracked_files().map(|(p, _)| p.to_vec()).collect();
    let listed = listing.list_within(&Within::default(), &mut Nothing, None)?;
    let mut recorders = [true, false].map(|every_other| Recorder {
        every_other,
        ..Recorder::default()
    });
    for recorder in &mut recorders {
        let partial = Listing::open(dir, locate, display)?.unwrap().list_within(
            &Within::default(),
            recorder,
            None,
        )?;
        let mut rejoined = partial.clone();
        rejoined.extend(recorder.taken.iter().map(|path| Candidate {
            path: path.clone(),
            status: Status::Tracked,
        }));
        rejoined.sort_by(|a, b| a.path.cmp(&b.path));
        assert_eq!(
            rejoined, listed,
            "taken tracked files and the rest are not the listing"
        );
        assert!(recorder.taken.iter().all(|p| early.contains(p)));
    }
    let recorder = &recorders[1];
    // Found files are read while the walk goes on: each is listed (as
    // untracked, or as a conflict, whose unmerged index entries the walk
    // does not count as tracking it).
    for path in &recorder.untracked {
        assert!(
            matches!(
                status_of_bytes(&listed, path),
                Some(Status::Untracked | Status::Conflict)
            ),
            "a file found by the walk is not listed as untracked: {}",
            String::from_utf8_lossy(path)
        );
    }
    for path in &early {
        assert_eq!(
            status_of_bytes(&listed, path),
            Some(Status::Tracked),
            "an early tracked file is not listed as tracked: {}",
            String::from_utf8_lossy(path)
        );
    }
    Ok(Some(listed))
}

/// Lists `dir` (discovering its repository), checks the result is sorted and
/// de-duplicated and holds exactly the oracle's paths; returns the listing.
fn assert_parity(dir: &Path) -> Vec<Candidate> {
    let listed = list(dir, Locate::Discover, "test")
        .unwrap()
        .expect("a repository");
    assert!(
        listed.windows(2).all(|w| w[0].path < w[1].path),
        "not sorted and de-duplicated: {listed:?}"
    );
    let ours: BTreeSet<Vec<u8>> = listed.iter().map(|c| c.path.clone()).collect();
    let expected = oracle(dir);
    if ours != expected {
        let show = |set: &BTreeSet<Vec<u8>>| -> Vec<String> {
            set.iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect()
        };
        let missing: BTreeSet<_> = expected.difference(&ours).cloned().collect();
        let extra: BTreeSet<_> = ours.difference(&expected).cloned().collect();
        panic!(
            "parity with git ls-files broken in {}\n  missing (git lists, we do not): {:?}\n  extra (we list, git does not): {:?}",
            dir.display(),
            show(&missing),
            show(&extra)
        );
    }
    listed
}

/// The status of the raw `path` in the sorted `listed`, `None` when not listed.
fn status_of_bytes(listed: &[Candidate], path: &[u8]) -> Option<Status> {
    listed
        .binary_search_by(|c| c.path.as_slice().cmp(path))
        .ok()
        .map(|i| listed[i].status)
}

/// The status of `path` in `listed`, `None` when not listed.
fn status_of(listed: &[Candidate], path: &str) -> Option<Status> {
    listed
        .iter()
        .find(|c| c.path == path.as_bytes())
        .map(|c| c.status)
}

#[test]
fn ignore_rules_at_every_level_with_negation_and_info_exclude() {
    let repo = new_repo();
    let r = repo.path();
    write(
        r,
        b".gitignore",
        "*.log\n/build/\n!keep.log\nself-ignoring/\n",
    );
    write(r, b"a.txt", "a");
    write(r, b"src/lib.rs", "lib");
    write(r, b"src/.gitignore", "*.tmp\n!important.tmp\ngen/\n");
    write(r, b"src/deep/.gitignore", "!*.log\n");
    commit_all(r, "init");

    // Untracked, in new directories: every file listed, no directory collapsing.
    write(r, b"new/one.txt", "1");
    write(r, b"new/deeper/two.txt", "2");
    write(r, b"new/deeper/three.txt", "3");
    // Ignored at the root, re-included by negation, re-included deeper.
    write(r, b"x.log", "");
    write(r, b"keep.log", "");
    write(r, b"src/deep/y.log", "");
    // Ignored by the nested .gitignore, and re-included there.
    write(r, b"src/a.tmp", "");
    write(r, b"src/important.tmp", "");
    write(r, b"src/gen/out.rs", "");
    // An ignored directory: a negation cannot re-include files below it.
    write(r, b"build/out.bin", "");
    write(r, b"build/keep.log", "");
    // Empty untracked directories are not listed.
    std::fs::create_dir_all(r.join("empty/nested")).unwrap();
    // info/exclude.
    write(r, b".git/info/exclude", "secret.txt\n");
    write(r, b"secret.txt", "");
    // A .gitignore that ignores itself (and its directory's content).
    write(r, b"self/.gitignore", ".gitignore\n*.o\n");
    write(r, b"self/main.c", "");
    write(r, b"self/main.o", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "a.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "src/lib.rs"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "new/one.txt"), Some(Status::Untracked));
    assert_eq!(
        status_of(&listed, "new/deeper/three.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "new"), None);
    assert_eq!(status_of(&listed, "keep.log"), Some(Status::Untracked));
    assert_eq!(
        status_of(&listed, "src/deep/y.log"),
        Some(Status::Untracked)
    );
    assert_eq!(
        status_of(&listed, "src/important.tmp"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "self/main.c"), Some(Status::Untracked));
    for ignored in [
        "x.log",
        "src/a.tmp",
        "src/gen/out.rs",
        "build/out.bin",
        "build/keep.log",
        "secret.txt",
        "self/.gitignore",
        "self/main.o",
        "empty",
        "empty/nested",
    ] {
        assert_eq!(status_of(&listed, ignored), None, "{ignored}");
    }
}

#[test]
fn tracked_files_matching_an_ignore_pattern_are_listed() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"debug.log", "tracked before the rule");
    write(r, b"out/artifact.bin", "tracked too");
    commit_all(r, "init");
    write(r, b".gitignore", "*.log\nout/\n");
    write(r, b"other.log", "");
    write(r, b"out/new.bin", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "debug.log"), Some(Status::Tracked));
    assert_eq!(
        status_of(&listed, "out/artifact.bin"),
        Some(Status::Tracked)
    );
    assert_eq!(status_of(&listed, ".gitignore"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, "other.log"), None);
    assert_eq!(status_of(&listed, "out/new.bin"), None);
}

#[test]
fn core_excludes_file_from_local_config() {
    let repo = new_repo();
    let r = repo.path();
    let elsewhere = TempDir::new().unwrap();
    let excludes = elsewhere.path().join("my-excludes");
    std::fs::write(&excludes, "*.bak\nscratch/\n").unwrap();
    git(
        r,
        &["config", "core.excludesFile", excludes.to_str().unwrap()],
    );
    write(r, b"kept.txt", "");
    write(r, b"old.bak", "");
    write(r, b"scratch/notes.md", "");
    write(r, b"dir/older.bak", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "kept.txt"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, "old.bak"), None);
    assert_eq!(status_of(&listed, "dir/older.bak"), None);
    assert_eq!(status_of(&listed, "scratch/notes.md"), None);

    // `~/` is the (test) home directory.
    let in_home = TempDir::new_in(test_home()).unwrap();
    std::fs::write(in_home.path().join("excludes"), "*.txt\n").unwrap();
    let name = in_home.path().file_name().unwrap().to_str().unwrap();
    git(
        r,
        &["config", "core.excludesFile", &format!("~/{name}/excludes")],
    );
    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "kept.txt"), None);
    assert_eq!(status_of(&listed, "old.bak"), Some(Status::Untracked));
}

/// git reads a relative `core.excludesFile` from the top of the worktree, whatever the
/// directory it runs in; the process's current directory (here the crate's) plays no part.
#[test]
fn a_relative_core_excludes_file_is_relative_to_the_worktree_top() {
    let outer = TempDir::new().unwrap();
    let r = &outer.path().join("w");
    test_home();
    git(outer.path(), &["init", "-q", "w"]);
    std::fs::write(outer.path().join("user.exclude"), "*.up\n").unwrap();
    write(r, b".git/my-excludes", "*.in-git\n");
    write(r, b"rules/included.exclude", "*.inc\n");
    for file in ["kept.txt", "a.up", "b.in-git", "c.inc"] {
        write(r, format!("sub/deeper/{file}").as_bytes(), "");
        write(r, file.as_bytes(), "");
    }
    let assert_ignored = |suffix: &str| {
        for dir in [r.clone(), r.join("sub"), r.join("sub/deeper")] {
            let listed = assert_parity(&dir);
            assert!(
                listed.iter().all(|c| !c.path.ends_with(suffix.as_bytes())),
                "{suffix} listed from {}",
                dir.display()
            );
            assert!(!listed.is_empty());
        }
    };
    git(r, &["config", "core.excludesFile", "../user.exclude"]);
    assert_ignored(".up");
    git(r, &["config", "core.excludesFile", ".git/my-excludes"]);
    assert_ignored(".in-git");
    // From an included file: still relative to the worktree top, not to that file.
    git(r, &["config", "--unset", "core.excludesFile"]);
    write(
        r,
        b".git/extra.config",
        "[core]\n\texcludesFile = rules/included.exclude\n",
    );
    git(r, &["config", "include.path", "extra.config"]);
    assert_ignored(".inc");
    // Set but empty: git reads no excludes file, not even the default one.
    git(r, &["config", "core.excludesFile", ""]);
    assert_parity(r);
}

/// `GIT_CONFIG_PARAMETERS` as `git -c` writes it, in its new and old forms.
#[test]
fn git_config_parameters_parse_as_git_parses_them() {
    let parse = |text: &str| {
        parse_config_parameters(text.as_bytes())
            .map(|items| items.iter().map(ToString::to_string).collect::<Vec<_>>())
    };
    assert_eq!(
        parse("'user.name'='a b' 'core.excludesfile'='x'\\''y'"),
        Some(vec![
            "user.name=a b".to_owned(),
            "core.excludesfile=x'y".to_owned()
        ])
    );
    assert_eq!(
        parse(" 'core.bare=false' 'core.ignorecase'  "),
        Some(vec![
            "core.bare=false".to_owned(),
            "core.ignorecase".to_owned()
        ])
    );
    // As git 2.47 writes `-c a.b=c!d -c core.ignorecase`.
    assert_eq!(
        parse("'a.b'='c'\\!'d' 'core.ignorecase'="),
        Some(vec!["a.b=c!d".to_owned(), "core.ignorecase".to_owned()])
    );
    assert_eq!(parse(""), Some(vec![]));
    for bogus in [
        "a.b=c",
        "'a.b'x",
        "'a.b'='c",
        "'unterminated",
        "'a.b'=x",
        "'a.b'='c'x",
    ] {
        assert_eq!(parse(bogus), None, "{bogus}");
    }
}

#[test]
fn a_deleted_tracked_gitignore_no_longer_applies() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"sub/.gitignore", "*.gen\n");
    commit_all(r, "init");
    std::fs::remove_file(r.join("sub/.gitignore")).unwrap();
    write(r, b"sub/x.gen", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "sub/.gitignore"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "sub/x.gen"), Some(Status::Untracked));
}

#[test]
fn worktree_and_index_states() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"deleted.txt", "d");
    write(r, b"modified.txt", "m");
    write(r, b"staged-then-modified.txt", "s");
    write(r, b"became-dir", "file");
    write(r, b"dir/deleted-dir-file.txt", "x");
    commit_all(r, "init");

    std::fs::remove_file(r.join("deleted.txt")).unwrap();
    std::fs::remove_dir_all(r.join("dir")).unwrap();
    write(r, b"modified.txt", "m2");
    write(r, b"staged-then-modified.txt", "s2");
    git(r, &["add", "staged-then-modified.txt"]);
    write(r, b"staged-then-modified.txt", "s3");
    write(r, b"staged-new.txt", "n");
    git(r, &["add", "staged-new.txt"]);
    write(r, b"intent.txt", "i");
    git(r, &["add", "-N", "intent.txt"]);
    // A tracked file replaced on disk by a directory holding untracked files.
    std::fs::remove_file(r.join("became-dir")).unwrap();
    write(r, b"became-dir/inner.txt", "");
    // git lists no FIFO (nor socket, device) as untracked.
    let fifo = Command::new("mkfifo")
        .arg(r.join("untracked-fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());

    let listed = assert_parity(r);
    for tracked in [
        "deleted.txt",
        "dir/deleted-dir-file.txt",
        "modified.txt",
        "staged-then-modified.txt",
        "staged-new.txt",
        "intent.txt",
        "became-dir",
    ] {
        assert_eq!(
            status_of(&listed, tracked),
            Some(Status::Tracked),
            "{tracked}"
        );
    }
    assert_eq!(
        status_of(&listed, "became-dir/inner.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "untracked-fifo"), None);
}

#[test]
fn repository_without_commits_or_index() {
    let repo = new_repo();
    let r = repo.path();
    assert!(!r.join(".git/index").exists());
    assert!(assert_parity(r).is_empty());
    write(r, b"a.txt", "");
    write(r, b"d/b.txt", "");
    let listed = assert_parity(r);
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|c| c.status == Status::Untracked));
}

#[test]
fn conflicts_are_listed_once() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"f.txt", "base\n");
    write(r, b"g.txt", "base\n");
    write(r, b"other.txt", "x\n");
    commit_all(r, "base");
    git(r, &["checkout", "-q", "-b", "theirs"]);
    write(r, b"f.txt", "theirs\n");
    write(r, b"g.txt", "theirs\n");
    write(r, b"added-both.txt", "theirs\n");
    commit_all(r, "theirs");
    git(r, &["checkout", "-q", "main"]);
    write(r, b"f.txt", "ours\n");
    std::fs::remove_file(r.join("g.txt")).unwrap();
    write(r, b"added-both.txt", "ours\n");
    commit_all(r, "ours");
    let merge = git_output(r, &["merge", "-q", "theirs"]);
    assert!(!merge.status.success(), "the merge must conflict");

    // git prints each conflicted path once per stage.
    let raw = git(r, &["ls-files", "--cached", "-z"]);
    let f_lines = raw.split(|b| *b == 0).filter(|p| *p == b"f.txt").count();
    assert_eq!(f_lines, 3);

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "f.txt"), Some(Status::Conflict));
    assert_eq!(status_of(&listed, "g.txt"), Some(Status::Conflict));
    assert_eq!(status_of(&listed, "added-both.txt"), Some(Status::Conflict));
    assert_eq!(status_of(&listed, "other.txt"), Some(Status::Tracked));
    assert_eq!(listed.iter().filter(|c| c.path == b"f.txt").count(), 1);
}

#[test]
fn submodules_are_gitlinks() {
    let upstream = new_repo();
    write(upstream.path(), b"readme", "sub");
    commit_all(upstream.path(), "sub");
    let head = String::from_utf8(git(upstream.path(), &["rev-parse", "HEAD"])).unwrap();
    let head = head.trim();

    let repo = new_repo();
    let r = repo.path();
    write(r, b"top.txt", "");
    commit_all(r, "init");
    git(
        r,
        &[
            "submodule",
            "add",
            "-q",
            upstream.path().to_str().unwrap(),
            "libs/sub",
        ],
    );
    // A gitlink that was never checked out.
    let cacheinfo = format!("160000,{head},libs/absent");
    git(r, &["update-index", "--add", "--cacheinfo", &cacheinfo]);
    // Not `add -A`, which would stage the absent gitlink's deletion.
    git(r, &["commit", "-q", "-m", "submodules"]);
    // Files inside the submodule's worktree are the submodule's, not ours.
    write(r, b"libs/sub/untracked-in-sub.txt", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "libs/sub"), Some(Status::Submodule));
    assert_eq!(status_of(&listed, "libs/absent"), Some(Status::Submodule));
    assert_eq!(status_of(&listed, ".gitmodules"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "libs/sub/untracked-in-sub.txt"), None);
    assert_eq!(status_of(&listed, "libs/sub/readme"), None);

    // The submodule is a repository of its own, found from its root (gitfile).
    let sub = r.join("libs/sub");
    let inner = list(&sub, Locate::RootOnly, "libs/sub").unwrap().unwrap();
    assert_eq!(status_of(&inner, "readme"), Some(Status::Tracked));
    assert_eq!(
        status_of(&inner, "untracked-in-sub.txt"),
        Some(Status::Untracked)
    );
    assert_parity(&sub);

    // A root inside a gitlink lists the gitlink (which the expansion refuses
    // unless declared), checked out or not: the index's ranges of the roots
    // hold the entries of the directories above them.
    for (root, gitlink) in [
        ("libs/sub/readme", "libs/sub"),
        ("libs/absent/deep/file", "libs/absent"),
    ] {
        let within = Within {
            roots: Some(vec![root.as_bytes().to_vec()]),
            exclusions: Vec::new(),
        };
        let listing = Listing::open(r, Locate::RootOnly, ".").unwrap().unwrap();
        let listed = listing.list_within(&within, &mut Nothing, None).unwrap();
        assert_eq!(
            status_of(&listed, gitlink),
            Some(Status::Submodule),
            "{root}: {listed:?}"
        );
        assert_eq!(
            status_of(&listed, "top.txt"),
            None,
            "outside the root: {listed:?}"
        );
    }
}

/// A `.git` file that names no repository: git refuses to run in (or below) its
/// directory, and lists the directory's files as plain ones from the superproject.
/// ledger refuses in the first case and agrees in the second.
#[test]
fn broken_gitfiles_are_refused_as_git_refuses_them() {
    let upstream = new_repo();
    write(upstream.path(), b"readme", "sub");
    commit_all(upstream.path(), "sub");
    let other = new_repo();
    let other_git = other.path().join(".git");
    let repo = new_repo();
    let r = repo.path();
    write(r, b"top.txt", "");
    commit_all(r, "init");
    let url = upstream.path().to_str().unwrap();
    git(r, &["submodule", "add", "-q", url, "registered"]);
    git(r, &["commit", "-q", "-m", "submodule"]);
    let shapes: [(&str, String); 6] = [
        ("garbage", "garbage\n".to_owned()),
        ("missing", "gitdir: /nonexistent/ledger-test\n".to_owned()),
        ("empty-path", "gitdir: \n".to_owned()),
        ("relative-missing", "gitdir: ../nowhere\n".to_owned()),
        // Absolute-looking, but not `gitdir: ` then a path: git takes neither.
        ("no-space", format!("gitdir:{}\n", other_git.display())),
        ("registered", "gitdir: ../.git/modules/gone\n".to_owned()),
    ];
    for (name, content) in &shapes {
        write(r, format!("{name}/file.txt").as_bytes(), "x");
        write(r, format!("{name}/deeper/more.txt").as_bytes(), "x");
        std::fs::write(r.join(name).join(".git"), content).unwrap();
    }
    for (name, _) in &shapes {
        for shown in [name.to_string(), format!("{name}/deeper")] {
            let dir = r.join(&shown);
            let git_says = git_output(&dir, &["ls-files", "--cached", "--others"]);
            assert!(!git_says.status.success(), "git lists {}", dir.display());
            let err = list(&dir, Locate::Discover, &shown).unwrap_err();
            assert_eq!(err.code(), "invalid-gitfile", "{name}: {err}");
            assert!(err.to_string().contains(&format!("{name}/.git")), "{err}");
        }
        // Declared as a repository of its own.
        let err = list(&r.join(name), Locate::RootOnly, name).unwrap_err();
        assert_eq!(err.code(), "invalid-gitfile", "{name}: {err}");
        assert_eq!(err.path(), Some(format!("{name}/.git").as_str()));
    }
    // From the superproject, the broken checkouts are plain directories to git.
    let listed = assert_parity(r);
    assert_eq!(
        status_of(&listed, "garbage/file.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "registered"), Some(Status::Submodule));

    // gix, trimming the trailing space, would take this one for a nested repository,
    // where git lists its files: refused instead of either answer.
    write(r, b"trailing-space/file.txt", "x");
    let gitfile = format!("gitdir: {} \n", other_git.display());
    std::fs::write(r.join("trailing-space/.git"), gitfile).unwrap();
    assert!(oracle(r).contains(b"trailing-space/file.txt".as_slice()));
    let err = list(r, Locate::Discover, ".").unwrap_err();
    assert_eq!(err.code(), "invalid-gitfile", "{err}");
    assert_eq!(err.path(), Some("trailing-space/.git"));
}

#[test]
fn untracked_nested_repositories_are_listed_once() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"top.txt", "");
    write(r, b".gitignore", "ignored-nest/\n");
    commit_all(r, "init");
    let nested = r.join("vendor/nested");
    std::fs::create_dir_all(&nested).unwrap();
    git(&nested, &["init", "-q"]);
    write(&nested, b"file.txt", "");
    write(&nested, b"deep/file.txt", "");
    let empty_nested = r.join("bare-init");
    std::fs::create_dir_all(&empty_nested).unwrap();
    git(&empty_nested, &["init", "-q"]);
    let ignored = r.join("ignored-nest");
    std::fs::create_dir_all(&ignored).unwrap();
    git(&ignored, &["init", "-q"]);
    write(r, b"vendor/plain.txt", "");

    let raw = git(r, &["ls-files", "-o", "--exclude-standard", "-z"]);
    assert!(raw.split(|b| *b == 0).any(|p| p == b"vendor/nested/"));

    let listed = assert_parity(r);
    assert_eq!(
        status_of(&listed, "vendor/nested"),
        Some(Status::NestedRepository)
    );
    assert_eq!(
        status_of(&listed, "bare-init"),
        Some(Status::NestedRepository)
    );
    assert_eq!(
        status_of(&listed, "vendor/plain.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "vendor/nested/file.txt"), None);
    assert_eq!(status_of(&listed, "ignored-nest"), None);
}

/// A repository with files in several directories, for the sparse-checkout cases.
fn sparse_fixture() -> TempDir {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"root.txt", "");
    write(r, b"in/a.txt", "");
    write(r, b"in/sub/b.txt", "");
    write(r, b"out/c.txt", "");
    write(r, b"out/sub/d.txt", "");
    write(r, b"out/sub/deeper/e.txt", "");
    write(r, b"out/.gitignore", "*.ign\n");
    write(r, b"other/f.txt", "");
    commit_all(r, "init");
    repo
}

#[test]
fn sparse_checkout_cone_mode() {
    let repo = sparse_fixture();
    let r = repo.path();
    git(r, &["sparse-checkout", "set", "in"]);
    assert!(!r.join("out").exists());
    // Untracked files in a directory that is outside the cone.
    write(r, b"out/new.txt", "");
    write(r, b"out/sub/new2.txt", "");
    write(r, b"out/skipped.ign", "");
    write(r, b"brand-new/x.txt", "");

    let listed = assert_parity(r);
    // Skip-worktree files are listed by `git ls-files --cached`.
    assert_eq!(status_of(&listed, "out/c.txt"), Some(Status::Tracked));
    assert_eq!(
        status_of(&listed, "out/sub/deeper/e.txt"),
        Some(Status::Tracked)
    );
    assert_eq!(status_of(&listed, "out/new.txt"), Some(Status::Untracked));
    assert_eq!(
        status_of(&listed, "out/sub/new2.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "in/sub/b.txt"), Some(Status::Tracked));
    // Listing from inside an out-of-cone directory.
    let from_out = assert_parity(&r.join("out"));
    assert_eq!(status_of(&from_out, "new.txt"), Some(Status::Untracked));
    assert_eq!(status_of(&from_out, "sub/d.txt"), Some(Status::Tracked));
}

#[test]
fn sparse_checkout_non_cone_mode() {
    let repo = sparse_fixture();
    let r = repo.path();
    git(
        r,
        &["sparse-checkout", "set", "--no-cone", "/*", "!/out/sub/"],
    );
    assert!(r.join("out/c.txt").exists());
    assert!(!r.join("out/sub/d.txt").exists());
    write(r, b"out/sub/new.txt", "");
    write(r, b"out/sub/deeper/new.txt", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "out/sub/d.txt"), Some(Status::Tracked));
    assert_eq!(
        status_of(&listed, "out/sub/deeper/new.txt"),
        Some(Status::Untracked)
    );
}

#[test]
fn sparse_index_directories_are_expanded() {
    let repo = sparse_fixture();
    let r = repo.path();
    // A gitlink inside a directory that becomes a sparse directory entry.
    let upstream = new_repo();
    write(upstream.path(), b"readme", "sub");
    commit_all(upstream.path(), "sub");
    let head = String::from_utf8(git(upstream.path(), &["rev-parse", "HEAD"])).unwrap();
    let cacheinfo = format!("160000,{},out/link", head.trim());
    git(r, &["update-index", "--add", "--cacheinfo", &cacheinfo]);
    git(r, &["commit", "-q", "-m", "gitlink"]);

    git(r, &["sparse-checkout", "init", "--cone", "--sparse-index"]);
    git(r, &["sparse-checkout", "set", "in"]);
    // The index really holds sparse directory entries (not `out/`: git does not
    // collapse a tree holding a gitlink).
    let sparse = git(r, &["ls-files", "--sparse", "-z"]);
    assert!(
        sparse.split(|b| *b == 0).any(|p| p == b"out/sub/"),
        "expected a sparse directory entry: {}",
        String::from_utf8_lossy(&sparse)
    );
    let index = gix::open(r).unwrap().open_index().unwrap();
    assert!(index.is_sparse());

    write(r, b"out/new.txt", "");
    write(r, b"out/sub/new2.txt", "");
    write(r, b"other/new3.txt", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "out"), None);
    assert_eq!(status_of(&listed, "out/c.txt"), Some(Status::Tracked));
    assert_eq!(
        status_of(&listed, "out/sub/deeper/e.txt"),
        Some(Status::Tracked)
    );
    assert_eq!(status_of(&listed, "out/link"), Some(Status::Submodule));
    assert_eq!(status_of(&listed, "out/new.txt"), Some(Status::Untracked));
    assert_eq!(
        status_of(&listed, "out/sub/new2.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(
        status_of(&listed, "other/new3.txt"),
        Some(Status::Untracked)
    );

    // From inside a sparse directory, and from a directory below one.
    let from_out = assert_parity(&r.join("out"));
    assert_eq!(status_of(&from_out, "c.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&from_out, "new.txt"), Some(Status::Untracked));
    let from_sub = assert_parity(&r.join("out/sub"));
    assert_eq!(status_of(&from_sub, "deeper/e.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&from_sub, "new2.txt"), Some(Status::Untracked));
    assert_eq!(status_of(&from_sub, "d.txt"), Some(Status::Tracked));
    assert_parity(&r.join("in"));
}

#[test]
fn repository_owned_by_another_user_is_refused() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"a.txt", "");
    commit_all(r, "init");
    std::fs::create_dir_all(r.join("sub")).unwrap();
    let chown = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(r)
        .output()
        .unwrap();
    if !chown.status.success() {
        eprintln!(
            "skipped: cannot chown (not root?): {}",
            String::from_utf8_lossy(&chown.stderr)
        );
        return;
    }
    // git refuses it.
    let out = git_output(
        r,
        &["ls-files", "--cached", "--others", "--exclude-standard"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("dubious ownership"));

    for (dir, locate) in [
        (r.to_path_buf(), Locate::RootOnly),
        (r.to_path_buf(), Locate::Discover),
        (r.join("sub"), Locate::Discover),
    ] {
        let err = list(&dir, locate, "sub/repo").unwrap_err();
        assert_eq!(err.code(), "untrusted-repository", "{err}");
        assert_eq!(err.path(), Some("sub/repo"));
    }
    assert_eq!(worktree_root(r).unwrap_err().code(), "untrusted-repository");

    // Declared in the global `safe.directory`: git accepts it, so do we.
    let safe = test_home().join("declared-safe");
    std::fs::create_dir_all(&safe).unwrap();
    git(&safe, &["init", "-q"]);
    write(&safe, b"a.txt", "");
    let chown = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&safe)
        .output()
        .unwrap();
    assert!(chown.status.success());
    let listed = assert_parity(&safe);
    assert_eq!(status_of(&listed, "a.txt"), Some(Status::Untracked));
}

#[test]
fn listing_from_a_subdirectory_is_relative_to_it() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b".gitignore", "*.log\n/ign/\n");
    write(r, b"top.txt", "");
    write(r, b"sub/a.txt", "");
    write(r, b"sub/inner/b.txt", "");
    write(r, b"sub.txt", "");
    write(r, b"sub2/c.txt", "");
    write(r, b"s*b [x]/tracked.txt", "");
    write(r, b"sx/decoy.txt", "");
    commit_all(r, "init");
    write(r, b"sub/new.txt", "");
    write(r, b"sub/x.log", "");
    write(r, b"sub/newdir/n.txt", "");
    write(r, b"sub2/d.txt", "");
    write(r, b"s*b [x]/untracked.txt", "");
    write(r, b"sxb [x]/decoy2.txt", "");
    write(r, b"untracked-dir/u/v.txt", "");
    write(r, b"ign/i.txt", "");
    write(r, b"ign/deeper/j.txt", "");

    let listed = assert_parity(&r.join("sub"));
    assert_eq!(status_of(&listed, "a.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "inner/b.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "new.txt"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, "newdir/n.txt"), Some(Status::Untracked));
    assert_eq!(listed.len(), 4, "{listed:?}");

    // Glob characters in the directory name are literal.
    let listed = assert_parity(&r.join("s*b [x]"));
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(status_of(&listed, "untracked.txt"), Some(Status::Untracked));

    // An untracked directory, and an ignored one.
    let listed = assert_parity(&r.join("untracked-dir"));
    assert_eq!(status_of(&listed, "u/v.txt"), Some(Status::Untracked));
    assert!(assert_parity(&r.join("ign/deeper")).is_empty());
    assert!(assert_parity(&r.join("ign")).is_empty());

    // Not the root: RootOnly finds nothing there.
    assert_eq!(list(&r.join("sub"), Locate::RootOnly, "sub").unwrap(), None);
    // Through a symlink to the subdirectory.
    let link_holder = TempDir::new().unwrap();
    let link = link_holder.path().join("link");
    crate::platform::symlink(r.join("sub"), &link).unwrap();
    let via_link = list(&link, Locate::Discover, "link").unwrap().unwrap();
    assert_eq!(via_link, assert_parity(&r.join("sub")));
}

/// What git lists for `pathspecs`, as [`oracle`] does.
fn oracle_for(dir: &Path, pathspecs: &[String]) -> BTreeSet<Vec<u8>> {
    let mut args: Vec<&str> = vec!["ls-files", "-co", "--exclude-standard", "-z", "--"];
    args.extend(pathspecs.iter().map(String::as_str));
    git(dir, &args)
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| p.strip_suffix(b"/").unwrap_or(p).to_vec())
        .collect()
}

/// Whether `path` equals `root` or lies below it (empty `root`: everything).
fn below(path: &[u8], root: &[u8]) -> bool {
    root.is_empty()
        || path == root
        || (path.starts_with(root) && path.get(root.len()) == Some(&b'/'))
}

/// The walk restricted to roots and exclusions lists, within them, exactly what git
/// lists for the same pathspecs, from the top and from a subdirectory.
#[test]
fn a_walk_within_roots_and_exclusions_matches_git_pathspecs() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b".gitignore", "*.log\n");
    for file in ["a/t.txt", "a/x/t.txt", "b/t.txt", "top.txt", "ab/t.txt"] {
        write(r, file.as_bytes(), "");
    }
    commit_all(r, "init");
    for file in [
        "a/u.txt",
        "a/x/u.txt",
        "a/x/y/u.txt",
        "a/i.log",
        "b/u.txt",
        "c/u.txt",
        "ab/u.txt",
        "new/deep/u.txt",
        "u.txt",
    ] {
        write(r, file.as_bytes(), "");
    }
    write(r, b"nested/inside.txt", "");
    git(&r.join("nested"), &["init", "-q"]);
    let cases: [(&[&str], &[&str]); 9] = [
        (&["nested/inside.txt"], &[]),
        (&["a"], &[]),
        (&["a", "b"], &["a/x"]),
        (&["a/x/y/u.txt", "top.txt"], &[]),
        (&["new/deep"], &[]),
        (&[""], &["b", "new"]),
        (&[""], &["a/x/y"]),
        (&["nested"], &[]),
        (&["a/x"], &["a/x/u.txt"]),
    ];
    for (prefix, sub) in [(&b""[..], r.to_path_buf()), (&b"a/"[..], r.join("a"))] {
        for (roots, exclusions) in cases {
            let bytes = |p: &&str| p.as_bytes().to_vec();
            let within = Within {
                roots: Some(roots.iter().map(bytes).collect()),
                exclusions: exclusions.iter().map(bytes).collect(),
            };
            // The same, as pathspecs relative to `sub`.
            let full = |p: &str| format!("{}{p}", String::from_utf8_lossy(prefix));
            let mut pathspecs: Vec<String> = roots
                .iter()
                .map(|p| format!(":(top,literal){}", full(p).trim_end_matches('/')))
                .collect();
            pathspecs.extend(
                exclusions
                    .iter()
                    .map(|p| format!(":(top,literal,exclude){}", full(p))),
            );
            let listing = Listing::open(&sub, Locate::Discover, "test")
                .unwrap()
                .unwrap();
            let ours: BTreeSet<Vec<u8>> = listing
                .list_within(&within, &mut Nothing, None)
                .unwrap()
                .into_iter()
                .map(|c| c.path)
                .filter(|p| within.roots.as_ref().unwrap().iter().any(|r| below(p, r)))
                .filter(|p| !within.exclusions.iter().any(|e| below(p, e)))
                .collect();
            let expected: BTreeSet<Vec<u8>> = oracle_for(&sub, &pathspecs)
                .into_iter()
                .map(|p| p.strip_prefix(&b"../"[..]).unwrap_or(&p).to_vec())
                .collect();
            assert_eq!(
                ours.iter()
                    .map(|p| String::from_utf8_lossy(p))
                    .collect::<Vec<_>>(),
                expected
                    .iter()
                    .map(|p| String::from_utf8_lossy(p))
                    .collect::<Vec<_>>(),
                "roots {roots:?}, exclusions {exclusions:?}, from {}",
                sub.display()
            );
        }
    }
}

#[test]
fn odd_names_are_raw_bytes() {
    let repo = new_repo();
    let r = repo.path();
    git(r, &["config", "core.quotePath", "true"]);
    let names: [&[u8]; 7] = [
        b"with space.txt",
        b"tab\there.txt",
        b"new\nline.txt",
        "unicodé/ñ-日本.txt".as_bytes(),
        b"-leading-dash",
        b"caf\xe9",
        b"dir\xff/x.txt",
    ];
    for name in names {
        let mut tracked = b"tracked/".to_vec();
        tracked.extend_from_slice(name);
        write(r, &tracked, "t");
    }
    commit_all(r, "init");
    for name in names {
        let mut untracked = b"untracked/".to_vec();
        untracked.extend_from_slice(name);
        write(r, &untracked, "u");
    }
    let listed = assert_parity(r);
    assert!(
        listed
            .iter()
            .any(|c| c.path == b"tracked/caf\xe9" && c.status == Status::Tracked)
    );
    assert!(
        listed
            .iter()
            .any(|c| c.path == b"untracked/caf\xe9" && c.status == Status::Untracked)
    );
    assert!(
        listed
            .iter()
            .any(|c| c.path == b"untracked/new\nline.txt" && c.status == Status::Untracked)
    );
    assert_eq!(listed.len(), 2 * names.len());
}

#[test]
fn symlinks_are_listed_as_paths() {
    use crate::platform::symlink;
    let repo = new_repo();
    let r = repo.path();
    write(r, b"target.txt", "t");
    write(r, b"dir/inside.txt", "i");
    symlink("target.txt", r.join("tracked-link")).unwrap();
    symlink("dir", r.join("tracked-dir-link")).unwrap();
    commit_all(r, "init");
    symlink("target.txt", r.join("untracked-link")).unwrap();
    symlink("dir", r.join("untracked-dir-link")).unwrap();
    symlink("nowhere", r.join("dangling")).unwrap();
    write(r, b".gitignore", "ignored-link\nlinkdir/\n");
    symlink("dir", r.join("ignored-link")).unwrap();
    // A symlink is not a directory for `dir/` patterns.
    symlink("dir", r.join("linkdir")).unwrap();
    // git does not follow a symlinked .gitignore in the worktree.
    write(r, b"patterns", "*.x\n");
    std::fs::create_dir_all(r.join("sub")).unwrap();
    symlink("../patterns", r.join("sub/.gitignore")).unwrap();
    write(r, b"sub/a.x", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "tracked-link"), Some(Status::Tracked));
    assert_eq!(
        status_of(&listed, "tracked-dir-link"),
        Some(Status::Tracked)
    );
    assert_eq!(
        status_of(&listed, "untracked-link"),
        Some(Status::Untracked)
    );
    assert_eq!(
        status_of(&listed, "untracked-dir-link"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "dangling"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, "untracked-dir-link/inside.txt"), None);
    assert_eq!(status_of(&listed, "ignored-link"), None);
    assert_eq!(status_of(&listed, "linkdir"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, "sub/a.x"), Some(Status::Untracked));
}

#[test]
fn linked_worktrees() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"a.txt", "");
    write(r, b"d/b.txt", "");
    commit_all(r, "init");
    let holder = TempDir::new().unwrap();
    let wt = holder.path().join("wt");
    git(
        r,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            wt.to_str().unwrap(),
        ],
    );
    write(&wt, b"only-in-wt.txt", "");
    write(&wt, b"d/staged.txt", "");
    git(&wt, &["add", "d/staged.txt"]);
    std::fs::remove_file(wt.join("a.txt")).unwrap();
    write(r, b"only-in-main.txt", "");
    // A linked worktree inside the main worktree looks like a nested repository.
    git(r, &["worktree", "add", "-q", "-b", "inner", "inner-wt"]);

    let listed = list(&wt, Locate::RootOnly, "wt").unwrap().unwrap();
    assert_eq!(listed, assert_parity(&wt));
    assert_eq!(
        status_of(&listed, "only-in-wt.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "d/staged.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "a.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "only-in-main.txt"), None);

    let main = assert_parity(r);
    assert_eq!(
        status_of(&main, "only-in-main.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&main, "d/staged.txt"), None);
    assert_eq!(status_of(&main, "inner-wt"), Some(Status::NestedRepository));
    assert_parity(&wt.join("d"));
}

#[test]
fn index_formats_v4_split_index_and_untracked_cache() {
    let repo = new_repo();
    let r = repo.path();
    for i in 0..20 {
        write(r, format!("dir{}/file{i}.txt", i % 3).as_bytes(), "x");
    }
    write(r, b".gitignore", "*.o\n");
    commit_all(r, "init");
    git(r, &["update-index", "--index-version", "4"]);
    git(r, &["config", "core.untrackedCache", "true"]);
    git(r, &["update-index", "--untracked-cache"]);
    git(r, &["update-index", "--split-index"]);
    write(r, b"dir1/new.txt", "");
    write(r, b"dir1/new.o", "");
    git(r, &["add", "dir1/new.txt"]);
    write(r, b"dir2/untracked.txt", "");
    git(r, &["status", "--porcelain"]);
    assert!(std::fs::read_dir(r.join(".git")).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .as_bytes()
            .starts_with(b"sharedindex.")
    }));
    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "dir1/new.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "dir0/file0.txt"), Some(Status::Tracked));
    assert_eq!(
        status_of(&listed, "dir2/untracked.txt"),
        Some(Status::Untracked)
    );
    assert_eq!(status_of(&listed, "dir1/new.o"), None);
}

#[test]
fn separate_git_dir_and_gitfile_nested_repositories() {
    let holder = TempDir::new().unwrap();
    let work = holder.path().join("work");
    let gitdir = holder.path().join("elsewhere.git");
    test_home();
    git(
        holder.path(),
        &[
            "init",
            "-q",
            "--separate-git-dir",
            gitdir.to_str().unwrap(),
            work.to_str().unwrap(),
        ],
    );
    assert!(work.join(".git").is_file());
    write(&work, b"a.txt", "");
    commit_all(&work, "init");
    // A nested repository whose `.git` is a gitfile.
    let nested = work.join("nested");
    git(
        holder.path(),
        &[
            "init",
            "-q",
            "--separate-git-dir",
            holder.path().join("nested.git").to_str().unwrap(),
            nested.to_str().unwrap(),
        ],
    );
    write(&nested, b"n.txt", "");
    // A bare repository inside the worktree is not detected by git: its files are listed.
    git(&work, &["init", "-q", "--bare", "bare.git"]);
    write(&work, b"b.txt", "");

    let listed = list(&work, Locate::RootOnly, "work").unwrap().unwrap();
    assert_eq!(listed, assert_parity(&work));
    assert_eq!(status_of(&listed, "a.txt"), Some(Status::Tracked));
    assert_eq!(status_of(&listed, "b.txt"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, "nested"), Some(Status::NestedRepository));
    assert_eq!(status_of(&listed, "bare.git/HEAD"), Some(Status::Untracked));
    assert_eq!(status_of(&listed, ".git"), None);
    let root = Some(std::fs::canonicalize(&work).unwrap());
    assert_eq!(worktree_root(&work).unwrap(), root);
    // The bare repository is found from inside it, and has no worktree (git says so too).
    assert_eq!(worktree_root(&work.join("bare.git")).unwrap(), None);
    assert!(
        !git_output(&work.join("bare.git"), &["rev-parse", "--show-toplevel"])
            .status
            .success()
    );
}

#[test]
fn ignore_case_config() {
    let repo = new_repo();
    let r = repo.path();
    git(r, &["config", "core.ignoreCase", "true"]);
    write(r, b".gitignore", "*.LOG\nBuild/\n");
    write(r, b"Tracked.txt", "");
    commit_all(r, "init");
    write(r, b"a.log", "");
    write(r, b"b.Log", "");
    write(r, b"build/x.txt", "");
    write(r, b"keep.txt", "");

    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "a.log"), None);
    assert_eq!(status_of(&listed, "build/x.txt"), None);
    assert_eq!(status_of(&listed, "keep.txt"), Some(Status::Untracked));
}

#[test]
fn locate_modes() {
    test_home();
    let plain = TempDir::new().unwrap();
    write(plain.path(), b"file.txt", "");
    // /tmp is not inside a repository on the test machines; make sure of it.
    let above = git_output(plain.path(), &["rev-parse", "--git-dir"]);
    if above.status.success() {
        eprintln!("skipped the outside-of-any-repository check: the temp dir is inside one");
    } else {
        assert_eq!(list(plain.path(), Locate::Discover, ".").unwrap(), None);
    }
    assert_eq!(list(plain.path(), Locate::RootOnly, ".").unwrap(), None);

    let repo = new_repo();
    let r = repo.path();
    write(r, b"a.txt", "");
    write(r, b"d/e/f.txt", "");
    let root = list(r, Locate::RootOnly, ".").unwrap().unwrap();
    assert_eq!(root, assert_parity(r));
    assert_eq!(root.len(), 2);
    assert_eq!(list(&r.join("d"), Locate::RootOnly, "d").unwrap(), None);
    let from_d = list(&r.join("d/e"), Locate::Discover, "d/e")
        .unwrap()
        .unwrap();
    assert_eq!(
        from_d,
        vec![Candidate {
            path: b"f.txt".to_vec(),
            status: Status::Untracked
        }]
    );

    // Inside the git directory: not a worktree, as git says.
    let err = list(&r.join(".git"), Locate::Discover, ".git").unwrap_err();
    assert_eq!(err.code(), "git", "{err}");
    assert!(
        !git_output(
            &r.join(".git"),
            &["ls-files", "--cached", "--others", "--exclude-standard"]
        )
        .status
        .success()
    );

    // A bare repository has no worktree.
    let bare = TempDir::new().unwrap();
    git(bare.path(), &["init", "-q", "--bare"]);
    let err = list(bare.path(), Locate::Discover, "bare").unwrap_err();
    assert_eq!(err.code(), "git", "{err}");
    assert_eq!(err.path(), Some("bare"));
}

#[test]
fn a_corrupt_index_is_a_git_error() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"a.txt", "");
    commit_all(r, "init");
    std::fs::write(r.join(".git/index"), b"DIRC garbage").unwrap();
    assert!(!git_output(r, &["ls-files"]).status.success());
    let err = list(r, Locate::RootOnly, "here").unwrap_err();
    assert_eq!(err.code(), "git", "{err}");
    assert_eq!(err.path(), Some("here"));
    // The message is one line; gix's own error stays available as the source.
    assert!(!err.to_string().contains('\n'), "{err}");
    let source = std::error::Error::source(&err).expect("gix's error as the source");
    assert!(
        err.to_string().contains(&source.to_string()),
        "{err} / {source}"
    );
}

#[test]
fn an_index_with_a_wrong_checksum_lists_as_git_lists_it() {
    // git does not verify the index's trailing checksum when it reads it (only
    // `git fsck` does), so neither may a listing.
    let repo = new_repo();
    let r = repo.path();
    write(r, b"a.txt", "a");
    write(r, b"sub/b.txt", "b");
    commit_all(r, "init");
    write(r, b"new.txt", "untracked");
    let index = r.join(".git/index");
    let mut bytes = std::fs::read(&index).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&index, bytes).unwrap();
    assert!(git_output(r, &["ls-files"]).status.success());
    let listed = assert_parity(r);
    assert_eq!(listed.len(), 3, "{listed:?}");
}

/// Rough timing against `git ls-files` on ~10^4 files, or on the repository
/// `LEDGER_TIMING_REPO` names (e.g. corpus A of `benches/compare.py --keep`):
/// `cargo test -p ledger-core --release git::tests::timing -- --ignored --nocapture`.
#[test]
#[ignore = "timing, run by hand"]
fn timing() {
    let repo = new_repo();
    let given = std::env::var_os("LEDGER_TIMING_REPO").map(PathBuf::from);
    if given.is_none() {
        let r = repo.path();
        write(r, b".gitignore", "*.o\n");
        for d in 0..100 {
            for f in 0..80 {
                write(r, format!("d{d:03}/s{}/f{f:03}.txt", f % 4).as_bytes(), "x");
            }
        }
        commit_all(r, "init");
        for d in 0..100 {
            for f in 0..20 {
                write(r, format!("d{d:03}/new{f:02}.txt").as_bytes(), "x");
                write(r, format!("d{d:03}/new{f:02}.o").as_bytes(), "x");
            }
        }
    }
    let r = given.as_deref().unwrap_or(repo.path());
    let runs = std::env::var("LEDGER_TIMING_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut n = 0;
    for _ in 0..runs {
        let t = std::time::Instant::now();
        n = list(r, Locate::RootOnly, ".").unwrap().unwrap().len();
        ours.push(t.elapsed());
        let t = std::time::Instant::now();
        oracle(r);
        theirs.push(t.elapsed());
    }
    ours.sort();
    theirs.sort();
    // Where the time goes, once warm.
    let t = std::time::Instant::now();
    let repo = open_repository(r, Locate::RootOnly, ".").unwrap().unwrap();
    let t_open = t.elapsed();
    let t = std::time::Instant::now();
    let mut index = load_index(&repo, ".").unwrap();
    let t_index = t.elapsed();
    let t = std::time::Instant::now();
    let tracked_len = tracked(&repo, &index, b"", &Within::default(), &mut Nothing, ".")
        .unwrap()
        .len();
    let t_tracked = t.elapsed();
    mark_excluded_from_worktree_uptodate(&mut index);
    let mut collect = CollectUntracked {
        prefix_slash: b"",
        exclusions: &[],
        out: Vec::new(),
        found: &mut Nothing,
        recorder: None,
    };
    let t = std::time::Instant::now();
    walk_untracked(&repo, &index, &[], &mut collect, ".").unwrap();
    let t_walk = t.elapsed();
    println!(
        "open {t_open:?}, read index {t_index:?}, {tracked_len} index paths {t_tracked:?}, walk ({} untracked) {t_walk:?}",
        collect.out.len()
    );
    println!(
        "{n} paths: list() median {:?} (min {:?}); git ls-files median {:?} (min {:?})",
        ours[runs / 2],
        ours[0],
        theirs[runs / 2],
        theirs[0]
    );
    assert_parity(r);
}

mod random_trees {
    //! Random trees of tracked, deleted and untracked files under random ignore rules.
    use proptest::prelude::*;

    use super::*;

    const NAMES: [&str; 6] = ["a", "b", "c.txt", "d.log", "e", "F"];
    const PATTERNS: [&str; 14] = [
        "*.log", "!d.log", "b/", "/a", "a/*", "!a/c.txt", "e", "**/c.txt", "c*", "!b/", "F/",
        "/b/e", "*/", "!e/",
    ];

    /// Paths of one to three components from `NAMES`.
    fn path() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(0..NAMES.len(), 1..=3).prop_map(|parts| {
            parts
                .iter()
                .map(|&i| NAMES[i])
                .collect::<Vec<_>>()
                .join("/")
                .into_bytes()
        })
    }

    /// A `.gitignore` of up to four patterns.
    fn ignore_file() -> impl Strategy<Value = String> {
        prop::collection::vec(0..PATTERNS.len(), 0..=4)
            .prop_map(|p| p.iter().map(|&i| format!("{}\n", PATTERNS[i])).collect())
    }

    /// Writes the files of `paths` that do not clash with one already written (a file
    /// where a directory is needed or the reverse); returns those written.
    fn write_files(root: &Path, paths: &[Vec<u8>], written: &mut Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let mut now = Vec::new();
        for p in paths {
            let clashes = written.iter().any(|w| {
                w == p
                    || (p.starts_with(w) && p.get(w.len()) == Some(&b'/'))
                    || (w.starts_with(p) && w.get(p.len()) == Some(&b'/'))
            });
            if !clashes {
                write(root, p, "x");
                written.push(p.clone());
                now.push(p.clone());
            }
        }
        now
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 40,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn parity_on_random_trees(
            tracked in prop::collection::vec(path(), 0..8),
            untracked in prop::collection::vec(path(), 0..10),
            root_ignore in ignore_file(),
            nested_ignore in ignore_file(),
            deleted in prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        ) {
            let repo = new_repo();
            let r = repo.path();
            let mut written = Vec::new();
            let tracked = write_files(r, &tracked, &mut written);
            if !tracked.is_empty() {
                commit_all(r, "init");
            }
            for d in &deleted {
                if !tracked.is_empty() {
                    let _ = std::fs::remove_file(r.join(OsStr::from_bytes(&tracked[d.index(tracked.len())])));
                }
            }
            write(r, b".gitignore", &root_ignore);
            if r.join("b").is_dir() || !r.join("b").exists() {
                write(r, b"b/.gitignore", &nested_ignore);
                written.push(b"b/.gitignore".to_vec());
            }
            write_files(r, &untracked, &mut written);
            assert_parity(r);
            if r.join("b").is_dir() {
                assert_parity(&r.join("b"));
            }
        }
    }
}

/// A tracked file whose path became a directory holding a repository: git
/// lists the tracked path (from the index) and nothing more, whether or not the
/// caller took the tracked file early.
#[test]
fn a_tracked_path_that_became_a_nested_repository_stays_tracked() {
    let repo = new_repo();
    let r = repo.path();
    write(r, b"x", "file");
    write(r, b"keep.txt", "");
    commit_all(r, "x");
    std::fs::remove_file(r.join("x")).unwrap();
    std::fs::create_dir_all(r.join("x")).unwrap();
    git(&r.join("x"), &["init", "-q"]);
    write(&r.join("x"), b"inner.txt", "");
    let listed = assert_parity(r);
    assert_eq!(status_of(&listed, "x"), Some(Status::Tracked));
}
