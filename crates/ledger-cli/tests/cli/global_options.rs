//! The global options and `--json` before the verb's name read as after it
//! (docs/errors.md: `--json` anywhere before a `--`; issue 42): the same
//! output and the same exit status either way, for top-level verbs and
//! nested ones (`gate check`), and the same refusal where a verb has no
//! `--json`.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::Output;

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";

/// A Git checkout with the change `add-auth` (its proposal approved), the
/// gate `test` and the verdict `audit` over `src/`, recorded before
/// `src/lib.rs` changed: answers of 1 with something to list.
fn workspace() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(&format!("{CHANGE}/specs/auth/spec.md"), b"## ADDED\n");
    s.write(&format!("{CHANGE}/tasks.md"), b"- [ ] 1.1 [core] Login\n");
    s.write("src/lib.rs", b"pub fn login() {}\n");
    s.write("allowed_signers", b"");
    s.commit_all();
    for args in [
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "proposal",
            "--source",
            "r",
        ][..],
        &[
            "gate", "run", "--name", "test", "--root", "src", "--", "true",
        ],
        &[
            "verdict",
            "record",
            "--name",
            "audit",
            "--verdict",
            "PASS",
            "--source",
            "r",
            "--root",
            "src",
        ],
    ] {
        stdout(&s.ledger(&s.w(), args));
    }
    s.write("src/lib.rs", b"pub fn login() { todo!() }\n");
    s
}

/// Verbs that read, each with `--json`: their answers do not depend on
/// when they run.
const READERS: [&[&str]; 8] = [
    &["status", "--change", "add-auth"],
    &["check"],
    &["changes"],
    &["tasks", "--change", "add-auth"],
    &["store", "check"],
    &["gate", "check", "--name", "test"],
    &["verdict", "check", "--name", "audit"],
    &["fingerprint", "--root", "src"],
];

fn ledger(s: &Sandbox, args: &[&str]) -> Output {
    s.ledger(&s.w(), args)
}

/// Asserts that `before` and `after` ran alike: the same exit status and
/// stdout, neither a usage error.
fn assert_alike(before: (&[&str], &Output), after: (&[&str], &Output)) {
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        before.1.status.code(),
        after.1.status.code(),
        "ledger {:?} and ledger {:?}: {} / {}",
        before.0,
        after.0,
        stderr(before.1),
        stderr(after.1)
    );
    assert_eq!(
        String::from_utf8_lossy(&before.1.stdout),
        String::from_utf8_lossy(&after.1.stdout),
        "ledger {:?} and ledger {:?}",
        before.0,
        after.0
    );
    assert!(
        !stderr(before.1).contains("invalid-argument"),
        "ledger {:?}: {}",
        before.0,
        stderr(before.1)
    );
}

#[test]
fn json_before_the_verb_reads_as_after_it() {
    let s = workspace();
    for verb in READERS {
        // --no-cache: no run writes the digest cache, whose size `store check`
        // reports (a file that ages past the cache's cut-off between the two
        // runs would be cached by the second one only).
        let before: Vec<&str> = ["--no-cache", "--json"]
            .iter()
            .chain(verb)
            .copied()
            .collect();
        let after: Vec<&str> = ["--no-cache"]
            .iter()
            .chain(verb)
            .chain(&["--json"])
            .copied()
            .collect();
        let (b, a) = (ledger(&s, &before), ledger(&s, &after));
        assert_alike((&before, &b), (&after, &a));
        serde_json::from_slice::<serde_json::Value>(&b.stdout)
            .unwrap_or_else(|e| panic!("ledger {before:?}: not JSON: {e}"));
    }
    // Verbs that write: JSON on stdout, the gate's own output on stderr.
    let approved = ledger(
        &s,
        &[
            "--json",
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "design",
            "--source",
            "r",
        ],
    );
    let binding: serde_json::Value = serde_json::from_slice(&approved.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&approved.stderr)));
    assert_eq!(binding["artifact"], "design");
    let run = ledger(
        &s,
        &[
            "--json", "gate", "run", "--name", "other", "--root", "src", "--", "echo", "ran",
        ],
    );
    let outcome: serde_json::Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stderr)));
    assert_eq!(outcome["freshness"]["gate"], "other");
    assert_eq!(
        String::from_utf8_lossy(&run.stderr).lines().next(),
        Some("ran")
    );
}

#[test]
fn every_global_option_reads_the_same_before_the_verb_as_after_it() {
    let s = workspace();
    let signers = s.w().join("allowed_signers");
    let signers = signers.to_str().unwrap();
    let key = s.dir.path().join("no-key-is-read-by-a-reading-verb");
    let key = key.to_str().unwrap();
    let options: [&[&str]; 9] = [
        &["--threads", "2"],
        &["--threads=2"],
        &["--no-cache"],
        &["--quiet"],
        &["--progress"],
        &["--signing-key", key],
        &["--allowed-signers", signers],
        &["--json"],
        &["--threads", "1", "--no-cache", "--quiet", "--json"],
    ];
    for option in options {
        for verb in READERS {
            let before: Vec<&str> = option.iter().chain(verb).copied().collect();
            let after: Vec<&str> = verb.iter().chain(option).copied().collect();
            let (b, a) = (ledger(&s, &before), ledger(&s, &after));
            assert_alike((&before, &b), (&after, &a));
        }
    }
}

#[test]
fn a_verb_without_json_refuses_it_before_its_name_as_after_it() {
    let s = workspace();
    let before = ledger(&s, &["--json", "inventory", "--root", "src"]);
    let after = ledger(&s, &["inventory", "--root", "src", "--json"]);
    assert_eq!(before.status.code(), Some(2));
    assert!(before.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&before.stderr),
        String::from_utf8_lossy(&after.stderr)
    );
    let error: serde_json::Value = serde_json::from_slice(&before.stderr).unwrap();
    assert_eq!(error["code"], "invalid-argument");
}
