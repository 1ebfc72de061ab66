//! The walk memo and the opt-in watcher through the CLI: `ledger fingerprint`
//! with `--watchman` or `LEDGER_WATCHMAN=1`, asking a private Watchman server
//! (its socket in the child's `WATCHMAN_SOCK`), answers what `--no-cache` and
//! git's listing answer after every kind of change, after the server
//! restarted and once it is gone; an unreachable Watchman changes nothing,
//! not even stderr; and the walk memo alone replays only an unchanged tree.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ledger_testkit::WatchmanServer;

mod common;

use common::*;

/// A step of the wait for a tree to age past the cache's timestamp
/// granularity (a tenth of a second where times keep fractions, two seconds
/// where they do not).
const STEP: Duration = Duration::from_millis(120);

/// The most steps waited: well past two seconds, so a wait that ends here failed.
const STEPS: usize = 100;

/// The variables that would decide for the test what it means to choose.
const CALLERS: [&str; 3] = ["LEDGER_WATCHMAN", "LEDGER_NO_CACHE", "WATCHMAN_SOCK"];

/// A repository with tracked, untracked and ignored files, a `.gitignore` and
/// a store (which the cache, and so the walk memo, needs).
fn repository() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(".ledger/.gitignore", b"*\n");
    s.write(".gitignore", b"build/\n*.log\n");
    s.write("src/lib.rs", b"pub fn f() {}\n");
    s.write("docs/guide.md", b"guide\n");
    s.commit_all();
    s.write("notes.txt", b"notes\n");
    s.write("new/a.txt", b"a\n");
    s.write("new/deeper/b.txt", b"b\n");
    s.write("build/out.bin", b"ignored\n");
    s.write("run.log", b"ignored\n");
    s
}

