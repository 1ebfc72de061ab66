//! Records free of host paths (docs/records.md, Host-free records): gate
//! evidence, approvals and a validation PASS made in one workspace stand in a
//! byte-identical `cp -a` copy of it, with and without Git; records written
//! before host-free records keep proving only for the workspace they name.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use ledger_core::records::Store;
use ledger_testkit::utf8;

const CHANGE: &str = "openspec/changes/add-auth";

/// `cp -a from to`: the oracle of a byte-identical copy (modes, times, the
/// `.ledger/` store and `.git/` along with the files).
fn copy_of(s: &Sandbox, from: &Path, name: &str) -> PathBuf {
    let to = s.dir.path().join(name);
    let out = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(&to)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    to
}

/// The number of lines in the side-effect file: how often the gate ran.
fn runs(counter: &Path) -> usize {
    std::fs::read_to_string(counter).map_or(0, |t| t.lines().count())
}

/// `ledger gate run --name test -- sh -c 'echo run >> counter; cat src/lib.rs'`
/// in `dir`. The counter lies outside every workspace, so the command (and its
/// argv) is the same in the original and in the copy.
fn gate_run(s: &Sandbox, dir: &Path, counter: &Path) -> Output {
    let script = format!("echo run >> '{}'; cat src/lib.rs", counter.display());
    s.ledger(
        dir,
        &["gate", "run", "--name", "test", "--", "sh", "-c", &script],
    )
}

