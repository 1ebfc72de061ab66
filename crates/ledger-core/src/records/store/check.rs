//! The store's integrity check: what an interrupted or conflicting write left
//! behind stays visible (docs/approvals.md, The record store).

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;

use serde::{Deserialize, Serialize};

use super::decide::Orphan;
use super::git::GitRefs;
use super::objects;
use super::shared::Divergence;
use super::{LOCK, RECORDS, REFS, RecordId, Store, check_ref_name, parse_ref, verify};
use crate::error::{DisplayPath, Error, Result};
use crate::expand::cache::{self, CACHE, CacheReport};
use crate::expand::ledger_dir::{
    GITIGNORE, Kind, Missing, RECORD_LIMIT, REF_LIMIT, StoreDir, TMP, expect, shown,
};
use crate::expand::trust;
use crate::platform::{FileType, OsStrBytes};

/// A ref and the record it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RefHead {
    /// The ref name, e.g. `changes/add-auth`.
    pub name: String,
    /// The record it names.
    pub id: RecordId,
    /// The remote it was fetched from (`None`: this store's own head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
}

/// A store entry whose content cannot be trusted: corrupt, or untrusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CorruptFile {
    /// The entry, relative to the store root (`records/<id>.json`,
    /// `refs/<name>`, `tmp/<name>`, `lock`, ...; `.` for the store directory).
    pub file: String,
    /// What is wrong with it.
    pub reason: String,
}

/// A ref whose chain of records reaches one that is missing or corrupt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DanglingRef {
    /// The ref name.
    pub reference: String,
    /// The first record on its chain that is not an intact record file.
    pub missing: RecordId,
}

/// What [`Store::check`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoreReport {
    /// How many intact records the store holds.
    pub records: usize,
    /// Every readable ref, sorted by name.
    pub refs: Vec<RefHead>,
    /// Intact records that no ref reaches through `previous` links and no
    /// decision names: the records of conflicted or interrupted saves, each
    /// with what it was (decide one with [`Store::decide_orphan`]).
    pub orphans: Vec<Orphan>,
    /// Files left in `tmp/` by interrupted writes.
    pub temp_files: Vec<String>,
    /// Record and ref files whose content cannot be trusted, and every entry
    /// ledger would refuse to read: a symlink, FIFO, device, socket or
    /// directory where another kind belongs, an entry owned by another user,
    /// a file Git tracks.
    pub corrupt: Vec<CorruptFile>,
    /// Refs whose chain reaches a missing or corrupt record.
    pub dangling: Vec<DanglingRef>,
    /// Refs whose heads went apart (a Git store: this store's and a fetched
    /// one, or two fetched ones), each to resolve by an explicit write.
    #[serde(default)]
    pub divergent: Vec<Divergence>,
    /// Lock files left beside the store's Git refs (`refs/ledger/**.lock`),
    /// with their age: each blocks every write of its ref until it is
    /// removed (docs/sharing.md, Stale ref locks).
    #[serde(default)]
    pub locks: Vec<super::RefLock>,
    /// The digest cache, when the store has one. It is disposable: one that
    /// does not check out is discarded by the next expansion and does not make
    /// the store unclean.
    pub cache: Option<CacheReport>,
}

impl StoreReport {
    /// The ids of [`StoreReport::orphans`].
    pub fn orphan_ids(&self) -> Vec<RecordId> {
        self.orphans.iter().map(|orphan| orphan.id).collect()
    }

    /// No orphan, temp file, corrupt file, dangling ref, divergence or
    /// leftover ref lock.
    pub fn is_clean(&self) -> bool {
        self.orphans.is_empty()
            && self.temp_files.is_empty()
            && self.corrupt.is_empty()
            && self.dangling.is_empty()
            && self.divergent.is_empty()
            && self.locks.is_empty()
    }
}

/// Every intact record and the record it follows.
type Links = BTreeMap<RecordId, Option<RecordId>>;

/// One file below `refs/`, read.
pub(super) struct ScannedRef {
    pub(super) name: String,
    /// The record it names, or why it names none (`corrupt-record`,
    /// `untrusted-store`, `too-large`).
    pub(super) head: Result<RecordId>,
}

