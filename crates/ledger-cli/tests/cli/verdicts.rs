//! `ledger verdict record|check|downgrade|log` (docs/verdicts.md): an audit's
//! verdict bound to the fingerprint of any scope, in a Git checkout or not;
//! a fix afterwards makes it fall until a re-audit or an explicit downgrade;
//! the verdict's own report inside its scope does not touch it.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::process::Output;

use crate::common::*;
use serde_json::Value;

fn json(out: &Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap()
}

fn ledger(s: &Sandbox, args: &[&str]) -> Output {
    s.ledger(&s.w(), args)
}

fn record(s: &Sandbox, name: &str, verdict: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "verdict",
        "record",
        "--name",
        name,
        "--verdict",
        verdict,
        "--source",
        "summary-7",
        "--workspace",
        ".",
        "--json",
    ];
    args.extend_from_slice(extra);
    json(&ledger(s, &args))
}

#[test]
fn a_verdict_outside_git_stands_until_a_fix_and_is_then_downgraded_explicitly() {
    let s = Sandbox::new();
    s.write("plan.md", b"# Plan\n");
    s.write("src/a.txt", b"a\n");
    let recorded = record(
        &s,
        "plan-7",
        "PASS",
        &[
            "--finding",
            "minor: wording",
            "--finding",
            "nit: order",
            "--report",
            "reports/summary-7.md",
        ],
    );
    assert_eq!(recorded["event"], "recorded");
    assert_eq!(
        recorded["findings"],
        serde_json::json!(["minor: wording", "nit: order"])
    );
    let exclusions = recorded["scope"]["exclusions"].as_array().unwrap();
    let report = exclusions
        .iter()
        .find(|e| e["path"] == "reports/summary-7.md")
        .unwrap();
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .starts_with("the verdict's own report")
    );
    assert!(
        s.w().join(".ledger").is_dir(),
        "outside Git the store is .ledger/"
    );

    // The report, written after the verdict inside its scope, does not touch it.
    s.write("reports/summary-7.md", b"PASS\n");
    let check = ledger(
        &s,
        &["verdict", "check", "--name", "plan-7", "--workspace", "."],
    );
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    assert!(stdout(&check).contains("stands on sha256:"));

    // A fix after the verdict: it no longer stands, the path is listed.
    s.write("src/a.txt", b"fixed\n");
    let fallen = ledger(
        &s,
        &["verdict", "check", "--name", "plan-7", "--workspace", "."],
    );
    let text = String::from_utf8(fallen.stdout.clone()).unwrap();
    assert_eq!(fallen.status.code(), Some(1), "{text}");
    assert!(
        text.contains("no longer stands") && text.contains("  src/a.txt\n"),
        "{text}"
    );
    let fallen = ledger(
        &s,
        &[
            "verdict",
            "check",
            "--name",
            "plan-7",
            "--workspace",
            ".",
            "--json",
        ],
    );
    assert_eq!(fallen.status.code(), Some(1));
    let fallen: Value = serde_json::from_slice(&fallen.stdout).unwrap();
    assert_eq!(fallen["stands"], false);
    assert_eq!(
        fallen["comparison"]["changes"][0]["new"]["path"],
        "src/a.txt"
    );

    // The explicit downgrade binds the lower verdict to the state now.
    let lowered = json(&ledger(
        &s,
        &[
            "verdict",
            "downgrade",
            "--name",
            "plan-7",
            "--to",
            "FAIL",
            "--reason",
            "src/a.txt fixed after the verdict",
            "--workspace",
            ".",
            "--json",
        ],
    ));
    assert_eq!(lowered["verdict"], "FAIL");
    assert_eq!(lowered["downgrade"]["from"], "PASS");
    assert_eq!(lowered["downgrade"]["audited"], recorded["fingerprint"]);
    assert_ne!(lowered["fingerprint"], recorded["fingerprint"]);
    let now = json(&ledger(
        &s,
        &[
            "verdict",
            "check",
            "--name",
            "plan-7",
            "--workspace",
            ".",
            "--json",
        ],
    ));
    assert_eq!(
        (&now["stands"], &now["latest"]["verdict"]),
        (&Value::Bool(true), &Value::from("FAIL"))
    );

    let log = json(&ledger(
        &s,
        &[
            "verdict",
            "log",
            "--name",
            "plan-7",
            "--workspace",
            ".",
            "--json",
        ],
    ));
    let events: Vec<(&str, &str)> = (log.as_array().unwrap().iter())
        .map(|r| (r["event"].as_str().unwrap(), r["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(events, [("downgraded", "FAIL"), ("recorded", "PASS")]);
    let text = stdout(&ledger(
        &s,
        &["verdict", "log", "--name", "plan-7", "--workspace", "."],
    ));
    assert!(
        text.contains("from PASS on sha256:") && text.contains("finding nit: order"),
        "{text}"
    );
}

#[test]
fn in_a_git_checkout_a_re_audit_lands_on_the_repository_ref() {
    let s = sample_checkout();
    let first = record(
        &s,
        "pr-7",
        "FAIL",
        &["--root", "src", "--finding", "MAJOR: f() panics"],
    );
    assert!(s.w().join(".git/refs/ledger/heads/verdicts/pr-7").is_file());
    s.write("src/lib.rs", b"pub fn f() -> u8 { 0 }\n");
    let check = ledger(&s, &["verdict", "check", "--name", "pr-7"]);
    assert_eq!(check.status.code(), Some(1));
    // The re-audit: a new verdict on the fixed state, following the first.
    let second = record(&s, "pr-7", "PASS", &["--root", "src"]);
    assert_ne!(first["fingerprint"], second["fingerprint"]);
    let check = ledger(&s, &["verdict", "check", "--name", "pr-7"]);
    assert_eq!(check.status.code(), Some(0));
    let history = json(&ledger(&s, &["store", "check", "--json"]));
    assert!(history.to_string().contains("verdicts/pr-7"), "{history}");
    let log = json(&ledger(&s, &["verdict", "log", "--name", "pr-7", "--json"]));
    assert_eq!(log.as_array().unwrap().len(), 2);
    assert_eq!(log[1]["record"], first["record"]);
}

/// A verdict records the commit `HEAD` named and whether its state was that
/// commit's; `check` says when `HEAD` moved and the content did not (it
/// still stands). Outside Git no `HEAD` is observed.
#[test]
fn a_verdict_records_head_and_check_says_when_only_head_moved() {
    let s = sample_checkout();
    let head = |s: &Sandbox| {
        stdout(&s.git(&s.w(), &["rev-parse", "HEAD"]))
            .trim()
            .to_owned()
    };
    let clean = record(&s, "pr-9", "PASS", &["--root", "src"]);
    assert_eq!(
        clean["head"],
        serde_json::json!({"commit": head(&s), "clean": true})
    );
    // The whole workspace holds untracked files: not the commit's.
    let dirty = record(&s, "all", "PASS", &[]);
    assert_eq!(dirty["head"]["clean"], false);

    // A commit outside the verdict's scope moves HEAD, not its content.
    let before = head(&s);
    s.write("docs/notes.md", b"later\n");
    s.commit_all();
    let check = json(&ledger(
        &s,
        &["verdict", "check", "--name", "pr-9", "--json"],
    ));
    assert_eq!(check["stands"], true);
    assert_eq!(check["head_moved"], true);
    assert_eq!(check["head_now"], head(&s));
    let text = stdout(&ledger(&s, &["verdict", "check", "--name", "pr-9"]));
    assert!(
        text.contains(&format!("HEAD moved since it was recorded ({before} -> {}); the content did not: it still stands", head(&s))),
        "{text}"
    );

    let outside = Sandbox::new();
    outside.write("a.txt", b"a\n");
    assert_eq!(record(&outside, "x", "PASS", &[])["head"], Value::Null);
}

#[test]
fn a_verdict_never_recorded_does_not_stand_and_bad_requests_are_refused() {
    let s = Sandbox::new();
    s.write("a.txt", b"a\n");
    let none = ledger(
        &s,
        &["verdict", "check", "--name", "nope", "--workspace", "."],
    );
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(none.stdout).unwrap(),
        "nope: no verdict recorded\n"
    );
    let down = ledger(
        &s,
        &[
            "verdict",
            "downgrade",
            "--name",
            "nope",
            "--to",
            "FAIL",
            "--reason",
            "r",
            "--workspace",
            ".",
        ],
    );
    assert_blocked(&down, "invalid-argument", "nope");

    record(&s, "r1", "PASS", &[]);
    for to in ["PASS", "pass"] {
        let out = ledger(
            &s,
            &[
                "verdict",
                "downgrade",
                "--name",
                "r1",
                "--to",
                to,
                "--reason",
                "r",
                "--workspace",
                ".",
            ],
        );
        assert_blocked(&out, "invalid-argument", "never by a downgrade");
    }
    let blank = ledger(
        &s,
        &[
            "verdict",
            "downgrade",
            "--name",
            "r1",
            "--to",
            "FAIL",
            "--reason",
            " ",
            "--workspace",
            ".",
        ],
    );
    assert_blocked(&blank, "invalid-argument", "reason");
    let bad_name = ledger(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "../x",
            "--verdict",
            "PASS",
            "--source",
            "s",
            "--workspace",
            ".",
        ],
    );
    assert_blocked(&bad_name, "bad-ref-name", "verdicts/../x");
    let bad_label = ledger(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "x",
            "--verdict",
            "PASS now",
            "--source",
            "s",
            "--workspace",
            ".",
        ],
    );
    assert_blocked(&bad_label, "invalid-argument", "PASS now");
    let own = ledger(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "x",
            "--verdict",
            "PASS",
            "--source",
            "s",
            "--workspace",
            ".",
            "--path",
            "a.txt",
            "--report",
            "a.txt",
        ],
    );
    assert_blocked(&own, "invalid-argument", "a.txt");
    // Nothing was recorded by a refused request.
    let log = ledger(&s, &["verdict", "log", "--name", "x", "--workspace", "."]);
    assert_eq!(stdout(&log), "x: no verdict recorded\n");
}

