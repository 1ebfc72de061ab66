//! Resuming through the CLI: `ledger check` (one report, exit 0 nothing to
//! do / 1 work to do / 2 error) and `ledger changes` (every change, one line
//! each).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::Output;

use crate::common::*;
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
        shown.contains(
            "change add-auth (active in openspec/changes/add-auth; state record: no-record)"
        ),
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
    // Prerequisites of a gate nothing relies on are noted, never an error.
    let out = ledger(&s, &["check", "--gate-env", "lint:rustc=1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("note: prerequisites were given for gate lint, which nothing checked at this stage relies on"),
        "{}",
        text(&out)
    );
    // With --json an error is JSON too.
    let out = ledger(&s, &["check", "--gate-env", "lint", "--json"]);
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
    let last = report["work"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["kind"], "store",
        "the whole list ends with the store's: {last}"
    );
    assert_eq!(last["change"], Value::Null);
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

const DELTA: &[u8] = b"## ADDED Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n";
/// What `openspec archive` writes for a new capability from `DELTA`.
const SYNCED: &[u8] = b"# auth Specification\n\n## Purpose\nTBD - created by archiving change add-auth. Update Purpose after archive.\n\n## Requirements\n\n### Requirement: Login\nThe system SHALL log users in.\n\n#### Scenario: ok\n- works\n";
const ARCHIVED: &str = "openspec/changes/archive/2026-12-01-add-auth";

/// A proposal only: `add-auth` with a delta for a new capability, two open
/// tasks, and `ledger.toml` declaring the gate `test` over `src` with a
/// literal and a command prerequisite (the README's kind of gate).
fn proposal() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(&format!("{CHANGE}/design.md"), b"# Design\n");
    s.write(&format!("{CHANGE}/specs/auth/spec.md"), DELTA);
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [ ] 1.1 [core] Login\n- [ ] 1.2 [core] Tokens\n",
    );
    s.write("src/lib.rs", b"pub fn login() {}\n");
    s.write(
        "ledger.toml",
        b"[gates.test]\ncommand = [\"cat\", \"src/lib.rs\"]\nroots = [\"src\"]\nenv = [\"MODE=ci\"]\nenv-cmd = { tool = \"echo v1\" }\n",
    );
    s.commit_all();
    s
}