impl Store {
    /// Lists orphan records, leftover temp files, corrupt records and refs, and
    /// refs whose chain reaches a missing record. Lists as corrupt, too, every
    /// entry ledger would refuse to read — a symlink, FIFO, device, socket or
    /// directory where another kind belongs, an entry owned by another user, a
    /// file Git tracks — instead of following it or stopping at it. An absent
    /// store is clean; a workspace that does not exist is `unreadable`.
    ///
    /// Meant for a store at rest: a save in progress shows as a temp file or an
    /// orphan. It never shows as a dangling ref: refs are read before records,
    /// and a record is complete before any ref names it.
    pub fn check(&self) -> Result<StoreReport> {
        let mut corrupt = Vec::new();
        let refs = self.open_git()?;
        if let Some(refs) = &refs {
            // An older `.ledger/` that cannot be migrated is listed, not followed.
            match self.needs_migration().and_then(|needed| match needed {
                true => self.migrate(refs),
                false => Ok(()),
            }) {
                Ok(()) => {}
                Err(e) => corrupt.push(listed(crate::expand::STORE_DIR.to_owned(), e)?),
            }
        }
        let root = match StoreDir::open_root(self.dir(), Missing::Absent) {
            Ok(Some(root)) => root,
            Ok(None) => {
                let cache = self.cache_report(None, &mut corrupt)?;
                return Ok(StoreReport {
                    cache: cache.and_then(|r| r.ok()),
                    corrupt,
                    ..StoreReport::default()
                });
            }
            Err(e) => {
                corrupt.push(listed(".".to_owned(), e)?);
                return Ok(StoreReport {
                    corrupt,
                    ..StoreReport::default()
                });
            }
        };
        let tracked = match refs {
            Some(_) => Vec::new(),
            None => trust::tracked(self.dir())?,
        };
        for file in tracked {
            let reason = trust::TRACKED.to_owned();
            corrupt.push(CorruptFile { file, reason });
        }
        check_files(&root, &mut corrupt)?;
        let cache = match self.cache_report(Some(&root), &mut corrupt)? {
            Some(Err(e)) => {
                corrupt.push(listed(CACHE.to_owned(), e)?);
                None
            }
            report => report.and_then(|r| r.ok()),
        };
        let scanned = match (&refs, open_listed(&root, REFS, &mut corrupt)?) {
            (Some(_), _) => Vec::new(),
            (None, Some(dir)) => scan_refs_in(&dir)?,
            (None, None) => Vec::new(),
        };
        if let Some(objects) = open_listed(&root, objects::OBJECTS, &mut corrupt)? {
            objects::scan_objects(&objects, &mut corrupt)?;
        }
        let records = match open_listed(&root, RECORDS, &mut corrupt)? {
            Some(dir) => scan_records(&dir, &mut corrupt)?,
            None => Links::new(),
        };
        let mut report = StoreReport {
            records: records.len(),
            temp_files: match open_listed(&root, TMP, &mut corrupt)? {
                Some(dir) => scan_temp(&dir, &mut corrupt)?,
                None => Vec::new(),
            },
            cache,
            ..StoreReport::default()
        };
        let mut reachable = HashSet::new();
        for r in scanned {
            match r.head {
                Ok(id) => {
                    if let Some(missing) = walk(&records, id, &mut reachable) {
                        report.dangling.push(DanglingRef {
                            reference: r.name.clone(),
                            missing,
                        });
                    }
                    report.refs.push(RefHead {
                        name: r.name,
                        id,
                        remote: None,
                    });
                }
                Err(e) => corrupt.push(listed(format!("{REFS}/{}", r.name), e)?),
            }
        }
        if let Some(refs) = &refs {
            self.check_git_refs(refs, &mut report, &mut reachable, &mut corrupt)?;
        }
        // A decision chain that cannot be read decides nothing (and is
        // listed by this check as what it is).
        let decided = self.decided_orphans().unwrap_or_default();
        let orphans = records
            .into_keys()
            .filter(|id| !reachable.contains(id) && !decided.contains(id))
            .collect();
        let own = (report.refs.iter())
            .filter(|head| head.remote.is_none())
            .map(|head| head.name.as_str());
        report.orphans = self.described_orphans(orphans, own);
        corrupt.sort_by(|a, b| a.file.cmp(&b.file));
        report.corrupt = corrupt;
        Ok(report)
    }