#[test]
fn text_output_escapes_control_characters() {
    let s = Sandbox::new();
    s.write("a.txt", b"a\n");
    let out = ledger(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "x",
            "--verdict",
            "FAIL",
            "--source",
            "s\x1b[31m",
            "--finding",
            "f\u{202e}x",
            "--workspace",
            ".",
        ],
    );
    assert!(!stdout(&out).contains('\x1b'));
    let log = stdout(&ledger(
        &s,
        &["verdict", "log", "--name", "x", "--workspace", "."],
    ));
    assert!(
        !log.contains('\x1b') && !log.contains('\u{202e}'),
        "{log:?}"
    );
    let check = stdout(&ledger(
        &s,
        &["verdict", "check", "--name", "x", "--workspace", "."],
    ));
    assert!(!check.contains('\x1b'), "{check:?}");
}

#[test]
fn a_scope_that_holds_no_file_is_refused() {
    let s = Sandbox::new();
    std::fs::create_dir(s.w().join("empty")).unwrap();
    let out = ledger(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "x",
            "--verdict",
            "PASS",
            "--source",
            "s",
            "--workspace",
            ".",
            "--root",
            "empty",
        ],
    );
    assert_blocked(&out, "invalid-argument", "holds no file");
}

#[test]
fn a_write_that_names_what_it_read_is_refused_once_another_landed() {
    let s = Sandbox::new();
    s.write("a.txt", b"a\n");
    let first = record(&s, "v", "FAIL", &["--expect", "no-record"]);
    let blind = ledger(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "v",
            "--verdict",
            "PASS",
            "--source",
            "s2",
            "--workspace",
            ".",
            "--expect",
            "no-record",
        ],
    );
    assert_eq!(blind.status.code(), Some(2));
    let said = String::from_utf8_lossy(&blind.stderr);
    assert!(said.starts_with("error[pointer-conflict]: "), "{said}");
    let informed = record(
        &s,
        "v",
        "PASS",
        &["--expect", first["record"].as_str().unwrap()],
    );
    let stale = ledger(
        &s,
        &[
            "verdict",
            "downgrade",
            "--name",
            "v",
            "--to",
            "FAIL",
            "--reason",
            "fixed",
            "--workspace",
            ".",
            "--expect",
            first["record"].as_str().unwrap(),
        ],
    );
    let said = String::from_utf8_lossy(&stale.stderr);
    assert!(said.starts_with("error[pointer-conflict]: "), "{said}");
    let log = json(&ledger(
        &s,
        &[
            "verdict",
            "log",
            "--name",
            "v",
            "--workspace",
            ".",
            "--json",
        ],
    ));
    let records: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["record"].as_str().unwrap())
        .collect();
    assert_eq!(
        records,
        [
            informed["record"].as_str().unwrap(),
            first["record"].as_str().unwrap()
        ]
    );
}

