//! The CLI's vocabulary stays in the CLI: the core's messages name no flag,
//! the CLI follows an error with one `hint:` line naming the flags to use, and
//! the records the CLI writes keep the reason it always gave `--exclude`.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::Output;

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";

/// Stderr as lines: the `error[code]: message` line and the hint line.
fn error_and_hint(out: &Output, code: &str) -> (String, String) {
    let stderr = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(out.status.code().is_some_and(|c| c != 0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "an error line and a hint line: {stderr}");
    assert!(
        lines[0].starts_with(&format!("error[{code}]: ")),
        "{stderr}"
    );
    let hint = lines[1].strip_prefix("hint: ").expect("a hint line");
    (lines[0].to_owned(), hint.to_owned())
}

/// The part of a core message that the CLI's hint stands in for: it names no flag.
fn assert_no_flag(message: &str) {
    assert!(
        !message.contains(" --") && !message.contains("(--"),
        "a flag in the core's message: {message}"
    );
}

#[test]
fn an_undeclared_nested_repository_is_hinted_in_flags() {
    let s = sample_checkout();
    s.write("nested/a.txt", b"a");
    s.git(&s.w().join("nested"), &["init", "-q"]);
    let out = s.ledger(&s.w(), &["fingerprint"]);
    assert_blocked(&out, "nested-repository", "'nested'");
    let (error, hint) = error_and_hint(&out, "nested-repository");
    assert!(
        error.ends_with("declare it as a repository of the scope, or exclude it"),
        "{error}"
    );
    assert_no_flag(&error);
    assert_eq!(hint, "declare it with --repo, or exclude it with --exclude");
    // Following the hint clears the error, without a hint.
    let excluded = s.ledger(&s.w(), &["fingerprint", "--exclude", "nested"]);
    assert_eq!(excluded.status.code(), Some(0));
    assert!(excluded.stderr.is_empty());
}

#[test]
fn an_error_without_a_hint_is_one_line() {
    let s = sample_checkout();
    let out = s.ledger(&s.w(), &["fingerprint", "--path", "../x"]);
    assert_blocked(&out, "outside-workspace", "../x");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn exclude_records_the_reason_every_door_records() {
    let s = sample_checkout();
    let record: serde_json::Value = serde_json::from_str(&stdout(
        &s.ledger(&s.w(), &["inventory", "--exclude", "src"]),
    ))
    .unwrap();
    assert_eq!(
        record["scope"]["exclusions"][1],
        serde_json::json!({"path": "src", "reason": ledger_core::expand::DEFAULT_EXCLUSION_REASON})
    );
}

#[test]
fn a_record_file_named_by_path_is_hinted() {
    let s = sample_checkout();
    let out = s.ledger(
        &s.w(),
        &["inventory", "--path", "rec.json", "--out", "rec.json"],
    );
    let (error, hint) = error_and_hint(&out, "invalid-argument");
    assert!(error.contains("rec.json"), "{error}");
    assert_no_flag(&error);
    assert_eq!(
        hint,
        "the record file is named by --path or --tasks; give --out another file"
    );
}

#[test]
fn a_gate_over_a_tasks_file_is_hinted() {
    let s = sample_checkout();
    s.write("tasks.md", b"- [ ] 1.1 do it\n");
    let hint = "drop --tasks for a gate; list the file with --root or --path";
    // `gate run` reports its own failures (exit 125), hint included.
    let run = |extra: &[&str]| {
        let mut args = vec!["gate", "run", "--name", "test"];
        args.extend(extra);
        args.extend(["--", "true"]);
        s.ledger(&s.w(), &args)
    };
    let out = run(&["--tasks", "tasks.md"]);
    assert_eq!(out.status.code(), Some(125));
    let (error, given) = error_and_hint(&out, "invalid-argument");
    assert_no_flag(&error);
    assert_eq!(given, hint);
    assert_eq!(run(&[]).status.code(), Some(0));
    let out = s.ledger(
        &s.w(),
        &["gate", "check", "--name", "test", "--tasks", "tasks.md"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(error_and_hint(&out, "invalid-argument").1, hint);
}

/// An OpenSpec-shaped change.
fn change() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(
        &format!("{CHANGE}/specs/auth/spec.md"),
        b"## ADDED Requirements\n",
    );
    s.write(&format!("{CHANGE}/tasks.md"), b"- [x] 1.1 Login\n");
    s.write("openspec/specs/auth/spec.md", b"# auth\n");
    s.write("src/lib.rs", b"pub fn login() {}\n");
    s.commit_all();
    s
}

#[test]
fn an_exclusion_inside_the_change_is_hinted_toward_phase_records() {
    let s = change();
    s.write(&format!("{CHANGE}/review-notes.md"), b"# Review\n");
    let out = s.ledger(
        &s.w(),
        &[
            "validate",
            "record",
            "--change",
            "add-auth",
            "--verdict",
            "FAIL",
            "--source",
            "review 1",
            "--root",
            "src",
            "--exclude",
            &format!("{CHANGE}/review-notes.md"),
        ],
    );
    let (error, hint) = error_and_hint(&out, "invalid-argument");
    assert_no_flag(&error);
    assert_eq!(
        hint,
        "name a phase record with --phase-record, not --exclude"
    );
}

#[test]
fn a_recorded_schema_outside_the_workspace_is_hinted() {
    let s = change();
    let outside = s.dir.path().join("schema.yaml");
    std::fs::write(
        &outside,
        include_str!("../../../ledger-core/schemas/spec-driven/schema.yaml"),
    )
    .unwrap();
    let approve = s.ledger(
        &s.w(),
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "proposal",
            "--source",
            "r1",
            "--schema",
            outside.to_str().unwrap(),
        ],
    );
    assert_eq!(
        approve.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&approve.stderr)
    );
    let out = s.ledger(&s.w(), &["status", "--change", "add-auth"]);
    let (error, hint) = error_and_hint(&out, "invalid-argument");
    assert_no_flag(&error);
    assert_eq!(hint, "give the schema file with --schema PATH");
}

#[test]
fn an_unknown_schema_and_a_missing_verdict_are_hinted() {
    let s = change();
    let out = s.ledger(
        &s.w(),
        &["status", "--change", "add-auth", "--schema", "rapdi"],
    );
    let (error, hint) = error_and_hint(&out, "unknown-schema");
    assert!(error.contains("(named by the caller)"), "{error}");
    assert_no_flag(&error);
    assert_eq!(hint, "give the schema file with --schema PATH");
    let out = s.ledger(&s.w(), &["validate", "check", "--change", "add-auth"]);
    let (error, hint) = error_and_hint(&out, "not-validated");
    assert_no_flag(&error);
    assert_eq!(hint, "record a verdict with `ledger validate record`");
}
