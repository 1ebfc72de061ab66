//! A ref lock file left by a killed writer (issue 42): `store check` and
//! `ledger check` report it with its age, a write that meets it says which
//! file, whether it looks abandoned and what to do, and `store unlock`
//! removes only the abandoned ones. Git is the oracle of the refs.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, SystemTime};

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";

fn checkout() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(&format!("{CHANGE}/specs/auth/spec.md"), b"## Requirement\n");
    s.write(&format!("{CHANGE}/tasks.md"), b"- [ ] 1.1 Login\n");
    s.commit_all();
    s
}

fn ledger(s: &Sandbox, args: &[&str]) -> Output {
    s.ledger(&s.w(), args)
}

fn approve(s: &Sandbox, artifact: &str) -> Output {
    ledger(
        s,
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            artifact,
            "--source",
            "m",
        ],
    )
}

/// A lock file beside the ref `name`, last modified `age` ago: what a
/// writer killed between taking the lock and renaming it leaves.
fn leave_lock(s: &Sandbox, name: &str, age: Duration) -> PathBuf {
    let lock = s.w().join(format!(".git/refs/ledger/heads/{name}.lock"));
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let file = std::fs::File::create(&lock).unwrap();
    file.set_modified(SystemTime::now() - age).unwrap();
    lock
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn a_stale_ref_lock_is_reported_explained_and_removed_only_when_abandoned() {
    let s = checkout();
    assert_eq!(approve(&s, "proposal").status.code(), Some(0));
    let head = s.git(&s.w(), &["rev-parse", "refs/ledger/heads/changes/add-auth"]);
    let lock = leave_lock(&s, "changes/add-auth", Duration::from_secs(2 * 3600));

    // store check lists it with its age, and the store is not clean.
    let check = ledger(&s, &["store", "check"]);
    let text = String::from_utf8_lossy(&check.stdout).into_owned();
    assert_eq!(check.status.code(), Some(1), "{text}");
    assert!(
        text.contains("refs/ledger/heads/changes/add-auth.lock: 2h") && text.contains("abandoned"),
        "{text}"
    );
    let report = json(&ledger(&s, &["store", "check", "--json"]));
    assert_eq!(
        report["locks"][0]["file"],
        "refs/ledger/heads/changes/add-auth.lock"
    );
    assert_eq!(report["locks"][0]["abandoned"], true);
    assert!(report["locks"][0]["age_seconds"].as_u64().unwrap() >= 7200);
    // ledger check surfaces it as its store item.
    let resume = ledger(&s, &["check", "--json"]);
    assert_eq!(resume.status.code(), Some(1));
    let resume = json(&resume);
    assert!(
        resume["work"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "store"
                && w["message"].as_str().unwrap_or_default().contains("lock")),
        "{resume}"
    );

    // A write that meets it: which file, abandoned, what to do, one hint line.
    let refused = approve(&s, "design");
    assert_blocked(
        &refused,
        "ref-locked",
        "refs/ledger/heads/changes/add-auth.lock",
    );
    let stderr = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(
        stderr.contains("abandoned") && stderr.contains("ledger store unlock"),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("hint: ")).count(),
        1,
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    // Refused before anything was written: no orphan record.
    assert_eq!(
        json(&ledger(&s, &["store", "check", "--json"]))["orphans"],
        serde_json::json!([])
    );

    // A lock a writer may still hold (young) is never removed.
    let young = leave_lock(&s, "gates/test", Duration::ZERO);
    let too_soon = ledger(&s, &["store", "unlock", "--older-than", "30s"]);
    assert_blocked(&too_soon, "invalid-argument", "1m");
    let unlocked = ledger(&s, &["store", "unlock", "--json"]);
    assert_eq!(unlocked.status.code(), Some(1), "a young lock is kept");
    let unlocked = json(&unlocked);
    assert_eq!(
        unlocked["removed"][0]["file"],
        "refs/ledger/heads/changes/add-auth.lock"
    );
    assert_eq!(
        unlocked["kept"][0]["file"],
        "refs/ledger/heads/gates/test.lock"
    );
    assert!(!lock.exists() && young.exists());
    // Nothing else was touched: the ref is as Git reads it.
    let same = s.git(&s.w(), &["rev-parse", "refs/ledger/heads/changes/add-auth"]);
    assert_eq!(same.stdout, head.stdout);

    // The write goes through now, and Git sees the ref advance.
    assert_eq!(approve(&s, "design").status.code(), Some(0));
    let moved = s.git(&s.w(), &["rev-parse", "refs/ledger/heads/changes/add-auth"]);
    assert_ne!(moved.stdout, head.stdout);
    std::fs::remove_file(&young).unwrap();
    assert_eq!(ledger(&s, &["store", "check"]).status.code(), Some(0));
}

#[test]
fn a_young_lock_says_another_writer_may_hold_it() {
    let s = checkout();
    assert_eq!(approve(&s, "proposal").status.code(), Some(0));
    leave_lock(&s, "changes/add-auth", Duration::ZERO);
    let refused = approve(&s, "design");
    assert_blocked(&refused, "ref-locked", "add-auth.lock");
    let stderr = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(stderr.contains("another writer"), "{stderr}");
    let unlocked = ledger(&s, &["store", "unlock"]);
    assert_eq!(unlocked.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unlocked.stdout).contains("kept"));
}
