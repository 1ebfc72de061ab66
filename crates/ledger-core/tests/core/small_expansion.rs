//! A small expansion runs on the calling thread (docs/performance.md, The fixed
//! cost of a run): when the store's digest cache says that the previous
//! expansion read at most one piece of work, no thread of the pool is started,
//! unless the listing queues more than one piece. Each expansion here runs in
//! a child process of this test (the pool is process-wide and outlives every
//! expansion), which reports how many threads it started and what it answered.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ledger_core::Settings;
use ledger_core::expand::{Inventory, Scope};
use ledger_testkit::{Git, utf8, write_below};

use crate::disk::{cached, drop_pages, writeback_tempdir};

/// Set in a child process to the workspace it expands.
const CHILD: &str = "LEDGER_TEST_SMALL_EXPANSION_WORKSPACE";

/// A step of the wait for a tree to age past the cache's timestamp
/// granularity (a tenth of a second where times keep fractions, two seconds
/// where they do not).
const STEP: Duration = Duration::from_millis(120);

/// The most steps waited: well past two seconds, so a wait that ends here failed.
const STEPS: usize = 100;

#[test]
fn a_small_expansion_starts_no_thread() {
    if let Some(workspace) = std::env::var_os(CHILD) {
        return child(Path::new(&workspace));
    }
    let dir = writeback_tempdir();
    let root = dir.path();
    let git = Git::isolated().identity("t", "t@t");
    git.init(root, &[]);
    write_below(root, ".ledger/.gitignore", "*\n");
    write_below(root, "one.txt", "one\n");
    git.commit_all(root, "one file");

    // Without a cache file nothing says the expansion is small: the pool
    // reads, which also shows that a started pool is seen.
    let (started, answer) = expand_in_child(root, &[]);
    assert!(started > 0, "no cache yet: the pool starts ({answer})");
    assert_eq!(answer, uncached(root));

    // Once the file is old enough to be cached, the cache holds one entry.
    let cache = root.join(".ledger/digest-cache");
    for _ in 0..STEPS {
        if cache.exists() {
            break;
        }
        std::thread::sleep(STEP);
        expand_in_child(root, &[]);
    }
    assert!(cache.exists(), "no expansion wrote the digest cache");
    let (started, answer) = expand_in_child(root, &[]);
    assert_eq!(started, 0, "a one-file expansion starts no thread");
    assert_eq!(answer, uncached(root));

    // Reads that meet the disk (the cache file's pages dropped) call the disk
    // helpers with the default count, and never with an explicit one.
    let (started, answer) = expand_in_child(root, &[("LEDGER_THREADS", "1")]);
    assert_eq!(started, 0, "an explicit count starts nothing here");
    drop_pages(&cache);
    let (started, _) = expand_in_child(root, &[("LEDGER_THREADS", "1")]);
    assert_eq!(started, 0, "an explicit count gets no disk helpers");
    // Whether this file system lets go of pages, asked of another file (the
    // probe's read may bring the pages back).
    let elsewhere = writeback_tempdir();
    let probe = elsewhere.path().join("probe");
    std::fs::write(&probe, "probe").unwrap();
    drop_pages(&probe);
    let drops = !cached(&probe);
    drop_pages(&cache);
    let (started, again) = expand_in_child(root, &[]);
    assert!(
        started > 0 || !drops,
        "the default count gets the disk helpers"
    );
    assert_eq!(again, answer);

    // A malformed thread count is refused on the small path too.
    let (_, answer) = expand_in_child(root, &[("LEDGER_THREADS", "two")]);
    assert_eq!(answer, "error invalid-argument");

    // The tree grew past one piece of work: the listing queued three (one per
    // directory), and the pool reads them.
    for dir in ["a", "b", "c"] {
        for n in 0..100 {
            write_below(root, &format!("{dir}/{n}.txt"), &format!("{dir} {n}\n"));
        }
    }
    let (started, answer) = expand_in_child(root, &[]);
    assert!(started > 0, "three pieces of work are read by the pool");
    assert_eq!(answer, uncached(root));
}

/// What the child process does: expands `workspace`, then prints how many
/// threads this process started meanwhile and the fingerprint (or the error's code).
fn child(workspace: &Path) {
    let before = threads();
    // The child is a front door: it reads the environment once, here.
    let expanded = Settings::from_env()
        .and_then(|settings| Inventory::expand(&scope(workspace).with_settings(settings)));
    let answer = match expanded {
        Ok(inventory) => inventory.fingerprint.to_string(),
        Err(e) => format!("error {}", e.code()),
    };
    let started = threads() - before;
    println!("started {started} answer {answer}");
}

/// The whole of `root`.
fn scope(root: &Path) -> Scope {
    let mut scope = Scope::new(utf8(root));
    scope.add_root(".").unwrap();
    scope
}

/// The threads of this process now (the pool's outlive the expansion).
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// Expands `root` in a child process with `env` added: how many threads it
/// started, and its answer.
fn expand_in_child(root: &Path, env: &[(&str, &str)]) -> (usize, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "small_expansion::a_small_expansion_starts_no_thread",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, root)
        .env_remove("LEDGER_THREADS")
        .env_remove("LEDGER_NO_CACHE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child: {stdout}");
    // After the harness's `test ... ` on the same line.
    let (_, report) = stdout
        .split_once("started ")
        .unwrap_or_else(|| panic!("the child reported nothing: {stdout}"));
    let line = report.lines().next().unwrap_or_default();
    let (started, answer) = line.split_once(" answer ").unwrap();
    (started.parse().unwrap(), answer.to_owned())
}

/// The fingerprint without the cache, in this process.
fn uncached(root: &Path) -> String {
    let off = Settings {
        digest_cache: false,
        ..Settings::default()
    };
    let inventory = Inventory::expand(&scope(root).with_settings(off));
    inventory.unwrap().fingerprint.to_string()
}
