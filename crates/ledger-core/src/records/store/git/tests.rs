//! The store of a Git checkout, with the git CLI as the oracle: what ledger
//! writes is what git reads, pushes and fetches.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use camino::Utf8Path;
use ledger_testkit::{Git, utf8};

use crate::records::store::{RecordId, Store, StoredRecord};

fn git() -> Git {
    Git::isolated().identity("Tester", "tester@example.com")
}

/// A checkout with one commit, so that it can be cloned and pushed.
fn checkout(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git().init(&repo, &[]);
    std::fs::write(repo.join("README"), "hello\n").unwrap();
    git().commit_all(&repo, "first");
    repo
}

/// A bare repository with `a` and `b` cloned from it; each has the fetch
/// refspec `remote setup` writes.
fn remote_and_clones(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let seed = checkout(dir);
    let bare = dir.join("remote.git");
    git().run(
        dir,
        &[
            "clone",
            "-q",
            "--bare",
            seed.to_str().unwrap(),
            "remote.git",
        ],
    );
    let mut clones = Vec::new();
    for name in ["a", "b"] {
        git().run(dir, &["clone", "-q", bare.to_str().unwrap(), name]);
        let clone = dir.join(name);
        let setup = open(&clone).remote_setup("origin").unwrap();
        assert!(setup.added);
        clones.push(clone);
    }
    let b = clones.pop().unwrap();
    (bare, clones.pop().unwrap(), b)
}

fn open(workspace: &Path) -> Store {
    Store::open(utf8(workspace)).unwrap()
}

fn stdout(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git().stdout(dir, args))
        .unwrap()
        .trim_end()
        .to_owned()
}

fn push(dir: &Path) -> bool {
    git().succeeds(dir, &["push", "-q", "origin", "refs/ledger/heads/*"])
}

fn fetch(dir: &Path) {
    git().run(dir, &["fetch", "-q", "origin"]);
}

#[test]
fn records_are_commits_that_git_reads_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let repo = checkout(dir.path());
    let store = open(&repo);
    assert!(store.is_git());
    assert_eq!(store.root(), utf8(&repo.join(".git/ledger")));
    let first = store
        .commit("changes/add-auth", "state", None, &"drafted")
        .unwrap();
    let second = store
        .commit("changes/add-auth", "state", Some(&first), &"approved")
        .unwrap();
    let blob = git().stdout(
        &repo,
        &[
            "cat-file",
            "blob",
            "refs/ledger/heads/changes/add-auth:record.json",
        ],
    );
    assert_eq!(RecordId::of(&blob), second);
    let parent = git().stdout(
        &repo,
        &[
            "cat-file",
            "blob",
            "refs/ledger/heads/changes/add-auth~1:record.json",
        ],
    );
    assert_eq!(RecordId::of(&parent), first);
    assert_eq!(
        stdout(
            &repo,
            &["rev-list", "--count", "refs/ledger/heads/changes/add-auth"]
        ),
        "2"
    );
    git().run(&repo, &["fsck", "--strict", "--no-progress"]);
    assert_eq!(
        store.history("changes/add-auth").unwrap(),
        vec![second, first]
    );
    // No store in the worktree, nothing for git status to show.
    assert!(!repo.join(".ledger/records").exists());
    assert_eq!(stdout(&repo, &["status", "--porcelain"]), "");
    let report = store.check().unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.records, 2);
}

