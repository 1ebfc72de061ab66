//! `ledger gate run` and `ledger gate check` on a real Git repository.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::*;
use ledger_core::records::Store;
use ledger_testkit::utf8;
use serde_json::json;

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

/// Evidence records the commit `HEAD` named and whether the inputs were that
/// commit's; a commit that leaves the inputs alone keeps it fresh.
#[test]
fn evidence_records_head_and_a_commit_elsewhere_keeps_it_fresh() {
    let (s, counter) = setup();
    let head = |s: &Sandbox| {
        stdout(&s.git(&s.w(), &["rev-parse", "HEAD"]))
            .trim()
            .to_owned()
    };
    assert!(
        gate_run(&s, &counter, &["--root", "src"], "true")
            .status
            .success()
    );
    let (_, json) = check_json(&s, &["--root", "src"]);
    assert_eq!(
        json["evidence"]["head"],
        serde_json::json!({"commit": head(&s), "clean": true})
    );
    s.write("docs/later.md", b"later\n");
    s.commit_all();
    let (code, _) = check_json(&s, &["--root", "src"]);
    assert_eq!(code, 0, "HEAD moved, the inputs did not");
    // An untracked file in scope: the inputs are not the commit's.
    s.write("src/new.rs", b"fn new() {}\n");
    assert!(gate_run(&s, &counter, &[], "true").status.success());
    let (_, json) = check_json(&s, &[]);
    assert_eq!(json["evidence"]["head"]["clean"], false);
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
    assert_run_refused(
        &gate_run(&s, &counter, &["--env-cmd", "tool=exit 4"], "true"),
        125,
        "prerequisite-failed",
        "tool",
    );
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--name", "test", "--", "/nonexistent/tool"],
    );
    assert_run_refused(&out, 127, "gate-not-started", "/nonexistent/tool");
    assert_run_refused(
        &s.ledger(&s.w(), &["gate", "run", "--name", "test"]),
        125,
        "invalid-argument",
        "--",
    );
    let out = s.ledger(&s.w(), &["gate", "run", "--name", "../x", "--", "true"]);
    assert_run_refused(&out, 125, "bad-ref-name", "../x");
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--name", "a", "--name", "b", "--", "true"],
    );
    assert_run_refused(&out, 125, "invalid-argument", "--name");
    let out = s.ledger(
        &s.w(),
        &[
            "gate",
            "run",
            "--name",
            "t",
            "--timeout",
            "soon",
            "--",
            "true",
        ],
    );
    assert_run_refused(&out, 125, "invalid-argument", "--timeout soon");
    // `gate check` keeps the usual error status.
    let out = s.ledger(&s.w(), &["gate", "check", "--name", "../x"]);
    assert_blocked(&out, "bad-ref-name", "../x");
    assert_eq!(runs(&counter), 0, "nothing ran");
}

#[test]
fn a_gate_status_is_never_taken_for_ledger_s_own() {
    let (s, counter) = setup();
    // The gate's own 2 is the gate's; ledger's failures are 125, 126, 127.
    assert_eq!(gate_run(&s, &counter, &[], "exit 2").status.code(), Some(2));
    s.write("not-executable", b"#!/bin/sh\n");
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--name", "test", "--", "./not-executable"],
    );
    assert_run_refused(&out, 126, "gate-not-started", "not-executable");
    let out = s.ledger(
        &s.w(),
        &["gate", "run", "--name", "test", "--", "no-such-tool-5f3a"],
    );
    assert_run_refused(&out, 127, "gate-not-started", "no-such-tool-5f3a");
    let help = s.ledger(&s.w(), &["gate", "run", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("125      ledger itself failed"));
}

#[test]
fn a_gate_killed_by_signal_n_exits_128_plus_n() {
    let (s, counter) = setup();
    for (signal, number) in [("USR1", 10), ("TERM", 15), ("KILL", 9)] {
        let out = gate_run(&s, &counter, &["--json"], &format!("kill -{signal} $$"));
        assert_eq!(out.status.code(), Some(128 + number), "{signal}");
        let json = json_of(&out);
        assert_eq!(json["evidence"]["exit_status"], serde_json::Value::Null);
        assert_eq!(json["evidence"]["signal"], number);
    }
}

/// Whether process `pid` is alive (a zombie is not).
fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits until `file` holds a line, and returns it.
fn wait_for_line(file: &Path) -> String {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(file)
            && text.ends_with('\n')
        {
            return text.trim().to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} was never written", file.display());
}

