//! The digest cache against a writer through a shared mapping (issue 29, part
//! 1): `ledger status` and `ledger fingerprint` see every write through a
//! `mmap(MAP_SHARED)`, also one to a page that was still dirty and writable
//! when the cache recorded the file (docs/performance.md, The cache's safety
//! rule).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use ledger_testkit::SharedWriter;
use std::time::Duration;

use crate::common::*;

const CHANGE: &str = "openspec/changes/add-auth";

/// Longer than the cache's timestamp margin: files older than this when a
/// command starts are recorded.
const AGE: Duration = Duration::from_millis(2200);

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

/// The files the cache holds, from `store check`.
fn cached_files(s: &Sandbox) -> u64 {
    let report = stdout_of(&s.ledger(&s.w(), &["store", "check"]));
    let line = report
        .lines()
        .find(|line| line.starts_with("digest cache: "))
        .unwrap_or_else(|| panic!("no cache line: {report}"));
    let files = line
        .strip_suffix(" files")
        .unwrap_or_else(|| panic!("{line}"));
    files.rsplit(' ').next().unwrap().parse().unwrap()
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The exact sequence of the issue: the design written once through a shared
/// mapping and approved; a `status` that records it in the cache; a second
/// write through the same mapping (the same page, still dirty: the kernel moves
/// no time for it); `munmap` and `fsync`. Every later `status` says the design
/// changed (exit 1), as `--no-cache` and Git do; the fingerprints agree.
#[test]
fn a_second_write_through_a_shared_mapping_unapproves_the_design() {
    let s = openspec_checkout();
    let design = s.w().join(format!("{CHANGE}/design.md"));
    let mut writer = SharedWriter::open(&design);
    writer.poke(2, b'd');
    for artifact in ["proposal", "specs", "design", "tasks"] {
        let args = [
            "approve",
            "--change",
            "add-auth",
            "--artifact",
            artifact,
            "--source",
            "review",
        ];
        stdout(&s.ledger(&s.w(), &args));
    }
    std::thread::sleep(AGE);
    let status = s.ledger(&s.w(), &["status", "--change", "add-auth"]);
    assert_eq!(status.status.code(), Some(0), "{}", stdout_of(&status));
    let recorded = cached_files(&s);
    assert!(
        recorded >= 4,
        "the change's files were recorded: {recorded}"
    );

    writer.poke(3, b'E');
    writer.close();
    for args in [
        &["status", "--change", "add-auth"][..],
        &["status", "--change", "add-auth"],
        &["--no-cache", "status", "--change", "add-auth"],
    ] {
        let out = s.ledger(&s.w(), args);
        let table = stdout_of(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {table}");
        assert!(table.contains("design     changed"), "{args:?}: {table}");
    }
    let git = s.git(&s.w(), &["status", "--porcelain"]);
    assert!(String::from_utf8_lossy(&git.stdout).contains("design.md"));
    let cached = last_line(&s.ledger(&s.w(), &["fingerprint"]));
    let uncached = last_line(&s.ledger(&s.w(), &["--no-cache", "fingerprint"]));
    assert_eq!(cached, uncached);
    assert_eq!(cached, s.oracle_fingerprint(&s.w()));
}

/// `fingerprint` alone, the mapping still open and synced with `msync`: the
/// second write is seen by every later run.
#[test]
fn a_fingerprint_sees_a_write_through_a_mapping_kept_open() {
    let s = sample_checkout();
    std::fs::create_dir(s.w().join(".ledger")).unwrap();
    std::fs::write(s.w().join(".ledger/.gitignore"), "*\n").unwrap();
    let mut writer = SharedWriter::open(&s.w().join("README.md"));
    writer.poke(2, b'H');
    std::thread::sleep(AGE);
    let first = last_line(&s.ledger(&s.w(), &["fingerprint"]));
    assert_eq!(first, s.oracle_fingerprint(&s.w()));
    assert!(cached_files(&s) > 0);
    writer.poke(3, b'I');
    writer.msync();
    let truth = s.oracle_fingerprint(&s.w());
    assert_ne!(truth, first);
    for _ in 0..2 {
        assert_eq!(last_line(&s.ledger(&s.w(), &["fingerprint"])), truth);
    }
    drop(writer);
}
