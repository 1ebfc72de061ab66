//! The store's trust boundary (SPEC §15): no symlink is followed in the store,
//! no store entry may be anything but a regular file or directory ledger
//! created for this user, every read is bounded, and a store that comes with
//! the checkout (tracked by Git) or from another user is not trusted.
//!
//! Calls that could hang on a FIFO run on a thread with a deadline, so that a
//! regression fails the test instead of hanging the suite.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::fmt::Debug;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use camino::Utf8Path;
use ledger_core::{
    expand::{Inventory, STORE_DIR, Scope},
    records::{RecordId, Store, StoreReport},
};
use ledger_testkit::{Git, utf8};

const REF: &str = "changes/add-auth";

/// A workspace with a store holding one state record on [`REF`].
fn workspace() -> (tempfile::TempDir, Store, RecordId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    let id = store.commit(REF, "state", None, &"drafted").unwrap();
    (dir, store, id)
}

fn code<T: Debug>(result: ledger_core::Result<T>) -> &'static str {
    result.unwrap_err().code()
}

/// Runs `call` on a thread; panics if it has not returned within ten seconds.
fn within_deadline<T: Send + 'static>(call: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || send.send(call()));
    receive
        .recv_timeout(Duration::from_secs(10))
        .expect("the store hung on a special file")
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {path:?}");
}

fn is_root() -> bool {
    euid() == 0
}

fn euid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The entries `check` lists as corrupt.
fn listed(report: &StoreReport) -> Vec<&str> {
    report.corrupt.iter().map(|c| c.file.as_str()).collect()
}

/// Every file below `dir`, recursively, relative to it.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in walk(dir) {
        out.push(entry.strip_prefix(dir).unwrap().to_path_buf());
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if fs::symlink_metadata(&path).unwrap().is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn a_symlinked_store_is_refused_and_nothing_is_written_where_it_points() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    symlink(outside.path(), dir.path().join(STORE_DIR)).unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();

    let err = store.commit(REF, "state", None, &1).unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
    assert!(err.to_string().contains("symlink"), "{err}");
    assert!(err.path().unwrap().ends_with(STORE_DIR), "{err}");
    assert_eq!(code(store.head(REF)), "untrusted-store");
    assert_eq!(code(store.refs()), "untrusted-store");
    assert_eq!(code(store.history(REF)), "untrusted-store");
    assert!(files_below(outside.path()).is_empty());

    let report = store.check().unwrap();
    assert_eq!(listed(&report), ["."], "{report:?}");
    assert!(!report.is_clean());
}

#[test]
fn a_symlinked_lock_never_creates_its_target() {
    let (dir, store, id) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let lock = dir.path().join(".ledger/lock");
    fs::remove_file(&lock).unwrap();
    symlink(outside.path().join("newfile"), &lock).unwrap();

    let err = store.commit(REF, "state", Some(&id), &2).unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
    assert!(err.path().unwrap().ends_with("lock"), "{err}");
    assert!(!outside.path().join("newfile").exists());
    assert_eq!(store.head(REF).unwrap(), Some(id));
    assert!(listed(&store.check().unwrap()).contains(&"lock"));
}

#[test]
fn symlinked_store_directories_are_neither_followed_nor_written_through() {
    for name in ["records", "refs", "tmp", "refs/changes"] {
        let (dir, store, id) = workspace();
        let outside = tempfile::tempdir().unwrap();
        let moved = outside.path().join("moved");
        let entry = dir.path().join(".ledger").join(name);
        fs::rename(&entry, &moved).unwrap();
        symlink(&moved, &entry).unwrap();
        let before = files_below(outside.path());

        let err = store.commit(REF, "state", Some(&id), &2).unwrap_err();
        assert_eq!(err.code(), "untrusted-store", "{name}: {err}");
        assert_eq!(
            files_below(outside.path()),
            before,
            "{name}: written outside"
        );
        let report = store.check().unwrap();
        assert!(listed(&report).contains(&name), "{name}: {report:?}");
        assert!(!report.is_clean());
    }
}

