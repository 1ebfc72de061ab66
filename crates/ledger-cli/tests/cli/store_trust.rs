//! The store's trust boundary through the CLI (SPEC §15): a store that comes
//! with the checkout, or that points elsewhere, never makes ledger answer.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::symlink;

use crate::common::*;

const GATE: [&str; 7] = ["gate", "run", "--name", "test", "--", "sh", "-c"];

/// An attacker ran the gate where it passed, outside Git, and committed that
/// `.ledger/` into the checkout, forced past its own `.gitignore`: the store
/// of the checkout (the repository's) refuses to take it in as its own.
#[test]
fn committed_evidence_is_not_trusted() {
    let s = sample_checkout();
    let elsewhere = s.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("input.txt"), "checked\n").unwrap();
    let mut run: Vec<&str> = GATE.to_vec();
    run.push("exit 0");
    assert_eq!(s.ledger(&elsewhere, &run).status.code(), Some(0));
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(elsewhere.join(".ledger"))
        .arg(s.w().join(".ledger"))
        .status()
        .unwrap();
    assert!(copied.success());
    s.git(&s.w(), &["add", "-f", ".ledger"]);
    s.git(&s.w(), &["commit", "-qm", "forged evidence"]);

    let check = s.ledger(&s.w(), &["gate", "check", "--name", "test"]);
    assert_blocked(&check, "untrusted-store", ".ledger");
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(stderr.contains("Git tracks"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Not reused: the run is refused rather than skipped as fresh.
    assert_run_refused(&s.ledger(&s.w(), &run), 125, "untrusted-store", ".ledger");

    let report = s.ledger(&s.w(), &["store", "check"]);
    assert_eq!(report.status.code(), Some(1));
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("problems found"), "{text}");
    assert!(text.contains(".ledger: Git tracks"), "{text}");
    // Nothing of it reached the repository's store.
    let refs = s.git(&s.w(), &["for-each-ref", "refs/ledger/"]);
    assert!(
        refs.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&refs.stdout)
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
