//! Settings are the workspace's, not the process's (issue 44): two door
//! workspaces in one process, with different settings, used side by side and
//! at the same time, each keep their own.

#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::time::Duration;

use ledger_core::door::{Case, Hooks, respond_with};
use serde_json::{Value, json};

use crate::disk;

/// Longer than the digest cache's timestamp granularity: files older than
/// this when an expansion starts are recorded in the cache.
const AGE: Duration = Duration::from_millis(2200);

/// A workspace with a store and a few files, aged for the cache.
fn workspace() -> tempfile::TempDir {
    let dir = disk::writeback_tempdir();
    std::fs::create_dir(dir.path().join(".ledger")).unwrap();
    for i in 0..20 {
        std::fs::write(dir.path().join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
    }
    dir
}

/// The settings of a new workspace, as a binding asks for them.
fn settings(options: Value) -> Value {
    let reply = respond_with(
        None,
        None,
        "workspace_settings",
        &options.to_string(),
        Case::Snake,
        &Hooks::default(),
    );
    let reply: Value = serde_json::from_str(&reply).unwrap();
    reply["ok"].clone()
}

/// `verb` on `dir` with `settings`, as a binding calls it: the answer.
fn call(dir: &Path, settings: &Value, verb: &str) -> Value {
    let reply = respond_with(
        dir.to_str(),
        Some(&settings.to_string()),
        verb,
        "{}",
        Case::Snake,
        &Hooks::default(),
    );
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert!(reply.get("error").is_none(), "{verb}: {reply}");
    reply["ok"].clone()
}

/// The last of a few fingerprints of `dir` with `settings`.
fn fingerprints(dir: &Path, settings: &Value) -> Value {
    let mut last = Value::Null;
    for _ in 0..4 {
        last = call(dir, settings, "fingerprint");
    }
    last
}

#[test]
fn two_workspaces_in_one_process_keep_their_own_settings() {
    let (cached_dir, uncached_dir) = (workspace(), workspace());
    let cached = settings(json!({"threads": 1, "digest_cache": true, "environment": false}));
    let uncached = settings(json!({"threads": 3, "digest_cache": false, "environment": false}));
    assert_eq!(cached["threads"], 1);
    assert_eq!(uncached["threads"], 3);
    assert_eq!(uncached["digest_cache"], false);
    std::thread::sleep(AGE);
    // Side by side and at once: the uncached workspace is made and used
    // after the cached one, and from another thread while it runs.
    let answers = std::thread::scope(|s| {
        let a = s.spawn(|| fingerprints(cached_dir.path(), &cached));
        let b = s.spawn(|| fingerprints(uncached_dir.path(), &uncached));
        (a.join().unwrap(), b.join().unwrap())
    });
    // The same files give the same fingerprint, whatever the settings.
    assert_eq!(answers.0, answers.1);
    let cache = |dir: &tempfile::TempDir| dir.path().join(".ledger/digest-cache").exists();
    assert!(
        !cache(&uncached_dir),
        "the cache is off in that workspace only"
    );
    // Where writeback is proven (Linux), the cached workspace kept its cache
    // on although the other turned its own off.
    if cfg!(target_os = "linux") {
        assert!(cache(&cached_dir), "the other workspace's setting leaked");
    }
}

#[test]
fn a_workspace_reads_the_environment_when_made_and_never_again() {
    // The settings a binding's Workspace keeps are those read when it was
    // made: a later change of the environment does not reach them.
    let given = settings(json!({"environment": false, "signing_key": "/keys/a"}));
    assert_eq!(given["signing_key"], "/keys/a");
    assert_eq!(given["allowed_signers"], Value::Null);
    let other = settings(json!({"environment": false}));
    assert_eq!(other["signing_key"], Value::Null, "{other}");
    assert_eq!(other["digest_cache"], true);
}