#[test]
fn every_worktree_and_a_copy_share_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let repo = checkout(dir.path());
    let id = open(&repo)
        .commit("gates/test", "evidence", None, &1)
        .unwrap();
    git().run(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            dir.path().join("wt").to_str().unwrap(),
        ],
    );
    let worktree = open(&dir.path().join("wt"));
    assert_eq!(worktree.root(), open(&repo).root());
    assert_eq!(worktree.head("gates/test").unwrap(), Some(id));
    let next = worktree
        .commit("gates/test", "evidence", Some(&id), &2)
        .unwrap();
    assert_eq!(open(&repo).head("gates/test").unwrap(), Some(next));
    assert!(worktree.provenance("gates/test").unwrap().unwrap().local);
    let copy = dir.path().join("copy");
    let status = std::process::Command::new("cp")
        .args(["-a", repo.to_str().unwrap(), copy.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let copied = open(&copy);
    assert_eq!(copied.head("gates/test").unwrap(), Some(next));
    assert!(copied.provenance("gates/test").unwrap().unwrap().local);
}

#[test]
fn fetched_heads_are_read_beside_the_local_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, b) = remote_and_clones(dir.path());
    let first = open(&a).commit("changes/c", "state", None, &"a1").unwrap();
    assert!(push(&a));
    assert_eq!(open(&b).head("changes/c").unwrap(), None);
    fetch(&b);
    let store = open(&b);
    assert_eq!(store.head("changes/c").unwrap(), Some(first));
    let provenance = store.provenance("changes/c").unwrap().unwrap();
    assert!(!provenance.local);
    assert_eq!(provenance.remote.as_deref(), Some("origin"));
    // The fetched record reads like a local one, and a write goes on from it.
    let body: StoredRecord<String> = store.read_record(&first).unwrap();
    assert_eq!(body.body, "a1");
    let second = store
        .commit("changes/c", "state", Some(&first), &"b1")
        .unwrap();
    assert_eq!(store.history("changes/c").unwrap(), vec![second, first]);
    assert!(push(&b), "a write on top of the fetched head fast-forwards");
    fetch(&a);
    assert_eq!(open(&a).head("changes/c").unwrap(), Some(second));
}

#[test]
fn heads_that_went_apart_are_shown_and_resolved_by_an_explicit_write() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, b) = remote_and_clones(dir.path());
    let base = open(&a)
        .commit("changes/c", "state", None, &"base")
        .unwrap();
    assert!(push(&a));
    fetch(&b);
    let from_a = open(&a)
        .commit("changes/c", "state", Some(&base), &"a")
        .unwrap();
    let from_b = open(&b)
        .commit("changes/c", "state", Some(&base), &"b")
        .unwrap();
    assert!(push(&a));
    assert!(!push(&b), "git refuses a push that would drop a's record");
    fetch(&b);
    let store = open(&b);
    let err = store.head("changes/c").unwrap_err();
    assert_eq!(err.code(), "divergent-heads");
    let message = err.to_string();
    assert!(
        message.contains(&from_a.to_string()) && message.contains(&from_b.to_string()),
        "{message}"
    );
    let report = store.check().unwrap();
    assert!(!report.is_clean());
    assert_eq!(report.divergent.len(), 1);
    assert_eq!(report.divergent[0].heads.len(), 2);
    // A write that starts from neither head is refused; one that starts from a head resolves.
    let stray = store.commit("changes/c", "state", Some(&base), &"stray");
    assert_eq!(stray.unwrap_err().code(), "divergent-heads");
    assert_eq!(
        store.resolve("changes/c", &base).unwrap_err().code(),
        "invalid-argument"
    );
    store.resolve("changes/c", &from_a).unwrap();
    assert_eq!(store.head("changes/c").unwrap(), Some(from_a));
    assert!(store.check().unwrap().divergent.is_empty());
    assert!(push(&b), "the resolution has both heads as parents");
    // Nothing was lost: b's record is still in the repository.
    let all = stdout(&b, &["log", "--format=%H", "refs/ledger/heads/changes/c"]);
    assert_eq!(all.lines().count(), 4, "{all}");
    fetch(&a);
    assert_eq!(open(&a).head("changes/c").unwrap(), Some(from_a));
}

