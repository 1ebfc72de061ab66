//! What a PASS must hold and what a write was based on, through the CLI:
//! `validate record --no-delivery`, exclusions under any spelling, phase
//! records at every check, gate prerequisites in a validation, and
//! `--reviewed` / `--expect` on every write verb.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::Output;

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";

/// An OpenSpec-shaped change with every artifact approved and a passing gate
/// `test` over `src` (its prerequisite `toolchain=1.80` when `prerequisite`).
fn approved(prerequisite: bool) -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(
        &format!("{CHANGE}/specs/auth/spec.md"),
        b"## ADDED Requirements\n",
    );
    s.write(&format!("{CHANGE}/tasks.md"), b"- [x] 1.1 Login\n");
    s.write(
        &format!("{CHANGE}/.openspec.yaml"),
        b"schema: spec-driven\n",
    );
    s.write("openspec/specs/auth/spec.md", b"# auth\n");
    s.write("src/lib.rs", b"pub fn login() {}\n");
    s.commit_all();
    for artifact in ["proposal", "specs", "design", "tasks"] {
        stdout(&ledger(
            &s,
            &[
                "approve",
                "--change",
                "add-auth",
                "--artifact",
                artifact,
                "--source",
                "r1",
            ],
        ));
    }
    let mut run = vec!["gate", "run", "--name", "test", "--root", "src"];
    if prerequisite {
        run.extend(["--env", "toolchain=1.80"]);
    }
    run.extend(["--", "cat", "src/lib.rs"]);
    let out = ledger(&s, &run);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s
}

fn ledger(s: &Sandbox, args: &[&str]) -> Output {
    s.ledger(&s.w(), args)
}

/// `validate record --verdict PASS` with `extra` flags.
fn record(s: &Sandbox, extra: &[&str]) -> Output {
    let mut args = vec![
        "validate",
        "record",
        "--change",
        "add-auth",
        "--verdict",
        "PASS",
        "--source",
        "r2",
    ];
    args.extend(extra);
    ledger(s, &args)
}

