//! The digest cache (docs/performance.md, The digest cache): an expansion answers
//! the same with it and without it, whatever happened to the files; it is used
//! only in a trusted store; a cache that does not check out is discarded.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use ledger_core::{
    expand::{Content, Entry, Inventory, Scope},
    records::Store,
};
use ledger_testkit::{Git, SharedWriter, utf8};
use proptest::prelude::*;
use sha2::{Digest as _, Sha256};

use crate::disk::{is_tmpfs, writeback_tempdir};

/// The tests that look at the cache file run one at a time (the cache is
/// off only in the scopes that say so: a setting, not a switch of the process).
static SWITCH: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SWITCH
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Longer than the cache's timestamp granularity: files older than this at the
/// start of an expansion are recorded.
const AGE: Duration = Duration::from_millis(2200);

const CACHE: &str = ".ledger/digest-cache";

/// A workspace with a store and `files` files in a few directories, aged so
/// that the next expansion records them all.
fn aged_tree(files: usize) -> tempfile::TempDir {
    let dir = tree(files);
    std::thread::sleep(AGE);
    dir
}

fn tree(files: usize) -> tempfile::TempDir {
    let dir = writeback_tempdir();
    std::fs::create_dir(dir.path().join(".ledger")).unwrap();
    for i in 0..files {
        let sub = dir.path().join(format!("d{}", i % 7));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("f{i}")), content(i, 0)).unwrap();
    }
    dir
}

/// An aged tree of [`FILES`] files for the property test; each file `i` with
/// `i % MAPPED_EVERY == 0` is mapped shared and was written through its mapping
/// before the tree aged, so that its page is still dirty when the test starts.
struct AgedTree {
    dir: tempfile::TempDir,
    maps: Vec<(usize, SharedWriter)>,
}

const MAPPED_EVERY: usize = 10;

/// Aged trees for the property test, made in batches so that one wait ages many.
static AGED: Mutex<Vec<AgedTree>> = Mutex::new(Vec::new());

fn take_aged_tree() -> AgedTree {
    let mut pool = AGED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if pool.is_empty() {
        pool.extend((0..16).map(|_| {
            let dir = tree(FILES);
            let maps = (0..FILES)
                .step_by(MAPPED_EVERY)
                .map(|i| {
                    let mut map = SharedWriter::open(&path_of(dir.path(), i));
                    map.poke(1, b'M');
                    (i, map)
                })
                .collect();
            AgedTree { dir, maps }
        }));
        std::thread::sleep(AGE);
    }
    pool.pop().unwrap()
}

fn content(i: usize, version: u8) -> Vec<u8> {
    let mut bytes = vec![b'a' + (i % 26) as u8; 100 + i % 300];
    bytes[0] = version;
    bytes
}

fn scope_of(dir: &Path) -> Scope {
    let mut scope = Scope::new(utf8(dir));
    scope.add_root(".").unwrap();
    scope
}

/// How many digests the cache file holds (0 when there is none).
fn cached(dir: &Path) -> u64 {
    match std::fs::read(dir.join(CACHE)) {
        Ok(bytes) => u64::from_le_bytes(bytes[16..24].try_into().unwrap()),
        Err(_) => 0,
    }
}

/// Expands with the cache and checks every entry against a fresh read of its
/// path (the truth, which never goes through the cache).
fn expand_checked(dir: &Path) -> Inventory {
    let inventory = Inventory::expand(&scope_of(dir)).unwrap();
    for entry in &inventory.entries {
        let truth = Entry::read(dir, &entry.path, false).unwrap();
        assert_eq!(entry, &truth, "{}", entry.path);
    }
    inventory
}

fn set_mtime(path: &Path, time: std::time::SystemTime) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[test]
fn an_unchanged_file_is_answered_from_the_cache() {
    let _serial = serial();
    let dir = aged_tree(30);
    let first = expand_checked(dir.path());
    assert_eq!(cached(dir.path()), 30);
    // Forge the digest of one entry (and the checksum, so that the file still
    // checks out): only a lookup can make the expansion report it.
    let mut bytes = std::fs::read(dir.path().join(CACHE)).unwrap();
    let at = 24 + 24; // the header, then the first key
    bytes[at..at + 32].copy_from_slice(&[0xAB; 32]);
    let body = bytes.len() - 32;
    let sum: [u8; 32] = Sha256::digest(&bytes[..body]).into();
    bytes[body..].copy_from_slice(&sum);
    std::fs::write(dir.path().join(CACHE), &bytes).unwrap();
    let forged = Inventory::expand(&scope_of(dir.path())).unwrap();
    let changed: Vec<_> = forged
        .entries
        .iter()
        .zip(&first.entries)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.content)
        .collect();
    assert_eq!(changed.len(), 1, "exactly the forged entry differs");
    assert!(matches!(changed[0], Content::File { digest, .. } if digest.0 == [0xAB; 32]));
    // Without the cache, every file is read.
    let uncached = Inventory::expand(&uncached_scope(&scope_of(dir.path())));
    assert_eq!(uncached.unwrap(), first);
}

