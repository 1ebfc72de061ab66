//! Every error code, provoked by a real input through the public API. The test
//! fails when a code is added to `Error::CODES` without a case here (or in the
//! list of codes only a front door can produce). In a process of its own
//! (`own_process`): one case sets an environment variable, which is the
//! process's.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;

use camino::Utf8Path;
use ledger_core::approval::*;
use ledger_core::expand::*;
use ledger_core::gate::*;
use ledger_core::lifecycle::*;
use ledger_core::openspec::*;
use ledger_core::records::*;
use ledger_core::{Error, Result, WorkspacePath};
use ledger_testkit::{Git, utf8};

/// Codes that only a front door constructs, and the test that covers them.
const FRONT_DOOR_ONLY: &[(&str, &str)] = &[];

fn git(dir: &Path, args: &[&str]) -> bool {
    Git::isolated().identity("t", "t@t").succeeds(dir, args)
}

fn ws(dir: &tempfile::TempDir) -> &Utf8Path {
    Utf8Path::from_path(dir.path()).unwrap()
}

/// A scope walking the whole of a temp dir (no Git).
fn walk(dir: &tempfile::TempDir) -> Scope {
    let mut scope = Scope::new(ws(dir));
    scope.add_root(".").unwrap();
    scope
}

fn expand_err(scope: &Scope) -> Error {
    Inventory::expand(scope).unwrap_err()
}

fn conflict() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(git(d, &["init", "-q", "-b", "main"]));
    std::fs::write(d.join("f"), "base\n").unwrap();
    assert!(git(d, &["add", "f"]) && git(d, &["commit", "-qm", "base"]));
    assert!(git(d, &["checkout", "-qb", "other"]));
    std::fs::write(d.join("f"), "other\n").unwrap();
    assert!(git(d, &["commit", "-qam", "other"]));
    assert!(git(d, &["checkout", "-q", "main"]));
    std::fs::write(d.join("f"), "main\n").unwrap();
    assert!(git(d, &["commit", "-qam", "main"]));
    assert!(
        !git(d, &["merge", "-q", "other"]),
        "the merge must conflict"
    );
    expand_err(&walk(&dir))
}

fn special_file() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    expand_err(&walk(&dir))
}

fn nested_repository() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("vendor")).unwrap();
    assert!(git(&dir.path().join("vendor"), &["init", "-q"]));
    expand_err(&walk(&dir))
}

fn unreadable() -> Error {
    expand_err(&Scope::new("/nonexistent/ledger-workspace"))
}

fn unwritable() -> Error {
    Store::at("/dev/null/store")
        .commit("changes/x", "state", None, &"body")
        .unwrap_err()
}

fn non_utf8_path() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9")),
        "x",
    )
    .unwrap();
    expand_err(&walk(&dir))
}

fn symlinked_parent() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::fs::write(dir.path().join("real/f"), "x").unwrap();
    symlink("real", dir.path().join("link")).unwrap();
    let mut scope = Scope::new(ws(&dir));
    scope.add_path("link/f").unwrap();
    expand_err(&scope)
}

/// A writer keeps rewriting the file in place while it is read, until a read
/// meets a write (bounded; the race is met within a few attempts in practice).
fn changed_while_reading() -> Error {
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hot");
    std::fs::write(&path, [b'a'; 4096]).unwrap();
    let stop = AtomicBool::new(false);
    let found = std::thread::scope(|s| {
        s.spawn(|| {
            let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            let mut i = 0u8;
            while !stop.load(Ordering::Relaxed) {
                i = i.wrapping_add(1);
                f.write_all_at(&[i; 4096], 0).unwrap();
            }
        });
        let wp = WorkspacePath::new("hot").unwrap();
        let found = (0..100_000).find_map(|_| Entry::read(dir.path(), &wp, false).err());
        stop.store(true, Ordering::Relaxed);
        found
    });
    found.expect("the writer never overlapped a read")
}

fn outside_workspace() -> Error {
    Scope::new("/w").add_path("../etc/passwd").unwrap_err()
}

fn invalid_path() -> Error {
    Scope::new("/w").add_path("a//b").unwrap_err()
}

fn untrusted_repository() -> Option<Error> {
    let dir = tempfile::tempdir().unwrap();
    assert!(git(dir.path(), &["init", "-q"]));
    for entry in walkdir(dir.path()) {
        if std::os::unix::fs::lchown(&entry, Some(65534), Some(65534)).is_err() {
            return None; // not root: ownership cannot be given away here
        }
    }
    Some(expand_err(&walk(&dir)))
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn not_a_repository() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("plain")).unwrap();
    let mut scope = Scope::new(ws(&dir));
    scope.add_repository("plain").unwrap();
    expand_err(&scope)
}

