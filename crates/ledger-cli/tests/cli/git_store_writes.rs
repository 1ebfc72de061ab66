//! Writes of a Git store that fail (issue 42): a file system that refuses an
//! object or a ref is `unwritable` naming the path, a ref name that cannot
//! exist beside another is `ref-name-conflict`, and a deep ref name that Git
//! takes is taken. Git is the oracle of the refs.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;

fn checkout() -> Sandbox {
    let s = Sandbox::new();
    s.init();
    s.write("src/a.rs", b"fn a() {}\n");
    s.commit_all();
    s
}

fn verdict(s: &Sandbox, name: &str) -> Output {
    s.ledger(
        &s.w(),
        &[
            "verdict",
            "record",
            "--name",
            name,
            "--verdict",
            "PASS",
            "--source",
            "r",
            "--root",
            "src",
        ],
    )
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

fn chown_all(path: &Path) {
    std::os::unix::fs::lchown(path, Some(65534), Some(65534)).unwrap();
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).unwrap() {
            chown_all(&entry.unwrap().path());
        }
    }
}

/// `ledger args` in the workspace as a user that meets permission errors:
/// `nobody` when the tests run as root (root writes anywhere), the
/// workspace then given to `nobody`; else the current user.
fn ledger_unprivileged(s: &Sandbox, args: &[&str]) -> Output {
    if !is_root() {
        return s.ledger(&s.w(), args);
    }
    let ledger = s.ledger_for_nobody();
    for dir in [s.dir.path(), &s.home()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = s.home().join(".gitconfig");
    if config.exists() {
        std::fs::set_permissions(config, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    chown_all(&s.w());
    let mut cmd = Command::new("setpriv");
    s.env(&mut cmd);
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(ledger)
        .args(args)
        .current_dir(s.w())
        .output()
        .unwrap()
}

fn read_only(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
}

#[test]
fn an_object_the_file_system_refuses_is_unwritable_naming_the_objects_directory() {
    let s = checkout();
    read_only(&s.w().join(".git/objects"));
    let args = [
        "verdict",
        "record",
        "--name",
        "v",
        "--verdict",
        "PASS",
        "--source",
        "r",
        "--root",
        "src",
    ];
    let out = ledger_unprivileged(&s, &args);
    assert_blocked(&out, "unwritable", ".git/objects");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("write a record blob"), "{stderr}");
    // A gate's evidence: ledger failed, not the gate (125), with the same code.
    let gate = ledger_unprivileged(&s, &["gate", "run", "--name", "test", "--", "true"]);
    assert_run_refused(&gate, 125, "unwritable", ".git/objects");
}

#[test]
fn a_ref_the_file_system_refuses_is_unwritable_naming_the_ref() {
    let s = checkout();
    assert_eq!(
        ledger_unprivileged(
            &s,
            &[
                "verdict",
                "record",
                "--name",
                "v",
                "--verdict",
                "PASS",
                "--source",
                "r",
                "--root",
                "src"
            ]
        )
        .status
        .code(),
        Some(0)
    );
    read_only(&s.w().join(".git/refs/ledger/heads/verdicts"));
    s.write("src/a.rs", b"fn a() { fixed() }\n");
    let out = ledger_unprivileged(
        &s,
        &[
            "verdict",
            "record",
            "--name",
            "v",
            "--verdict",
            "PASS",
            "--source",
            "r2",
            "--root",
            "src",
        ],
    );
    assert_blocked(&out, "unwritable", "refs/ledger/heads/verdicts/v");
    assert!(String::from_utf8_lossy(&out.stderr).contains("update the ref"));
}

#[test]
fn a_ref_name_beside_another_is_a_conflict_and_a_deep_one_is_taken() {
    let s = checkout();
    assert_eq!(verdict(&s, "x").status.code(), Some(0));
    let out = verdict(&s, "x/y");
    assert_blocked(&out, "ref-name-conflict", "verdicts/x");
    assert_eq!(verdict(&s, "q/r").status.code(), Some(0));
    assert_blocked(&verdict(&s, "q"), "ref-name-conflict", "verdicts/q/r");
    // Refused before a record was written: the store stays clean.
    let check = s.ledger(&s.w(), &["store", "check"]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // 200 segments: valid by docs/verdicts.md, and Git takes it.
    let deep = vec!["a"; 200].join("/");
    let out = verdict(&s, &deep);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let full = format!("refs/ledger/heads/verdicts/{deep}");
    assert!(
        s.git(&s.w(), &["rev-parse", "--verify", &full])
            .status
            .success()
    );
    let check = s.ledger(&s.w(), &["verdict", "check", "--name", &deep]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
