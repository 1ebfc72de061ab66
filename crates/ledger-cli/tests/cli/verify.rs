//! `ledger inventory` and `ledger verify` on a real Git repository: one test per
//! kind of change, records written atomically, malformed records refused.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// A checkout with a record of its current state in `record.json` (outside it).
fn recorded() -> (Sandbox, PathBuf) {
    let s = sample_checkout();
    let record = s.dir.path().join("record.json");
    let out = s.ledger(
        &s.w(),
        &[
            "inventory",
            "--meta",
            "gate=make test",
            "--out",
            record.to_str().unwrap(),
        ],
    );
    let fp = last_line(&out);
    assert!(fp.starts_with("sha256:"), "{fp}");
    (s, record)
}

fn verify(s: &Sandbox, record: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["verify", record.to_str().unwrap()];
    args.extend_from_slice(extra);
    s.ledger(&s.w(), &args)
}

/// Runs `verify` expecting a mismatch; returns (change kind, path) pairs from --json.
fn changes(s: &Sandbox, record: &Path) -> Vec<(String, String)> {
    let out = verify(s, record, &["--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["matches"], false);
    assert_ne!(json["old"], json["new"]);
    json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["change"].as_str().unwrap().to_owned(),
                c["new"]["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn unchanged_tree_matches() {
    let (s, record) = recorded();
    let out = verify(&s, &record, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).starts_with("match: sha256:"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn stage_and_commit_without_change_match() {
    let (s, record) = recorded();
    s.commit_all();
    assert_eq!(verify(&s, &record, &[]).status.code(), Some(0));
}

#[test]
fn edit_is_content_changed() {
    let (s, record) = recorded();
    s.write("src/lib.rs", b"pub fn g() {}\n");
    assert_eq!(
        changes(&s, &record),
        pairs(&[("content-changed", "src/lib.rs")])
    );
    let text = stdout_any(&verify(&s, &record, &[]));
    assert!(text.starts_with("mismatch: 1 change, "), "{text}");
    assert!(
        text.contains("content changed (1):\n  src/lib.rs\n"),
        "{text}"
    );
}

#[test]
fn delete_is_removed() {
    let (s, record) = recorded();
    std::fs::remove_file(s.w().join("untracked.txt")).unwrap();
    assert_eq!(changes(&s, &record), pairs(&[("removed", "untracked.txt")]));
}

#[test]
fn new_untracked_file_is_added() {
    let (s, record) = recorded();
    s.write("src/new.rs", b"// new\n");
    s.write("target/ignored.o", b"ignored files do not count");
    assert_eq!(changes(&s, &record), pairs(&[("added", "src/new.rs")]));
}

#[test]
fn chmod_is_mode_changed() {
    let (s, record) = recorded();
    std::fs::set_permissions(
        s.w().join("README.md"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_eq!(
        changes(&s, &record),
        pairs(&[("mode-changed", "README.md")])
    );
}

#[test]
fn file_replaced_by_symlink_is_kind_changed() {
    let (s, record) = recorded();
    std::fs::remove_file(s.w().join("README.md")).unwrap();
    symlink("run.sh", s.w().join("README.md")).unwrap();
    assert_eq!(
        changes(&s, &record),
        pairs(&[("kind-changed", "README.md")])
    );
}

#[test]
fn rename_is_removed_plus_added() {
    let (s, record) = recorded();
    s.git(&s.w(), &["mv", "src/lib.rs", "src/core.rs"]);
    assert_eq!(
        changes(&s, &record),
        pairs(&[("added", "src/core.rs"), ("removed", "src/lib.rs")])
    );
    let text = stdout_any(&verify(&s, &record, &[]));
    assert!(
        text.contains("added (1):\n  src/core.rs\nremoved (1):\n  src/lib.rs\n"),
        "{text}"
    );
}

#[test]
fn odd_names_are_quoted_in_the_report() {
    let (s, record) = recorded();
    s.write("tab\there name", b"changed");
    let text = stdout_any(&verify(&s, &record, &[]));
    assert!(text.contains("  \"tab\\there name\"\n"), "{text}");
}

#[test]
fn record_holds_scope_entries_and_metadata() {
    let (s, record) = recorded();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(json["format"], "ledger-inventory");
    assert_eq!(json["version"], "1.3");
    assert_eq!(json["scope"]["workspace"], ".", "host-free: no host path");
    assert_eq!(json["scope"]["roots"], serde_json::json!(["."]));
    assert_eq!(json["observed"]["meta"]["gate"], "make test");
    assert_eq!(json["scope"]["repositories"][0], ".");
    assert_eq!(
        json["fingerprint"].as_str().unwrap(),
        last_line(&s.ledger(&s.w(), &["fingerprint"]))
    );
    // stdout without --out carries the same record.
    let printed: serde_json::Value = serde_json::from_str(&stdout(
        &s.ledger(&s.w(), &["inventory", "--meta", "gate=make test"]),
    ))
    .unwrap();
    assert_eq!(printed["entries"], json["entries"]);
}

#[test]
fn verify_in_a_moved_checkout() {
    let (s, record) = recorded();
    let moved = s.dir.path().join("moved");
    std::fs::rename(s.w(), &moved).unwrap();
    let out = s.ledger(
        &moved,
        &[
            "verify",
            record.to_str().unwrap(),
            "--workspace",
            moved.to_str().unwrap(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn malformed_records_are_refused() {
    let (s, record) = recorded();
    let good = std::fs::read_to_string(&record).unwrap();
    let bad = s.dir.path().join("bad.json");
    let cases = [
        (good[..good.len() / 3].to_owned(), "malformed-record"),
        (
            good.replacen("\"version\": \"1.3\"", "\"version\": \"9.0\"", 1),
            "unsupported-version",
        ),
        (
            good.replacen(
                "\"fingerprint\": \"sha256:",
                "\"fingerprint\": \"sha256:zz",
                1,
            ),
            "malformed-record",
        ),
        (
            good.replacen("\"path\": \"README.md\"", "\"path\": \"../README.md\"", 1),
            "malformed-record",
        ),
        (
            good.replacen("\"walked_roots\": []", "\"walked_roots\": 7", 1),
            "malformed-record",
        ),
    ];
    for (text, code) in cases {
        assert_ne!(text, good);
        std::fs::write(&bad, &text).unwrap();
        assert_blocked(&verify(&s, &bad, &[]), code, "bad.json");
    }
    assert_blocked(
        &verify(&s, &s.dir.path().join("absent.json"), &[]),
        "unreadable",
        "absent.json",
    );
}

#[test]
fn inventory_out_to_a_missing_directory_fails_cleanly() {
    let s = sample_checkout();
    let target = s.dir.path().join("no/such/dir/r.json");
    assert_blocked(
        &s.ledger(&s.w(), &["inventory", "--out", target.to_str().unwrap()]),
        "unwritable",
        "r.json",
    );
}

fn stdout_any(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn a_version_1_0_record_without_roots_means_the_whole_checkout() {
    // Version 1.0 wrote the "whole checkout" default as no roots at all.
    let (s, record) = recorded();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    json["version"] = "1.0".into();
    json["scope"]["roots"] = serde_json::json!([]);
    let legacy = s.dir.path().join("legacy.json");
    std::fs::write(&legacy, json.to_string()).unwrap();
    assert!(stdout(&verify(&s, &legacy, &[])).contains("match"));
    s.write("new.txt", b"new\n");
    assert_eq!(
        changes(&s, &legacy),
        [("added".to_owned(), "new.txt".to_owned())]
    );
    // From 1.1 on, no roots selects nothing: a new file is not in that set.
    json["version"] = "1.1".into();
    std::fs::write(&legacy, json.to_string()).unwrap();
    assert_eq!(verify(&s, &legacy, &[]).status.code(), Some(0));
}

#[test]
fn store_files_cannot_be_named_into_an_inventory() {
    let s = sample_checkout();
    stdout(&s.ledger(&s.w(), &["fingerprint"]));
    for flag in ["--path", "--tasks"] {
        let out = s.ledger(&s.w(), &["fingerprint", flag, ".ledger/lock"]);
        assert_blocked(&out, "invalid-path", ".ledger/lock");
    }
}

#[test]
fn inventory_out_replaces_only_regular_files_and_keeps_the_usual_mode() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let s = sample_checkout();
    let out = |target: &Path| s.ledger(&s.w(), &["inventory", "--out", target.to_str().unwrap()]);
    // A new file: the mode of any new file, not a temp file's 0600.
    let record = s.dir.path().join("new.json");
    stdout(&out(&record));
    let mode = std::fs::metadata(&record).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & 0o044, 0o044, "readable like any new file: {mode:o}");
    // A regular file is replaced; a symlink, a FIFO, a device and a file with
    // other hard links are refused and left as they were.
    stdout(&out(&record));
    let elsewhere = s.dir.path().join("elsewhere.txt");
    std::fs::write(&elsewhere, "keep\n").unwrap();
    let link = s.dir.path().join("link.json");
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    assert_blocked(&out(&link), "unwritable", "link.json");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let hard = s.dir.path().join("hard.json");
    std::fs::hard_link(&elsewhere, &hard).unwrap();
    assert_blocked(&out(&hard), "unwritable", "hard.json");
    assert_eq!(std::fs::metadata(&hard).unwrap().nlink(), 2);
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "keep\n");
    let fifo = s.dir.path().join("fifo.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_blocked(&out(&fifo), "unwritable", "fifo.json");
    assert_blocked(&out(Path::new("/dev/null")), "unwritable", "/dev/null");
    assert!(
        std::fs::symlink_metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    let leftovers = std::fs::read_dir(s.dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn every_path_is_quoted_in_text_and_round_trips_in_json_and_nul_output() {
    let s = sample_checkout();
    let names = [
        "new\nline",
        "tab\there",
        "cr\rhere",
        "esc\u{1b}[2J",
        "quote\"d",
        "back\\slash",
        "rlo\u{202e}txt.exe",
        "ls\u{2028}x",
    ];
    for name in names {
        s.write(name, b"x\n");
    }
    let text = stdout(&s.ledger(&s.w(), &["entries"]));
    for line in text.lines() {
        assert!(
            !line.contains(['\u{1b}', '\r', '\u{202e}', '\u{2028}']),
            "{line:?}"
        );
    }
    for shown in [
        "\"new\\nline\"",
        "\"tab\\there\"",
        "\"cr\\rhere\"",
        "\"esc\\033[2J\"",
        "\"quote\\\"d\"",
        "\"back\\\\slash\"",
        "\"rlo\\342\\200\\256txt.exe\"",
        "\"ls\\342\\200\\250x\"",
    ] {
        assert!(text.contains(&format!("\t{shown}\n")), "{shown} in {text}");
    }
    // Each line is one entry, plus the fingerprint.
    let listed = text.lines().count() - 1;
    let out = s.ledger(&s.w(), &["entries", "-z"]);
    let raw = stdout(&out);
    let records: Vec<&str> = raw.strip_suffix('\0').unwrap().split('\0').collect();
    assert_eq!(records.len() - 1, listed);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&s.ledger(&s.w(), &["entries", "--json"]))).unwrap();
    let from_json: Vec<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    let from_nul: Vec<&str> = records[..listed]
        .iter()
        .map(|r| r.split_once('\t').unwrap().1)
        .collect();
    assert_eq!(from_json, from_nul);
    for name in names {
        assert!(from_nul.contains(&name), "{name:?}");
    }
    assert_eq!(
        *records.last().unwrap(),
        last_line(&s.ledger(&s.w(), &["fingerprint"]))
    );
}

#[test]
fn verify_expands_in_the_callers_workspace_never_in_the_records() {
    // A record is input: one that names the parent directory as its workspace
    // must not make ledger hash the parent's files.
    let (s, record) = recorded();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    json["scope"]["workspace"] = s.dir.path().to_str().unwrap().into();
    let forged = s.dir.path().join("forged.json");
    std::fs::write(&forged, json.to_string()).unwrap();
    let text = stdout(&verify(&s, &forged, &[]));
    assert!(text.starts_with("match: "), "{text}");
    assert!(!s.dir.path().join(".ledger").exists());
}

#[test]
fn a_record_written_into_its_own_scope_is_excluded_with_a_reason() {
    let s = sample_checkout();
    let w = s.w();
    // Written twice into the workspace, relative to a subdirectory: the second run
    // finds the first record on disk, and neither verify reports it as added.
    for _ in 0..2 {
        let out = s.ledger(&w.join("src"), &["inventory", "--out", "../rec.json"]);
        assert!(out.status.success(), "{out:?}");
        let out = verify(&s, &w.join("rec.json"), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.join("rec.json")).unwrap()).unwrap();
    let exclusions = json["scope"]["exclusions"].as_array().unwrap();
    assert!(
        exclusions.contains(&serde_json::json!({
            "path": "rec.json",
            "reason": ledger_core::records::OWN_RECORD_REASON,
        })),
        "{exclusions:?}"
    );
    assert!(!json["entries"].to_string().contains("rec.json"));
    // Other files are still seen.
    s.write("new.txt", b"n");
    assert_eq!(
        changes(&s, &w.join("rec.json")),
        pairs(&[("added", "new.txt")])
    );
    // Outside the roots nothing is excluded.
    let out = s.ledger(&w, &["inventory", "--root", "src", "--out", "rec2.json"]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.join("rec2.json")).unwrap()).unwrap();
    assert!(
        !json["scope"]["exclusions"]
            .to_string()
            .contains("rec2.json")
    );
    // A record the scope names exactly is refused, and nothing is written.
    let out = s.ledger(
        &w,
        &["inventory", "--path", "own.json", "--out", "own.json"],
    );
    assert_blocked(&out, "invalid-argument", "own.json");
    assert!(!w.join("own.json").exists());
}