#[test]
fn a_write_that_started_from_a_head_resolves_the_divergence() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, b) = remote_and_clones(dir.path());
    let from_a = open(&a)
        .commit("gates/test", "evidence", None, &"a")
        .unwrap();
    let from_b = open(&b)
        .commit("gates/test", "evidence", None, &"b")
        .unwrap();
    assert!(push(&a));
    fetch(&b);
    let store = open(&b);
    assert_eq!(
        store.head("gates/test").unwrap_err().code(),
        "divergent-heads"
    );
    let next = store
        .commit("gates/test", "evidence", Some(&from_b), &"b2")
        .unwrap();
    assert_eq!(store.head("gates/test").unwrap(), Some(next));
    assert_eq!(store.history("gates/test").unwrap(), vec![next, from_b]);
    assert!(push(&b));
    let _ = from_a;
}

/// Points `refs/ledger/heads/<name>` of `repo` at `target`.
fn forge(repo: &Path, name: &str, target: &str) {
    git().run(
        repo,
        &["update-ref", &format!("refs/ledger/heads/{name}"), target],
    );
}

fn hash_object(repo: &Path, kind: &str, bytes: &[u8]) -> String {
    let file = repo.join(".git/forged-object");
    std::fs::write(&file, bytes).unwrap();
    stdout(
        repo,
        &[
            "hash-object",
            "-w",
            "-t",
            kind,
            "--literally",
            file.to_str().unwrap(),
        ],
    )
}

#[test]
fn forged_refs_are_refused_with_codes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = checkout(dir.path());
    let store = open(&repo);
    let good = store.commit("changes/good", "state", None, &1).unwrap();
    let blob = stdout(
        &repo,
        &["rev-parse", "refs/ledger/heads/changes/good:record.json"],
    );
    let tree = stdout(
        &repo,
        &["rev-parse", "refs/ledger/heads/changes/good^{tree}"],
    );
    forge(&repo, "blob", &blob);
    forge(&repo, "tree", &tree);
    forge(&repo, "branch", "HEAD");
    let huge = hash_object(&repo, "blob", &vec![b' '; (super::BLOB_LIMIT + 1) as usize]);
    let huge_tree = stdout(&repo, &["mktree"]);
    let _ = huge_tree;
    let mktree = |entry: &str| {
        let mut cmd = git().command(&repo, &["mktree"]);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(entry.as_bytes())
            .unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_owned()
    };
    let commit_of = |tree: &str| stdout(&repo, &["commit-tree", tree, "-m", "forged"]);
    forge(
        &repo,
        "huge",
        &commit_of(&mktree(&format!("100644 blob {huge}\trecord.json\n"))),
    );
    forge(
        &repo,
        "other-name",
        &commit_of(&mktree(&format!("100644 blob {blob}\tnotes.json\n"))),
    );
    let not_a_record = hash_object(&repo, "blob", b"{\"format\": \"something else\"}\n");
    forge(
        &repo,
        "not-a-record",
        &commit_of(&mktree(&format!(
            "100644 blob {not_a_record}\trecord.json\n"
        ))),
    );
    git().run(
        &repo,
        &[
            "symbolic-ref",
            "refs/ledger/heads/symbolic",
            "refs/heads/main",
        ],
    );
    git().run(
        &repo,
        &[
            "update-ref",
            "refs/ledger/elsewhere/x",
            &stdout(&repo, &["rev-parse", "refs/ledger/heads/changes/good"]),
        ],
    );
    for (name, code) in [
        ("blob", "corrupt-record"),
        ("tree", "corrupt-record"),
        ("branch", "corrupt-record"),
        ("huge", "too-large"),
        ("other-name", "corrupt-record"),
        ("not-a-record", "corrupt-record"),
        ("symbolic", "untrusted-store"),
    ] {
        let err = store.head(name).unwrap_err();
        assert_eq!(err.code(), code, "{name}: {err}");
    }
    assert_eq!(store.head("changes/good").unwrap(), Some(good));
    let report = store.check().unwrap();
    let listed: Vec<&str> = report.corrupt.iter().map(|c| c.file.as_str()).collect();
    for name in [
        "blob",
        "tree",
        "branch",
        "huge",
        "other-name",
        "not-a-record",
        "symbolic",
    ] {
        assert!(
            listed.contains(&format!("refs/ledger/heads/{name}").as_str()),
            "{name}: {listed:?}"
        );
    }
    assert!(listed.contains(&"refs/ledger/elsewhere/x"), "{listed:?}");
    assert_eq!(store.refs().unwrap_err().code(), "corrupt-record");
}