#[test]
fn a_timeout_stops_the_whole_process_group_and_is_never_reused() {
    let (s, counter) = setup();
    let pids = s.dir.path().join("pids");
    // A child that ignores SIGTERM and a grandchild in the background.
    let script = format!(
        "trap '' TERM; sleep 60 & echo $! > '{}'; while :; do sleep 0.05; done",
        pids.display()
    );
    let clock = std::time::Instant::now();
    let out = gate_run(&s, &counter, &["--timeout", "300ms", "--json"], &script);
    let elapsed = clock.elapsed();
    // 124, as timeout(1) reports it: the gate ignored SIGTERM and got SIGKILL.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    let grandchild = wait_for_line(&pids);
    assert!(
        !alive(&grandchild),
        "the gate's background process outlived it"
    );
    let json = json_of(&out);
    assert_eq!(json["evidence"]["signal"], 9);
    let stopped = serde_json::json!({"by": "timeout", "after_ms": 300});
    assert_eq!(json["evidence"]["stopped"], stopped);
    let why = json["evidence"]["not_reusable"].as_str().unwrap();
    assert!(why.starts_with("timed out after 300ms"), "{why}");
    let (code, check) = check_json(&s, &[]);
    assert_eq!(code, 1);
    assert_eq!(reasons(&check), ["failed", "not-reusable"]);
    // A gate that exits 0 when told to stop did not pass either.
    let script = "trap 'exit 0' TERM; while :; do sleep 0.05; done";
    let out = gate_run(&s, &counter, &["--timeout", "200ms", "--json"], script);
    assert_eq!(out.status.code(), Some(124));
    assert_eq!(json_of(&out)["evidence"]["exit_status"], 0);
    let text = stdout_text(&s.ledger(&s.w(), &["gate", "check", "--name", "test"]));
    assert!(text.contains("did not pass: ledger stopped it"), "{text}");
    assert!(
        text.contains("not reusable: timed out after 200ms"),
        "{text}"
    );
}