/// The work kinds of the whole report (top-level `work`).
fn all_kinds(report: &Value) -> Vec<String> {
    (report["work"].as_array().unwrap().iter())
        .map(|w| w["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// The one invocation a resuming agent makes at every stage: a prerequisite
/// of the gate `unit` (which only the PASS relies on), declared prerequisite
/// commands allowed, and no knowledge of the stage.
const RESUME: &[&str] = &[
    "check",
    "--gate-env-cmd",
    "unit:tool=echo v1",
    "--allow-env-cmd",
    "--json",
];

/// Runs [`RESUME`] (and the same with `--change add-auth`): never exit 2,
/// `code` both times; returns the report of the first.
fn resume(s: &Sandbox, code: i32, stage: &str) -> Value {
    let out = ledger(s, RESUME);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{stage}: {err}{}",
        text(&out)
    );
    let mut named = RESUME.to_vec();
    named.extend(["--change", "add-auth"]);
    let named_out = ledger(s, &named);
    let err = String::from_utf8_lossy(&named_out.stderr);
    assert_eq!(named_out.status.code(), Some(code), "{stage}, named: {err}");
    let report = json(&out);
    let items: usize = (report["changes"].as_array().unwrap().iter())
        .map(|c| c["work"].as_array().unwrap().len())
        .sum();
    assert!(
        all_kinds(&report).len() >= items,
        "{stage}: the top-level work is the whole list: {report}"
    );
    report
}

fn unused_gates(report: &Value) -> Vec<String> {
    (report["notes"].as_array().unwrap().iter())
        .filter(|n| n["kind"] == "unused-prerequisites")
        .map(|n| n["subject"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn one_check_invocation_resumes_every_stage_from_proposal_to_finalization() {
    let s = proposal();
    // 1. The proposal: approvals, tasks, no verdict, the declared gate never ran.
    let report = resume(&s, 1, "proposal");
    assert_eq!(unused_gates(&report), ["unit"], "{report}");
    let kinds = all_kinds(&report);
    assert!(
        kinds.contains(&"declared-gate-stale".to_owned()),
        "{kinds:?}"
    );
    assert_eq!(report["work"][0]["change"], "add-auth", "{report}");
    let shown = text(&ledger(
        &s,
        &[
            "check",
            "--gate-env-cmd",
            "unit:tool=echo v1",
            "--allow-env-cmd",
        ],
    ));
    assert!(
        shown.contains("note: prerequisites were given for gate unit, which nothing checked at this stage relies on"),
        "{shown}"
    );
    let count = format!("work to do: {} items\n", kinds.len());
    assert!(shown.ends_with(&count), "{shown}");

    // 2. Approvals.
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
        stdout(&ledger(&s, &args));
    }
    stdout(&ledger(
        &s,
        &[
            "state",
            "set",
            "--change",
            "add-auth",
            "--next",
            "validation",
        ],
    ));
    resume(&s, 1, "approved");
    // 3. Tasks done.
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [x] 1.1 [core] Login\n- [x] 1.2 [core] Tokens\n",
    );
    resume(&s, 1, "tasks done");
    // 4. The gates run: the declared one, and one by flags.
    stdout(&ledger(&s, &["gate", "run", "test"]));
    let unit = [
        "gate",
        "run",
        "--name",
        "unit",
        "--env-cmd",
        "tool=echo v1",
        "--root",
        "src",
        "--",
        "cat",
        "src/lib.rs",
    ];
    stdout(&ledger(&s, &unit));
    let report = resume(&s, 1, "gates run");
    assert!(
        !all_kinds(&report).contains(&"declared-gate-stale".to_owned()),
        "{report}"
    );
    assert_eq!(report["declared_gates"][0]["fresh"], true, "{report}");
    // 5. The PASS.
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
        "--gate",
        "unit",
        "--gate-env",
        "test:MODE=ci",
        "--gate-env-cmd",
        "test:tool=echo v1",
        "--gate-env-cmd",
        "unit:tool=echo v1",
    ];
    stdout(&ledger(&s, &record));
    let report = resume(&s, 1, "validated");
    assert_eq!(all_kinds(&report), ["archive"], "{}", report["work"]);
    assert_eq!(unused_gates(&report), Vec::<String>::new(), "{report}");
    let gates = &report["changes"][0]["validation"]["gates"];
    assert_eq!(
        (gates[0]["fresh"].clone(), gates[1]["fresh"].clone()),
        (Value::Bool(true), Value::Bool(true)),
        "{report}"
    );
    // 6. Archived as `openspec archive` does it, then finalized.
    std::fs::create_dir_all(s.w().join("openspec/changes/archive")).unwrap();
    std::fs::rename(s.w().join(CHANGE), s.w().join(ARCHIVED)).unwrap();
    s.write("openspec/specs/auth/spec.md", SYNCED);
    stdout(&ledger(&s, &["finalize", "check", "--change", "add-auth"]));
    let report = resume(&s, 0, "finalized");
    assert_eq!(report["nothing_to_do"], true, "{report}");
    assert_eq!(unused_gates(&report), ["unit"], "{report}");
    let named = json(&ledger(&s, &["check", "--change", "add-auth", "--json"]));
    assert_eq!(
        named["changes"][0]["next"],
        Value::Null,
        "nothing is next: {named}"
    );
    let shown = text(&ledger(
        &s,
        &["check", "--change", "add-auth", "--allow-env-cmd"],
    ));
    assert!(shown.contains("\n  next        -\n"), "{shown}");
    assert!(shown.ends_with("nothing to do\n"), "{shown}");
    let listed = stdout(&ledger(&s, &["changes"]));
    assert!(!listed.contains("next:"), "{listed}");
}

#[test]
fn a_declared_command_prerequisite_is_run_only_when_the_caller_allows_it() {
    let s = proposal();
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
        stdout(&ledger(&s, &args));
    }
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [x] 1.1 [core] Login\n- [x] 1.2 [core] Tokens\n",
    );
    stdout(&ledger(&s, &["gate", "run", "test"]));
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
        "--gate-env",
        "test:MODE=ci",
        "--gate-env-cmd",
        "test:tool=echo v1",
    ];
    stdout(&ledger(&s, &record));
    // Allowed: the declared literal and command observe the gate, fresh.
    let out = ledger(&s, &["check", "--allow-env-cmd", "--json"]);
    assert_eq!(kinds(&json(&out)), ["archive"], "{}", text(&out));
    // Not allowed: the command stays unverified and the report says how to allow it.
    let out = ledger(&s, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    assert!(shown.contains("prerequisite tool not verified"), "{shown}");
    assert!(
        shown.contains("note: gate test declares the prerequisite command tool in ledger.toml")
            && shown.contains("--allow-env-cmd"),
        "{shown}"
    );
    let report = json(&ledger(&s, &["check", "--json"]));
    let note = (report["notes"].as_array().unwrap().iter())
        .find(|n| n["kind"] == "commands-not-run")
        .unwrap();
    assert_eq!(note["subject"], "test");
}

#[test]
fn a_recorded_verdict_that_no_longer_stands_is_work() {
    let s = Sandbox::new();
    s.init();
    s.write("src/lib.rs", b"pub fn login() {}\n");
    s.commit_all();
    let record = [
        "verdict",
        "record",
        "--name",
        "pr-1",
        "--verdict",
        "PASS",
        "--source",
        "r",
        "--root",
        "src",
    ];
    stdout(&ledger(&s, &record));
    let out = ledger(&s, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(json(&out)["verdicts"][0]["stands"], true);
    s.write("src/lib.rs", b"pub fn login() { fixed() }\n");
    let out = ledger(&s, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    assert!(
        shown.contains("- verdict-stale: verdict pr-1 no longer stands: 1 path changed since it was recorded (src/lib.rs): audit again or downgrade it (ledger verdict check --name pr-1)"),
        "{shown}"
    );
}