#[test]
fn an_older_store_in_the_worktree_is_migrated_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir(&workspace).unwrap();
    let legacy = Store::at(utf8(&workspace.join(".ledger")).to_owned());
    let first = legacy.commit("changes/c", "state", None, &1).unwrap();
    let second = legacy
        .commit("changes/c", "state", Some(&first), &2)
        .unwrap();
    let orphan = legacy.write_record("state", None, &"orphan").unwrap();
    let object = legacy.write_object(b"gate output").unwrap();
    git().init(&workspace, &[]);
    let store = open(&workspace);
    assert!(store.is_git());
    assert_eq!(store.head("changes/c").unwrap(), Some(second));
    assert_eq!(store.history("changes/c").unwrap(), vec![second, first]);
    assert_eq!(store.read_object(&object).unwrap(), b"gate output");
    let report = store.check().unwrap();
    assert_eq!(report.orphan_ids(), vec![orphan], "orphans are kept too");
    assert!(workspace.join(".ledger/migrated").is_file());
    // The old store is left as it was.
    assert_eq!(legacy.head("changes/c").unwrap(), Some(second));
    assert_eq!(legacy.check().unwrap().records, 3);
    // Once is enough: a later write is not undone by another migration.
    let third = store
        .commit("changes/c", "state", Some(&second), &3)
        .unwrap();
    assert_eq!(open(&workspace).head("changes/c").unwrap(), Some(third));
}

#[test]
fn a_migrated_ref_the_repository_has_otherwise_is_a_divergence() {
    let dir = tempfile::tempdir().unwrap();
    let repo = checkout(dir.path());
    let in_git = open(&repo)
        .commit("changes/c", "state", None, &"git")
        .unwrap();
    // An older ledger, run in the same checkout, wrote its own `.ledger/`.
    let legacy = Store::at(utf8(&repo.join(".ledger")).to_owned());
    let old = legacy.commit("changes/c", "state", None, &"old").unwrap();
    let err = open(&repo).head("changes/c").unwrap_err();
    assert_eq!(err.code(), "divergent-heads", "{err}");
    assert!(err.to_string().contains("fetched from legacy"), "{err}");
    open(&repo).resolve("changes/c", &in_git).unwrap();
    assert_eq!(open(&repo).head("changes/c").unwrap(), Some(in_git));
    assert!(open(&repo).read_record::<String>(&old).is_ok());
}

