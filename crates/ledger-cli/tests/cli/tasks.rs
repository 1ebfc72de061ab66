//! `ledger tasks`, `ledger normalize` and `--task-rule` on the scope and
//! approval verbs.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";
const TASKS: &[u8] = b"## 1. Core\n- [ ] 1.1 Add login\n  - [x] 1.1.1 Test it\n* [X] 1.2 Add tokens\n- [ ] Untitled step\n";

fn openspec_checkout(tasks: &[u8]) -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(&format!("{CHANGE}/specs/auth/spec.md"), b"## Requirement\n");
    s.write(&format!("{CHANGE}/tasks.md"), tasks);
    s.commit_all();
    s
}

fn normalize(rule: &str, input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ledger"))
        .args(["normalize", "--task-rule", rule])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn normalize_runs_both_vector_files() {
    for (file, rule) in [
        ("task-checkbox.json", "task-checkbox-v1"),
        ("openspec-checkbox.json", "openspec-checkbox"),
    ] {
        let path = format!("{}/../../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for v in doc["vectors"].as_array().unwrap() {
            let out = normalize(rule, &unhex(v["input"].as_str().unwrap()));
            assert!(out.status.success(), "{}: {}", v["name"], stdout(&out));
            assert_eq!(
                out.stdout,
                unhex(v["output"].as_str().unwrap()),
                "{}",
                v["name"]
            );
        }
    }
    let out = normalize("openspec", b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error[invalid-argument]:"), "{err}");
    assert!(err.contains("openspec-checkbox"), "{err}");
}

#[test]
fn tasks_lists_ids_progress_and_lines() {
    let s = openspec_checkout(TASKS);
    let w = s.w();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "tasks",
            "--change",
            "add-auth",
            "--task-rule",
            "openspec-checkbox",
        ];
        a.extend_from_slice(extra);
        s.ledger(&w, &a)
    };
    let out = args(&["--json"]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["change"], "add-auth");
    assert_eq!(json["path"], format!("{CHANGE}/tasks.md"));
    assert_eq!(json["exists"], true);
    assert_eq!(json["rule"], "openspec-checkbox");
    assert_eq!(
        (json["total"].as_u64(), json["done"].as_u64()),
        (Some(4), Some(2))
    );
    let tasks = json["tasks"].as_array().unwrap();
    let ids: Vec<Option<&str>> = tasks.iter().map(|t| t["id"].as_str()).collect();
    assert_eq!(ids, [Some("1.1"), Some("1.1.1"), Some("1.2"), None]);
    assert!(tasks[3]["id"].is_null());
    assert_eq!(tasks[1]["line"], 3);
    assert_eq!(tasks[1]["done"], true);
    assert_eq!(tasks[3]["text"], "Untitled step");
    let text = stdout(&args(&[]));
    assert!(text.starts_with("add-auth: 2 of 4 done ("), "{text}");
    assert!(text.contains("\n[x] 3  1.1.1 Test it\n"), "{text}");
    assert!(text.ends_with("\n[ ] 5  Untitled step\n"), "{text}");
    // Under the default rule none of these lines is a canonical task.
    let out = s.ledger(&w, &["tasks", "--change", "add-auth", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["rule"].as_str(), json["total"].as_u64()),
        (Some("task-checkbox-v1"), Some(0))
    );
    // An unknown change is refused with its code.
    let out = s.ledger(&w, &["tasks", "--change", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error[unknown-change]"));
}

#[test]
fn task_text_that_is_not_utf8_is_shown_escaped_and_kept_exact() {
    // Two lines that differ only in a byte that is not UTF-8: a lossy reading
    // would print both as `caf\u{fffd}`.
    let s = openspec_checkout(b"- [ ] 1.1 caf\xe9\n- [ ] 1.2 caf\xe8\n- [x] caf\xe9\n- [x] caf\xe8\n- [ ] 1.3 caf\xc3\xa9\n");
    let w = s.w();
    let rule = ["--task-rule", "openspec-checkbox"];
    let text = stdout(&s.ledger(
        &w,
        &[&["tasks", "--change", "add-auth"][..], &rule].concat(),
    ));
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "[ ] 1  \"1.1 caf\\351\"",
            "[ ] 2  \"1.2 caf\\350\"",
            "[x] 3  \"caf\\351\"",
            "[x] 4  \"caf\\350\"",
            "[ ] 5  1.3 caf\u{e9}",
        ],
        "{text}"
    );
    assert!(!text.contains('\u{fffd}'), "{text}");
    let out = s.ledger(
        &w,
        &[&["tasks", "--change", "add-auth", "--json"][..], &rule].concat(),
    );
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tasks = json["tasks"].as_array().unwrap();
    let exact: Vec<serde_json::Value> = tasks.iter().map(|t| t["text_bytes"].clone()).collect();
    // base64 of `1.1 caf\xe9`, `1.2 caf\xe8`, `caf\xe9`, `caf\xe8`; null for valid UTF-8.
    assert_eq!(
        serde_json::Value::from(exact),
        serde_json::json!(["MS4xIGNhZuk=", "MS4yIGNhZug=", "Y2Fm6Q==", "Y2Fm6A==", null])
    );
    // The text and the ids stay OpenSpec's.
    assert_eq!(tasks[0]["text"], "1.1 caf\u{fffd}");
    assert_eq!(tasks[2]["text"], tasks[3]["text"]);
    assert_eq!(tasks[0]["id"], "1.1");
    assert_eq!(tasks[4]["text"], "1.3 caf\u{e9}");
    // `check --json` carries the same tasks.
    let out = s.ledger(
        &w,
        &[&["check", "--change", "add-auth", "--json"][..], &rule].concat(),
    );
    let check: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        check["changes"][0]["tasks"]["tasks"][1]["text_bytes"], "MS4yIGNhZug=",
        "{check}"
    );
}