/// A workspace whose `.git` file names no repository: git refuses it too.
fn invalid_gitfile() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".git"), "gitdir: /nonexistent/ledger.git\n").unwrap();
    std::fs::write(dir.path().join("a.txt"), "a").unwrap();
    expand_err(&Scope::new(ws(&dir)))
}

/// `GIT_WORK_TREE` naming another directory than the repository's worktree: git
/// would list the index against that directory.
fn git_environment() -> Error {
    let dir = tempfile::tempdir().unwrap();
    assert!(git(dir.path(), &["init", "-q"]));
    let elsewhere = tempfile::tempdir().unwrap();
    // SAFETY: the one test of its process (`own_process`) provokes its cases one
    // after the other on this thread; no other thread reads the environment
    // while the variable is set.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("GIT_WORK_TREE", elsewhere.path());
    }
    let result = Inventory::expand(&Scope::new(ws(&dir)));
    #[allow(unsafe_code)]
    unsafe {
        std::env::remove_var("GIT_WORK_TREE");
    }
    result.unwrap_err()
}

fn record_error(text: &str) -> Error {
    InventoryRecord::from_json(text, "r.json").unwrap_err()
}

fn change_with_design(design: &str) -> Error {
    let dir = tempfile::tempdir().unwrap();
    let change = dir.path().join("openspec/changes/c");
    std::fs::create_dir_all(change.join("docs")).unwrap();
    std::fs::write(change.join("design.md"), design).unwrap();
    let set = ChangeSet::new(ws(&dir), "c", ArtifactGraph::spec_driven()).unwrap();
    set.inventory("design").unwrap_err()
}

fn schema_error(yaml: &str) -> Error {
    ArtifactGraph::from_schema_yaml(yaml, "schema.yaml").unwrap_err()
}

/// A change `c` whose `.openspec.yaml` holds `metadata`, opened with the schema
/// it declares.
fn change_declaring(metadata: &str) -> Error {
    let dir = tempfile::tempdir().unwrap();
    let change = dir.path().join("openspec/changes/c");
    std::fs::create_dir_all(&change).unwrap();
    std::fs::write(change.join(".openspec.yaml"), metadata).unwrap();
    ChangeSet::open(ws(&dir), "c", DEFAULT_CHANGES_ROOT, None).unwrap_err()
}

fn missing_source() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let set = ChangeSet::new(ws(&dir), "c", ArtifactGraph::spec_driven()).unwrap();
    approve(
        &Store::open(utf8(dir.path())).unwrap(),
        &set,
        "proposal",
        " ",
        Absence::Refuse,
    )
    .unwrap_err()
}

/// A change `c` with a proposal and a design that links `design_link`.
fn change_dir(design: &str) -> (tempfile::TempDir, ChangeSet) {
    let dir = tempfile::tempdir().unwrap();
    let change = dir.path().join("openspec/changes/c");
    std::fs::create_dir_all(&change).unwrap();
    std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
    std::fs::write(change.join("design.md"), design).unwrap();
    let set = ChangeSet::new(ws(&dir), "c", ArtifactGraph::spec_driven()).unwrap();
    (dir, set)
}

fn unknown_change() -> Error {
    let (dir, _) = change_dir("");
    let typo = ChangeSet::new(ws(&dir), "cc", ArtifactGraph::spec_driven()).unwrap();
    approve(
        &Store::open(utf8(dir.path())).unwrap(),
        &typo,
        "proposal",
        "m",
        Absence::Refuse,
    )
    .unwrap_err()
}

fn upstream_blocked() -> Error {
    let (dir, set) = change_dir("![gone](gone.png)\n");
    approve(
        &Store::open(utf8(dir.path())).unwrap(),
        &set,
        "tasks",
        "m",
        Absence::Approve,
    )
    .unwrap_err()
}

fn absent_artifact() -> Error {
    let (dir, set) = change_dir("");
    approve(
        &Store::open(utf8(dir.path())).unwrap(),
        &set,
        "specs",
        "m",
        Absence::Refuse,
    )
    .unwrap_err()
}

/// A PASS while no artifact of the change is approved.
fn validation_refused() -> Error {
    let (dir, set) = change_dir("");
    let mut request = ValidationRequest::new(ValidationVerdict::Pass, "review 7");
    request.no_delivery = Some("a planning-only change".to_owned());
    record_validation(&Store::open(utf8(dir.path())).unwrap(), &set, &request).unwrap_err()
}