#[test]
fn remote_setup_writes_the_fetch_refspec_once() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, _b) = remote_and_clones(dir.path());
    let fetches = stdout(&a, &["config", "--get-all", "remote.origin.fetch"]);
    assert_eq!(
        fetches.lines().collect::<Vec<_>>(),
        [
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/ledger/heads/*:refs/ledger/remotes/origin/*"
        ]
    );
    let again = open(&a).remote_setup("origin").unwrap();
    assert!(!again.added);
    assert_eq!(
        stdout(&a, &["config", "--get-all", "remote.origin.fetch"]),
        fetches
    );
    assert_eq!(
        open(&a).remote_setup("nowhere").unwrap_err().code(),
        "invalid-argument"
    );
    assert_eq!(
        open(&a).remote_setup("a/b").unwrap_err().code(),
        "invalid-argument"
    );
    let plain = tempfile::tempdir().unwrap();
    let outside = Store::open(Utf8Path::from_path(plain.path()).unwrap()).unwrap();
    assert!(!outside.is_git());
    assert_eq!(
        outside.remote_setup("origin").unwrap_err().code(),
        "invalid-argument"
    );
}

/// An Ed25519 key made by ssh-keygen in `dir`, and an allowed-signers file
/// naming it as `principal`.
fn key(dir: &Path, name: &str, principal: &str) -> (PathBuf, PathBuf) {
    let key = dir.join(name);
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", principal, "-f"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(made.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed = dir.join(format!("{name}.allowed"));
    std::fs::write(&allowed, format!("{principal} namespaces=\"git\" {public}")).unwrap();
    (key, allowed)
}

fn signing(key: Option<&Path>, allowed: Option<&Path>) -> crate::records::signing::SigningSettings {
    crate::records::signing::SigningSettings {
        signing_key: key.map(|k| utf8(k).to_owned()),
        allowed_signers: allowed.map(|a| utf8(a).to_owned()),
        not_utf8: Vec::new(),
    }
}

#[test]
fn signed_records_carry_git_s_own_ssh_signature_and_show_their_signer() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, b) = remote_and_clones(dir.path());
    let (alice, alice_allowed) = key(dir.path(), "alice", "alice@example.com");
    let (_mallory, mallory_allowed) = key(dir.path(), "mallory", "mallory@example.com");
    let writer = open(&a).with_signing(signing(Some(&alice), None));
    let id = writer
        .commit("gates/test", "evidence", None, &"passed")
        .unwrap();
    // git itself verifies the commit ledger signed.
    let config = format!("gpg.ssh.allowedSignersFile={}", alice_allowed.display());
    assert!(git().succeeds(
        &a,
        &[
            "-c",
            &config,
            "verify-commit",
            "refs/ledger/heads/gates/test"
        ]
    ));
    assert!(push(&a));
    fetch(&b);
    let trusting = open(&b).with_signing(signing(None, Some(&alice_allowed)));
    let seen = trusting.provenance("gates/test").unwrap().unwrap();
    assert_eq!(seen.record, id);
    assert!(!seen.local);
    assert_eq!(seen.signer.as_deref(), Some("alice@example.com"));
    assert!(seen.is_signed_by_allowed_signer());
    // Signed, but not by a key this caller allows: the key shows, the signer does not.
    let other = open(&b).with_signing(signing(None, Some(&mallory_allowed)));
    let seen = other.provenance("gates/test").unwrap().unwrap();
    assert_eq!(seen.signer, None);
    assert!(seen.key.as_deref().unwrap().starts_with("SHA256:"));
    assert!(seen.signature_problem.is_some());
    let unknowing = open(&b).with_signing(signing(None, None));
    let seen = unknowing.provenance("gates/test").unwrap().unwrap();
    assert_eq!(seen.signer, None);
    assert!(seen.signature_problem.is_some());
    // An unsigned record shows no key at all.
    let plain = open(&a)
        .commit("gates/lint", "evidence", None, &"passed")
        .unwrap();
    let seen = open(&a).provenance("gates/lint").unwrap().unwrap();
    assert_eq!((seen.record, seen.local, seen.key), (plain, true, None));
}

#[test]
fn the_store_in_the_git_directory_gets_the_trust_checks_of_a_ledger_directory() {
    let dir = tempfile::tempdir().unwrap();
    let repo = checkout(dir.path());
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    crate::platform::symlink(&elsewhere, repo.join(".git/ledger")).unwrap();
    let store = open(&repo);
    let err = store
        .commit("gates/test", "evidence", None, &1)
        .unwrap_err();
    assert_eq!(err.code(), "untrusted-store", "{err}");
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing written through it"
    );
    let listed = store.check().unwrap();
    assert!(
        listed.corrupt.iter().any(|c| c.reason.contains("symlink")),
        "{listed:?}"
    );
    std::fs::remove_file(repo.join(".git/ledger")).unwrap();
    let id = store.commit("gates/test", "evidence", None, &1).unwrap();
    // A records directory another user owns is not this user's store.
    if crate::platform::is_root() {
        let records = repo.join(".git/ledger/records");
        crate::platform::chown(&records, 65534).unwrap();
        let err = store.read_record::<serde_json::Value>(&id).unwrap_err();
        assert_eq!(err.code(), "untrusted-store", "{err}");
    }
}

#[test]
fn a_ref_advances_only_to_a_record_this_store_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, b) = remote_and_clones(dir.path());
    let theirs = open(&a)
        .commit("gates/test", "evidence", None, &"a")
        .unwrap();
    assert!(push(&a));
    fetch(&b);
    let store = open(&b);
    // Readable, but not committed (nor signed) as if it were b's own.
    assert!(store.read_record::<String>(&theirs).is_ok());
    let err = store.advance("gates/other", None, &theirs).unwrap_err();
    assert_eq!(err.code(), "invalid-argument", "{err}");
    let refs = git().stdout(&b, &["for-each-ref", "refs/ledger/heads/"]);
    assert!(refs.is_empty(), "{}", String::from_utf8_lossy(&refs));
}

#[test]
fn a_kept_fetched_head_stays_a_fetched_record() {
    let dir = tempfile::tempdir().unwrap();
    let (_bare, a, b) = remote_and_clones(dir.path());
    let theirs = open(&a)
        .commit("gates/test", "evidence", None, &"a")
        .unwrap();
    open(&b)
        .commit("gates/test", "evidence", None, &"b")
        .unwrap();
    assert!(push(&a));
    fetch(&b);
    let store = open(&b);
    store.resolve("gates/test", &theirs).unwrap();
    let seen = store.provenance("gates/test").unwrap().unwrap();
    assert_eq!(
        (seen.record, seen.local, seen.remote),
        (theirs, false, None)
    );
}

#[test]
fn a_signature_counts_only_for_the_commit_that_brought_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let repo = checkout(dir.path());
    let (alice, alice_allowed) = key(dir.path(), "alice", "alice@example.com");
    let signed = open(&repo).with_signing(signing(Some(&alice), None));
    let first = signed
        .commit("gates/test", "evidence", None, &"signed")
        .unwrap();
    let trusting = open(&repo).with_signing(signing(None, Some(&alice_allowed)));
    assert_eq!(
        trusting
            .provenance("gates/test")
            .unwrap()
            .unwrap()
            .signer
            .as_deref(),
        Some("alice@example.com")
    );
    // An unsigned record on top of a signed one is unsigned.
    let second = open(&repo)
        .commit("gates/test", "evidence", Some(&first), &"not")
        .unwrap();
    let seen = trusting.provenance("gates/test").unwrap().unwrap();
    assert_eq!((seen.record, seen.key), (second, None));
    // A signed resolution vouches for nothing: its kept parent is asked, and it is unsigned.
    let ref_name = "refs/ledger/heads/gates/test";
    let head = stdout(&repo, &["rev-parse", ref_name]);
    let tree = stdout(&repo, &["rev-parse", &format!("{ref_name}^{{tree}}")]);
    let other = stdout(&repo, &["rev-parse", &format!("{ref_name}~1")]);
    let key_config = format!("user.signingkey={}", alice.display());
    let resolution = stdout(
        &repo,
        &[
            "-c",
            "gpg.format=ssh",
            "-c",
            &key_config,
            "commit-tree",
            "-S",
            &tree,
            "-p",
            &head,
            "-p",
            &other,
            "-m",
            "ledger resolve",
        ],
    );
    git().run(&repo, &["update-ref", ref_name, &resolution]);
    let config = format!("gpg.ssh.allowedSignersFile={}", alice_allowed.display());
    assert!(
        git().succeeds(&repo, &["-c", &config, "verify-commit", ref_name]),
        "git calls it signed"
    );
    let seen = trusting.provenance("gates/test").unwrap().unwrap();
    assert_eq!((seen.record, seen.signer, seen.key), (second, None, None));
}
