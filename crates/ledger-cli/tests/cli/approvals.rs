//! `ledger approve`, `status`, `state show` and `store check` on a real
//! OpenSpec-shaped change.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::{Command, Stdio};

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";

fn openspec_checkout() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write(&format!("{CHANGE}/proposal.md"), b"# Why\n");
    s.write(
        &format!("{CHANGE}/design.md"),
        b"# Design\n![flow](flow.svg)\n",
    );
    s.write(&format!("{CHANGE}/flow.svg"), b"<svg/>\n");
    s.write(&format!("{CHANGE}/specs/auth/spec.md"), b"## Requirement\n");
    s.write(&format!("{CHANGE}/tasks.md"), b"- [ ] 1.1 [core] Login\n");
    s.commit_all();
    s
}

fn ledger(s: &Sandbox, args: &[&str]) -> std::process::Output {
    s.ledger(&s.w(), args)
}

fn approve(s: &Sandbox, artifact: &str) -> std::process::Output {
    ledger(
        s,
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            artifact,
            "--source",
            "msg 7",
        ],
    )
}

fn states(s: &Sandbox) -> Vec<String> {
    let out = ledger(s, &["status", "--change", "add-auth", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["state"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn approve_then_status_then_cascade() {
    let s = openspec_checkout();
    let out = ledger(&s, &["status", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("state record: no-record"), "{table}");
    assert!(table.contains("proposal   unbound"), "{table}");
    for a in ["proposal", "specs", "design", "tasks"] {
        let out = approve(&s, a);
        let text = stdout(&out);
        assert!(
            text.starts_with(&format!("approved {a} of add-auth at ")),
            "{text}"
        );
        assert!(last_line(&out).starts_with("sha256:"));
    }
    let out = ledger(&s, &["status", "--change", "add-auth"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Ticking a task keeps everything approved; editing the design resets tasks.
    s.write(&format!("{CHANGE}/tasks.md"), b"- [x] 1.1 [core] Login\n");
    assert_eq!(states(&s), ["approved"; 4]);
    s.write(&format!("{CHANGE}/flow.svg"), b"<svg><g/></svg>\n");
    assert_eq!(states(&s), ["approved", "approved", "changed", "reset"]);
    let table = stdout_of(&ledger(&s, &["status", "--change", "add-auth"]));
    assert!(table.contains("upstream changed: design"), "{table}");
    // Re-approving the design does not bring the tasks back: they stood on the old design.
    assert!(approve(&s, "design").status.success());
    assert_eq!(states(&s), ["approved", "approved", "approved", "reset"]);
    assert!(approve(&s, "tasks").status.success());
    assert_eq!(states(&s), ["approved"; 4]);
}

#[test]
fn state_show_and_store_check() {
    let s = openspec_checkout();
    assert!(approve(&s, "proposal").status.success());
    let shown: serde_json::Value =
        serde_json::from_str(&stdout(&ledger(&s, &["state", "show", "--json"]))).unwrap();
    let state = &shown[0]["state"];
    assert_eq!(state["change"], "add-auth");
    assert_eq!(state["bindings"][0]["artifact"], "proposal");
    assert_eq!(state["bindings"][0]["source"], "msg 7");
    let check = ledger(&s, &["store", "check"]);
    assert_eq!(check.status.code(), Some(0));
    assert!(
        stdout(&check).contains("1 records, 1 pointers: clean"),
        "{}",
        stdout(&check)
    );
    // An interrupted write leaves a temporary file: the check reports it.
    std::fs::write(s.store_dir().join("tmp/interrupted"), b"half").unwrap();
    let check = ledger(&s, &["store", "check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stdout_of(&check).contains("temporary files (1):\n  interrupted"),
        "{}",
        stdout_of(&check)
    );
    // The store never enters a fingerprint.
    assert!(!stdout(&ledger(&s, &["entries"])).contains(".ledger"));
}

#[test]
fn approval_is_refused_when_the_set_is_blocked() {
    let s = openspec_checkout();
    std::fs::remove_file(s.w().join(format!("{CHANGE}/flow.svg"))).unwrap();
    assert_blocked(&approve(&s, "design"), "missing-material", "flow.svg");
    let table = stdout_of(&ledger(&s, &["status", "--change", "add-auth"]));
    assert!(
        table.contains("design     blocked") && table.contains("error[missing-material]"),
        "{table}"
    );
    assert_blocked(&approve(&s, "review"), "unknown-artifact", "review");
    let bad_schema = s.dir.path().join("schema.yaml");
    std::fs::write(
        &bad_schema,
        "artifacts:\n  - {id: a, generates: a.md, requires: [a]}\n",
    )
    .unwrap();
    let out = ledger(
        &s,
        &[
            "status",
            "--change",
            "add-auth",
            "--schema",
            bad_schema.to_str().unwrap(),
        ],
    );
    assert_blocked(&out, "graph-cycle", "a");
}

#[test]
fn racing_approvals_either_win_or_conflict() {
    let s = openspec_checkout();
    assert!(approve(&s, "proposal").status.success());
    let mut children = Vec::new();
    for artifact in ["proposal", "specs", "design", "tasks", "specs", "design"] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
        s.env(&mut cmd);
        cmd.current_dir(s.w())
            .args([
                "approve",
                "--change",
                "add-auth",
                "--artifact",
                artifact,
                "--source",
                "race",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        children.push(cmd.spawn().unwrap());
    }
    let mut wins = 0;
    // Two losers that wrote byte-identical records (same artifact, same
    // millisecond) leave one orphan: count the distinct records they name.
    let mut orphans = std::collections::BTreeSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            wins += 1;
        } else {
            assert_blocked(&out, "pointer-conflict", "changes/add-auth");
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            let (_, rest) = stderr.split_once("the new record ").unwrap();
            orphans.insert(rest[..64].to_owned());
        }
    }
    let conflicts = orphans.len();
    assert!(wins >= 1);
    let report: serde_json::Value =
        serde_json::from_slice(&ledger(&s, &["store", "check", "--json"]).stdout).unwrap();
    assert_eq!(report["corrupt"].as_array().unwrap().len(), 0);
    assert_eq!(report["dangling"].as_array().unwrap().len(), 0);
    assert_eq!(report["orphans"].as_array().unwrap().len(), conflicts);
    let history = ledger(&s, &["state", "show", "--change", "add-auth"]);
    assert!(history.status.success());
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn status_json(s: &Sandbox) -> serde_json::Value {
    let out = ledger(s, &["status", "--change", "add-auth", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn refs(s: &Sandbox) -> usize {
    let out = s.git(&s.w(), &["for-each-ref", "refs/ledger/heads/changes/"]);
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count()
}

#[test]
fn a_mistyped_change_is_refused_and_nothing_is_recorded() {
    let s = openspec_checkout();
    let out = ledger(
        &s,
        &[
            "approve",
            "--change",
            "add-atuh",
            "--artifact",
            "proposal",
            "--source",
            "m",
        ],
    );
    assert_blocked(&out, "unknown-change", "add-atuh");
    let out = ledger(&s, &["status", "--change", "add-atuh"]);
    assert_blocked(&out, "unknown-change", "openspec/changes/add-atuh");
    assert_eq!(refs(&s), 0, "nothing recorded");
}

#[test]
fn a_change_without_spec_files_is_not_the_whole_workspace() {
    let s = openspec_checkout();
    std::fs::remove_dir_all(s.w().join(CHANGE).join("specs")).unwrap();
    let out = approve(&s, "specs");
    assert_blocked(&out, "absent-artifact", "specs");
    for a in ["proposal", "design"] {
        stdout(&approve(&s, a));
    }
    let absent = [
        "approve",
        "--change",
        "add-auth",
        "--artifact",
        "specs",
        "--source",
        "m",
        "--absent",
    ];
    stdout(&ledger(&s, &absent));
    stdout(&approve(&s, "tasks"));
    s.write("unrelated.txt", b"anything\n");
    s.write("src/lib.rs", b"fn main() {}\n");
    assert_eq!(states(&s), ["approved"; 4]);
}

#[test]
fn approving_on_a_blocked_upstream_is_refused() {
    let s = openspec_checkout();
    for a in ["proposal", "specs"] {
        stdout(&approve(&s, a));
    }
    std::fs::remove_file(s.w().join(CHANGE).join("flow.svg")).unwrap();
    let out = approve(&s, "tasks");
    assert_blocked(&out, "upstream-blocked", "design");
    s.write(&format!("{CHANGE}/design.md"), b"# Other design\n");
    stdout(&approve(&s, "design"));
    assert_eq!(states(&s), ["approved", "approved", "approved", "unbound"]);
}

#[test]
fn status_names_the_changed_files() {
    let s = openspec_checkout();
    for a in ["proposal", "specs", "design", "tasks"] {
        stdout(&approve(&s, a));
    }
    s.write(&format!("{CHANGE}/flow.svg"), b"<svg>v2</svg>\n");
    s.write(&format!("{CHANGE}/specs/billing/spec.md"), b"## Pay\n");
    let out = ledger(&s, &["status", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains(&format!("    content changed: {CHANGE}/flow.svg\n")),
        "{table}"
    );
    assert!(
        table.contains(&format!("    added: {CHANGE}/specs/billing/spec.md\n")),
        "{table}"
    );
    let json = status_json(&s);
    let design = &json["artifacts"][2];
    assert_eq!(design["state"], "changed");
    assert_eq!(design["changes"][0]["change"], "content-changed");
    assert_eq!(
        design["changes"][0]["new"]["path"],
        format!("{CHANGE}/flow.svg")
    );
}

#[test]
fn an_archived_change_is_reported_as_archived() {
    let s = openspec_checkout();
    for a in ["proposal", "specs", "design", "tasks"] {
        stdout(&approve(&s, a));
    }
    let archive = s.w().join("openspec/changes/archive");
    std::fs::create_dir_all(&archive).unwrap();
    std::fs::rename(s.w().join(CHANGE), archive.join("2026-12-01-add-auth")).unwrap();
    let out = ledger(&s, &["status", "--change", "add-auth"]);
    let table = stdout(&out);
    assert!(
        table.contains("archived in openspec/changes/archive/2026-12-01-add-auth"),
        "{table}"
    );
    assert!(!table.contains("own files changed"), "{table}");
    assert_eq!(states(&s), ["archived"; 4]);
    assert_eq!(status_json(&s)["location"]["state"], "archived");
}

#[test]
fn a_gone_change_is_reported_and_retired() {
    let s = openspec_checkout();
    stdout(&approve(&s, "proposal"));
    std::fs::remove_dir_all(s.w().join(CHANGE)).unwrap();
    let out = ledger(&s, &["status", "--change", "add-auth"]);
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("its directory is gone"), "{table}");
    assert_eq!(states(&s), ["gone"; 4]);
    let retire = [
        "state",
        "retire",
        "--change",
        "add-auth",
        "--reason",
        "abandoned",
    ];
    let text = stdout(&ledger(&s, &retire));
    assert!(text.starts_with("retired the state of add-auth"), "{text}");
    let json = status_json(&s);
    assert_eq!(json["retired"]["reason"], "abandoned");
    let shown = stdout(&ledger(
        &s,
        &["state", "show", "--change", "add-auth", "--json"],
    ));
    assert!(shown.contains("\"retired\""), "{shown}");
    let text = stdout(&ledger(&s, &["state", "show", "--change", "add-auth"]));
    assert!(text.contains("\n  retired         abandoned ("), "{text}");
    // The history stays: two records behind the pointer.
    let records = std::fs::read_dir(s.store_dir().join("records"))
        .unwrap()
        .count();
    assert!(records >= 2, "{records}");
}

#[test]
fn a_design_s_inline_html_image_is_a_material() {
    let s = openspec_checkout();
    s.write(
        &format!("{CHANGE}/design.md"),
        b"# Design\n<p align=\"center\"><img src=\"mock.png\" alt=\"mock\"></p>\n",
    );
    s.write(&format!("{CHANGE}/mock.png"), b"png\n");
    for artifact in ["proposal", "specs", "design", "tasks"] {
        assert!(approve(&s, artifact).status.success());
    }
    assert_eq!(states(&s), ["approved"; 4]);
    // The image the HTML shows is part of the approved design.
    s.write(&format!("{CHANGE}/mock.png"), b"png, edited\n");
    assert_eq!(states(&s), ["approved", "approved", "changed", "reset"]);
    let out = ledger(&s, &["status", "--change", "add-auth", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["artifacts"][2]["changes"][0]["new"]["path"],
        format!("{CHANGE}/mock.png")
    );
    std::fs::remove_file(s.w().join(format!("{CHANGE}/mock.png"))).unwrap();
    assert_blocked(&approve(&s, "design"), "missing-material", "mock.png");
}

/// Confirmations print what the caller gave, escaped like every text output;
/// with --json the values are exact.
#[test]
fn approve_and_retire_confirm_escaped_or_as_json() {
    let s = openspec_checkout();
    let source = "msg\u{1b}[31m 7\u{202e}";
    let out = ledger(
        &s,
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "proposal",
            "--source",
            source,
        ],
    );
    let text = stdout_of(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert!(text.contains("source: "), "{text}");
    let out = ledger(
        &s,
        &[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            "design",
            "--source",
            source,
            "--json",
        ],
    );
    let binding: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(binding["source"], source);
    assert_eq!(binding["artifact"], "design");
    let reason = "typo\u{1b}]0;owned\u{7}";
    let out = ledger(
        &s,
        &[
            "state", "retire", "--change", "add-auth", "--reason", reason,
        ],
    );
    let text = stdout_of(&out);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    let table = stdout_of(&ledger(&s, &["status", "--change", "add-auth"]));
    assert!(
        table.contains("retired at ") && !table.contains('\u{1b}'),
        "{table:?}"
    );
    let out = ledger(
        &s,
        &[
            "state", "retire", "--change", "add-auth", "--reason", reason, "--json",
        ],
    );
    let retired: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (retired["change"].as_str(), retired["reason"].as_str()),
        (Some("add-auth"), Some(reason))
    );
    assert_eq!(retired["record"].as_str().unwrap().len(), 64);
}

/// A mistyped change reads as an error in every read verb, never as an empty
/// state; an archived change's PASS is for `finalize check`; a schema that is
/// not a string is a bad configuration.
#[test]
fn read_verbs_name_an_unknown_change_and_the_verb_that_works() {
    let s = openspec_checkout();
    for verb in [
        &["state", "show", "--change", "nope"][..],
        &["state", "log", "--change", "nope"],
        &["validate", "check", "--change", "nope"],
        &["finalize", "check", "--change", "nope"],
        &["status", "--change", "nope"],
    ] {
        let out = ledger(&s, verb);
        assert_blocked(&out, "unknown-change", "nope");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("hint: `ledger changes` lists"),
            "{verb:?}: {stderr}"
        );
    }
    // Known but without state: an empty state, not an error.
    assert_eq!(
        ledger(&s, &["state", "show", "--change", "add-auth"])
            .status
            .code(),
        Some(0)
    );
    let archived = s.w().join("openspec/changes/archive/2026-12-01-add-auth");
    std::fs::create_dir_all(archived.parent().unwrap()).unwrap();
    std::fs::rename(s.w().join(CHANGE), &archived).unwrap();
    let out = ledger(&s, &["validate", "check", "--change", "add-auth"]);
    assert_blocked(&out, "invalid-argument", "archived");
    assert!(String::from_utf8_lossy(&out.stderr).contains("finalize check"));
    s.write(
        "openspec/changes/archive/2026-12-01-add-auth/.openspec.yaml",
        b"schema: 3\n",
    );
    assert_blocked(
        &ledger(&s, &["status", "--change", "add-auth"]),
        "bad-openspec-config",
        ".openspec.yaml",
    );
}

/// `state set --completed` checks the ids against the Tasks file, the record:
/// agreeing ids change nothing, contradicting ones need --tasks-reason.
#[test]
fn given_task_ids_are_checked_against_the_tasks_file() {
    let s = openspec_checkout();
    s.write(
        &format!("{CHANGE}/tasks.md"),
        b"- [x] 1.1 [core] Add login\n- [ ] 1.2 [cli] Wire it\n",
    );
    let set = |extra: &[&str]| {
        let mut args = vec!["state", "set", "--change", "add-auth", "--json"];
        args.extend(extra);
        ledger(&s, &args)
    };
    let agreed: serde_json::Value =
        serde_json::from_slice(&set(&["--completed", "1.1"]).stdout).unwrap();
    assert_eq!(
        agreed["state"]["tasks_completed"],
        serde_json::json!(["1.1"])
    );
    assert_eq!(
        agreed["state"]["tasks_remaining"],
        serde_json::json!(["1.2"]),
        "nothing emptied"
    );
    let refused = ledger(
        &s,
        &["state", "set", "--change", "add-auth", "--completed", "1.2"],
    );
    assert_blocked(&refused, "invalid-argument", "tasks.md");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("1.2 is given as done but is open"));
    let forced = set(&[
        "--completed",
        "1.1",
        "--completed",
        "1.2",
        "--tasks-reason",
        "done upstream",
    ]);
    let forced: serde_json::Value = serde_json::from_slice(&forced.stdout).unwrap();
    assert_eq!(
        forced["state"]["tasks_completed"],
        serde_json::json!(["1.1", "1.2"])
    );
    let help = stdout_of(&ledger(&s, &["state", "set", "--help"]));
    assert!(
        help.contains("--tasks-reason") && help.contains("is the record"),
        "{help}"
    );
}

/// An agent's parallel tool calls: four `ledger approve` processes of four
/// different artifacts of one change started together all land (each one
/// that finds another's state landed first is recorded on top of it), and
/// the store is left clean, with no orphan.
#[test]
fn parallel_approvals_of_different_artifacts_all_land() {
    let s = openspec_checkout();
    for round in 0..3 {
        let children: Vec<_> = ["proposal", "specs", "design", "tasks"]
            .into_iter()
            .map(|artifact| {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_ledger"));
                s.env(&mut cmd);
                cmd.current_dir(s.w())
                    .args(["approve", "--change", "add-auth", "--artifact", artifact])
                    .args(["--source", &format!("round {round}")])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                (artifact, cmd.spawn().unwrap())
            })
            .collect();
        for (artifact, child) in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: approve {artifact}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(states(&s), ["approved"; 4], "round {round}");
        let check = ledger(&s, &["store", "check"]);
        assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
        let history = ledger(&s, &["state", "log", "--change", "add-auth", "--json"]);
        assert!(history.status.success(), "{}", stdout(&history));
    }
}

/// A write that really conflicts (it names the state it started from, and
/// another landed since) is refused and its record stays visible; an
/// explicit decision, recorded with its reason, clears it from `store check`
/// and `ledger check`.
#[test]
fn a_conflict_is_decided_and_gone_from_the_checks() {
    let s = openspec_checkout();
    assert!(approve(&s, "proposal").status.success());
    let args = [
        "approve",
        "--change",
        "add-auth",
        "--artifact",
        "design",
        "--source",
        "msg 8",
        "--expect",
        "no-record",
    ];
    let refused = ledger(&s, &args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pointer-conflict"));
    let check = ledger(&s, &["store", "check"]);
    assert_eq!(check.status.code(), Some(1));
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(
        text.contains("a state record refused as the first record of a ref"),
        "{text}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&ledger(&s, &["store", "check", "--json"]).stdout).unwrap();
    let orphan = report["orphans"][0]["id"].as_str().unwrap().to_owned();
    let resume = ledger(&s, &["check", "--json"]);
    let text = String::from_utf8_lossy(&resume.stdout);
    assert!(text.contains("\"store\""), "{text}");

    let no_reason = ledger(&s, &["store", "decide", "--orphan", &orphan, "--discard"]);
    assert_eq!(no_reason.status.code(), Some(2));
    let decided = ledger(
        &s,
        &[
            "store",
            "decide",
            "--orphan",
            &orphan,
            "--discard",
            "--because",
            "wrong basis",
        ],
    );
    assert!(
        decided.status.success(),
        "{}",
        String::from_utf8_lossy(&decided.stderr)
    );
    let check = ledger(&s, &["store", "check"]);
    assert_eq!(check.status.code(), Some(0));
    let resume = ledger(&s, &["check", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&resume.stdout).unwrap();
    assert!(
        json["work"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["kind"] != "store"),
        "{json}"
    );
}

/// A project `openspec/config.yaml` whose `schema:` has no value (YAML null)
/// names no schema, as `schema: ''` does: both are refused, never read as
/// `spec-driven` (issue 42).
#[test]
fn a_project_schema_key_without_a_value_is_a_bad_configuration() {
    for text in [
        &b"schema:\n"[..],
        b"schema: ~\n",
        b"schema: null\n",
        b"schema: ''\n",
    ] {
        let s = openspec_checkout();
        s.write("openspec/config.yaml", text);
        let out = ledger(&s, &["status", "--change", "add-auth"]);
        assert_blocked(&out, "bad-openspec-config", "openspec/config.yaml");
    }
}

/// "Nothing is recorded" is `--expect no-record`; `--expect none`, which in
/// the bindings reads as the option left out, is refused and nothing is
/// written.
#[test]
fn expect_none_is_refused_with_what_to_write() {
    let s = openspec_checkout();
    let args = [
        "approve",
        "--change",
        "add-auth",
        "--artifact",
        "proposal",
        "--source",
        "m",
        "--expect",
        "none",
    ];
    let refused = ledger(&s, &args);
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.starts_with("error[invalid-argument]: "), "{said}");
    assert!(said.contains("no-record"), "{said}");
    assert_eq!(ledger(&s, &["store", "check"]).status.code(), Some(0));
    let mut args = args;
    args[8] = "no-record";
    assert!(ledger(&s, &args).status.success());
}
