//! The record store under real concurrency: OS processes racing on one ref, and
//! a writer killed in the middle of saving (SPEC §10).
//!
//! Workers are this test binary run again with `--exact store_race::worker
//! --ignored`; the `worker` test does nothing unless the environment names a
//! store.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ledger_core::{
    expand::STORE_DIR,
    records::{Store, StoredRecord},
};
use ledger_testkit::utf8;
use serde::{Deserialize, Serialize};

const REF: &str = "changes/race";
const WORKERS: u32 = 4;
const ATTEMPTS: u32 = 100;

const ENV_STORE: &str = "LEDGER_STORE_RACE_DIR";
const ENV_WORKER: &str = "LEDGER_STORE_RACE_WORKER";
const ENV_RESULT: &str = "LEDGER_STORE_RACE_RESULT";
const ENV_GO: &str = "LEDGER_STORE_RACE_GO";
const ENV_MODE: &str = "LEDGER_STORE_RACE_MODE";

/// The body of every record a worker writes: unique per worker and attempt, so
/// that no two attempts can produce identical bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Attempt {
    worker: u32,
    attempt: u32,
}

/// What a worker reports: the attempts that advanced the ref, and those refused.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Outcome {
    advanced: Vec<u32>,
    conflicted: Vec<u32>,
}

#[test]
#[ignore = "run by the other tests as a separate process"]
fn worker() {
    let Some(dir) = std::env::var_os(ENV_STORE) else {
        return;
    };
    let store = Store::at(dir.into_string().unwrap());
    let worker: u32 = std::env::var(ENV_WORKER).unwrap().parse().unwrap();
    if std::env::var(ENV_MODE).as_deref() == Ok("crash") {
        write_until_killed(&store, worker);
    }
    wait_for(Path::new(&std::env::var_os(ENV_GO).unwrap()));
    let mut outcome = Outcome::default();
    for attempt in 0..ATTEMPTS {
        let head = store.head(REF).unwrap();
        let body = Attempt { worker, attempt };
        match store.commit(REF, "state", head.as_ref(), &body) {
            Ok(_) => outcome.advanced.push(attempt),
            Err(e) if e.code() == "pointer-conflict" => outcome.conflicted.push(attempt),
            Err(e) => panic!("worker {worker} attempt {attempt}: {e}"),
        }
    }
    let result = std::env::var_os(ENV_RESULT).unwrap();
    fs::write(result, serde_json::to_vec(&outcome).unwrap()).unwrap();
}

/// Commits forever (bounded, in case the parent died) until SIGKILL arrives.
fn write_until_killed(store: &Store, worker: u32) -> ! {
    let start = Instant::now();
    let mut attempt = 0;
    while start.elapsed() < Duration::from_secs(60) {
        let head = store.head(REF).unwrap();
        let body = Attempt { worker, attempt };
        store.commit(REF, "state", head.as_ref(), &body).unwrap();
        attempt += 1;
    }
    std::process::exit(3)
}

