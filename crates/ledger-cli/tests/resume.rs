//! Resuming through the CLI: `ledger check` (one report, exit 0 nothing to
//! do / 1 work to do / 2 error) and `ledger changes` (every change, one line
//! each).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::Output;

mod common;

use common::*;
use serde_json::Value;

const CHANGE: &str = "openspec/changes/add-auth";

/// A Git checkout with the active change `add-auth` (one of its two tasks
/// done), an archived change `old` and a delivery in `src/`.
fn checkout() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(
        &format!("{CHANGE}/specs/auth/spec.md"),
        b"## ADDED Requirements\n",
    );
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [x] 1.1 [core] Login\n- [ ] 1.2 [core] Tokens\n",
    );
    s.write(
        "openspec/changes/archive/2026-01-01-old/proposal.md",
        b"# Old\n",
    );
    s.write("openspec/specs/auth/spec.md", b"# auth\n");
    s.write("src/lib.rs", b"pub fn login() {}\n");
    s.commit_all();
    s
}

fn ledger(s: &Sandbox, args: &[&str]) -> Output {
    s.ledger(&s.w(), args)
}

fn text(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The work kinds `check --json` lists for its first change.
fn kinds(report: &Value) -> Vec<String> {
    (report["changes"][0]["work"].as_array().unwrap().iter())
        .map(|w| w["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// Every artifact approved, every task done, the gate `test` run over `src`
/// and a PASS recorded relying on it.
fn validated(s: &Sandbox) {
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [x] 1.1 [core] Login\n- [x] 1.2 [core] Tokens\n",
    );
    for artifact in ["proposal", "specs", "design", "tasks"] {
        let args = [
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            artifact,
            "--source",
            "r1",
        ];
        stdout(&ledger(s, &args));
    }
    let run = [
        "gate",
        "run",
        "--name",
        "test",
        "--root",
        "src",
        "--",
        "cat",
        "src/lib.rs",
    ];
    stdout(&ledger(s, &run));
    let record = [
        "validate",
        "record",
        "--change",
        "add-auth",
        "--verdict",
        "PASS",
        "--source",
        "r2",
        "--root",
        "src",
        "--gate",
        "test",
    ];
    stdout(&ledger(s, &record));
}

#[test]
fn a_fresh_change_is_work_listed_item_by_item_with_its_command() {
    let s = checkout();
    let out = ledger(&s, &["check"]);
    assert_eq!(out.status.code(), Some(1), "work to do: {}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("change add-auth (active in openspec/changes/add-auth; state record: none)"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "- approval: artifact proposal is not approved: it needs an explicit decision (ledger approve --change add-auth --artifact proposal --source TEXT)"
        ),
        "{shown}"
    );
    assert!(
        shown
            .contains("- tasks-left: 1 of 2 tasks left in openspec/changes/add-auth/tasks.md: 1.2"),
        "{shown}"
    );
    assert!(shown.contains("tasks       1 of 2 done"), "{shown}");
    assert!(shown.ends_with("work to do: 6 items\n"), "{shown}");
    assert!(
        !shown.contains("change old"),
        "archived changes are not resumed"
    );

    let out = ledger(&s, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(report["nothing_to_do"], false);
    assert_eq!(
        kinds(&report),
        [
            "approval",
            "approval",
            "approval",
            "approval",
            "tasks-left",
            "not-validated"
        ]
    );
    assert_eq!(report["changes"][0]["work"][0]["subject"], "proposal");
    assert_eq!(
        report["changes"][0]["approvals"]["artifacts"][0]["state"],
        "unbound"
    );
    assert_eq!(report["changes"][0]["tasks"]["done"], 1);
    assert_eq!(report["store"]["orphans"], serde_json::json!([]));

    let listed = ledger(&s, &["changes"]);
    let lines = stdout(&listed);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("add-auth "), "{lines:?}");
    assert!(lines[0].contains("active") && lines[0].contains("approvals 0/4"));
    assert!(lines[0].contains("tasks 1/2") && lines[0].contains("no verdict"));
    assert!(
        lines[1].starts_with("old ") && lines[1].contains("archived"),
        "{lines:?}"
    );
    let listed = json(&ledger(&s, &["changes", "--json"]));
    assert_eq!(listed[1]["location"]["state"], "archived");
    assert_eq!(
        listed[1]["location"]["directory"],
        "openspec/changes/archive/2026-01-01-old"
    );
}

#[test]
fn a_standing_pass_leaves_the_archive_and_a_fix_after_it_is_red_again() {
    let s = checkout();
    validated(&s);
    stdout(&ledger(
        &s,
        &["state", "set", "--change", "add-auth", "--next", "archive"],
    ));
    let out = ledger(&s, &["check", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(1), "an active change is work");
    let shown = text(&out);
    assert!(shown.contains("validation  PASS on sha256:"), "{shown}");
    assert!(
        shown.contains(" stands\n  gates       test fresh\n"),
        "{shown}"
    );
    assert!(shown.contains("next        archive\n"), "{shown}");
    assert!(
        shown.contains("- archive: the PASS stands and nothing else is open"),
        "{shown}"
    );
    assert!(shown.contains("openspec archive add-auth --yes"), "{shown}");
    assert!(shown.ends_with("work to do: 1 item\n"), "{shown}");

    // A fix after the verdict: the PASS and the gate are stale, and say why.
    s.write("src/lib.rs", b"pub fn login() { fixed() }\n");
    let out = ledger(&s, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(kinds(&report), ["pass-changed", "gate-stale"], "{report}");
    let gate = &report["changes"][0]["validation"]["gates"][0];
    assert_eq!(gate["fresh"], false);
    assert!(!gate["reasons"].as_array().unwrap().is_empty());
    let shown = text(&ledger(&s, &["check"]));
    assert!(
        shown.contains("- pass-changed: the PASS inventory changed since the verdict (src/lib.rs)"),
        "{shown}"
    );
    assert!(
        shown.contains("- gate-stale: gate test is stale: ")
            && shown.contains("(ledger gate check --name test)"),
        "{shown}"
    );
}

#[test]
fn nothing_to_do_without_an_active_change_and_errors_exit_2() {
    let s = Sandbox::new();
    s.init();
    s.write(
        "openspec/changes/archive/2026-01-01-old/proposal.md",
        b"# Old\n",
    );
    s.write("README.md", b"hi\n");
    s.commit_all();
    let out = ledger(&s, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        text(&out),
        "no active change\nstore: 0 records, 0 pointers, clean\nnothing to do\n"
    );
    assert_eq!(
        json(&ledger(&s, &["check", "--json"]))["nothing_to_do"],
        true
    );

    let out = ledger(&s, &["check", "--change", "nope"]);
    assert_blocked(&out, "unknown-change", "openspec/changes/nope");
    let hint = String::from_utf8_lossy(&out.stderr);
    assert!(
        hint.ends_with("\nhint: `ledger changes` lists the changes on disk and in the store\n"),
        "the hint names a command that works: {hint}"
    );
    assert_eq!(
        text(&ledger(&s, &["changes"])),
        format!(
            "{:<24} archived  approvals 0/4  no tasks  no verdict\n",
            "old"
        )
    );
    // Each verb's help shows its own exit codes.
    let help = stdout(&ledger(&s, &["check", "--help"]));
    assert!(
        help.contains("  1  work to do: every item is listed"),
        "{help}"
    );
    assert!(!help.contains("verify:"), "{help}");
    let help = stdout(&ledger(&s, &["changes", "--help"]));
    assert!(help.contains("  0  the changes are listed"), "{help}");
    let out = ledger(&s, &["check", "--gate-env", "lint:rustc=1"]);
    assert_blocked(&out, "invalid-argument", "lint");
    // With --json the error is JSON too.
    let out = ledger(&s, &["check", "--gate-env", "lint:rustc=1", "--json"]);
    let error: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(error["code"], "invalid-argument");

    // A store problem is work too.
    let s = checkout();
    stdout(&ledger(
        &s,
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "proposal",
            "--source",
            "r",
        ],
    ));
    std::fs::create_dir_all(s.store_dir().join("tmp")).unwrap();
    std::fs::write(s.store_dir().join("tmp/interrupted"), b"half").unwrap();
    let report = json(&ledger(&s, &["check", "--json"]));
    assert_eq!(report["work"][0]["kind"], "store", "{report}");
    assert_eq!(report["store"]["temp_files"][0], "interrupted");
    let shown = text(&ledger(&s, &["check"]));
    assert!(
        shown.contains("store: 1 records, 1 pointers, problems found\n  - store: the record store has problems: check the store and resolve them (ledger store check)\n"),
        "{shown}"
    );
}

#[test]
fn text_escapes_what_the_envelope_holds_and_gone_files_are_work() {
    let s = checkout();
    stdout(&ledger(
        &s,
        &[
            "state",
            "set",
            "--change",
            "add-auth",
            "--blocker",
            "wait\u{1b}[31m\u{202e}",
        ],
    ));
    let shown = text(&ledger(&s, &["check"]));
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
        "{shown:?}"
    );
    assert!(
        shown.contains("- blocker: blocked: \"wait\\033[31m"),
        "{shown}"
    );
    let report = json(&ledger(&s, &["check", "--json"]));
    let blocker = &report["changes"][0]["state"]["state"]["blockers"][0];
    assert_eq!(blocker, "wait\u{1b}[31m\u{202e}", "JSON keeps it exact");

    // The change's files vanish while its state lives: it is still checked.
    std::fs::remove_dir_all(s.w().join(CHANGE)).unwrap();
    let out = ledger(&s, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    assert!(
        shown.contains("change add-auth (its files are gone;"),
        "{shown}"
    );
    assert!(
        shown.contains("- gone: change add-auth has live recorded state but its files are gone"),
        "{shown}"
    );
    assert!(shown.contains("(ledger state retire --change add-auth --reason TEXT)"));
    let listed = stdout(&ledger(&s, &["changes"]));
    assert!(
        listed.contains("add-auth") && listed.contains("missing") && listed.contains("files gone"),
        "{listed}"
    );
    stdout(&ledger(
        &s,
        &[
            "state",
            "retire",
            "--change",
            "add-auth",
            "--reason",
            "abandoned",
        ],
    ));
    assert_eq!(
        ledger(&s, &["check"]).status.code(),
        Some(0),
        "a retired change is done"
    );
}