/// `ledger <args>` in the sandbox's workspace with `env` and none of the
/// caller's settings; it must succeed.
fn run(s: &Sandbox, args: &[&str], env: &[(&str, &OsStr)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    for name in CALLERS {
        cmd.env_remove(name);
    }
    let out = cmd
        .envs(env.iter().copied())
        .current_dir(s.w())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ledger {args:?} with {env:?}: {}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The fingerprint `ledger <args>` prints, with nothing on stderr: the watcher
/// never fails a run nor warns.
fn fingerprint(s: &Sandbox, args: &[&str], env: &[(&str, &OsStr)]) -> String {
    let out = run(s, args, env);
    assert!(
        out.stderr.is_empty(),
        "ledger {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    last_line(&out)
}

/// The closing summary of `ledger --progress <args>` (its last line on
/// stderr), which says how many walks were replayed and on whose word.
fn summary(s: &Sandbox, args: &[&str], env: &[(&str, &OsStr)]) -> String {
    let args = [&["--progress"], args].concat();
    let out = run(s, &args, env);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    stderr.lines().last().unwrap_or_default().to_owned()
}

/// The answer without the cache (so without the memo or the watcher), checked
/// against the one computed from git's listing.
fn truth(s: &Sandbox) -> String {
    let uncached = fingerprint(s, &["fingerprint", "--no-cache"], &[]);
    assert_eq!(uncached, s.oracle_fingerprint(&s.w()));
    uncached
}

/// Fingerprints with the watcher asking the server at `sock`, turned on by
/// the flag and then by the environment; both must equal [`truth`].
fn check_watched(s: &Sandbox, sock: &Path, what: &str) -> String {
    let sock = ("WATCHMAN_SOCK", sock.as_os_str());
    let by_flag = fingerprint(s, &["fingerprint", "--watchman"], &[sock]);
    let on = ("LEDGER_WATCHMAN", OsStr::new("1"));
    let by_env = fingerprint(s, &["fingerprint"], &[sock, on]);
    let truth = truth(s);
    assert_eq!(by_flag, truth, "--watchman, {what}");
    assert_eq!(by_env, truth, "LEDGER_WATCHMAN=1, {what}");
    truth
}

/// The walk memo's bytes, when there is one.
fn memo(s: &Sandbox) -> Option<Vec<u8>> {
    std::fs::read(s.w().join(".ledger/walk-memo")).ok()
}

/// Waits (bounded) until the tree is old enough for a run to remember its
/// walk: `check` runs each step until the memo is written anew, then once
/// more, which replays it.
fn settle(s: &Sandbox, check: &dyn Fn() -> String) {
    let before = memo(s);
    for _ in 0..STEPS {
        std::thread::sleep(STEP);
        check();
        if memo(s).is_some_and(|now| Some(&now) != before.as_ref()) {
            check();
            return;
        }
    }
    panic!("no run remembered the walk of an aged tree");
}

/// A change to the worktree, named.
type Change = (&'static str, fn(&Sandbox));

/// The change that leaves the answer as it was.
const UNSEEN: &str = "a new file in an ignored directory";

/// Each kind of change: contents alone, and what the walk depends on.
fn changes() -> [Change; 8] {
    [
        ("an untracked file rewritten", |s| {
            s.write("notes.txt", b"notes, rewritten\n")
        }),
        ("a new untracked file", |s| s.write("new/c.txt", b"c\n")),
        ("a removed untracked file", |s| {
            std::fs::remove_file(s.w().join("new/a.txt")).unwrap()
        }),
        ("a removed tracked file", |s| {
            std::fs::remove_file(s.w().join("docs/guide.md")).unwrap()
        }),
        ("a new directory", |s| s.write("fresh/f.txt", b"f\n")),
        ("a .gitignore rewritten", |s| {
            s.write(".gitignore", b"build/\n*.log\n*.txt\n")
        }),
        (UNSEEN, |s| s.write("build/more/new.bin", b"more\n")),
        ("a directory ignored no more", |s| {
            s.write(".gitignore", b"*.log\n*.txt\n")
        }),
    ]
}

#[test]
fn the_watcher_answers_as_without_the_cache_after_every_change() {
    let mut server = WatchmanServer::start();
    let s = repository();
    let sock = server.sock();
    let check = |what: &str| check_watched(&s, &sock, what);
    settle(&s, &|| check("aged"));
    let mut last = check("nothing changed");
    let watched = [("WATCHMAN_SOCK", sock.as_os_str())];
    let said = summary(&s, &["fingerprint", "--watchman"], &watched);
    assert!(
        said.ends_with(", 1 walk replayed (1 on Watchman's word)"),
        "{said}"
    );

    for (what, change) in changes() {
        change(&s);
        // At once: the memo is stale and the change too recent to be remembered.
        let now = check(what);
        if what != UNSEEN {
            assert_ne!(now, last, "{what} changes the answer");
        }
        settle(&s, &|| check(what));
        last = check(&format!("{what}, settled"));
    }

    // A fresh instance knows no clock the memo kept: the directories are
    // looked at instead.
    server.restart();
    check("the server restarted");
    s.write("after-restart.txt", b"r\n");
    check("a new file after the restart");
    settle(&s, &|| check("after the restart"));

    // Gone: the same answers, by looking at the directories.
    drop(server);
    check("the server gone");
    s.write("new/after-drop.txt", b"d\n");
    check("a new file with the server gone");
    settle(&s, &|| check("with the server gone"));
    s.write("new/deeper/b.txt", b"b, rewritten\n");
    check("a rewrite with the server gone");
}

#[test]
fn an_unreachable_watchman_changes_nothing() {
    let s = repository();
    let nowhere = tempfile::tempdir().unwrap();
    let missing = nowhere.path().join("no-such-sock");
    // An empty PATH: no `watchman get-sockname` to fall back on.
    let path = ("PATH", nowhere.path().as_os_str());
    let unreachable: [&[(&str, &OsStr)]; 3] = [
        &[("WATCHMAN_SOCK", missing.as_os_str()), path],
        &[path],
        &[("WATCHMAN_SOCK", OsStr::new("")), path],
    ];
    let check = || {
        let truth = truth(&s);
        for env in unreachable {
            let by_flag = fingerprint(&s, &["fingerprint", "--watchman"], env);
            assert_eq!(by_flag, truth, "--watchman with {env:?}");
            let mut with_env = env.to_vec();
            with_env.push(("LEDGER_WATCHMAN", OsStr::new("1")));
            let by_env = fingerprint(&s, &["fingerprint"], &with_env);
            assert_eq!(by_env, truth, "LEDGER_WATCHMAN=1 with {with_env:?}");
        }
        truth
    };
    settle(&s, &check);
    s.write("new/deeper/c.txt", b"c\n");
    check();
}

#[test]
fn the_walk_memo_replays_only_an_unchanged_tree() {
    let s = repository();
    let plain = || {
        let cached = fingerprint(&s, &["fingerprint"], &[]);
        assert_eq!(cached, truth(&s));
        cached
    };
    // Bounded: until a run has written the memo, then a run that replays it.
    settle(&s, &plain);
    let before = plain();
    let said = summary(&s, &["fingerprint"], &[]);
    assert!(
        said.ends_with(", 1 walk replayed (0 on Watchman's word)"),
        "{said}"
    );

    // A new entry moves only its own directory's times, not its parents'.
    s.write("new/deeper/c.txt", b"c\n");
    let after = plain();
    assert_ne!(after, before);
    let said = summary(&s, &["fingerprint"], &[]);
    assert!(!said.contains("replayed"), "{said}");
    settle(&s, &plain);
    assert_eq!(plain(), after);
}