/// Starting all workers at one signal makes them overlap instead of running
/// one after another as they happen to be spawned.
fn wait_for(go: &Path) {
    let start = Instant::now();
    while !go.exists() {
        assert!(start.elapsed() < Duration::from_secs(30), "no start signal");
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Runs this binary's `worker` test in a new process with umask 000, so that
/// the store's own modes are what decide the files' permissions.
fn spawn(workspace: &Path, worker: u32, mode: &str) -> Child {
    let exe = std::env::current_exe().unwrap();
    Command::new("sh")
        .args(["-c", "umask 000 && exec \"$0\" \"$@\""])
        .arg(exe)
        .args(["--exact", "store_race::worker", "--ignored", "--nocapture"])
        .env(ENV_STORE, workspace.join(STORE_DIR))
        .env(ENV_WORKER, worker.to_string())
        .env(ENV_RESULT, workspace.join(format!("result-{worker}.json")))
        .env(ENV_GO, workspace.join("go"))
        .env(ENV_MODE, mode)
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

fn body(store: &Store, id: &ledger_core::records::RecordId) -> Attempt {
    store.read_record::<Attempt>(id).unwrap().body
}

#[test]
fn racing_processes_each_advance_the_chain_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<Child> = (0..WORKERS).map(|w| spawn(dir.path(), w, "race")).collect();
    fs::write(dir.path().join("go"), b"").unwrap();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a worker failed");
    }

    let mut advanced = BTreeSet::new();
    let mut conflicted = BTreeSet::new();
    for worker in 0..WORKERS {
        let path = dir.path().join(format!("result-{worker}.json"));
        let outcome: Outcome = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
        assert_eq!(
            outcome.advanced.len() + outcome.conflicted.len(),
            ATTEMPTS as usize
        );
        let attempt = |a| Attempt { worker, attempt: a };
        advanced.extend(outcome.advanced.into_iter().map(attempt));
        conflicted.extend(outcome.conflicted.into_iter().map(attempt));
    }
    eprintln!(
        "{} advanced, {} conflicted",
        advanced.len(),
        conflicted.len()
    );

    let store = Store::open(utf8(dir.path())).unwrap();
    let chain = store.history(REF).unwrap();
    let on_chain: BTreeSet<Attempt> = chain.iter().map(|id| body(&store, id)).collect();
    // Every reported success is on the chain exactly once, and nothing else is.
    assert_eq!(chain.len(), advanced.len());
    assert_eq!(on_chain, advanced);

    let report = store.check().unwrap();
    let orphans: BTreeSet<Attempt> = report
        .orphan_ids()
        .iter()
        .map(|id| body(&store, id))
        .collect();
    // Every refused attempt left exactly its record behind, as an orphan.
    assert_eq!(report.orphans.len(), conflicted.len());
    assert_eq!(orphans, conflicted);
    assert_eq!(report.records, chain.len() + report.orphans.len());
    assert!(report.corrupt.is_empty(), "{:?}", report.corrupt);
    assert!(report.dangling.is_empty(), "{:?}", report.dangling);
    assert!(report.temp_files.is_empty(), "{:?}", report.temp_files);
    // Four processes on one ref: if none ever collided, this test proved nothing.
    assert!(!conflicted.is_empty(), "the workers never raced");
    // Four processes created the store at once: one wrote its .gitignore.
    assert_eq!(fs::read(store.root().join(".gitignore")).unwrap(), b"*\n");
    assert_modes(store.root().as_std_path());
}

/// Written under umask 000: files exactly 0600, directories exactly 0700 (the
/// store is private to its user, whatever the umask lets through).
fn assert_modes(dir: &Path) {
    let mode = fs::metadata(dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{dir:?}");
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_modes(&path);
        } else {
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{path:?}");
        }
    }
}

#[test]
fn a_writer_killed_mid_save_leaves_a_valid_ref_and_visible_leftovers() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    let mut child = spawn(dir.path(), 0, "crash");
    let start = Instant::now();
    while store.history(REF).map_or(0, |h| h.len()) < 30 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the writer stalled"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no cleanup runs.
    child.wait().unwrap();

    let head = store.head(REF).unwrap().unwrap();
    let record: StoredRecord<Attempt> = store.read_record(&head).unwrap();
    let chain = store.history(REF).unwrap();
    assert_eq!(record.body.attempt as usize + 1, chain.len());

    let report = store.check().unwrap();
    assert!(report.corrupt.is_empty(), "{:?}", report.corrupt);
    assert!(report.dangling.is_empty(), "{:?}", report.dangling);
    // One writer: at most the record it wrote but had not yet pointed to.
    assert!(report.orphans.len() <= 1, "{:?}", report.orphans);
    assert_eq!(report.records, chain.len() + report.orphans.len());
    let mut left: Vec<String> = fs::read_dir(store.root().join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    eprintln!(
        "killed after {} saves; left: {:?} {left:?}",
        chain.len(),
        report.orphan_ids()
    );
    assert!(left.len() <= 1, "{left:?}");
    assert_eq!(report.temp_files, left);
}

#[test]
fn an_interrupted_save_stays_visible_and_the_ref_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(utf8(dir.path())).unwrap();
    let first = store.commit(REF, "state", None, &1).unwrap();
    let head = store.commit(REF, "state", Some(&first), &2).unwrap();
    // As if a writer died after its record was linked but before the ref moved,
    // and another died while its temp file was half written.
    let orphan = store.write_record("state", Some(&head), &3).unwrap();
    fs::write(store.root().join("tmp/record-4242-0.tmp"), b"{\n  \"form").unwrap();

    let report = store.check().unwrap();
    assert_eq!(report.orphan_ids(), vec![orphan]);
    assert_eq!(report.temp_files, vec!["record-4242-0.tmp".to_owned()]);
    assert!(report.corrupt.is_empty() && report.dangling.is_empty());
    assert!(!report.is_clean());
    assert_eq!(store.head(REF).unwrap(), Some(head));
    assert_eq!(store.read_record::<u32>(&head).unwrap().body, 2);
    assert_eq!(store.history(REF).unwrap(), vec![head, first]);
}
