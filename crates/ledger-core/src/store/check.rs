//! The store's integrity check: what an interrupted or conflicting write left
//! behind stays visible (SPEC §10).

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::fsio::{is_absent, unreadable};
use super::{RecordId, Store, check_ref_name, parse_ref, verify};
use crate::error::{DisplayPath, Result};

/// A ref and the record it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefHead {
    /// The ref name, e.g. `changes/add-auth`.
    pub name: String,
    /// The record it names.
    pub id: RecordId,
}

/// A store file whose content cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorruptFile {
    /// The file, relative to the store root (`records/<id>.json`, `refs/<name>`).
    pub file: String,
    /// What is wrong with it.
    pub reason: String,
}

/// A ref whose chain of records reaches one that is missing or corrupt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DanglingRef {
    /// The ref name.
    pub reference: String,
    /// The first record on its chain that is not an intact record file.
    pub missing: RecordId,
}

/// What [`Store::check`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreReport {
    /// How many intact records the store holds.
    pub records: usize,
    /// Every readable ref, sorted by name.
    pub refs: Vec<RefHead>,
    /// Intact records that no ref reaches through `previous` links: the records
    /// of conflicted or interrupted saves.
    pub orphans: Vec<RecordId>,
    /// Files left in `tmp/` by interrupted writes.
    pub temp_files: Vec<String>,
    /// Record and ref files whose content cannot be trusted.
    pub corrupt: Vec<CorruptFile>,
    /// Refs whose chain reaches a missing or corrupt record.
    pub dangling: Vec<DanglingRef>,
}

impl StoreReport {
    /// No orphan, temp file, corrupt file or dangling ref.
    pub fn is_clean(&self) -> bool {
        self.orphans.is_empty()
            && self.temp_files.is_empty()
            && self.corrupt.is_empty()
            && self.dangling.is_empty()
    }
}

/// Every intact record and the record it follows.
type Links = BTreeMap<RecordId, Option<RecordId>>;

/// One file below `refs/`, read.
pub(super) struct ScannedRef {
    pub(super) name: String,
    pub(super) path: PathBuf,
    /// The record it names, or why it names none.
    pub(super) head: Result<RecordId, String>,
}

impl Store {
    /// Lists orphan records, leftover temp files, corrupt records and refs, and
    /// refs whose chain reaches a missing record. An absent store is clean; a
    /// workspace that does not exist is `unreadable`.
    ///
    /// Meant for a store at rest: a save in progress shows as a temp file or an
    /// orphan. It never shows as a dangling ref: refs are read before records,
    /// and a record is complete before any ref names it.
    pub fn check(&self) -> Result<StoreReport> {
        if !self.root().exists() {
            self.check_workspace()?;
        }
        let scanned = self.scan_refs()?;
        let (records, mut corrupt) = self.scan_records()?;
        let mut report = StoreReport {
            records: records.len(),
            temp_files: self.scan_temp()?,
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
                    report.refs.push(RefHead { name: r.name, id });
                }
                Err(reason) => corrupt.push(CorruptFile {
                    file: format!("refs/{}", r.name),
                    reason,
                }),
            }
        }
        report.orphans = records
            .into_keys()
            .filter(|id| !reachable.contains(id))
            .collect();
        corrupt.sort_by(|a, b| a.file.cmp(&b.file));
        report.corrupt = corrupt;
        Ok(report)
    }

    /// Every file below `refs/`, sorted by name.
    pub(super) fn scan_refs(&self) -> Result<Vec<ScannedRef>> {
        let mut found = Vec::new();
        collect_refs(&self.refs_dir(), "", &mut found)?;
        found.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(found)
    }

    /// Intact records (id → previous) and the record files that are not.
    fn scan_records(&self) -> Result<(Links, Vec<CorruptFile>)> {
        let mut records = BTreeMap::new();
        let mut corrupt = Vec::new();
        for (name, path) in list_dir(&self.records_dir())? {
            let id = Path::new(&name)
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|n| n.parse::<RecordId>().ok());
            let shown_name = format!("records/{}", escaped(&name));
            let Some(id) = id else {
                let reason = "not named <64 lowercase hex digits>.json".to_owned();
                corrupt.push(CorruptFile {
                    file: shown_name,
                    reason,
                });
                continue;
            };
            let bytes = fs::read(&path).map_err(|e| unreadable(&path, "read record", e))?;
            match verify(&id, &bytes) {
                Ok(header) => {
                    records.insert(id, header.previous);
                }
                Err(defect) => corrupt.push(CorruptFile {
                    file: shown_name,
                    reason: defect.reason().to_owned(),
                }),
            }
        }
        Ok((records, corrupt))
    }

    /// Names of the files left in `tmp/`.
    fn scan_temp(&self) -> Result<Vec<String>> {
        let entries = list_dir(&self.tmp_dir())?;
        Ok(entries.iter().map(|(name, _)| escaped(name)).collect())
    }
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

/// Reads every file below `dir` into `found`; `prefix` is the ref name of `dir`.
fn collect_refs(dir: &Path, prefix: &str, found: &mut Vec<ScannedRef>) -> Result<()> {
    for (file_name, path) in list_dir(dir)? {
        let name = format!("{prefix}{}", escaped(&file_name));
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if is_absent(&e) => continue,
            Err(e) => return Err(unreadable(&path, "stat", e)),
        };
        if meta.is_dir() {
            collect_refs(&path, &format!("{name}/"), found)?;
            continue;
        }
        let head = if check_ref_name(&name).is_err() {
            Err("not a valid ref name".to_owned())
        } else if !meta.is_file() {
            Err("not a regular file".to_owned())
        } else {
            match fs::read(&path) {
                Ok(bytes) => parse_ref(&bytes),
                Err(e) if is_absent(&e) => continue,
                Err(e) => return Err(unreadable(&path, "read ref", e)),
            }
        };
        found.push(ScannedRef { name, path, head });
    }
    Ok(())
}

/// The entries of a directory (none when it does not exist), sorted by name.
fn list_dir(dir: &Path) -> Result<Vec<(Box<OsStr>, PathBuf)>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if is_absent(&e) => return Ok(Vec::new()),
        Err(e) => return Err(unreadable(dir, "read directory", e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| unreadable(dir, "read directory", e))?;
        out.push((entry.file_name().into_boxed_os_str(), entry.path()));
    }
    out.sort();
    Ok(out)
}

/// A file name as text, with invalid bytes escaped.
fn escaped(name: &OsStr) -> String {
    DisplayPath::from_bytes(name.as_bytes()).0
}