/// A PASS naming no delivery root or path, and not declaring there is none.
fn no_delivery() -> Error {
    let (dir, set) = change_dir("");
    let request = ValidationRequest::new(ValidationVerdict::Pass, "review 7");
    record_validation(&Store::open(utf8(dir.path())).unwrap(), &set, &request).unwrap_err()
}

/// An approval of a fingerprint the set no longer has.
fn fingerprint_moved() -> Error {
    let (dir, set) = change_dir("");
    let reviewed = set.inventory("proposal").unwrap().fingerprint;
    std::fs::write(
        dir.path().join("openspec/changes/c/proposal.md"),
        "# Why not\n",
    )
    .unwrap();
    let basis = WriteBasis {
        reviewed: Some(reviewed),
        started_from: None,
    };
    let store = Store::open(utf8(dir.path())).unwrap();
    approve_with(&store, &set, "proposal", "m", Absence::Refuse, &basis).unwrap_err()
}

/// A finalization check of a change that was never validated.
fn not_validated() -> Error {
    let (dir, set) = change_dir("");
    let store = Store::open(utf8(dir.path())).unwrap();
    approve(&store, &set, "proposal", "m", Absence::Refuse).unwrap();
    finalize_check(&store, &set, &[]).unwrap_err()
}

fn too_large() -> Error {
    let (dir, set) = change_dir("");
    let design = dir.path().join("openspec/changes/c/design.md");
    let file = std::fs::File::create(design).unwrap();
    file.set_len(17 * 1024 * 1024).unwrap(); // sparse: no disk used
    set.inventory("design").unwrap_err()
}

/// A store that is a symlink to another directory: never followed.
fn untrusted_store() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
    symlink("elsewhere", dir.path().join(STORE_DIR)).unwrap();
    Store::open(utf8(dir.path()))
        .unwrap()
        .head("changes/x")
        .unwrap_err()
}

fn gate(argv: &[&str], prerequisite: Option<&str>) -> Error {
    let dir = tempfile::tempdir().unwrap();
    let prerequisites = prerequisite
        .map(|c| [("tool".to_owned(), Observe::Command(c.to_owned()))].into())
        .unwrap_or_default();
    let argv = argv.iter().map(|s| s.to_string()).collect();
    let spec = GateSpec::new("g", argv, ".", walk(&dir), prerequisites).unwrap();
    run_gate(&Store::open(utf8(dir.path())).unwrap(), &spec, Echo::Off).unwrap_err()
}

/// A gate whose caller has cancelled it before it starts: nothing runs.
/// A writing tool asked of a read-only agent's door.
fn read_only() -> Error {
    ledger_core::door::agent::tool("approve", true).unwrap_err()
}

fn cancelled() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let argv = vec!["touch".to_owned(), marker.to_str().unwrap().to_owned()];
    let spec = GateSpec::new("g", argv, ".", walk(&dir), Default::default()).unwrap();
    let options = RunOptions {
        interrupt: Some(std::sync::Arc::new(|| true)),
        ..RunOptions::default()
    };
    let error =
        run_gate_with(&Store::open(utf8(dir.path())).unwrap(), &spec, &options).unwrap_err();
    assert!(!marker.exists(), "a cancelled gate's command ran");
    error
}

fn entries(list: &[(&str, &str, &str, &str)]) -> Error {
    let parsed: Result<Vec<Entry>> = list
        .iter()
        .map(|(p, k, m, d)| Entry::from_parts(p, k, m, d))
        .collect();
    parsed.and_then(fingerprint_entries).unwrap_err()
}

/// Loading `content` as a signing key (`key`) or an allowed-signers file.
fn signing_file_error(content: &str, key: bool) -> Error {
    use ledger_core::records::signing::{AllowedSigners, SigningKey};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("file");
    std::fs::write(&path, content).unwrap();
    if key {
        SigningKey::load(utf8(&path)).unwrap_err()
    } else {
        AllowedSigners::load(utf8(&path)).unwrap_err()
    }
}

fn store_conflict() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    let first = store.commit("changes/c", "state", None, &1).unwrap();
    store
        .commit("changes/c", "state", Some(&first), &2)
        .unwrap();
    store
        .commit("changes/c", "state", Some(&first), &3)
        .unwrap_err()
}

