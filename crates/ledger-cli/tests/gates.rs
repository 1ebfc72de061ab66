//! `ledger gate run` and `ledger gate check` on a real Git repository.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

use common::*;

/// A checkout plus a counter file outside it that the gate command appends to,
/// so that a test can tell whether the command really ran.
fn setup() -> (Sandbox, PathBuf) {
    let s = sample_checkout();
    let counter = s.dir.path().join("runs");
    std::fs::write(&counter, b"").unwrap();
    (s, counter)
}

fn runs(counter: &Path) -> usize {
    std::fs::read_to_string(counter).unwrap().lines().count()
}

/// `ledger gate run --name test <extra> -- sh -c 'echo run >> counter; <script>'`.
fn gate_run(s: &Sandbox, counter: &Path, extra: &[&str], script: &str) -> Output {
    let script = format!("echo run >> '{}'; {script}", counter.display());
    let mut args = vec!["gate", "run", "--name", "test"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--", "sh", "-c", &script]);
    s.ledger(&s.w(), &args)
}

fn check_json(s: &Sandbox, extra: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec!["gate", "check", "--name", "test", "--json"];
    args.extend_from_slice(extra);
    let out = s.ledger(&s.w(), &args);
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), json)
}

fn reasons(json: &serde_json::Value) -> Vec<String> {
    json["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn unchanged_tree_reuses_and_output_streams_through() {
    let (s, counter) = setup();
    let first = gate_run(&s, &counter, &[], "echo hello from the gate");
    assert_eq!(first.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&first.stdout),
        "hello from the gate\n"
    );
    let second = gate_run(&s, &counter, &[], "echo hello from the gate");
    assert_eq!(second.status.code(), Some(0));
    assert!(second.stdout.is_empty(), "the command did not run again");
    let note = String::from_utf8_lossy(&second.stderr);
    assert!(
        note.contains("fresh: gate test passed at ") && note.contains("sha256:"),
        "{note}"
    );
    assert_eq!(runs(&counter), 1);
    let (code, json) = check_json(&s, &[]);
    assert_eq!((code, json["fresh"].as_bool()), (0, Some(true)));
}

#[test]
fn each_kind_of_input_change_makes_it_stale() {
    type Mutation = fn(&Sandbox);
    let cases: [(&str, Mutation); 3] = [
        ("edit", |s| s.write("src/lib.rs", b"changed\n")),
        ("untracked addition", |s| s.write("src/new.rs", b"new\n")),
        ("chmod", |s| {
            std::fs::set_permissions(
                s.w().join("README.md"),
                std::fs::Permissions::from_mode(0o755),
            )
            .unwrap()
        }),
    ];
    for (name, mutate) in cases {
        let (s, counter) = setup();
        assert!(gate_run(&s, &counter, &[], "true").status.success());
        mutate(&s);
        let (code, json) = check_json(&s, &[]);
        assert_eq!(code, 1, "{name}");
        assert_eq!(reasons(&json), ["inputs-changed"], "{name}");
        let text = stdout_text(&s.ledger(&s.w(), &["gate", "check", "--name", "test"]));
        assert!(
            text.starts_with("stale: gate test\n  - inputs changed: 1 change(s)"),
            "{name}: {text}"
        );
        assert!(gate_run(&s, &counter, &[], "true").status.success());
        assert_eq!(runs(&counter), 2, "{name}: ran again");
    }
}

#[test]
fn prerequisite_changes_make_it_stale() {
    let (s, counter) = setup();
    let env = ["--env", "TARGET=x86_64", "--env-cmd", "tool=echo tool 1.0"];
    assert!(gate_run(&s, &counter, &env, "true").status.success());
    assert!(gate_run(&s, &counter, &env, "true").status.success());
    assert_eq!(runs(&counter), 1, "identical prerequisites reuse");
    let (code, json) = check_json(
        &s,
        &["--env", "TARGET=aarch64", "--env-cmd", "tool=echo tool 1.0"],
    );
    assert_eq!(code, 1);
    assert_eq!(reasons(&json), ["prerequisite-changed"]);
    assert_eq!(json["reasons"][0]["name"], "TARGET");
    assert_eq!(json["reasons"][0]["recorded"], "x86_64");
    assert_eq!(json["reasons"][0]["now"], "aarch64");
    let (code, json) = check_json(
        &s,
        &["--env", "TARGET=x86_64", "--env-cmd", "tool=echo tool 2.0"],
    );
    assert_eq!(
        (code, json["reasons"][0]["now"].as_str()),
        (1, Some("tool 2.0"))
    );
    // Read from the environment: the value at check time counts.
    let (s, counter) = setup();
    let run_with = |value: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        cmd.current_dir(s.w()).env("DEPLOY_ENV", value);
        cmd.args([
            "gate",
            "run",
            "--name",
            "test",
            "--env",
            "DEPLOY_ENV",
            "--",
            "sh",
            "-c",
        ]);
        cmd.arg(format!("echo run >> '{}'", counter.display()));
        cmd.output().unwrap()
    };
    assert!(run_with("staging").status.success());
    assert!(run_with("staging").status.success());
    assert!(run_with("prod").status.success());
    assert_eq!(runs(&counter), 2);
}