fn check_json(s: &Sandbox, dir: &Path) -> serde_json::Value {
    let out = s.ledger(dir, &["gate", "check", "--name", "test", "--json"]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
}

/// Every file of the store's records below `dir`, none of which may name
/// `host` (the original workspace, as given and with symlinks resolved).
fn assert_records_host_free(dir: &Path, host: &Path) {
    let records = match dir.join(".git").is_dir() {
        true => dir.join(".git/ledger/records"),
        false => dir.join(".ledger/records"),
    };
    let names = [host.to_owned(), host.canonicalize().unwrap()];
    let mut seen = 0;
    for file in std::fs::read_dir(&records).unwrap() {
        let bytes = std::fs::read(file.unwrap().path()).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        for name in &names {
            let name = name.to_str().unwrap();
            assert!(!text.contains(name), "a record names {name}: {text}");
        }
        seen += 1;
    }
    assert!(seen > 0, "no record in {}", records.display());
}

/// A workspace with a passing gate `test` over everything, and the counter.
fn gated(s: &Sandbox, git: bool) -> PathBuf {
    if git {
        s.init();
    }
    s.write("src/lib.rs", b"pub fn f() {}\n");
    s.write("README.md", b"# hi\n");
    if git {
        s.commit_all();
    }
    let counter = s.dir.path().join("runs");
    let first = gate_run(s, &s.w(), &counter);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(runs(&counter), 1);
    counter
}

fn gate_evidence_is_reused_in_a_copy(git: bool) {
    let s = Sandbox::new();
    let counter = gated(&s, git);
    assert_records_host_free(&s.w(), &s.w());
    let copy = copy_of(&s, &s.w(), "copy");
    let json = check_json(&s, &copy);
    assert_eq!(json["fresh"], true, "{json}");
    let again = gate_run(&s, &copy, &counter);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(
        again.stdout.is_empty(),
        "the command did not run in the copy"
    );
    assert_eq!(runs(&counter), 1, "reused, not run");
    // The same inputs, changed in the copy: stale there, and it runs.
    std::fs::write(copy.join("src/lib.rs"), b"pub fn g() {}\n").unwrap();
    assert_eq!(gate_run(&s, &copy, &counter).status.code(), Some(0));
    assert_eq!(runs(&counter), 2);
}

#[test]
fn gate_evidence_is_reused_in_a_cp_a_copy_of_a_git_checkout() {
    gate_evidence_is_reused_in_a_copy(true);
}

#[test]
fn gate_evidence_is_reused_in_a_cp_a_copy_outside_git() {
    gate_evidence_is_reused_in_a_copy(false);
}

/// An OpenSpec change with every artifact approved, a passing gate `test`
/// over `src` and a validation PASS relying on it.
fn validated(s: &Sandbox) {
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
    let ok = |args: &[&str]| {
        let out = s.ledger(&s.w(), args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for artifact in ["proposal", "specs", "design", "tasks"] {
        ok(&[
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            artifact,
            "--source",
            "r1",
        ]);
    }
    ok(&[
        "gate",
        "run",
        "--name",
        "test",
        "--root",
        "src",
        "--",
        "cat",
        "src/lib.rs",
    ]);
    ok(&[
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
    ]);
}

fn states(s: &Sandbox, dir: &Path) -> Vec<String> {
    let out = s.ledger(dir, &["status", "--change", "add-auth", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["artifacts"].as_array().unwrap().iter();
    rows.map(|a| a["state"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn approvals_and_a_validation_pass_stand_in_a_cp_a_copy() {
    let s = Sandbox::new();
    validated(&s);
    assert_records_host_free(&s.w(), &s.w());
    let copy = copy_of(&s, &s.w(), "copy");
    assert_eq!(states(&s, &copy), ["approved"; 4]);
    let out = s.ledger(
        &copy,
        &["validate", "check", "--change", "add-auth", "--json"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["stands"], true, "{json}");
    let gate = &json["gates"][0];
    assert_eq!(
        (&gate["fresh"], &gate["rerun"]),
        (&true.into(), &false.into()),
        "{json}"
    );
    assert_eq!(
        gate["latest"], gate["recorded"],
        "the very evidence of the verdict"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// Rewrites the latest evidence of gate `test` in `dir`'s store as a record
/// written before host-free records: both scopes naming `workspace` absolutely.
fn make_evidence_old(dir: &Path, workspace: &Path) {
    let store = Store::open(utf8(dir)).unwrap();
    let head = store.head("gates/test").unwrap().unwrap();
    let mut body = store.read_record::<serde_json::Value>(&head).unwrap().body;
    let absolute = serde_json::json!(workspace.canonicalize().unwrap().to_str().unwrap());
    body["spec"]["scope"]["workspace"] = absolute.clone();
    body["inventory"]["scope"]["workspace"] = absolute;
    store
        .commit("gates/test", "evidence", Some(&head), &body)
        .unwrap();
}

#[test]
fn old_evidence_with_an_absolute_workspace_proves_only_for_that_workspace() {
    let s = Sandbox::new();
    let counter = gated(&s, true);
    make_evidence_old(&s.w(), &s.w());
    // Where it ran: read exactly as before, and reused.
    assert_eq!(check_json(&s, &s.w())["fresh"], true);
    assert_eq!(gate_run(&s, &s.w(), &counter).status.code(), Some(0));
    assert_eq!(runs(&counter), 1);
    // In a copy it is not re-rooted: it ran in the original, not here.
    let copy = copy_of(&s, &s.w(), "copy");
    let json = check_json(&s, &copy);
    assert_eq!(json["fresh"], false, "{json}");
    assert_eq!(json["reasons"][0]["reason"], "scope-differs", "{json}");
    let text = s.ledger(&copy, &["gate", "check", "--name", "test"]);
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(
        shown.contains("it ran in ") && shown.contains("/copy"),
        "{shown}"
    );
    assert_eq!(gate_run(&s, &copy, &counter).status.code(), Some(0));
    assert_eq!(runs(&counter), 2, "the copy ran the gate");
}

#[test]
fn an_old_inventory_record_verifies_in_the_callers_workspace() {
    let s = sample_checkout();
    let out = s.ledger(&s.w(), &["inventory", "--root", "src"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["version"], "1.3");
    assert_eq!(record["scope"]["workspace"], ".");
    // The same record as version 1.1 wrote it: an absolute workspace.
    record["version"] = serde_json::json!("1.1");
    record["scope"]["workspace"] = serde_json::json!("/nowhere/old-checkout");
    let file = s.dir.path().join("old.json");
    std::fs::write(&file, record.to_string()).unwrap();
    let copy = copy_of(&s, &s.w(), "copy");
    let verify = s.ledger(&copy, &["verify", file.to_str().unwrap()]);
    assert_eq!(
        verify.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    // A host-free record cannot climb out of the caller's workspace.
    record["version"] = serde_json::json!("1.3");
    record["scope"]["workspace"] = serde_json::json!("../w");
    std::fs::write(&file, record.to_string()).unwrap();
    let refused = s.ledger(&copy, &["verify", file.to_str().unwrap()]);
    assert_blocked(&refused, "malformed-record", "old.json");
}
