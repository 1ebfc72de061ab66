//! The store's trust boundary through the CLI (SPEC §15): a store that comes
//! with the checkout, or that points elsewhere, never makes ledger answer.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::symlink;

mod common;

use common::*;

const GATE: [&str; 7] = ["gate", "run", "--name", "test", "--", "sh", "-c"];

/// An attacker ran the gate where it passed and committed the store, forced
/// past its own `.gitignore`: in the checkout the evidence reads fresh.
#[test]
fn committed_evidence_is_not_trusted() {
    let s = sample_checkout();
    let mut run: Vec<&str> = GATE.to_vec();
    run.push("exit 0");
    assert_eq!(s.ledger(&s.w(), &run).status.code(), Some(0));
    s.git(&s.w(), &["add", "-f", ".ledger"]);
    s.git(&s.w(), &["commit", "-qm", "forged evidence"]);

    let check = s.ledger(&s.w(), &["gate", "check", "--name", "test"]);
    assert_blocked(&check, "untrusted-store", ".ledger");
    let stderr = String::from_utf8_lossy(&check.stderr);
    // The run's kept output is one of them: an object is a store file too.
    assert!(stderr.contains("Git tracks 5 of its files"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Not reused: the run is refused rather than skipped as fresh.
    assert_run_refused(&s.ledger(&s.w(), &run), 125, "untrusted-store", ".ledger");

    let report = s.ledger(&s.w(), &["store", "check"]);
    assert_eq!(report.status.code(), Some(1));
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("problems found"), "{text}");
    assert!(
        text.contains("refs/gates/test: it is tracked by Git"),
        "{text}"
    );
}

/// A fresh store keeps itself out of `git add -A`.
#[test]
fn a_new_store_is_ignored_by_git() {
    let s = sample_checkout();
    let mut run: Vec<&str> = GATE.to_vec();
    run.push("exit 0");
    assert_eq!(s.ledger(&s.w(), &run).status.code(), Some(0));
    s.commit_all();
    let files = s.git(&s.w(), &["ls-files"]);
    assert!(!String::from_utf8_lossy(&files.stdout).contains(".ledger"));
    let check = s.ledger(&s.w(), &["gate", "check", "--name", "test"]);
    assert_eq!(check.status.code(), Some(0));
    assert_eq!(s.ledger(&s.w(), &["store", "check"]).status.code(), Some(0));
}

/// `.ledger` symlinked to a directory elsewhere: nothing is written there, and
/// `store check` lists the store instead of reporting what it points at.
#[test]
fn a_symlinked_store_is_refused_and_listed() {
    let s = sample_checkout();
    let elsewhere = s.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, s.w().join(".ledger")).unwrap();
    let mut run: Vec<&str> = GATE.to_vec();
    run.push("exit 0");
    assert_run_refused(&s.ledger(&s.w(), &run), 125, "untrusted-store", ".ledger");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

    let report = s.ledger(&s.w(), &["store", "check"]);
    assert_eq!(report.status.code(), Some(1));
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("it is a symlink where ledger keeps a directory"),
        "{text}"
    );
}
