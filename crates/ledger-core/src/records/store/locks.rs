//! Lock files left beside the store's Git refs (docs/sharing.md, Stale ref
//! locks): listing them with their age, refusing a write that meets one with
//! what to do, and removing the abandoned ones.
//!
//! Git and gix update a ref `R` by creating `R.lock`, writing the new value
//! into it and renaming it over `R`. A writer killed in between (`kill -9`, a
//! crash, a power loss) leaves `R.lock` behind, and every later update of `R`
//! fails until it is removed. A ledger writer holds a ref's lock for the
//! milliseconds of one update, under the store's own `lock`; a Git process
//! (`git fetch` writing `refs/ledger/remotes/`) holds one as briefly. gix's
//! lock files carry no process id, so their age is the one sign a lock was
//! abandoned: one older than [`ABANDONED_AFTER`] is taken to be.
//!
//! The store's own `lock` is an `flock` on a file that stays, which the kernel
//! drops when its holder dies, and a `.ledger/` store has no other lock: only
//! the Git refs can be left locked.

use std::ffi::OsStr;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::ledger_dir::unreadable;
use crate::nofollow;
use crate::platform::{self, Errno, FileType, Handle, OsStrBytes, Stat};

/// The age past which a ref's lock file is taken as abandoned: far beyond
/// the milliseconds any writer holds one.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(10 * 60);

/// The least age [`crate::records::Store::unlock`] accepts as its bound: a
/// lock younger than this may belong to a writer still running.
pub const UNLOCK_FLOOR: Duration = Duration::from_secs(60);

/// Where the store's refs are, below the repository's common directory.
const LEDGER_REFS: &str = "refs/ledger";

/// What a lock file's name ends with.
const LOCK_SUFFIX: &str = ".lock";

/// A lock file left beside a ref of the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RefLock {
    /// The lock file, relative to the repository's common Git directory,
    /// e.g. `refs/ledger/heads/changes/add-auth.lock`.
    pub file: String,
    /// Its age in whole seconds, from its modification time.
    pub age_seconds: u64,
    /// Whether it is older than [`ABANDONED_AFTER`]: no writer holds a ref's
    /// lock that long, so the one that made it was killed.
    pub abandoned: bool,
}

/// What [`crate::records::Store::unlock`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Unlocked {
    /// The bound: only locks at least this old (in seconds) were removed.
    pub older_than_seconds: u64,
    /// The lock files removed.
    pub removed: Vec<RefLock>,
    /// The lock files left because they are younger than the bound (or
    /// changed while they were looked at): a writer may still hold them.
    pub kept: Vec<RefLock>,
}

/// A lock file as it was seen: where, and which file it was.
pub(super) struct Seen {
    /// Its directory, relative to the common directory.
    dir: String,
    /// Its name in that directory.
    name: Vec<u8>,
    /// The file's identity and modification time: a file removed and made
    /// anew under the same name (even on the same inode) is another lock.
    identity: (u64, u64, i64, i64),
    /// As listed.
    pub(super) lock: RefLock,
}

/// Every lock file below `refs/ledger/` of the common directory `common`,
/// sorted by name; no symlink is followed.
pub(super) fn scan(common: &Path) -> Result<Vec<Seen>> {
    let root = nofollow::open_workspace(common)?;
    let mut found = Vec::new();
    if let Some(refs) = open(common, &root, LEDGER_REFS)? {
        collect(common, &refs, LEDGER_REFS, &mut found)?;
    }
    found.sort_by(|a, b| a.lock.file.cmp(&b.lock.file));
    Ok(found)
}

/// The directory `dir` below `root`, opened without following a symlink;
/// `None` when it does not exist.
fn open(common: &Path, root: &Handle, dir: &str) -> Result<Option<Handle>> {
    match nofollow::open_dir(root, dir) {
        Ok(fd) => Ok(fd),
        Err(problem) => {
            let path = common.join(dir);
            Err(match problem {
                nofollow::DirProblem::Symlink(_) => Error::UntrustedStore {
                    path: shown(&path),
                    reason: "a directory of the store's refs is a symlink; ledger follows none"
                        .to_owned(),
                },
                nofollow::DirProblem::Unreadable(_, e) => {
                    unreadable(&path, "open directory", std::io::Error::new(e.kind(), e))
                }
            })
        }
    }
}