#[test]
fn a_terminated_ledger_forwards_the_signal_and_waits_for_the_gate() {
    for (signal, name) in [("TERM", "SIGTERM"), ("INT", "SIGINT"), ("HUP", "SIGHUP")] {
        let (s, counter) = setup();
        let pid_file = s.dir.path().join("gate-pid");
        let script = format!(
            "echo run >> '{}'; trap 'echo stopped >> {}; exit 7' {signal}; echo $$ > '{}'; while :; do sleep 0.05; done",
            counter.display(),
            counter.display(),
            pid_file.display()
        );
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        let child = cmd
            .current_dir(s.w())
            .args([
                "gate", "run", "--name", "test", "--json", "--", "sh", "-c", &script,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let gate = wait_for_line(&pid_file);
        let kill = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status();
        assert!(kill.unwrap().success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(7),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!alive(&gate), "{name}: the gate was left running");
        assert_eq!(
            runs(&counter),
            2,
            "{name}: the gate got the signal and stopped"
        );
        let json = json_of(&out);
        let why = json["evidence"]["not_reusable"].as_str().unwrap();
        assert!(why.contains(&format!("ledger received {name}")), "{why}");
        assert_eq!(json["evidence"]["stopped"]["by"], "signal");
        assert_eq!(json["reused"], false);
        let (code, check) = check_json(&s, &[]);
        assert_eq!(
            (code, reasons(&check)),
            (1, vec!["failed".to_owned(), "not-reusable".to_owned()])
        );
    }
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

/// `ledger gate <verb> --name test --json <extra>` in `cwd` with `env` set
/// (`None`: removed), as an `Output`.
fn ledger_with(s: &Sandbox, cwd: &Path, env: &[(&str, Option<&OsStr>)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    cmd.current_dir(cwd).args(args);
    for (name, value) in env {
        match value {
            Some(value) => cmd.env(name, value),
            None => cmd.env_remove(name),
        };
    }
    cmd.output().unwrap()
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn a_gate_run_below_the_workspace_is_reused_there() {
    let (s, counter) = setup();
    let src = s.w().join("src");
    let script = format!("echo run >> '{}'; ls lib.rs", counter.display());
    let run = [
        "gate", "run", "--name", "test", "--json", "--", "sh", "-c", &script,
    ];
    let first = json_of(&ledger_with(&s, &src, &[], &run));
    assert_eq!(first["evidence"]["spec"]["cwd"], "src");
    assert_eq!(first["evidence"]["result"], "lib.rs");
    let again = json_of(&ledger_with(&s, &src, &[], &run));
    assert_eq!(again["reused"], true);
    assert_eq!(runs(&counter), 1);
    // Checked from there with the command, or from anywhere without it.
    let mut check = run.to_vec();
    check[1] = "check";
    assert_eq!(json_of(&ledger_with(&s, &src, &[], &check))["fresh"], true);
    let (code, json) = check_json(&s, &[]);
    assert_eq!((code, &json["fresh"]), (0, &serde_json::json!(true)));
    // From the workspace, the same command is another command.
    let out = ledger_with(&s, &s.w(), &[], &check);
    assert_eq!(reasons(&json_of(&out)), ["command-differs"]);
}

#[test]
fn a_recorded_cwd_is_read_normalized() {
    let (s, counter) = setup();
    let src = s.w().join("src");
    let run = [
        "gate", "run", "--name", "test", "--json", "--", "ls", "lib.rs",
    ];
    assert_eq!(json_of(&ledger_with(&s, &src, &[], &run))["reused"], false);
    // Evidence written by another tool, its cwd in another spelling.
    let store = Store::open(utf8(&s.w())).unwrap();
    let head = store.head("gates/test").unwrap().unwrap();
    let mut body = store.read_record::<serde_json::Value>(&head).unwrap().body;
    body["spec"]["cwd"] = "./src/".into();
    store
        .commit("gates/test", "evidence", Some(&head), &body)
        .unwrap();
    let mut check = run.to_vec();
    check[1] = "check";
    let fresh = json_of(&ledger_with(&s, &src, &[], &check));
    assert_eq!(fresh["fresh"], true, "{fresh}");
    assert_eq!(fresh["evidence"]["spec"]["cwd"], "src");
    assert_eq!(runs(&counter), 0);
}

#[test]
fn a_current_directory_that_is_not_utf8_is_refused_not_decoded_lossily() {
    let (s, counter) = setup();
    let dir = s.w().join(OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir(&dir).unwrap();
    let script = format!("echo run >> '{}'", counter.display());
    let args = [
        "gate", "run", "--name", "test", "--root", "src", "--", "sh", "-c", &script,
    ];
    let out = ledger_with(&s, &dir, &[], &args);
    assert_run_refused(&out, 125, "non-utf8-path", "caf\\351");
    assert_eq!(runs(&counter), 0);
}

#[test]
fn a_prerequisite_that_is_not_utf8_is_refused() {
    let (s, counter) = setup();
    let script = format!("echo run >> '{}'", counter.display());
    let gate = |env: &[(&str, Option<&OsStr>)], prerequisite: &[&str]| {
        let mut args = vec!["gate", "run", "--name", "test"];
        args.extend_from_slice(prerequisite);
        args.extend_from_slice(&["--", "sh", "-c", &script]);
        ledger_with(&s, &s.w(), env, &args)
    };
    let invalid = OsStr::from_bytes(b"-O\xff");
    let out = gate(&[("FLAGS", Some(invalid))], &["--env", "FLAGS"]);
    assert_run_refused(&out, 125, "non-utf8-value", "-O\\377");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("prerequisite FLAGS (environment variable)"),
        "{text}"
    );
    // A literal given on the command line, likewise.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    let literal = OsStr::from_bytes(b"FLAGS=-O\xfe");
    let args = ["gate", "run", "--name", "test", "--env"].map(OsStr::new);
    let out = cmd
        .current_dir(s.w())
        .args(args)
        .arg(literal)
        .args(["--", "true"]);
    assert_run_refused(
        &out.output().unwrap(),
        125,
        "non-utf8-value",
        "FLAGS=-O\\376",
    );
    // Two different outputs would both have read as U+FFFD.
    for output in [r"printf '\377'", r"printf '\376'"] {
        let out = gate(&[], &["--env-cmd", &format!("tool={output}")]);
        assert_run_refused(&out, 125, "non-utf8-value", "prerequisite tool (output of");
    }
    assert_eq!(runs(&counter), 0, "nothing ran");
}

#[test]
fn an_unset_variable_differs_from_an_empty_one() {
    let (s, counter) = setup();
    let script = format!("echo run >> '{}'", counter.display());
    let run = [
        "gate", "run", "--name", "test", "--env", "FLAGS", "--json", "--", "sh", "-c", &script,
    ];
    let unset = json_of(&ledger_with(&s, &s.w(), &[("FLAGS", None)], &run));
    assert_eq!(
        unset["evidence"]["prerequisites"],
        serde_json::json!({"FLAGS": null})
    );
    let reused = json_of(&ledger_with(&s, &s.w(), &[("FLAGS", None)], &run));
    assert_eq!(reused["reused"], true);
    let empty = Some(OsStr::new(""));
    let mut check = run.to_vec();
    check[1] = "check";
    let stale = json_of(&ledger_with(&s, &s.w(), &[("FLAGS", empty)], &check));
    assert_eq!(
        stale["reasons"],
        serde_json::json!([{"reason": "prerequisite-changed", "name": "FLAGS", "recorded": null, "now": ""}])
    );
    let text = ledger_with(
        &s,
        &s.w(),
        &[("FLAGS", empty)],
        &["gate", "check", "--name", "test", "--env", "FLAGS"],
    );
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("prerequisite FLAGS changed: (unset) -> ''"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    let ran = json_of(&ledger_with(&s, &s.w(), &[("FLAGS", empty)], &run));
    assert_eq!(ran["reused"], false);
    assert_eq!(
        ran["evidence"]["prerequisites"],
        serde_json::json!({"FLAGS": ""})
    );
    assert_eq!(runs(&counter), 2);
}

#[test]
fn evidence_whose_entries_do_not_give_its_fingerprint_is_refused() {
    let (s, counter) = setup();
    assert!(gate_run(&s, &counter, &[], "true").status.success());
    s.write("src/lib.rs", b"changed after the run\n");
    // A consistent record (it hashes to its name) whose fingerprint claims
    // the inputs as they are now, while its entries are those the gate saw.
    let (_, now) = check_json(&s, &[]);
    let new_fingerprint = now["reasons"][0]["comparison"]["new"].clone();
    let store = Store::open(utf8(&s.w())).unwrap();
    let head = store.head("gates/test").unwrap().unwrap();
    let mut body = store.read_record::<serde_json::Value>(&head).unwrap().body;
    body["inventory"]["fingerprint"] = new_fingerprint;
    let lie = store
        .commit("gates/test", "evidence", Some(&head), &body)
        .unwrap();
    let named = format!("{lie}.json");
    let check = s.ledger(&s.w(), &["gate", "check", "--name", "test"]);
    assert_blocked(&check, "malformed-record", &named);
    assert!(String::from_utf8_lossy(&check.stderr).contains("not its recorded fingerprint"));
    assert_run_refused(
        &gate_run(&s, &counter, &[], "true"),
        125,
        "malformed-record",
        &named,
    );
    assert_eq!(runs(&counter), 1, "the gate did not run on a lying record");
}

#[test]
fn a_check_without_evidence_or_command_says_no_evidence() {
    let (s, _) = setup();
    let (code, json) = check_json(&s, &[]);
    assert_eq!((code, reasons(&json)), (1, vec!["no-evidence".to_owned()]));
}

/// Replaces the head of `gates/test` with `edit` applied to its evidence, as a
/// consistent record (its bytes hash to its name): a forgery, not damage.
fn forge(s: &Sandbox, edit: impl FnOnce(&mut serde_json::Value)) {
    let store = Store::open(utf8(&s.w())).unwrap();
    let head = store.head("gates/test").unwrap().unwrap();
    let mut body = store.read_record::<serde_json::Value>(&head).unwrap().body;
    edit(&mut body);
    store
        .commit("gates/test", "evidence", Some(&head), &body)
        .unwrap();
}

#[test]
fn a_check_never_runs_a_recorded_prerequisite_command() {
    let (s, counter) = setup();
    let marker = s.dir.path().join("observed");
    let observe = format!("tool=touch '{}'; echo tool 1.0", marker.display());
    let run = gate_run(&s, &counter, &["--env-cmd", &observe], "true");
    assert!(run.status.success());
    std::fs::remove_file(&marker).unwrap();
    // Left out, the prerequisite cannot be observed: reported, not trusted.
    let (code, json) = check_json(&s, &[]);
    assert_eq!(
        (code, reasons(&json)),
        (1, vec!["prerequisite-unverified".to_owned()])
    );
    assert_eq!(json["reasons"][0]["name"], "tool");
    assert_eq!(json["reasons"][0]["recorded"], "tool 1.0");
    let text = stdout_text(&s.ledger(&s.w(), &["gate", "check", "--name", "test"]));
    assert!(text.contains("prerequisite tool not verified"), "{text}");
    // A forged record's command is not run either.
    let pwned = s.dir.path().join("pwned");
    forge(&s, |body| {
        body["spec"]["prerequisites"]["tool"]["command"] =
            format!("touch '{}'; echo tool 1.0", pwned.display()).into();
    });
    let (code, _) = check_json(&s, &[]);
    assert_eq!(code, 1);
    assert!(
        !marker.exists() && !pwned.exists(),
        "a recorded command ran"
    );
    // Passed now, it is observed and the evidence is fresh.
    let (code, json) = check_json(&s, &["--env-cmd", "tool=echo tool 1.0"]);
    assert_eq!(
        (code, &json["fresh"]),
        (0, &serde_json::json!(true)),
        "{json}"
    );
    assert_eq!(runs(&counter), 1);
}

#[test]
fn a_recorded_workspace_is_a_mismatch_never_a_place_to_hash() {
    let (s, counter) = setup();
    assert!(gate_run(&s, &counter, &[], "true").status.success());
    // The parent of the checkout holds a FIFO: hashing it would block the check.
    let parent = s.dir.path().to_str().unwrap().to_owned();
    forge(&s, |body| {
        body["spec"]["scope"]["workspace"] = parent.clone().into();
        body["inventory"]["scope"]["workspace"] = parent.clone().into();
    });
    rustix_mkfifo(&s.dir.path().join("fifo"));
    let (code, json) = check_json(&s, &[]);
    assert_eq!(
        (code, reasons(&json)),
        (1, vec!["scope-differs".to_owned()])
    );
    assert_eq!(
        json["reasons"][0]["requested"]["workspace"],
        s.w().canonicalize().unwrap().to_str().unwrap()
    );
    let text = stdout_text(&s.ledger(&s.w(), &["gate", "check", "--name", "test"]));
    assert!(text.contains("it ran in "), "{text}");
    assert!(!s.dir.path().join(".ledger").exists());
}

fn rustix_mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_scope_file_cannot_move_the_workspace_above_the_checkout() {
    let (s, counter) = setup();
    std::fs::create_dir(s.w().join("ci")).unwrap();
    let file = s.w().join("ci/scope.json");
    let parent = s.dir.path().to_str().unwrap().to_owned();
    for workspace in ["../..", parent.as_str(), "/"] {
        let json = serde_json::json!({ "workspace": workspace, "roots": ["."] });
        std::fs::write(&file, json.to_string()).unwrap();
        for verb in ["run", "check"] {
            let script = format!("echo run >> '{}'", counter.display());
            let args = [
                "gate",
                verb,
                "--name",
                "test",
                "--scope-file",
                "ci/scope.json",
                "--",
                "sh",
                "-c",
                &script,
            ];
            let out = s.ledger(&s.w(), &args);
            let expected = if verb == "run" { 125 } else { 2 };
            assert_eq!(out.status.code(), Some(expected), "{workspace} {verb}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("error[outside-workspace]"),
                "{workspace}: {err}"
            );
        }
    }
    assert_eq!(runs(&counter), 0);
    assert!(
        !s.dir.path().join(".ledger").exists(),
        "no store above the checkout"
    );
    // Even `..` from ci/, the checkout itself, is above the file: refused.
    std::fs::write(&file, br#"{"workspace": "..", "roots": ["src"]}"#).unwrap();
    let out = gate_run(&s, &counter, &["--scope-file", "ci/scope.json"], "true");
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[outside-workspace]"));
    // A scope file at the top naming its own directory is the checkout.
    let top = s.w().join("scope.json");
    std::fs::write(&top, br#"{"workspace": ".", "roots": ["src"]}"#).unwrap();
    let out = gate_run(&s, &counter, &["--scope-file", "scope.json"], "true");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A scope file that is a symlink is not followed.
    std::os::unix::fs::symlink(&file, s.w().join("link.json")).unwrap();
    let out = gate_run(&s, &counter, &["--scope-file", "link.json"], "true");
    assert!(String::from_utf8_lossy(&out.stderr).contains("symlink"));
}

#[test]
fn check_output_quotes_every_value_and_path() {
    let (s, counter) = setup();
    assert!(
        gate_run(&s, &counter, &["--env", "V=\x1b[2Jplain"], "true")
            .status
            .success()
    );
    forge(&s, |body| {
        body["started_at"] = "2026\x1b[31m\nfresh: forged".into();
    });
    let text = stdout_text(&s.ledger(
        &s.w(),
        &["gate", "check", "--name", "test", "--env", "V=\x1b[2Jplain"],
    ));
    assert!(
        !text.contains('\x1b') && text.lines().count() == 1,
        "{text}"
    );
    assert!(text.contains("\\033[31m\\nfresh: forged"), "{text}");
    let text = stdout_text(&s.ledger(
        &s.w(),
        &["gate", "check", "--name", "test", "--env", "V=\u{202e}x"],
    ));
    assert!(
        !text.contains('\x1b') && !text.contains('\u{202e}'),
        "{text}"
    );
    assert!(
        text.contains(r#""\033[2Jplain" -> "\342\200\256x""#),
        "{text}"
    );
    // A path changed during the run, in the reason it is not reusable.
    let script = "printf x > \"$(printf 'src/e\\033[2Jvil')\"";
    let out = gate_run(&s, &counter, &[], script);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains('\x1b') && err.contains(r#""src/e\033[2Jvil""#),
        "{err}"
    );
    let text = stdout_text(&s.ledger(&s.w(), &["gate", "check", "--name", "test"]));
    assert!(
        !text.contains('\x1b') && text.contains(r#""src/e\033[2Jvil""#),
        "{text}"
    );
}

/// Whether process `pid` is gone: it does not exist, or it is a zombie that
/// its new parent has not reaped yet (it runs nothing any more).
fn gone(pid: &str) -> bool {
    !alive(pid)
}

fn stderr_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn what_the_command_leaves_in_its_group_is_stopped_when_it_ends() {
    let (s, counter) = setup();
    let pid = s.dir.path().join("background-pid");
    // The background sleep holds the gate's stdout: before, ledger waited for it.
    let script = format!("sleep 30 & echo $! > '{}'; exit 0", pid.display());
    let clock = std::time::Instant::now();
    let out = gate_run(&s, &counter, &["--timeout", "1s", "--json"], &script);
    let elapsed = clock.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    assert!(
        gone(&wait_for_line(&pid)),
        "the background process outlived the gate"
    );
    let evidence = &json_of(&out)["evidence"];
    assert_eq!(evidence["left_in_group"], true);
    assert_eq!(evidence["exit_status"], 0);
    // Without a timeout too: every run is supervised.
    std::fs::remove_file(&pid).unwrap();
    let out = gate_run(
        &s,
        &counter,
        &["--json"],
        &script.replace("exit 0", "exit 3"),
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(gone(&wait_for_line(&pid)));
}

#[test]
fn a_timeout_bounds_the_run_whoever_holds_the_pipes() {
    let (s, counter) = setup();
    let pid = s.dir.path().join("escaped-pid");
    // A process that leaves the group (setsid) and holds stdout for 30 s; the
    // command goes on only once it has left (wrote its pid), so that no stop of
    // the group can reach it first, however loaded the machine.
    let escape = format!(
        "setsid sh -c 'echo $$ > \"{0}\"; exec sleep 30' & while [ ! -s \"{0}\" ]; do sleep 0.01; done; echo started",
        pid.display()
    );
    let clock = std::time::Instant::now();
    let out = gate_run(
        &s,
        &counter,
        &["--timeout", "5s", "--json"],
        &format!("{escape}; sleep 30"),
    );
    let elapsed = clock.elapsed();
    let escaped = wait_for_line(&pid);
    let _ = Command::new("kill").arg(&escaped).status();
    assert_eq!(out.status.code(), Some(124), "{}", stderr_text(&out));
    assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    let evidence = &json_of(&out)["evidence"];
    assert_eq!(evidence["stopped"]["by"], "timeout");
    assert_eq!(evidence["output"]["incomplete"], true);
    let (code, check) = check_json(&s, &[]);
    assert_eq!(
        (code, reasons(&check)),
        (1, vec!["failed".to_owned(), "not-reusable".to_owned()])
    );

    // The command ends at once, the escaped process keeps the pipe: ledger
    // stops reading a grace later, and never calls that evidence fresh.
    std::fs::remove_file(&pid).unwrap();
    let clock = std::time::Instant::now();
    let out = gate_run(&s, &counter, &["--json"], &format!("{escape}; exit 0"));
    let elapsed = clock.elapsed();
    let escaped = wait_for_line(&pid);
    let _ = Command::new("kill").arg(&escaped).status();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_text(&out));
    assert!(elapsed < std::time::Duration::from_secs(20), "{elapsed:?}");
    let evidence = &json_of(&out)["evidence"];
    let why = evidence["not_reusable"].as_str().unwrap();
    assert!(
        why.contains("left its process group still held its output"),
        "{why}"
    );
    assert_eq!(evidence["output"]["incomplete"], true);
    let (code, check) = check_json(&s, &[]);
    assert_eq!(
        (code, reasons(&check)),
        (1, vec!["not-reusable".to_owned()])
    );
}

fn show(s: &Sandbox, name: &str) -> Output {
    s.ledger(&s.w(), &["gate", "show", name])
}

#[test]
fn a_failing_run_keeps_its_whole_output_and_show_prints_it_raw() {
    let (s, counter) = setup();
    // 200 lines, a byte that is not UTF-8 and a control character: far more
    // than the 20 lines the result shows. All on stderr, one stream: the
    // order of bytes across two streams is the order ledger read them in.
    let script = r"exec >&2; i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done; printf 'raw \377\033[0m\n'; exit 3";
    let out = gate_run(&s, &counter, &["--json"], script);
    assert_eq!(out.status.code(), Some(3));
    let mut expected: Vec<u8> = (0..200)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    expected.extend_from_slice(b"raw \xff\x1b[0m\n");
    let evidence = &json_of(&out)["evidence"];
    assert_eq!(evidence["output"]["total_bytes"], expected.len());
    assert!(evidence["output"].get("truncated").is_none());
    let shown = show(&s, "test");
    assert_eq!(shown.status.code(), Some(0), "{}", stderr_text(&shown));
    assert_eq!(shown.stdout, expected, "every byte, exactly");
    assert!(shown.stderr.is_empty());
    // The digest names the stored bytes.
    let digest = evidence["output"]["digest"].as_str().unwrap();
    let object = s
        .store_dir()
        .join("objects")
        .join(digest.strip_prefix("sha256:").unwrap());
    assert_eq!(std::fs::read(&object).unwrap(), expected);
    // A damaged object is refused, never printed.
    std::fs::write(&object, b"other bytes").unwrap();
    let damaged = show(&s, "test");
    assert_blocked(&damaged, "corrupt-record", "objects");
    let report = s.ledger(&s.w(), &["store", "check", "--json"]);
    assert_eq!(report.status.code(), Some(1));
    assert!(
        stdout_text(&report).contains("objects/"),
        "{}",
        stdout_text(&report)
    );
    let never = show(&s, "never-ran");
    assert_blocked(&never, "invalid-argument", "never-ran");
}

/// What ledger keeps of `all` within `bound` bytes, worked out here from the
/// whole output: its first quarter, the elision line, its last three
/// quarters; and the dropped bytes `head..end` and the lines they touch.
fn kept_within(all: &[u8], bound: usize) -> (Vec<u8>, usize, usize, usize, usize) {
    let head = bound / 4;
    let end = all.len() - (bound - head);
    let line_of = |offset: usize| 1 + all[..offset].iter().filter(|b| **b == b'\n').count();
    let (from, to) = (line_of(head), line_of(end - 1));
    let mut kept = all[..head].to_vec();
    if !kept.ends_with(b"\n") {
        kept.push(b'\n');
    }
    kept.extend(
        format!(
            "[ledger: output elided: bytes {head}..{end} (lines {from} to {to}) of {} bytes dropped; the start and the end are kept]\n",
            all.len()
        )
        .bytes(),
    );
    kept.extend_from_slice(&all[end..]);
    (kept, head, end, from, to)
}

/// `seq 1 N`'s output.
fn numbered_lines(n: usize) -> Vec<u8> {
    (1..=n)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect()
}

#[test]
fn an_output_past_the_bound_keeps_its_start_and_end_and_says_what_was_dropped() {
    let (s, counter) = setup();
    // 2.7 MiB of numbered lines: the first and the last survive, the middle
    // is counted, and a line between them says which bytes and lines it was.
    let script = "seq 1 400000; exit 1";
    let out = gate_run(&s, &counter, &["--json"], script);
    assert_eq!(out.status.code(), Some(1));
    let all = numbered_lines(400000);
    let output = &json_of(&out)["evidence"]["output"];
    assert_eq!(output["total_bytes"], all.len());
    assert_eq!(output["bound_bytes"], 1024 * 1024, "the default bound");
    let (kept, head, end, from, to) = kept_within(&all, 1024 * 1024);
    assert_eq!((head, all.len() - end), (256 * 1024, 768 * 1024));
    let cut = &output["truncated"];
    assert_eq!(cut["head_bytes"], head);
    assert_eq!(cut["dropped_bytes"], end - head);
    assert_eq!(
        (&cut["dropped_from_line"], &cut["dropped_to_line"]),
        (&json!(from), &json!(to))
    );
    assert_eq!(cut["marker_bytes"], kept.len() - 1024 * 1024);
    let shown = show(&s, "test");
    assert_eq!(shown.status.code(), Some(0), "{}", stderr_text(&shown));
    assert!(
        shown.stdout == kept,
        "the first and last bytes, and the marker between, exactly"
    );
    assert!(shown.stderr.is_empty(), "{}", stderr_text(&shown));
    // The digest names the kept bytes, the marker with them.
    let digest = output["digest"]
        .as_str()
        .unwrap()
        .strip_prefix("sha256:")
        .unwrap();
    assert_eq!(
        std::fs::read(s.store_dir().join("objects").join(digest)).unwrap(),
        kept
    );
}

#[test]
fn keep_output_sets_the_bound_and_the_marker_names_the_dropped_bytes_and_lines() {
    let (s, counter) = setup();
    let out = gate_run(
        &s,
        &counter,
        &["--keep-output", "1KiB"],
        "seq 1 1000; exit 1",
    );
    assert_eq!(out.status.code(), Some(1));
    let all = numbered_lines(1000);
    assert_eq!(out.stdout, all, "the whole output streams through");
    let (kept, head, end, from, to) = kept_within(&all, 1024);
    // Worked out by hand too: 18 bytes of lines 1-9, 270 of 10-99, then 4
    // bytes a line; byte 256 is the `9` of "89", byte 3124 starts "809".
    assert_eq!((head, end, from, to), (256, 3125, 89, 809));
    let said = stderr_text(&out);
    assert!(
        said.contains("ledger: 1024 of its 3893 output bytes kept (the bound), the start and the end: bytes 256..3125 (lines 89 to 809) dropped between them (a line there says so)"),
        "{said}"
    );
    let shown = show(&s, "test");
    assert_eq!(shown.status.code(), Some(0));
    assert_eq!(
        stdout_text(&shown),
        String::from_utf8(kept.clone()).unwrap()
    );
    assert!(stdout_text(&shown).contains(
        "\n88\n8\n[ledger: output elided: bytes 256..3125 (lines 89 to 809) of 3893 bytes dropped; the start and the end are kept]\n09\n810\n"
    ));
    let json = gate_run(
        &s,
        &counter,
        &["--keep-output", "4096", "--json"],
        "seq 1 1000; exit 1",
    );
    let output = &json_of(&json)["evidence"]["output"];
    assert_eq!(output["bound_bytes"], 4096);
    assert!(output.get("truncated").is_none(), "3893 bytes fit in 4096");
    assert_eq!(show(&s, "test").stdout, all);
}

#[test]
fn a_bad_keep_output_size_is_refused_before_anything_runs() {
    let (s, counter) = setup();
    for size in ["0", "0KiB", "2GiB", "1.5MiB", "lots", "10mb", "-1"] {
        let flag = format!("--keep-output={size}");
        let out = gate_run(&s, &counter, &[&flag], "echo ran");
        assert_run_refused(&out, 125, "invalid-argument", "--keep-output");
    }
    assert_eq!(runs(&counter), 0, "no refused run started the command");
}

#[test]
fn a_reuse_replays_the_kept_output_when_asked() {
    let (s, counter) = setup();
    let out = gate_run(&s, &counter, &[], "printf 'passed \\377\\n'");
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(0), &b"passed \xff\n"[..])
    );
    let quiet = gate_run(&s, &counter, &[], "printf 'passed \\377\\n'");
    assert!(quiet.stdout.is_empty());
    let replayed = gate_run(&s, &counter, &["--replay"], "printf 'passed \\377\\n'");
    assert_eq!(replayed.status.code(), Some(0));
    assert_eq!(replayed.stdout, b"passed \xff\n");
    assert!(stderr_text(&replayed).contains("reused, not run"));
    assert_eq!(runs(&counter), 1, "replayed, not run");
    // With --json the replay goes where the command's output would: stderr.
    let json = gate_run(
        &s,
        &counter,
        &["--replay", "--json"],
        "printf 'passed \\377\\n'",
    );
    assert_eq!(json_of(&json)["reused"], true);
    assert!(json.stderr.starts_with(b"passed \xff\n"));
}

#[test]
fn ledger_s_own_failures_around_gate_run_are_125() {
    let (s, counter) = setup();
    for global in [
        &["--threads", "abc"][..],
        &["--threads=abc"],
        &["--no-cache", "--threads", "abc"],
        // Every global option with a value is skipped as `--threads`'s is.
        &["--signing-key", "key", "--threads", "abc"],
        &["--allowed-signers", "signers", "--threads", "abc"],
    ] {
        let mut args = global.to_vec();
        args.extend_from_slice(&["gate", "run", "--name", "test", "--", "true"]);
        let out = s.ledger(&s.w(), &args);
        assert_run_refused(&out, 125, "invalid-argument", "abc");
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    let out = cmd
        .current_dir(s.w())
        .env("LEDGER_THREADS", "abc")
        .args(["gate", "run", "--name", "test", "--", "true"])
        .output()
        .unwrap();
    assert_run_refused(&out, 125, "invalid-argument", "LEDGER_THREADS");
    // Other verbs keep 2.
    let out = s.ledger(
        &s.w(),
        &["--threads", "abc", "gate", "check", "--name", "test"],
    );
    assert_blocked(&out, "invalid-argument", "abc");
    assert_eq!(runs(&counter), 0);
}

#[test]
fn a_gate_s_inputs_are_never_normalized() {
    let (s, counter) = setup();
    s.write("tasks.md", b"- [ ] 1.1 do it\n");
    let out = gate_run(&s, &counter, &["--tasks", "tasks.md"], "true");
    assert_run_refused(&out, 125, "invalid-argument", "tasks.md");
    assert_eq!(gate_run(&s, &counter, &[], "true").status.code(), Some(0));
    let out = s.ledger(
        &s.w(),
        &["gate", "check", "--name", "test", "--tasks", "tasks.md"],
    );
    assert_blocked(&out, "invalid-argument", "raw bytes");
    assert_eq!(runs(&counter), 1);
}

/// A main checkout and a fixer's worktree (seed 001) alternate the same gate
/// on two fingerprints: the command runs once per fingerprint, and each
/// checkout's `gate check` finds its own earlier run fresh although the
/// newest run is the other's (docs/gates.md, Reusing earlier evidence).
#[test]
fn worktrees_alternating_one_gate_each_reuse_their_earlier_run() {
    let (s, counter) = setup();
    let fixer = s.dir.path().join("fixer");
    s.git(&s.w(), &["worktree", "add", "-q", fixer.to_str().unwrap()]);
    std::fs::write(fixer.join("src/lib.rs"), b"pub fn f() { /* fixed */ }\n").unwrap();
    let script = format!("echo run >> '{}'", counter.display());
    let run = |dir: &Path| {
        let args = [
            "gate", "run", "--name", "test", "--root", "src", "--", "sh", "-c", &script,
        ];
        let out = s.ledger(dir, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let check = |dir: &Path| {
        let args = [
            "gate", "check", "--name", "test", "--root", "src", "--", "sh", "-c", &script,
        ];
        s.ledger(dir, &args).status.code()
    };
    for round in 0..3 {
        run(&s.w());
        run(&fixer);
        assert_eq!(runs(&counter), 2, "round {round}: once per fingerprint");
        assert_eq!(check(&s.w()), Some(0), "round {round}: main's earlier run");
        assert_eq!(check(&fixer), Some(0), "round {round}: the fixer's run");
    }
    // A third fingerprint has no earlier run: it runs.
    s.write("src/lib.rs", b"pub fn f() { /* third */ }\n");
    assert_eq!(check(&s.w()), Some(1));
    run(&s.w());
    assert_eq!(runs(&counter), 3);
    // Back to the first fingerprint: its earlier run is reused, until a
    // recorded policy keeps reuse to the newest run only.
    s.write("src/lib.rs", b"pub fn f() {}\n");
    assert_eq!(check(&s.w()), Some(0));
    let prune = [
        "gate",
        "prune",
        "test",
        "--keep-newest",
        "1",
        "--because",
        "old runs",
    ];
    assert_eq!(s.ledger(&s.w(), &prune).status.code(), Some(0));
    assert_eq!(check(&s.w()), Some(1));
    run(&s.w());
    assert_eq!(runs(&counter), 4);
}

/// `LEDGER_SIGNING_KEY` naming a path that is not UTF-8 is refused as an
/// unreadable key is, never read as unset: no evidence is recorded unsigned
/// (issue 42).
#[test]
fn a_signing_key_path_that_is_not_utf8_is_refused_not_ignored() {
    let (s, _) = setup();
    let key = s.dir.path().join(OsStr::from_bytes(b"key\xff"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
    s.env(&mut cmd);
    let out = cmd
        .current_dir(s.w())
        .env("LEDGER_SIGNING_KEY", &key)
        .args(["gate", "run", "--name", "test", "--", "true"])
        .output()
        .unwrap();
    assert_run_refused(&out, 125, "non-utf8-value", "LEDGER_SIGNING_KEY");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("key\\377"),
        "the value is shown escaped: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let store = Store::open(utf8(&s.w())).unwrap();
    assert_eq!(store.head("gates/test").unwrap(), None);
}