#[test]
fn a_fifo_ref_neither_hangs_nor_is_read() {
    let (dir, store, _) = workspace();
    let path = dir.path().join(".ledger/refs/changes/add-auth");
    fs::remove_file(&path).unwrap();
    mkfifo(&path);

    let reader = store.clone();
    let err = within_deadline(move || reader.head(REF)).unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
    assert!(err.to_string().contains("FIFO"), "{err}");
    let reader = store.clone();
    let report = within_deadline(move || reader.check()).unwrap();
    assert_eq!(listed(&report), ["refs/changes/add-auth"]);
}

#[test]
fn a_fifo_or_socket_among_records_neither_hangs_check_nor_is_read() {
    let (dir, store, id) = workspace();
    let records = dir.path().join(".ledger/records");
    fs::remove_file(records.join(format!("{id}.json"))).unwrap();
    mkfifo(&records.join(format!("{id}.json")));
    let other = "ab".repeat(32);
    let _socket =
        std::os::unix::net::UnixListener::bind(records.join(format!("{other}.json"))).unwrap();

    let reader = store.clone();
    let report = within_deadline(move || reader.check()).unwrap();
    let mut expected = [
        format!("records/{other}.json"),
        format!("records/{id}.json"),
    ];
    expected.sort();
    assert_eq!(listed(&report), expected);
    assert_eq!(report.dangling.len(), 1);
    let reader = store.clone();
    let err = within_deadline(move || reader.read_record::<String>(&id)).unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
}

#[test]
fn refs_and_records_linked_to_a_device_are_not_followed() {
    let (dir, store, id) = workspace();
    let record = dir.path().join(format!(".ledger/records/{id}.json"));
    fs::remove_file(&record).unwrap();
    symlink("/dev/zero", &record).unwrap();
    assert_eq!(code(store.read_record::<String>(&id)), "untrusted-store");
    let pointer = dir.path().join(".ledger/refs/changes/add-auth");
    fs::remove_file(&pointer).unwrap();
    symlink("/dev/zero", &pointer).unwrap();
    assert_eq!(code(store.head(REF)), "untrusted-store");

    let report = store.check().unwrap();
    assert_eq!(
        listed(&report),
        [
            format!("records/{id}.json"),
            "refs/changes/add-auth".to_owned()
        ]
    );
}

#[test]
fn a_device_node_in_the_store_is_never_opened() {
    if !is_root() {
        eprintln!("skipped: mknod needs root");
        return;
    }
    let (dir, store, _) = workspace();
    let pointer = dir.path().join(".ledger/refs/changes/add-auth");
    fs::remove_file(&pointer).unwrap();
    // The character device of /dev/zero (1, 5).
    let status = Command::new("mknod")
        .arg(&pointer)
        .args(["c", "1", "5"])
        .status()
        .unwrap();
    assert!(status.success());
    let err = store.head(REF).unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
    assert!(err.to_string().contains("device"), "{err}");
    assert_eq!(listed(&store.check().unwrap()), ["refs/changes/add-auth"]);
}

#[test]
fn oversized_refs_and_records_are_refused_unread() {
    let (dir, store, id) = workspace();
    let pointer = dir.path().join(".ledger/refs/changes/add-auth");
    fs::write(&pointer, format!("{id}\n{}", " ".repeat(5000))).unwrap();
    assert_eq!(code(store.head(REF)), "too-large");
    let record = dir.path().join(format!(".ledger/records/{id}.json"));
    let file = fs::OpenOptions::new().write(true).open(&record).unwrap();
    file.set_len((1 << 30) + 1).unwrap(); // sparse: no disk used
    assert_eq!(code(store.read_record::<String>(&id)), "too-large");

    let report = store.check().unwrap();
    let reasons: Vec<_> = report.corrupt.iter().map(|c| c.reason.as_str()).collect();
    assert_eq!(listed(&report).len(), 2, "{report:?}");
    assert!(
        reasons.iter().all(|r| r.contains("larger than")),
        "{reasons:?}"
    );
}