fn collect(common: &Path, dir: &Handle, prefix: &str, found: &mut Vec<Seen>) -> Result<()> {
    let names = platform::read_dir_names(dir)
        .map_err(|e| unreadable(&common.join(prefix), "read directory", e.into()))?;
    for name in names {
        let shown_name = format!("{prefix}/{}", DisplayPath::from_bytes(&name).0);
        let Ok(stat) = platform::stat_at(dir, OsStr::from_bytes(&name)) else {
            continue;
        };
        match stat.file_type() {
            FileType::Directory => {
                let Ok(sub) = platform::open_dir_at(dir, OsStr::from_bytes(&name)) else {
                    continue;
                };
                collect(common, &sub, &shown_name, found)?;
            }
            FileType::RegularFile if name.ends_with(LOCK_SUFFIX.as_bytes()) => {
                found.push(Seen {
                    dir: prefix.to_owned(),
                    name,
                    identity: identity(&stat),
                    lock: ref_lock(shown_name, &stat),
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// A file's device, inode and modification time.
fn identity(stat: &Stat) -> (u64, u64, i64, i64) {
    (stat.st_dev, stat.st_ino, stat.st_mtime, stat.st_mtime_nsec)
}

/// The lock file `file` as listed, its age from `stat`'s modification time.
fn ref_lock(file: String, stat: &Stat) -> RefLock {
    let age_seconds = age(stat).as_secs();
    RefLock {
        file,
        age_seconds,
        abandoned: age_seconds >= ABANDONED_AFTER.as_secs(),
    }
}

/// How long ago `stat`'s file was last modified (zero for a time ahead of the clock).
fn age(stat: &Stat) -> Duration {
    let modified = u64::try_from(stat.st_mtime)
        .map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    SystemTime::now()
        .duration_since(modified)
        .unwrap_or(Duration::ZERO)
}

/// Removes every lock file of [`scan`] at least `older_than` old. The caller
/// holds the store's lock, so no ledger writer of this store is between
/// taking a ref's lock and releasing it. A Git process may be: its lock is
/// milliseconds old, younger than any bound allowed here. Each file is looked
/// at again right before it is removed, through its directory's descriptor
/// (no symlink followed), and removed only if it is still the very file
/// judged (same device, inode and modification time) and still old enough:
/// a lock a live writer made since, even on a reused inode, is left alone.
pub(super) fn remove(common: &Path, older_than: Duration) -> Result<Unlocked> {
    let mut unlocked = Unlocked {
        older_than_seconds: older_than.as_secs(),
        ..Unlocked::default()
    };
    let root = nofollow::open_workspace(common)?;
    for seen in scan(common)? {
        match remove_one(common, &root, &seen, older_than)? {
            true => unlocked.removed.push(seen.lock),
            false => unlocked.kept.push(seen.lock),
        }
    }
    Ok(unlocked)
}

/// Removes the lock file `seen` if it is at least `older_than` old and still
/// the very file that was seen; `false`: it was kept.
fn remove_one(common: &Path, root: &Handle, seen: &Seen, older_than: Duration) -> Result<bool> {
    if seen.lock.age_seconds < older_than.as_secs() {
        return Ok(false);
    }
    let Some(dir) = open(common, root, &seen.dir)? else {
        return Ok(false);
    };
    let name = OsStr::from_bytes(&seen.name);
    let still = platform::stat_at(&dir, name).ok();
    let same = still.as_ref().is_some_and(|stat| {
        identity(stat) == seen.identity
            && stat.file_type() == FileType::RegularFile
            && age(stat) >= older_than
    });
    if !same {
        return Ok(false);
    }
    match platform::unlink_at(&dir, name) {
        Ok(()) | Err(Errno::NOENT) => Ok(true),
        Err(e) => Err(Error::Unwritable {
            path: shown(&common.join(&seen.dir).join(name)),
            operation: "remove the lock file",
            source: e.into(),
        }),
    }
}

/// `ref-locked` when the ref `full` (a full ref name, of the store ref
/// `reference`) of the common directory `common` has a lock file now.
pub(super) fn locked(common: &Path, full: &str, reference: &str) -> Option<Error> {
    let lock = common.join(format!("{full}{LOCK_SUFFIX}"));
    let stat = platform::lstat(&lock).ok()?;
    if stat.file_type() != FileType::RegularFile {
        return None;
    }
    let age = age(&stat);
    let abandoned = age >= ABANDONED_AFTER;
    let bound = humantime::format_duration(ABANDONED_AFTER);
    let state = if abandoned {
        format!(
            "no writer holds a ref's lock that long (it looks abandoned after {bound}): the one that made it was killed — remove it (ledger store unlock), then write again"
        )
    } else {
        format!(
            "another writer (ledger or git) may be updating the ref — write again when it has finished; if none is running, a killed writer left it, and it can be removed once it is {bound} old (ledger store unlock)"
        )
    };
    Some(Error::RefLocked {
        reference: reference.to_owned(),
        lock: shown(&lock),
        age: humantime::format_duration(Duration::from_secs(age.as_secs())).to_string(),
        abandoned,
        state,
    })
}

fn shown(path: &Path) -> DisplayPath {
    DisplayPath::from_bytes(path.as_os_str().as_bytes())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A lock file `name` below `refs/ledger/heads/` of `common`, last
    /// modified `age` ago.
    fn lock(common: &Path, name: &str, age: Duration) -> std::path::PathBuf {
        let path = common.join("refs/ledger/heads").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let file = std::fs::File::create(&path).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
        path
    }

    #[test]
    fn only_the_very_file_judged_abandoned_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        let old = lock(common, "changes/a.lock", Duration::from_secs(7200));
        let young = lock(common, "changes/b.lock", Duration::from_secs(5));
        let seen = scan(common).unwrap();
        assert_eq!(
            seen.iter()
                .map(|s| (s.lock.file.as_str(), s.lock.abandoned))
                .collect::<Vec<_>>(),
            [
                ("refs/ledger/heads/changes/a.lock", true),
                ("refs/ledger/heads/changes/b.lock", false)
            ]
        );
        // Between the look and the removal, the abandoned lock went and a
        // writer made a new one under its name: that one stays.
        std::fs::remove_file(&old).unwrap();
        lock(common, "changes/a.lock", Duration::from_secs(3 * 3600));
        let root = nofollow::open_workspace(common).unwrap();
        assert!(!remove_one(common, &root, &seen[0], ABANDONED_AFTER).unwrap());
        assert!(old.exists());
        // Younger than the bound: kept; the file judged: removed.
        assert!(!remove_one(common, &root, &seen[1], UNLOCK_FLOOR).unwrap());
        let unlocked = remove(common, ABANDONED_AFTER).unwrap();
        assert_eq!(unlocked.removed.len(), 1);
        assert_eq!(unlocked.kept.len(), 1);
        assert!(!old.exists() && young.exists());
    }

    #[test]
    fn a_symlinked_refs_directory_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        lock(&elsewhere, "x.lock", Duration::from_secs(7200));
        let common = dir.path().join("git");
        std::fs::create_dir_all(common.join("refs")).unwrap();
        crate::platform::symlink(elsewhere.join("refs/ledger"), common.join("refs/ledger"))
            .unwrap();
        let refused = remove(&common, ABANDONED_AFTER).unwrap_err();
        assert_eq!(refused.code(), "untrusted-store");
        assert!(elsewhere.join("refs/ledger/heads/x.lock").exists());
    }
}