/// A report is one regular file: a directory (whose files would all leave the
/// judged state), a symlink or a FIFO is refused when the verdict is
/// recorded, and a report that has become one since is refused when the
/// verdict is checked or downgraded; a report not written yet is fine
/// (issue 42).
#[test]
fn a_report_that_is_not_one_regular_file_is_refused() {
    let s = Sandbox::new();
    s.write("src/a.rs", b"fn a() {}\n");
    s.write("notes/r.md", b"r\n");
    let record_with = |name: &str, report: &str| {
        ledger(
            &s,
            &[
                "verdict",
                "record",
                "--name",
                name,
                "--verdict",
                "PASS",
                "--source",
                "summary-7",
                "--workspace",
                ".",
                "--report",
                report,
            ],
        )
    };
    for (report, what) in [
        ("src", "directory"),
        ("link.md", "symlink"),
        ("pipe", "FIFO"),
    ] {
        let path = s.w().join(report);
        if what == "symlink" {
            std::os::unix::fs::symlink("notes/r.md", &path).unwrap();
        } else if what == "FIFO" {
            let made = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap();
            assert!(made.success());
        }
        let out = record_with("v", report);
        assert_blocked(&out, "bad-report", report);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(what), "{stderr}");
        if what != "directory" {
            std::fs::remove_file(&path).unwrap();
        }
    }
    let never = ledger(&s, &["verdict", "check", "--name", "v", "--workspace", "."]);
    assert_eq!(never.status.code(), Some(1), "nothing was recorded");

    assert_eq!(record_with("v", "notes/r.md").status.code(), Some(0));
    assert_eq!(
        record_with("later", "notes/later.md").status.code(),
        Some(0)
    );
    let check = |name: &str| {
        ledger(
            &s,
            &["verdict", "check", "--name", name, "--workspace", "."],
        )
    };
    assert_eq!(check("v").status.code(), Some(0));
    // A report written after the verdict, as a file, leaves it standing.
    s.write("notes/later.md", b"PASS\n");
    assert_eq!(check("later").status.code(), Some(0));
    // The report replaced by a directory of code: its files would be out of
    // the state, so the check refuses instead of saying it stands.
    std::fs::remove_file(s.w().join("notes/r.md")).unwrap();
    s.write("notes/r.md/b.rs", b"fn b() {}\n");
    assert_blocked(&check("v"), "bad-report", "notes/r.md");
    let downgrade = ledger(
        &s,
        &[
            "verdict",
            "downgrade",
            "--name",
            "v",
            "--to",
            "FAIL",
            "--reason",
            "r",
            "--workspace",
            ".",
        ],
    );
    assert_blocked(&downgrade, "bad-report", "notes/r.md");
}