/// A local head and a fetched one that went apart: two first records.
fn divergent_heads() -> Error {
    let dir = tempfile::tempdir().unwrap();
    assert!(git(dir.path(), &["init", "-q"]));
    let store = Store::open(utf8(dir.path())).unwrap();
    store.commit("changes/c", "state", None, &1).unwrap();
    store
        .commit("changes/elsewhere", "state", None, &2)
        .unwrap();
    let fetched = "refs/ledger/remotes/origin/changes/c";
    assert!(git(
        dir.path(),
        &["update-ref", fetched, "refs/ledger/heads/changes/elsewhere"]
    ));
    store.head("changes/c").unwrap_err()
}

fn chain_mismatch() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    let first = store.commit("changes/c", "state", None, &1).unwrap();
    let unrelated = store.write_record("state", None, &2).unwrap();
    store
        .advance("changes/c", Some(&first), &unrelated)
        .unwrap_err()
}

fn corrupt_record() -> Error {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    let id = store.commit("changes/c", "state", None, &1).unwrap();
    let file = dir.path().join(format!(".ledger/records/{id}.json"));
    let mut text = std::fs::read_to_string(&file).unwrap();
    text = text.replace("\"body\": 1", "\"body\": 2");
    std::fs::write(&file, text).unwrap();
    store.read_record::<u32>(&id).unwrap_err()
}

/// A verdict whose report is a directory: its files would leave the judged state.
fn bad_report() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "a").unwrap();
    std::fs::write(dir.path().join("plan.md"), "p").unwrap();
    let mut request = ledger_core::verdict::VerdictRequest::new("v", "PASS", "review", walk(&dir));
    request.reports.push("src".to_owned());
    let store = Store::open(ws(&dir)).unwrap();
    ledger_core::verdict::record_verdict(&store, &request).unwrap_err()
}

/// A Git store's ref whose lock file a killed writer left two hours ago.
fn ref_locked() -> Error {
    let dir = tempfile::tempdir().unwrap();
    assert!(git(dir.path(), &["init", "-q"]));
    let store = Store::open(utf8(dir.path())).unwrap();
    store.commit("changes/c", "state", None, &1).unwrap();
    let lock = dir.path().join(".git/refs/ledger/heads/changes/c.lock");
    let file = std::fs::File::create(lock).unwrap();
    let age = std::time::Duration::from_secs(7200);
    file.set_modified(std::time::SystemTime::now() - age)
        .unwrap();
    store.append("changes/c", "state", &2).unwrap_err()
}

/// A Git store's ref `x/y` beside the ref `x`.
fn ref_name_conflict() -> Error {
    let dir = tempfile::tempdir().unwrap();
    assert!(git(dir.path(), &["init", "-q"]));
    let store = Store::open(utf8(dir.path())).unwrap();
    store.commit("verdicts/x", "verdict", None, &1).unwrap();
    store
        .commit("verdicts/x/y", "verdict", None, &2)
        .unwrap_err()
}

/// A declared exclusion that removes nothing.
fn unmatched_exclusion() -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let lists = ledger_core::expand::ScopeLists {
        exclusions: vec![("g/case-*.md".into(), None)],
        ..Default::default()
    };
    let scope = ledger_core::expand::Scope::from_lists(ws(&dir), &lists).unwrap();
    Inventory::expand(&scope).unwrap_err()
}

/// The error of reading `toml` as a workspace's `ledger.toml`.
fn declarations(toml: &str) -> Error {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(DECLARATIONS_FILE), toml).unwrap();
    Declarations::read(ws(&dir)).unwrap_err()
}