#[test]
fn every_kind_of_change_to_a_cached_file_is_seen() {
    let _serial = serial();
    let dir = aged_tree(14);
    let d = dir.path();
    let before = expand_checked(d);
    assert_eq!(cached(d), 14);
    let old_mtime = std::fs::metadata(d.join("d0/f0"))
        .unwrap()
        .modified()
        .unwrap();
    // Same size, new bytes, within the same second as the cache was written.
    std::fs::write(d.join("d0/f0"), content(0, 1)).unwrap();
    // Same size, new bytes, the modification time restored (`touch -r`).
    let f1 = d.join("d1/f1");
    let mtime = std::fs::metadata(&f1).unwrap().modified().unwrap();
    std::fs::write(&f1, content(1, 1)).unwrap();
    set_mtime(&f1, mtime);
    // Renamed over by a file of the same size and modification time.
    let f2 = d.join("d2/f2");
    let mtime = std::fs::metadata(&f2).unwrap().modified().unwrap();
    std::fs::write(d.join("d2/new"), content(2, 1)).unwrap();
    set_mtime(&d.join("d2/new"), mtime);
    std::fs::rename(d.join("d2/new"), &f2).unwrap();
    // Made executable; replaced by a symlink; removed; appended to.
    std::fs::set_permissions(d.join("d3/f3"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(d.join("d4/f4")).unwrap();
    symlink("f11", d.join("d4/f4")).unwrap();
    std::fs::remove_file(d.join("d5/f5")).unwrap();
    OpenOptions::new()
        .append(true)
        .open(d.join("d6/f6"))
        .unwrap()
        .write_all(b"!")
        .unwrap();
    // Rewritten twice within moments, the same size both times.
    std::fs::write(d.join("d0/f7"), content(7, 1)).unwrap();
    let middle = expand_checked(d);
    std::fs::write(d.join("d0/f7"), content(7, 2)).unwrap();
    set_mtime(&d.join("d0/f7"), old_mtime);
    let after = expand_checked(d);
    let differs = |p: &str| {
        let find = |inv: &Inventory| inv.entries.iter().find(|e| e.path.as_str() == p).cloned();
        find(&before) != find(&after)
    };
    for path in [
        "d0/f0", "d1/f1", "d2/f2", "d3/f3", "d4/f4", "d6/f6", "d0/f7",
    ] {
        assert!(differs(path), "{path} changed");
    }
    assert!(!after.entries.iter().any(|e| e.path.as_str() == "d5/f5"));
    assert_ne!(middle.fingerprint, after.fingerprint);
}

#[test]
fn files_changed_moments_ago_are_not_recorded() {
    let _serial = serial();
    let dir = aged_tree(5);
    std::fs::write(dir.path().join("fresh"), b"new").unwrap();
    // "Moments ago" without a race against the scheduler: on a loaded machine
    // the write's own times can age past the margin before the expansion
    // starts, so its mtime is set where no clock has reached yet.
    set_mtime(
        &dir.path().join("fresh"),
        std::time::SystemTime::now() + Duration::from_secs(3600),
    );
    expand_checked(dir.path());
    assert_eq!(
        cached(dir.path()),
        5,
        "the fresh file is read again next time"
    );
}

#[test]
fn tasks_files_and_symlinks_are_never_cached() {
    let _serial = serial();
    let dir = writeback_tempdir();
    std::fs::create_dir(dir.path().join(".ledger")).unwrap();
    std::fs::write(dir.path().join("tasks.md"), b"- [x] 1.1 [core] A\n").unwrap();
    std::fs::write(dir.path().join("plain"), b"x").unwrap();
    symlink("plain", dir.path().join("link")).unwrap();
    std::thread::sleep(AGE);
    let mut scope = scope_of(dir.path());
    scope.add_tasks("tasks.md").unwrap();
    let inventory = Inventory::expand(&scope).unwrap();
    assert_eq!(inventory.entries.len(), 3);
    assert_eq!(cached(dir.path()), 1, "only the plain file");
}

#[test]
fn a_workspace_without_a_store_gets_none() {
    let _serial = serial();
    let dir = writeback_tempdir();
    std::fs::write(dir.path().join("f"), b"x").unwrap();
    expand_checked(dir.path());
    assert!(!dir.path().join(".ledger").exists(), "no store is created");
}

#[test]
fn a_cache_that_does_not_check_out_is_discarded_and_replaced() {
    let _serial = serial();
    let dir = aged_tree(10);
    let good = expand_checked(dir.path());
    let cache = dir.path().join(CACHE);
    let mut bytes = std::fs::read(&cache).unwrap();
    bytes[30] ^= 0xFF;
    for bad in [bytes, b"garbage".to_vec(), Vec::new()] {
        std::fs::write(&cache, bad).unwrap();
        assert_eq!(expand_checked(dir.path()), good);
        assert_eq!(cached(dir.path()), 10, "rewritten whole");
        let report = Store::open(utf8(dir.path())).unwrap().check().unwrap();
        assert!(report.cache.unwrap().intact);
    }
    std::fs::write(&cache, b"garbage").unwrap();
    let report = Store::open(utf8(dir.path())).unwrap().check().unwrap();
    let cache_report = report.cache.clone().unwrap();
    assert_eq!((cache_report.bytes, cache_report.intact), (7, false));
    assert!(
        report.is_clean(),
        "a broken cache does not make the store unclean"
    );
}

#[test]
fn an_untrusted_store_gets_no_cache() {
    let _serial = serial();
    // A symlink where the cache belongs is listed by `store check`, never read
    // through nor written through: the new cache replaces the link itself.
    let dir = aged_tree(4);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("target"), b"planted").unwrap();
    symlink(elsewhere.path().join("target"), dir.path().join(CACHE)).unwrap();
    let report = Store::open(utf8(dir.path())).unwrap().check().unwrap();
    assert!(report.corrupt.iter().any(|c| c.file == "digest-cache"));
    expand_checked(dir.path());
    assert_eq!(
        std::fs::read(elsewhere.path().join("target")).unwrap(),
        b"planted"
    );
    let cache = std::fs::symlink_metadata(dir.path().join(CACHE)).unwrap();
    assert!(cache.is_file());
    assert_eq!(cached(dir.path()), 4);

    // A store Git tracks came with the checkout: its cache is not used, nor written.
    let repo = aged_tree(4);
    let git = Git::isolated().identity("t", "t@t");
    git.run(repo.path(), &["init", "-q"]);
    std::fs::write(repo.path().join(".ledger/planted"), b"x").unwrap();
    git.run(repo.path(), &["add", "-A"]);
    std::thread::sleep(AGE);
    expand_checked(repo.path());
    assert_eq!(cached(repo.path()), 0);
    git.run(repo.path(), &["rm", "-q", "--cached", ".ledger/planted"]);
    expand_checked(repo.path());
    assert_eq!(cached(repo.path()), 4);
}

#[test]
fn a_store_the_cache_cannot_be_written_to_still_answers() {
    let _serial = serial();
    let dir = aged_tree(6);
    expand_checked(dir.path());
    assert_eq!(cached(dir.path()), 6);
    // `tmp` is a file: no temp file can be made, so nothing is written.
    std::fs::remove_dir_all(dir.path().join(".ledger/tmp")).unwrap();
    std::fs::write(dir.path().join(".ledger/tmp"), b"").unwrap();
    std::fs::write(dir.path().join("d0/f0"), b"changed").unwrap();
    let before = std::fs::read(dir.path().join(CACHE)).unwrap();
    expand_checked(dir.path());
    assert_eq!(std::fs::read(dir.path().join(CACHE)).unwrap(), before);
}

/// The expansion with the cache and the one without it.
fn cached_and_uncached(dir: &Path) -> (Inventory, Inventory) {
    let cached = Inventory::expand(&scope_of(dir)).unwrap();
    let uncached = Inventory::expand(&uncached_scope(&scope_of(dir)));
    (cached, uncached.unwrap())
}

/// The paths whose entries differ between two expansions of one tree.
fn differing(a: &Inventory, b: &Inventory) -> Vec<String> {
    let paths = |inv: &Inventory| -> std::collections::BTreeMap<String, Content> {
        inv.entries
            .iter()
            .map(|e| (e.path.as_str().to_owned(), e.content))
            .collect()
    };
    let (a, b) = (paths(a), paths(b));
    let mut all: Vec<String> = a.keys().chain(b.keys()).cloned().collect();
    all.dedup();
    all.retain(|p| a.get(p) != b.get(p));
    all
}

/// The sequence of issue 29: a file written once through a shared mapping,
/// fingerprinted (the cache records its digest), written again through the same
/// mapping (the same page, still dirty: no write fault, so no new time), then
/// unmapped and synced — or synced through the mapping and left mapped, or left
/// as it is. Every later expansion sees the second write.
#[test]
fn a_second_write_through_a_shared_mapping_is_seen() {
    let _serial = serial();
    for ending in ["munmap and fsync", "msync, still mapped", "still mapped"] {
        let dir = tree(3);
        let path = path_of(dir.path(), 0);
        let mut writer = SharedWriter::open(&path);
        writer.poke(0, b'X');
        std::thread::sleep(AGE);
        let first = expand_checked(dir.path());
        assert_eq!(
            cached(dir.path()),
            3,
            "{ending}: the cache recorded the tree"
        );
        writer.poke(1, b'Y');
        let kept = match ending {
            "munmap and fsync" => {
                writer.close();
                None
            }
            "msync, still mapped" => {
                writer.msync();
                Some(writer)
            }
            _ => Some(writer),
        };
        for run in 0..2 {
            let (cached, uncached) = cached_and_uncached(dir.path());
            assert_ne!(
                uncached.fingerprint, first.fingerprint,
                "{ending}: the bytes changed"
            );
            let differ = differing(&cached, &uncached);
            assert!(
                cached == uncached,
                "{ending}: run {run} with the cache: {differ:?}"
            );
        }
        drop(kept);
    }
}

/// A mapping made after the cache recorded the file, read before it is
/// written: the write is the first to the page since the expansion, and seen.
#[test]
fn a_write_through_a_mapping_made_after_the_expansion_is_seen() {
    let _serial = serial();
    let dir = aged_tree(3);
    let path = path_of(dir.path(), 1);
    let first = expand_checked(dir.path());
    let mut writer = SharedWriter::open(&path);
    let _read = writer.peek(0);
    writer.poke(0, b'Z');
    let (cached, uncached) = cached_and_uncached(dir.path());
    assert_ne!(uncached.fingerprint, first.fingerprint);
    assert_eq!(cached, uncached);
    writer.close();
}

/// On a file system without writeback (tmpfs), a page of a shared mapping stays
/// writable for as long as it is mapped, and writes through it never move a
/// time: no file there is ever recorded, and a write through a mapping is seen.
#[test]
fn files_on_a_file_system_without_writeback_are_never_recorded() {
    let _serial = serial();
    let Some(tmpfs) = ["/dev/shm", "/run/user", "/tmp"]
        .into_iter()
        .find(|dir| is_tmpfs(Path::new(dir)) && tempfile::tempdir_in(dir).is_ok())
    else {
        eprintln!("no writable tmpfs on this machine: nothing to check");
        return;
    };
    let dir = tempfile::tempdir_in(tmpfs).unwrap();
    std::fs::create_dir(dir.path().join(".ledger")).unwrap();
    std::fs::write(dir.path().join("f"), content(0, 0)).unwrap();
    let mut writer = SharedWriter::open(&dir.path().join("f"));
    writer.poke(0, b'X');
    std::thread::sleep(AGE);
    let first = expand_checked(dir.path());
    assert_eq!(cached(dir.path()), 0, "nothing on {tmpfs} is recorded");
    writer.poke(1, b'Y');
    let (cached, uncached) = cached_and_uncached(dir.path());
    assert_ne!(uncached.fingerprint, first.fingerprint);
    assert_eq!(cached, uncached);
}

/// What a property-test step does to the tree.
#[derive(Debug, Clone)]
enum Op {
    /// Same size, new bytes.
    Rewrite(usize),
    /// Same size, new bytes, the old modification time put back (`touch -r`).
    RewriteKeepMtime(usize),
    /// A file of the same size and modification time renamed over it.
    RenameOver(usize),
    /// The execute bits flipped.
    Chmod(usize),
    /// Replaced by a symlink.
    Symlink(usize),
    /// Removed.
    Remove(usize),
    /// A byte added.
    Append(usize),
    /// New modification time, same bytes.
    Touch(usize),
    /// A byte stored through the file's shared mapping, when it has one (see
    /// [`AgedTree`]): its page may still be dirty from before the tree aged.
    MapWrite(usize),
    /// An expansion between two steps (so that two rewrites fall within moments).
    Expand,
}

fn op() -> impl Strategy<Value = Op> {
    let i = 0..FILES;
    prop_oneof![
        i.clone().prop_map(Op::Rewrite),
        i.clone().prop_map(Op::RewriteKeepMtime),
        i.clone().prop_map(Op::RenameOver),
        i.clone().prop_map(Op::Chmod),
        i.clone().prop_map(Op::Symlink),
        i.clone().prop_map(Op::Remove),
        i.clone().prop_map(Op::Append),
        i.clone().prop_map(Op::Touch),
        i.prop_map(|i| Op::MapWrite(i - i % MAPPED_EVERY)),
        Just(Op::Expand),
    ]
}

const FILES: usize = 120;

fn path_of(dir: &Path, i: usize) -> std::path::PathBuf {
    dir.join(format!("d{}/f{i}", i % 7))
}

/// Applies `op`, as a user or a tool would; a step on a file that is no longer
/// a regular file writes it anew (a mapping keeps writing the file it mapped).
fn apply(tree: &mut AgedTree, op: &Op, version: u8) {
    let dir = tree.dir.path();
    let file = |i: usize| {
        let path = path_of(dir, i);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(&path);
            std::fs::write(&path, content(i, version)).unwrap();
        }
        path
    };
    match *op {
        Op::Rewrite(i) => std::fs::write(file(i), content(i, version)).unwrap(),
        Op::RewriteKeepMtime(i) => {
            let path = file(i);
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            std::fs::write(&path, content(i, version)).unwrap();
            set_mtime(&path, mtime);
        }
        Op::RenameOver(i) => {
            let path = file(i);
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            let temp = dir.join("renamed.tmp");
            std::fs::write(&temp, content(i, version)).unwrap();
            set_mtime(&temp, mtime);
            std::fs::rename(&temp, &path).unwrap();
        }
        Op::Chmod(i) => {
            let path = file(i);
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode ^ 0o111)).unwrap();
        }
        Op::Symlink(i) => {
            let path = file(i);
            std::fs::remove_file(&path).unwrap();
            symlink(format!("target{version}"), &path).unwrap();
        }
        Op::Remove(i) => {
            let _ = std::fs::remove_file(path_of(dir, i));
        }
        Op::Append(i) => OpenOptions::new()
            .append(true)
            .open(file(i))
            .unwrap()
            .write_all(&[version])
            .unwrap(),
        Op::Touch(i) => set_mtime(&file(i), std::time::SystemTime::now()),
        Op::MapWrite(i) => {
            let (_, map) = tree.maps.iter_mut().find(|(m, _)| *m == i).unwrap();
            map.poke(2, version);
        }
        Op::Expand => {
            expand_checked(dir);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    })]

    /// Random steps on a cached tree: after each case, the expansion with the
    /// cache equals the one without it, entry by entry and in its fingerprint.
    #[test]
    fn the_cache_never_changes_the_answer(cases in prop::collection::vec(prop::collection::vec(op(), 1..8), 1..4)) {
        let mut tree = take_aged_tree();
        let _serial = serial();
        let dir = tree.dir.path().to_owned();
        expand_checked(&dir);
        prop_assert_eq!(cached(&dir), FILES as u64);
        for (round, steps) in cases.iter().enumerate() {
            for (n, step) in steps.iter().enumerate() {
                apply(&mut tree, step, u8::try_from(round * 8 + n + 1).unwrap());
            }
            let (cached, uncached) = cached_and_uncached(&dir);
            prop_assert!(cached == uncached, "differ: {:?}", differing(&cached, &uncached));
        }
    }
}

/// `scope` expanded without the digest cache (a setting of its own).
fn uncached_scope(scope: &Scope) -> Scope {
    scope.clone().with_settings(ledger_core::Settings {
        digest_cache: false,
        ..ledger_core::Settings::default()
    })
}