    /// The digest cache's report: in the store, or in the checkout's own
    /// `.ledger/` when the store is the repository's.
    fn cache_report(
        &self,
        root: Option<&StoreDir>,
        corrupt: &mut Vec<CorruptFile>,
    ) -> Result<Option<std::result::Result<CacheReport, Error>>> {
        let Some(place) = &self.git else {
            return root.map_or(Ok(None), cache::report);
        };
        match StoreDir::open_root(place.legacy.as_std_path(), Missing::Absent) {
            Ok(Some(own)) => cache::report(&own),
            Ok(None) => Ok(None),
            Err(e) => {
                corrupt.push(listed(crate::expand::STORE_DIR.to_owned(), e)?);
                Ok(None)
            }
        }
    }

    /// The Git refs' part of [`Store::check`]: every ref below `refs/ledger/`
    /// read and its chain walked (a forged ref or chain is listed as corrupt
    /// under its full name), and every divergence.
    fn check_git_refs(
        &self,
        refs: &GitRefs,
        report: &mut StoreReport,
        reachable: &mut HashSet<RecordId>,
        corrupt: &mut Vec<CorruptFile>,
    ) -> Result<()> {
        for scanned in refs.scan()? {
            let head = scanned.head.and_then(|head| {
                let chain = refs.chain(&scanned.full_name, head.commit)?;
                reachable.extend(chain.iter().map(|(_, record)| record.id));
                Ok(head)
            });
            match (head, scanned.name) {
                (Ok(head), Some(name)) => report.refs.push(RefHead {
                    name,
                    id: head.record,
                    remote: head.remote,
                }),
                (Ok(_), None) => {}
                (Err(e), _) => corrupt.push(listed(scanned.full_name, e)?),
            }
        }
        report.divergent = self.divergences(refs)?;
        report.locks = refs.locks()?;
        Ok(())
    }

    /// The ids of every intact record in `records/`, sorted.
    pub(super) fn record_ids(&self) -> Result<Vec<RecordId>> {
        let Some(root) = self.existing_dir()? else {
            return Ok(Vec::new());
        };
        let Some(dir) = root.sub(RECORDS, Missing::Absent)? else {
            return Ok(Vec::new());
        };
        Ok(scan_records(&dir, &mut Vec::new())?.into_keys().collect())
    }

    /// Every file below `refs/`, sorted by name.
    pub(super) fn scan_refs(&self) -> Result<Vec<ScannedRef>> {
        let Some(root) = self.existing_dir()? else {
            return Ok(Vec::new());
        };
        match root.sub(REFS, Missing::Absent)? {
            Some(refs) => scan_refs_in(&refs),
            None => Ok(Vec::new()),
        }
    }
}

/// A problem with the store entry `file` as `check` lists it, when `e` is one
/// (the entry is corrupt, untrusted or too large); any other error stops the
/// check.
pub(crate) fn listed(file: String, e: Error) -> Result<CorruptFile> {
    let reason = match e {
        Error::CorruptRecord { reason, .. } | Error::UntrustedStore { reason, .. } => reason,
        Error::TooLarge { what, limit, .. } => {
            format!("it is larger than {limit} bytes, the most ledger reads of a {what}")
        }
        e => return Err(e),
    };
    Ok(CorruptFile { file, reason })
}

/// The directory `name` of the store, or `None` (listed in `corrupt` when it
/// is not a directory of this user's).
fn open_listed(
    root: &StoreDir,
    name: &str,
    corrupt: &mut Vec<CorruptFile>,
) -> Result<Option<StoreDir>> {
    match root.sub(name, Missing::Absent) {
        Ok(dir) => Ok(dir),
        Err(e) => {
            corrupt.push(listed(name.to_owned(), e)?);
            Ok(None)
        }
    }
}

/// Lists the store's own files (`lock`, `.gitignore`) when they are not
/// regular files of this user's.
fn check_files(root: &StoreDir, corrupt: &mut Vec<CorruptFile>) -> Result<()> {
    for name in [LOCK, GITIGNORE] {
        let path = root.join(name);
        if let Some(stat) = root.stat(name, &path)?
            && let Err(e) = expect(&path, &stat, Kind::File)
        {
            corrupt.push(listed(name.to_owned(), e)?);
        }
    }
    Ok(())
}