#[test]
fn every_code_is_provoked_by_a_real_input() {
    if crate::own_process::ran_in_child("error_catalog::every_code_is_provoked_by_a_real_input") {
        return;
    }
    let dotdot_record = {
        let mut v: serde_json::Value = serde_json::from_str(
            &InventoryRecord::new(
                Inventory::expand(&walk(&tempfile::tempdir().unwrap())).unwrap(),
                Observed::default(),
            )
            .to_json(),
        )
        .unwrap();
        v["scope"]["roots"] = serde_json::json!(["../x"]);
        v.to_string()
    };
    let mut cases: Vec<(&str, Error)> = vec![
        ("conflict", conflict()),
        ("special-file", special_file()),
        ("nested-repository", nested_repository()),
        ("unreadable", unreadable()),
        ("unwritable", unwritable()),
        ("non-utf8-path", non_utf8_path()),
        ("symlinked-parent", symlinked_parent()),
        ("changed-while-reading", changed_while_reading()),
        ("outside-workspace", outside_workspace()),
        ("invalid-path", invalid_path()),
        ("git", not_a_repository()),
        ("invalid-gitfile", invalid_gitfile()),
        ("git-environment", git_environment()),
        (
            "bad-fingerprint",
            "sha256:zz".parse::<Fingerprint>().unwrap_err(),
        ),
        ("malformed-record", record_error(&dotdot_record)),
        (
            "unsupported-version",
            record_error(r#"{"format": "ledger-inventory", "version": "2.0"}"#),
        ),
        (
            "missing-material",
            change_with_design("![gone](docs/gone.png)\n"),
        ),
        ("ambiguous-material", change_with_design("[dir](docs/)\n")),
        (
            "graph-cycle",
            schema_error(
                "artifacts:\n  - {id: a, generates: a.md, requires: [b]}\n  - {id: b, generates: b.md, requires: [a]}\n",
            ),
        ),
        (
            "unknown-artifact",
            schema_error("artifacts:\n  - {id: a, generates: a.md, requires: [ghost]}\n"),
        ),
        ("bad-schema", schema_error("artifacts: {not: a list}\n")),
        ("unknown-schema", change_declaring("schema: rapid\n")),
        (
            "bad-openspec-config",
            change_declaring("created: 2026-12-01\n"),
        ),
        (
            "bad-gate-declaration",
            declarations("[gates.test]\ncommand = []\n"),
        ),
        (
            "gate-cycle",
            declarations(
                "[gates.a]\ncommand = [\"true\"]\nneeds = [\"b\"]\n[gates.b]\ncommand = [\"true\"]\nneeds = [\"a\"]\n",
            ),
        ),
        ("missing-source", missing_source()),
        ("unknown-change", unknown_change()),
        ("upstream-blocked", upstream_blocked()),
        ("absent-artifact", absent_artifact()),
        ("too-large", too_large()),
        ("validation-refused", validation_refused()),
        ("not-validated", not_validated()),
        ("no-delivery", no_delivery()),
        ("fingerprint-moved", fingerprint_moved()),
        ("untrusted-store", untrusted_store()),
        (
            "invalid-argument",
            retire(
                &Store::open(Utf8Path::new("/nonexistent")).unwrap(),
                "c",
                " ",
            )
            .unwrap_err(),
        ),
        ("prerequisite-failed", gate(&["true"], Some("exit 3"))),
        (
            "gate-not-started",
            gate(&["/nonexistent/gate-command"], None),
        ),
        ("non-utf8-value", gate(&["true"], Some(r"printf 'v\377'"))),
        ("cancelled", cancelled()),
        ("read-only", read_only()),
        ("unmatched-exclusion", unmatched_exclusion()),
        (
            "bad-entry",
            entries(&[("a", "file", "120000", &"0".repeat(64))]),
        ),
        (
            "duplicate-entry",
            entries(&[("a", "missing", "-", "-"), ("a", "missing", "-", "-")]),
        ),
        ("bad-report", bad_report()),
        ("ref-locked", ref_locked()),
        ("ref-name-conflict", ref_name_conflict()),
        ("pointer-conflict", store_conflict()),
        ("divergent-heads", divergent_heads()),
        ("chain-mismatch", chain_mismatch()),
        ("corrupt-record", corrupt_record()),
        (
            "bad-ref-name",
            Store::open(Utf8Path::new("/w"))
                .unwrap()
                .head("../x")
                .unwrap_err(),
        ),
        ("bad-record-id", "xyz".parse::<RecordId>().unwrap_err()),
        ("bad-signing-key", signing_file_error("not a key\n", true)),
        (
            "bad-allowed-signers",
            signing_file_error("alice@example.com unknown-option ssh-ed25519 AAAA\n", false),
        ),
    ];
    match untrusted_repository() {
        Some(e) => cases.push(("untrusted-repository", e)),
        None => {
            eprintln!("untrusted-repository not provoked: needs root to give a repository away")
        }
    }
    let mut covered: BTreeSet<&str> = FRONT_DOOR_ONLY.iter().map(|(c, _)| *c).collect();
    for (code, error) in &cases {
        assert_eq!(error.code(), *code, "{error}");
        assert!(!error.to_string().is_empty());
        covered.insert(code);
    }
    let all: BTreeSet<&str> = Error::CODES.iter().copied().collect();
    let missing: Vec<&&str> = all.difference(&covered).collect();
    let root = unsafe_free_is_root();
    assert!(
        missing.is_empty() || (!root && missing == [&"untrusted-repository"]),
        "codes without a case: {missing:?}"
    );
}

fn unsafe_free_is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}