#[test]
fn a_failing_command_is_never_reused() {
    let (s, counter) = setup();
    assert_eq!(gate_run(&s, &counter, &[], "exit 3").status.code(), Some(3));
    assert_eq!(gate_run(&s, &counter, &[], "exit 3").status.code(), Some(3));
    assert_eq!(runs(&counter), 2);
    let (code, json) = check_json(&s, &[]);
    assert_eq!(code, 1);
    assert_eq!(reasons(&json), ["failed"]);
    assert_eq!(json["reasons"][0]["exit_status"], 3);
    let evidence = &json["evidence"];
    assert_eq!(evidence["exit_status"], 3);
    assert_eq!(evidence["spec"]["argv"][0], "sh");
    assert_eq!(evidence["spec"]["cwd"], ".");
}

#[test]
fn inputs_modified_during_the_run_are_not_reusable() {
    let (s, counter) = setup();
    let out = gate_run(&s, &counter, &[], "echo more >> src/lib.rs");
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("not reusable: the inputs changed during the run (1 change(s): src/lib.rs)")
    );
    let (code, json) = check_json(&s, &[]);
    assert_eq!(code, 1);
    assert!(
        reasons(&json).contains(&"not-reusable".to_owned()),
        "{json}"
    );
    assert!(gate_run(&s, &counter, &[], "true").status.success());
    assert_eq!(runs(&counter), 2);
}

#[test]
fn a_narrower_scope_or_another_command_does_not_stand_in() {
    let (s, counter) = setup();
    assert!(
        gate_run(&s, &counter, &["--root", "src"], "true")
            .status
            .success()
    );
    let (code, json) = check_json(&s, &[]);
    assert_eq!(code, 0, "no flags: the recorded scope is checked: {json}");
    let (code, json) = check_json(&s, &["--root", "."]);
    assert_eq!(code, 1);
    assert_eq!(reasons(&json), ["scope-differs"]);
    let (code, json) = check_json(&s, &["--root", "src", "--", "make", "test"]);
    assert_eq!(code, 1);
    assert_eq!(reasons(&json), ["command-differs"]);
}

#[test]
fn concurrent_runs_of_one_gate_both_land() {
    let (s, counter) = setup();
    let script = format!("echo run >> '{}'; sleep 0.3", counter.display());
    let spawn = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        cmd.current_dir(s.w())
            .args(["gate", "run", "--name", "test", "--", "sh", "-c", &script])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        runs(&counter),
        2,
        "both ran: neither found evidence at start"
    );
    let check = s.ledger(&s.w(), &["store", "check", "--json"]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["records"], 2);
    let (code, _) = check_json(&s, &[]);
    assert_eq!(code, 0);
}

#[test]
fn errors_are_coded() {
    let (s, counter) = setup();
    assert_blocked(
        &gate_run(&s, &counter, &["--env-cmd", "tool=exit 4"], "true"),
        "prerequisite-failed",
        "tool",
    );
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--name", "test", "--", "/nonexistent/tool"],
    );
    assert_blocked(&out, "gate-not-started", "/nonexistent/tool");
    assert_blocked(
        &s.ledger(&s.w(), &["gate", "run", "--name", "test"]),
        "invalid-argument",
        "--",
    );
    let out = s.ledger(&s.w(), &["gate", "run", "--name", "../x", "--", "true"]);
    assert_blocked(&out, "bad-ref-name", "../x");
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--name", "a", "--name", "b", "--", "true"],
    );
    assert_blocked(&out, "invalid-argument", "--name");
    assert_eq!(runs(&counter), 0, "nothing ran");
}

#[test]
fn scope_file_and_json_summary() {
    let (s, counter) = setup();
    let file = s.w().join("gate-scope.json");
    std::fs::write(
        &file,
        br#"{"workspace": ".", "roots": ["src"], "purpose": "gate: unit tests"}"#,
    )
    .unwrap();
    let out = gate_run(
        &s,
        &counter,
        &["--scope-file", file.to_str().unwrap(), "--json"],
        "echo to stderr please",
    );
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["reused"], false);
    assert_eq!(
        json["evidence"]["result"],
        "echo to stderr please".replace("echo ", "")
    );
    assert_eq!(json["evidence"]["inventory"]["scope"]["roots"][0], "src");
    assert!(String::from_utf8_lossy(&out.stderr).contains("to stderr please"));
}

fn stdout_text(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}