fn head(s: &Sandbox) -> Option<String> {
    let out = ledger(s, &["state", "show", "--change", "add-auth", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json[0]["record"].as_str().map(str::to_owned)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_pass_over_no_delivery_is_refused_unless_declared_with_a_reason() {
    let s = approved(false);
    let before = head(&s);
    let out = record(&s, &["--gate", "test"]);
    assert_blocked(&out, "no-delivery", "add-auth");
    assert!(stderr(&out).contains("--no-delivery"), "{}", stderr(&out));
    assert_eq!(head(&s), before, "nothing recorded");
    let out = record(
        &s,
        &[
            "--gate",
            "test",
            "--no-delivery",
            "planning only",
            "--root",
            "src",
        ],
    );
    assert_blocked(&out, "invalid-argument", "add-auth");

    stdout(&record(
        &s,
        &["--gate", "test", "--no-delivery", "a planning-only change"],
    ));
    let shown = stdout(&ledger(&s, &["state", "show", "--change", "add-auth"]));
    assert!(
        shown.contains("  no delivery ") && shown.contains("a planning-only change"),
        "{shown}"
    );
    let check = ledger(&s, &["validate", "check", "--change", "add-auth"]);
    let text = stdout(&check);
    assert!(
        text.contains("no delivery files: ") && text.contains("a planning-only change"),
        "{text}"
    );
    let json = stdout(&ledger(
        &s,
        &["validate", "check", "--change", "add-auth", "--json"],
    ));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["no_delivery"], "a planning-only change");
    assert_eq!(json["stands"], true);
}

#[test]
fn what_the_pass_must_hold_cannot_be_excluded_under_any_spelling() {
    let s = approved(false);
    let before = head(&s);
    for (flag, path, code) in [
        (
            "--exclude",
            "openspec/specs/auth/spec.md",
            "invalid-argument",
        ),
        (
            "--exclude",
            "./openspec/specs/auth/spec.md",
            "invalid-argument",
        ),
        ("--exclude", "openspec/specs/auth/", "invalid-argument"),
        (
            "--phase-record",
            "openspec/specs/auth/spec.md/",
            "invalid-argument",
        ),
        (
            "--exclude",
            "OPENSPEC/specs/auth/spec.md",
            "invalid-argument",
        ),
        (
            "--phase-record",
            "openspec/changes/add-auth/.openspec.yaml",
            "invalid-argument",
        ),
        (
            "--phase-record",
            "./openspec/changes/add-auth/design.md",
            "invalid-argument",
        ),
        (
            "--phase-record",
            "openspec/changes/add-auth/specs/auth/spec.md",
            "invalid-argument",
        ),
        ("--exclude", "openspec//specs/auth/spec.md", "invalid-path"),
        (
            "--exclude",
            "src/../openspec/specs/auth/spec.md",
            "outside-workspace",
        ),
    ] {
        let out = record(&s, &["--root", "src", "--gate", "test", flag, path]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag} {path}: {err}");
        assert!(
            err.starts_with(&format!("error[{code}]")),
            "{flag} {path}: {err}"
        );
    }
    assert_eq!(head(&s), before, "nothing recorded");
}

#[test]
fn a_phase_record_is_one_regular_file_when_recorded_and_at_every_check() {
    let s = approved(false);
    let phase = ".agents/phases/add-auth.md";
    let flags = ["--root", "src", "--gate", "test", "--phase-record", phase];
    let out = record(&s, &flags);
    assert_blocked(&out, "invalid-argument", phase);
    assert!(stderr(&out).contains("missing"), "{}", stderr(&out));

    s.write(phase, b"validated\n");
    stdout(&record(&s, &flags));
    stdout(&ledger(&s, &["validate", "check", "--change", "add-auth"]));
    // It becomes a directory with a file inside: the PASS does not stand.
    std::fs::remove_file(s.w().join(phase)).unwrap();
    s.write(&format!("{phase}/smuggled.rs"), b"fn smuggled() {}\n");
    let out = ledger(&s, &["validate", "check", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("does not stand"), "{text}");
    assert!(
        text.contains("phase record .agents/phases/add-auth.md: directory, not one regular file"),
        "{text}"
    );
    assert!(
        text.contains("inside: .agents/phases/add-auth.md/smuggled.rs"),
        "{text}"
    );
    let out = ledger(&s, &["finalize", "check", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("added: .agents/phases/add-auth.md/smuggled.rs"),
        "{text}"
    );
    let json = ledger(&s, &["finalize", "check", "--change", "add-auth", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["clean"], false);
    assert_eq!(json["phase_records"][0]["kind"], "directory");
    assert_eq!(
        json["phase_records"][0]["inside"][0],
        ".agents/phases/add-auth.md/smuggled.rs"
    );
}

#[test]
fn a_validation_observes_its_gates_prerequisites_as_gate_check_does() {
    let s = approved(true);
    let out = record(&s, &["--root", "src", "--gate", "test"]);
    assert_blocked(&out, "validation-refused", "prerequisite");
    let out = record(
        &s,
        &[
            "--root",
            "src",
            "--gate",
            "test",
            "--gate-env",
            "test:toolchain=1.81",
        ],
    );
    assert_blocked(&out, "validation-refused", "toolchain");
    let out = record(
        &s,
        &[
            "--root",
            "src",
            "--gate",
            "test",
            "--gate-env",
            "tset:toolchain=1.80",
        ],
    );
    assert_blocked(&out, "invalid-argument", "tset");
    let out = record(
        &s,
        &[
            "--root",
            "src",
            "--gate",
            "test",
            "--gate-env",
            "toolchain=1.80",
        ],
    );
    assert_blocked(&out, "invalid-argument", "GATE:NAME");
    stdout(&record(
        &s,
        &[
            "--root",
            "src",
            "--gate",
            "test",
            "--gate-env",
            "test:toolchain=1.80",
        ],
    ));

    let check = |extra: &[&str]| {
        let mut args = vec!["validate", "check", "--change", "add-auth"];
        args.extend(extra);
        ledger(&s, &args)
    };
    let out = check(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("prerequisite"),
        "{out:?}"
    );
    assert_eq!(
        check(&["--gate-env", "test:toolchain=1.80"]).status.code(),
        Some(0)
    );
    // The same inputs as gate check: a command's stdout, observed now.
    assert_eq!(
        check(&["--gate-env-cmd", "test:toolchain=echo 1.80"])
            .status
            .code(),
        Some(0)
    );
    let gate_check = ledger(
        &s,
        &["gate", "check", "--name", "test", "--env", "toolchain=1.80"],
    );
    assert_eq!(gate_check.status.code(), Some(0));
}

#[test]
fn approve_records_nothing_when_what_was_reviewed_moved() {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.commit_all();
    let set = [
        "--change",
        "add-auth",
        "--artifact",
        "proposal",
        "--source",
        "r1",
    ];
    let reviewed = last_line(&ledger(
        &s,
        &["fingerprint", "--path", &format!("{CHANGE}/proposal.md")],
    ));
    s.write(
        &format!("{CHANGE}/proposal.md"),
        b"# Why\nEdited after the review.\n",
    );
    let mut args = vec!["approve"];
    args.extend(set);
    args.extend(["--reviewed", &reviewed]);
    let out = ledger(&s, &args);
    assert_blocked(
        &out,
        "fingerprint-moved",
        "openspec/changes/add-auth/proposal.md",
    );
    assert!(stderr(&out).contains(&reviewed), "{}", stderr(&out));
    assert_eq!(head(&s), None, "nothing recorded");
    let out = ledger(
        &s,
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "proposal",
            "--source",
            "r1",
            "--reviewed",
            "sha256:nope",
        ],
    );
    assert_blocked(&out, "bad-fingerprint", "sha256:nope");

    // Reviewed again, from no state: recorded; the same write again conflicts.
    let now = last_line(&ledger(
        &s,
        &["fingerprint", "--path", &format!("{CHANGE}/proposal.md")],
    ));
    let mut args = vec!["approve"];
    args.extend(set);
    args.extend(["--reviewed", &now, "--expect", "no-record"]);
    stdout(&ledger(&s, &args));
    let first = head(&s).unwrap();
    let out = ledger(&s, &args);
    assert_blocked(&out, "pointer-conflict", &first);
    assert_eq!(head(&s).as_deref(), Some(first.as_str()));
}

#[test]
fn every_write_verb_takes_the_record_it_started_from() {
    let s = approved(false);
    let started = head(&s).unwrap();
    // Another writer advances the state.
    stdout(&ledger(
        &s,
        &[
            "state",
            "set",
            "--change",
            "add-auth",
            "--role",
            "implementation",
        ],
    ));
    let moved = head(&s).unwrap();
    let writes: [&[&str]; 4] = [
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "design",
            "--source",
            "r3",
        ],
        &[
            "validate",
            "record",
            "--change",
            "add-auth",
            "--verdict",
            "FAIL",
            "--source",
            "r3",
        ],
        &[
            "state",
            "set",
            "--change",
            "add-auth",
            "--role",
            "validation",
        ],
        &[
            "state",
            "retire",
            "--change",
            "add-auth",
            "--reason",
            "abandoned",
        ],
    ];
    for write in writes {
        let mut args = write.to_vec();
        args.extend(["--expect", &started]);
        let out = ledger(&s, &args);
        assert_blocked(&out, "pointer-conflict", &moved);
        assert_eq!(head(&s).as_deref(), Some(moved.as_str()), "{write:?}");
    }
    for write in writes {
        let mut args = write.to_vec();
        let now = head(&s).unwrap();
        args.extend(["--expect", &now]);
        stdout(&ledger(&s, &args));
    }
}

#[test]
fn a_verdict_records_nothing_when_its_pass_inventory_moved() {
    let s = approved(false);
    let before = head(&s).unwrap();
    // The PASS inventory the reviewer saw: the same entries as this scope.
    let reviewed = last_line(&ledger(
        &s,
        &[
            "fingerprint",
            "--root",
            CHANGE,
            "--root",
            "openspec/specs/auth",
            "--root",
            "src",
            // The PASS scope's own exclusion, of a file not written yet.
            "--exclude",
            &format!("{CHANGE}/completion-evidence.md"),
            "--allow-unmatched-exclusions",
        ],
    ));
    s.write("src/lib.rs", b"pub fn login() { /* after the review */ }\n");
    let out = record(
        &s,
        &[
            "--root",
            "src",
            "--reviewed",
            &reviewed,
            "--expect",
            &before,
        ],
    );
    assert_blocked(&out, "fingerprint-moved", "src/lib.rs");
    assert_eq!(head(&s).as_deref(), Some(before.as_str()));
    s.write("src/lib.rs", b"pub fn login() {}\n");
    stdout(&record(
        &s,
        &[
            "--root",
            "src",
            "--gate",
            "test",
            "--reviewed",
            &reviewed,
            "--expect",
            &before,
        ],
    ));
}