/// Intact records (id → previous); the record entries that are not are added
/// to `corrupt`.
fn scan_records(records: &StoreDir, corrupt: &mut Vec<CorruptFile>) -> Result<Links> {
    let mut intact = BTreeMap::new();
    for name in records.names()? {
        let shown_name = format!("{RECORDS}/{}", escaped(&name));
        let id = name
            .to_str()
            .and_then(|n| n.strip_suffix(".json"))
            .and_then(|n| n.parse::<RecordId>().ok());
        let (Some(id), Some(text)) = (id, name.to_str()) else {
            let reason = "not named <64 lowercase hex digits>.json".to_owned();
            corrupt.push(CorruptFile {
                file: shown_name,
                reason,
            });
            continue;
        };
        let bytes = match records.read(text, "record", RECORD_LIMIT) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => continue,
            Err(e) => {
                corrupt.push(listed(shown_name, e)?);
                continue;
            }
        };
        match verify(&id, &bytes) {
            Ok(header) => {
                intact.insert(id, header.previous);
            }
            Err(defect) => corrupt.push(CorruptFile {
                file: shown_name,
                reason: defect.reason().to_owned(),
            }),
        }
    }
    Ok(intact)
}

/// Names of the files left in `tmp/`; its entries that are not regular files
/// of this user's are added to `corrupt` instead.
fn scan_temp(tmp: &StoreDir, corrupt: &mut Vec<CorruptFile>) -> Result<Vec<String>> {
    let mut left = Vec::new();
    for name in tmp.names()? {
        let path = tmp.join(&name);
        let Some(stat) = tmp.stat(&*name, &path)? else {
            continue;
        };
        match expect(&path, &stat, Kind::File) {
            Ok(()) => left.push(escaped(&name)),
            Err(e) => corrupt.push(listed(format!("{TMP}/{}", escaped(&name)), e)?),
        }
    }
    Ok(left)
}

/// Marks the chain from `id` reachable; returns the first id on it that is not
/// an intact record. Bounded by the number of records, so it always ends.
fn walk(records: &Links, id: RecordId, reachable: &mut HashSet<RecordId>) -> Option<RecordId> {
    let mut next = Some(id);
    for _ in 0..=records.len() {
        let current = next?;
        let Some(previous) = records.get(&current) else {
            return Some(current);
        };
        reachable.insert(current);
        next = *previous;
    }
    None
}

/// Every file below the `refs/` directory `refs`, sorted by name.
fn scan_refs_in(refs: &StoreDir) -> Result<Vec<ScannedRef>> {
    let mut found = Vec::new();
    collect_refs(refs, "", &mut found)?;
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// Reads every file below `dir` into `found`; `prefix` is the ref name of `dir`.
fn collect_refs(dir: &StoreDir, prefix: &str, found: &mut Vec<ScannedRef>) -> Result<()> {
    for file_name in dir.names()? {
        let name = format!("{prefix}{}", escaped(&file_name));
        let path = dir.join(&file_name);
        let Some(stat) = dir.stat(&*file_name, &path)? else {
            continue;
        };
        let text = file_name.to_str().filter(|_| check_ref_name(&name).is_ok());
        let is_dir = stat.file_type() == FileType::Directory;
        let head = match text {
            Some(text) if is_dir => match dir.sub(text, Missing::Absent) {
                Ok(Some(sub)) => {
                    collect_refs(&sub, &format!("{name}/"), found)?;
                    continue;
                }
                Ok(None) => continue,
                Err(e) => Err(e),
            },
            Some(text) => match dir.read(text, "ref", REF_LIMIT) {
                Ok(Some(bytes)) => parse_ref(&bytes).map_err(|reason| Error::CorruptRecord {
                    path: shown(&path),
                    reason,
                }),
                Ok(None) => continue,
                Err(e) => Err(e),
            },
            None => Err(Error::CorruptRecord {
                path: shown(&path),
                reason: "not a valid ref name".to_owned(),
            }),
        };
        found.push(ScannedRef { name, head });
    }
    Ok(())
}

/// A file name as text, with invalid bytes escaped.
fn escaped(name: &OsStr) -> String {
    DisplayPath::from_bytes(name.as_bytes()).0
}