#[test]
fn a_directory_named_like_a_record_is_listed_not_fatal() {
    let (dir, store, id) = workspace();
    let fake = "cd".repeat(32);
    fs::create_dir(dir.path().join(format!(".ledger/records/{fake}.json"))).unwrap();

    let report = store.check().unwrap();
    assert_eq!(listed(&report), [format!("records/{fake}.json")]);
    assert!(report.corrupt[0].reason.contains("directory"), "{report:?}");
    assert_eq!(report.records, 1);
    assert_eq!(store.history(REF).unwrap(), [id]);
}

#[test]
fn entries_of_tmp_that_are_not_files_are_listed_as_untrusted() {
    let (dir, store, _) = workspace();
    symlink("/etc/passwd", dir.path().join(".ledger/tmp/record-1-0.tmp")).unwrap();
    fs::write(dir.path().join(".ledger/tmp/record-1-1.tmp"), b"{").unwrap();

    let report = store.check().unwrap();
    assert_eq!(report.temp_files, ["record-1-1.tmp"]);
    assert_eq!(listed(&report), ["tmp/record-1-0.tmp"]);
}

fn git(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(Git::isolated().identity("t", "t@t").stdout(dir, args)).unwrap()
}

#[test]
fn a_new_store_ignores_itself_and_stays_out_of_inventories() {
    let (dir, store, _) = workspace();
    let ignore = dir.path().join(".ledger/.gitignore");
    assert_eq!(fs::read(&ignore).unwrap(), b"*\n");
    assert!(store.check().unwrap().is_clean());

    fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(dir.path(), &["init", "-q"]);
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "?? a.txt\n");
    git(dir.path(), &["add", "-A"]);
    assert_eq!(git(dir.path(), &["ls-files"]), "a.txt\n");

    let mut scope = Scope::new(Utf8Path::from_path(dir.path()).unwrap());
    scope.add_root(".").unwrap();
    let inventory = Inventory::expand(&scope).unwrap();
    let paths: Vec<_> = inventory.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["a.txt"]);
    assert!(store.check().unwrap().is_clean());

    // A store from before ledger wrote the file gets it with its next write.
    fs::remove_file(&ignore).unwrap();
    let head = store.head(REF).unwrap();
    store.commit(REF, "state", head.as_ref(), &"next").unwrap();
    assert_eq!(fs::read(&ignore).unwrap(), b"*\n");
}

#[test]
fn a_store_that_comes_with_the_checkout_is_not_trusted() {
    let (dir, store, id) = workspace();
    git(dir.path(), &["init", "-q"]);
    // Forced past the store's own .gitignore, as an attacker's commit would be.
    git(dir.path(), &["add", "-f", ".ledger"]);
    git(dir.path(), &["commit", "-qm", "forged store"]);

    let err = store.head(REF).unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
    assert!(err.to_string().contains("Git tracks"), "{err}");
    assert_eq!(code(store.read_record::<String>(&id)), "untrusted-store");
    assert_eq!(
        code(store.commit(REF, "state", Some(&id), &2)),
        "untrusted-store"
    );

    let report = store.check().unwrap();
    assert!(listed(&report).contains(&".gitignore"), "{report:?}");
    assert!(
        listed(&report).contains(&"refs/changes/add-auth"),
        "{report:?}"
    );
    assert!(!report.is_clean());

    // Untracked again, the store is this workspace's own.
    git(dir.path(), &["rm", "-rq", "--cached", ".ledger"]);
    assert_eq!(store.head(REF).unwrap(), Some(id));
    assert!(store.check().unwrap().is_clean());
}

#[test]
fn a_store_owned_by_another_user_is_not_trusted() {
    if !is_root() {
        eprintln!("skipped: chown to another user needs root");
        return;
    }
    for target in [".ledger/refs/changes/add-auth", ".ledger"] {
        let (dir, store, _) = workspace();
        let status = Command::new("chown")
            .args(["-R", "65534"])
            .arg(dir.path().join(target))
            .status()
            .unwrap();
        assert!(status.success());
        let err = store.head(REF).unwrap_err();
        assert_eq!(err.code(), "untrusted-store", "{target}: {err}");
        assert!(err.to_string().contains("uid 65534"), "{err}");
        let report = store.check().unwrap();
        assert!(!report.is_clean(), "{target}: {report:?}");
    }
}