#[test]
fn a_missing_tasks_file_has_no_tasks() {
    let s = openspec_checkout(b"");
    std::fs::remove_file(s.w().join(CHANGE).join("tasks.md")).unwrap();
    let out = s.ledger(&s.w(), &["tasks", "--change", "add-auth", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["exists"].as_bool(), json["total"].as_u64()),
        (Some(false), Some(0))
    );
}

#[test]
fn ticking_under_openspec_checkbox_keeps_the_approval() {
    let s = openspec_checkout(TASKS);
    let w = s.w();
    for artifact in ["proposal", "specs", "design", "tasks"] {
        let out = s.ledger(
            &w,
            &[
                "approve",
                "--change",
                "add-auth",
                "--artifact",
                artifact,
                "--source",
                "msg 1",
                "--task-rule",
                "openspec-checkbox",
            ],
        );
        assert!(out.status.success(), "{out:?}");
    }
    let ticked = String::from_utf8(TASKS.to_vec())
        .unwrap()
        .replace("- [ ] 1.1 ", "- [x] 1.1 ")
        .replace("- [ ] Untitled", "- [X] Untitled");
    s.write(&format!("{CHANGE}/tasks.md"), ticked.as_bytes());
    // The binding recorded the rule: status needs no flag.
    let out = s.ledger(&w, &["status", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    s.write(
        &format!("{CHANGE}/tasks.md"),
        &ticked.replace("Add login", "Add SSO").into_bytes(),
    );
    let out = s.ledger(&w, &["status", "--change", "add-auth", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["artifacts"][3]["state"], "changed");
}

#[test]
fn scope_flags_take_the_rule_and_records_keep_it() {
    let s = Sandbox::new();
    s.write("tasks.md", b"- [x] 1.1 A\n");
    let w = s.w();
    let fp = |extra: &[&str]| {
        let mut a = vec![
            "fingerprint",
            "--workspace",
            w.to_str().unwrap(),
            "--tasks",
            "tasks.md",
        ];
        a.extend_from_slice(extra);
        last_line(&s.ledger(&w, &a))
    };
    let v1 = fp(&[]);
    let open = fp(&["--task-rule", "openspec-checkbox"]);
    assert_ne!(v1, open, "only openspec-checkbox reads this line as a task");
    s.write("tasks.md", b"- [ ] 1.1 A\n");
    assert_eq!(fp(&["--task-rule", "openspec-checkbox"]), open);
    assert_ne!(fp(&[]), v1);
    // The record carries the rule, verify re-expands with it.
    s.write("tasks.md", b"- [x] 1.1 A\n");
    let record = w.join("rec.json");
    let out = s.ledger(
        &w,
        &[
            "inventory",
            "--workspace",
            w.to_str().unwrap(),
            "--tasks",
            "tasks.md",
            "--task-rule",
            "openspec-checkbox",
            "--out",
            record.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(
        json["version"], "1.3",
        "one host-free version, task rules or not"
    );
    assert_eq!(json["scope"]["task_rules"]["tasks.md"], "openspec-checkbox");
    s.write("tasks.md", b"- [ ] 1.1 A\n");
    let out = s.ledger(
        &w,
        &[
            "verify",
            record.to_str().unwrap(),
            "--workspace",
            w.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// `ledger approve` of one artifact, with `extra` flags.
fn approve(s: &Sandbox, artifact: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "approve",
        "--change",
        "add-auth",
        "--artifact",
        artifact,
        "--source",
        "msg 1",
    ];
    args.extend_from_slice(extra);
    let out = s.ledger(&s.w(), &args);
    assert!(out.status.success(), "{out:?}");
    out
}

#[test]
fn every_reader_uses_the_rule_the_tasks_approval_recorded() {
    let s = openspec_checkout(TASKS);
    let w = s.w();
    for artifact in ["proposal", "specs", "design", "tasks"] {
        let out = approve(&s, artifact, &["--task-rule", "openspec-checkbox"]);
        assert!(out.stderr.is_empty(), "{out:?}");
    }
    // `ledger tasks` without a flag reads the file as it was approved ...
    let out = s.ledger(&w, &["tasks", "--change", "add-auth"]);
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "add-auth: 2 of 4 done ({CHANGE}/tasks.md, openspec-checkbox)\n"
        )),
        "{text}"
    );
    // ... and so does `state set` for the ids it records by default ...
    let out = s.ledger(
        &w,
        &[
            "state", "set", "--change", "add-auth", "--role", "impl", "--json",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["state"]["tasks_completed"],
        serde_json::json!(["1.1.1", "1.2"])
    );
    assert_eq!(json["state"]["tasks_remaining"], serde_json::json!(["1.1"]));
    // ... and approving again keeps the rule: ticking stays progress.
    approve(&s, "tasks", &[]);
    let ticked = String::from_utf8(TASKS.to_vec())
        .unwrap()
        .replace("- [ ] 1.1 ", "- [x] 1.1 ");
    s.write(&format!("{CHANGE}/tasks.md"), ticked.as_bytes());
    let out = s.ledger(&w, &["status", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A rule the caller chooses wins.
    let out = s.ledger(
        &w,
        &[
            "tasks",
            "--change",
            "add-auth",
            "--task-rule",
            "task-checkbox-v1",
            "--json",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["rule"].as_str(), json["total"].as_u64()),
        (Some("task-checkbox-v1"), Some(0))
    );
}

#[test]
fn approving_under_a_rule_that_misses_task_lines_warns() {
    let s = openspec_checkout(TASKS);
    for artifact in ["proposal", "specs", "design"] {
        assert!(approve(&s, artifact, &[]).stderr.is_empty());
    }
    // Under the default rule none of OpenSpec's four task lines is a task.
    let out = approve(&s, "tasks", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "warning: {CHANGE}/tasks.md: 4 line(s) are tasks under openspec-checkbox but not under task-checkbox-v1"
        )),
        "{err}"
    );
    assert!(err.contains("(line 2, 3, 4, 5)"), "{err}");
    assert!(stdout(&out).starts_with("approved tasks of add-auth"));
    // With --json the result carries the warning, for a tool to show it.
    let out = approve(&s, "tasks", &["--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = json["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{json}");
    assert_eq!(warnings[0]["code"], "task-rule");
    assert!(
        err.contains(warnings[0]["message"].as_str().unwrap()),
        "{json}"
    );
    assert_eq!(json["artifact"], "tasks");
    // The approval is recorded all the same; under the rule that reads them, no warning.
    let out = approve(&s, "tasks", &["--task-rule", "openspec-checkbox", "--json"]);
    assert!(out.stderr.is_empty(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["warnings"], serde_json::json!([]));
    // A file of canonical lines only is read alike by both rules: no warning.
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [ ] 1.1 [core] Add login\n",
    );
    let out = approve(&s, "tasks", &["--task-rule", "task-checkbox-v1"]);
    assert!(out.stderr.is_empty(), "{out:?}");
}
