//! The store's pointers as Git refs (docs/sharing.md): in a Git checkout whose
//! worktree top is the workspace, every ref `<name>` of the store is the Git
//! ref `refs/ledger/heads/<name>`, naming a commit whose tree holds one blob,
//! `record.json`, with the record's exact bytes, and whose first parent is the
//! commit of the record before it. So `git push` and `git fetch` carry a ref's
//! whole chain, and a fetched head (`refs/ledger/remotes/<remote>/<name>`) is
//! read beside the local one.
//!
//! Everything here is read with gix and checked as a store file is: a ref that
//! is symbolic, names anything but such a commit, or holds a record past its
//! bound is refused (`untrusted-store`, `corrupt-record`, `too-large`), and a
//! fetched chain must link record to record as the local one does.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::{Entry, EntryKind};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};

use super::locks::{self, RefLock, Unlocked};
use super::{RecordId, check_ref_name, verify};
use crate::error::{DisplayPath, Error, Result};
use crate::expand::call::kept_for_the_call;
use crate::expand::git::{Locate, gix_error, open_repository};
use crate::expand::ledger_dir::unwritable;
use crate::records::signing::{self, Signature, SigningKey};

#[cfg(test)]
mod tests;

/// Where this store's own heads live.
pub(crate) const LOCAL: &str = "refs/ledger/heads/";
/// Where `git fetch` puts other stores' heads (`<remote>/<name>` below it).
pub(crate) const REMOTES: &str = "refs/ledger/remotes/";
/// Every ref ledger reads is below this.
const LEDGER_REFS: &str = "refs/ledger/";
/// The one entry of a record commit's tree.
const RECORD_FILE: &str = "record.json";
/// The most ledger reads of a record blob: a record file's bound (smaller in
/// this crate's tests, so that a blob past it is quick to make).
#[cfg(not(test))]
const BLOB_LIMIT: u64 = crate::expand::ledger_dir::RECORD_LIMIT;
#[cfg(test)]
pub(super) const BLOB_LIMIT: u64 = 1 << 20;
/// The most ledger reads of a commit or tree object (a signed commit is about 1 KiB).
const OBJECT_LIMIT: u64 = 64 * 1024;
/// Who every record commit is by: the record says who wrote it, not the commit.
const AUTHOR: &str = "ledger";
const AUTHOR_EMAIL: &str = "ledger@localhost";

/// One head of a ref: this store's own, or one fetched from a remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    /// `None`: this store's own head; otherwise the remote it was fetched from.
    pub(crate) remote: Option<String>,
    /// The record commit the ref names.
    pub(crate) commit: ObjectId,
    /// The record that commit holds.
    pub(crate) record: RecordId,
}

impl Head {
    /// `record (local)` or `record (fetched from origin)`, as messages list heads.
    pub(crate) fn shown(&self) -> String {
        match &self.remote {
            None => format!("{} (local)", self.record),
            Some(remote) => format!("{} (fetched from {remote})", self.record),
        }
    }
}

/// The record commits read within one call, by their commit's id (which names
/// the commit's bytes, and through its tree the record's), up to
/// [`ReadRecords::BYTES`] of records: past it, the rest are read each time.
#[derive(Default)]
struct ReadRecords {
    commits: HashMap<ObjectId, RecordCommit>,
    bytes: usize,
}

impl ReadRecords {
    /// Records of a large inventory are megabytes each: a bound keeps a
    /// store check of a long history from holding them all.
    const BYTES: usize = 64 << 20;

    fn get(&self, commit: &ObjectId) -> Option<RecordCommit> {
        self.commits.get(commit).cloned()
    }

    fn keep(&mut self, commit: ObjectId, record: &RecordCommit) {
        let size = record.bytes.len() + record.raw.len();
        if self.bytes + size <= Self::BYTES && !self.commits.contains_key(&commit) {
            self.bytes += size;
            self.commits.insert(commit, record.clone());
        }
    }
}

/// A record commit, read and checked.
#[derive(Clone)]
pub(crate) struct RecordCommit {
    /// The record's exact bytes.
    pub(crate) bytes: Vec<u8>,
    /// Their id.
    pub(crate) id: RecordId,
    /// The record the header says it follows.
    pub(crate) previous: Option<RecordId>,
    /// The commit's parents, first parent first.
    pub(crate) parents: Vec<ObjectId>,
    /// The commit object's raw bytes (its signature is checked over them).
    pub(crate) raw: Vec<u8>,
}

/// Every ref below `refs/ledger/`, read: its full name and its head, or why it
/// names none.
pub(crate) struct ScannedGitRef {
    pub(crate) full_name: String,
    pub(crate) name: Option<String>,
    pub(crate) head: Result<Head>,
}

/// The refs and objects of the repository whose worktree top is a workspace.
pub(crate) struct GitRefs {
    repo: gix::Repository,
    display: String,
}

impl GitRefs {
    /// Opens the repository whose `.git` is in `workspace` (`None`: there is
    /// none), refused like every repository ledger opens when another user owns it.
    pub(crate) fn open(workspace: &Path) -> Result<Option<GitRefs>> {
        let display = workspace.display().to_string();
        let Some(repo) = open_repository(workspace, Locate::RootOnly, &display)? else {
            return Ok(None);
        };
        Ok(Some(GitRefs { repo, display }))
    }

    /// The repository's common directory: shared by all its worktrees.
    pub(crate) fn common_dir(&self) -> PathBuf {
        self.repo.common_dir().to_path_buf()
    }

    fn git(&self, what: &str, err: impl Into<gix::Error>) -> Error {
        gix_error(&self.display, what, err.into())
    }

    /// `unwritable` for an object that could not be written into the
    /// repository's object database (a full disk, a read-only directory):
    /// the directory, the operation, and the operating system's answer as
    /// gix reported it.
    fn unwritable(&self, operation: &'static str, err: gix::Error) -> Error {
        let objects = self.repo.objects.store_ref().path().to_path_buf();
        unwritable(&objects, operation, io_error(&self.display, err))
    }

    /// Why the edit of the local head `name` (the full ref `full`) failed,
    /// when it did not fail for its expected value: its lock file exists
    /// (`ref-locked`), its name conflicts with another ref's
    /// (`ref-name-conflict`), or the file system refused (`unwritable`,
    /// naming the ref's file).
    fn edit_failed(&self, full: &str, name: &str, err: gix::Error) -> Error {
        let common = self.repo.common_dir();
        if let Some(locked) = locks::locked(common, full, name) {
            return locked;
        }
        if let Err(conflict) = self.check_name_free(full, name) {
            return conflict;
        }
        unwritable(
            &common.join(full),
            "update the ref",
            io_error(&self.display, err),
        )
    }

    /// Refuses (`ref-name-conflict`) the full ref name `full` (of the store
    /// ref `name`) when a ref exists whose name is a directory of it
    /// (`…/x` for `…/x/y`) or below it (`…/x/y` for `…/x`): Git keeps
    /// refs as files, so the two cannot both exist.
    pub(crate) fn check_name_free(&self, full: &str, name: &str) -> Result<()> {
        let conflict = |other: String| Error::RefNameConflict {
            reference: name.to_owned(),
            other,
        };
        let mut end = LEDGER_REFS.len();
        while let Some(slash) = full[end..].find('/') {
            let prefix = &full[..end + slash];
            end += slash + 1;
            let found = self
                .repo
                .try_find_reference(prefix)
                .map_err(|e| self.git("cannot read the refs", e))?;
            if found.is_some() {
                return Err(conflict(prefix.to_owned()));
            }
        }
        if let Some(below) = self.ref_names(&format!("{full}/"))?.into_iter().next() {
            return Err(conflict(below));
        }
        Ok(())
    }

    /// Refuses the local head `name` before a write: a name that conflicts
    /// with another ref's (`ref-name-conflict`), a lock file left there
    /// longer than any writer holds one (`ref-locked`).
    pub(crate) fn check_writable(&self, name: &str) -> Result<()> {
        let full = format!("{LOCAL}{name}");
        self.check_name_free(&full, name)?;
        match locks::locked(self.repo.common_dir(), &full, name) {
            Some(Error::RefLocked {
                abandoned: false, ..
            })
            | None => Ok(()),
            Some(abandoned) => Err(abandoned),
        }
    }

    /// Creates the directories of the loose ref `full` below the common
    /// directory, one at a time and following no symlink. gix creates them
    /// itself, but gives up past 25 levels (`gix-fs`'s retries), where Git
    /// and ledger's ref names go deeper. Whatever fails here is left to the
    /// edit to report.
    fn make_ref_dirs(&self, full: &str) {
        let Some((dirs, _)) = full.rsplit_once('/') else {
            return;
        };
        let Ok(mut dir) = crate::nofollow::open_workspace(self.repo.common_dir()) else {
            return;
        };
        for segment in dirs.split('/') {
            let _ = crate::platform::make_dir_at(&dir, segment, 0o777);
            match crate::platform::open_dir_at(&dir, segment) {
                Ok(next) => dir = next,
                Err(_) => return,
            }
        }
    }

    /// The lock files left below `refs/ledger/`, sorted by name.
    pub(crate) fn locks(&self) -> Result<Vec<RefLock>> {
        Ok(locks::scan(self.repo.common_dir())?
            .into_iter()
            .map(|seen| seen.lock)
            .collect())
    }

    /// Removes the lock files below `refs/ledger/` at least `older_than`
    /// old; the caller holds the store's lock.
    pub(crate) fn unlock(&self, older_than: std::time::Duration) -> Result<Unlocked> {
        locks::remove(self.repo.common_dir(), older_than)
    }

    /// Every head of the store ref `name`: the local one first, then the
    /// fetched ones by remote name.
    pub(crate) fn heads(&self, name: &str) -> Result<Vec<Head>> {
        let mut heads = Vec::new();
        if let Some(head) = self.read_ref(&format!("{LOCAL}{name}"), None)? {
            heads.push(head);
        }
        for remote in self.remotes()? {
            let full = format!("{REMOTES}{remote}/{name}");
            if let Some(head) = self.read_ref(&full, Some(remote))? {
                heads.push(head);
            }
        }
        Ok(heads)
    }

    /// The remotes that have fetched heads, sorted.
    fn remotes(&self) -> Result<Vec<String>> {
        let mut remotes = std::collections::BTreeSet::new();
        for full in self.ref_names(REMOTES)? {
            if let Some((remote, _)) = full[REMOTES.len()..].split_once('/') {
                remotes.insert(remote.to_owned());
            }
        }
        Ok(remotes.into_iter().collect())
    }

    /// The full names of every ref below `prefix`, sorted.
    fn ref_names(&self, prefix: &str) -> Result<Vec<String>> {
        let platform = self
            .repo
            .references()
            .map_err(|e| self.git("cannot read the refs", e))?;
        let iter = platform
            .prefixed(prefix)
            .map_err(|e| self.git("cannot read the refs", e))?;
        let mut names = Vec::new();
        for reference in iter {
            let reference = reference.map_err(|e| self.git("cannot read the refs", e))?;
            names.push(reference.name().as_bstr().to_str_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    /// Every ref below `refs/ledger/`, read and checked, sorted by full name.
    pub(crate) fn scan(&self) -> Result<Vec<ScannedGitRef>> {
        let mut scanned = Vec::new();
        for full in self.ref_names(LEDGER_REFS)? {
            let (name, remote) = store_name(&full);
            let head = match &name {
                Some(_) => self
                    .read_ref(&full, remote.clone())
                    .and_then(|h| h.ok_or_else(|| self.corrupt(&full, "it vanished while read"))),
                None => Err(self.corrupt(
                    &full,
                    "not a ledger ref: ledger keeps refs/ledger/heads/<name> and refs/ledger/remotes/<remote>/<name>",
                )),
            };
            scanned.push(ScannedGitRef {
                full_name: full,
                name,
                head,
            });
        }
        Ok(scanned)
    }

    fn corrupt(&self, full: &str, reason: impl Into<String>) -> Error {
        Error::CorruptRecord {
            path: DisplayPath::from(full),
            reason: reason.into(),
        }
    }

    /// The head the ref `full` names (`None`: no such ref). A symbolic ref is
    /// refused: it could point anywhere, even outside `refs/ledger/`.
    fn read_ref(&self, full: &str, remote: Option<String>) -> Result<Option<Head>> {
        let reference = self
            .repo
            .try_find_reference(full)
            .map_err(|e| self.git("cannot read the refs", e))?;
        let Some(reference) = reference else {
            return Ok(None);
        };
        let commit = match reference.target() {
            gix::refs::TargetRef::Object(id) => id.to_owned(),
            gix::refs::TargetRef::Symbolic(to) => {
                return Err(Error::UntrustedStore {
                    path: DisplayPath::from(full),
                    reason: format!(
                        "it is a symbolic ref to {}; ledger follows no symbolic ref",
                        DisplayPath::from_bytes(to.as_bstr())
                    ),
                });
            }
        };
        let record = self.record(full, commit)?;
        Ok(Some(Head {
            remote,
            commit,
            record: record.id,
        }))
    }

    /// Reads the record commit `commit` (named by `what` in messages): a commit
    /// whose tree holds exactly one blob, `record.json`, an intact record of
    /// at most [`BLOB_LIMIT`] bytes.
    /// Within [`opened_once`](crate::expand::opened_once) each commit is
    /// read and checked once (a store check, then the chains of the changes
    /// it evaluates, read the same records).
    pub(crate) fn record(&self, what: &str, commit: ObjectId) -> Result<RecordCommit> {
        let kept = kept_for_the_call(|read: &mut ReadRecords| read.get(&commit));
        if let Some(Some(record)) = kept {
            return Ok(record);
        }
        let record = self.read_record(what, commit)?;
        kept_for_the_call(|read: &mut ReadRecords| read.keep(commit, &record));
        Ok(record)
    }

    fn read_record(&self, what: &str, commit: ObjectId) -> Result<RecordCommit> {
        let raw = self.object(what, commit, gix::objs::Kind::Commit, OBJECT_LIMIT)?;
        let decoded = gix::objs::CommitRef::from_bytes(&raw, self.repo.object_hash())
            .map_err(|e| self.corrupt(what, format!("commit {commit} does not parse: {e}")))?;
        let parents: Vec<ObjectId> = decoded.parents().collect();
        let tree_id = decoded.tree();
        drop(decoded);
        let tree = self.object(what, tree_id, gix::objs::Kind::Tree, OBJECT_LIMIT)?;
        let tree = gix::objs::TreeRef::from_bytes(&tree, self.repo.object_hash())
            .map_err(|e| self.corrupt(what, format!("tree {tree_id} does not parse: {e}")))?;
        let blob = match tree.entries.as_slice() {
            [entry] if entry.filename == RECORD_FILE && entry.mode.kind() == EntryKind::Blob => {
                entry.oid.to_owned()
            }
            _ => {
                return Err(self.corrupt(
                    what,
                    format!("commit {commit} is not a ledger record: its tree must hold exactly one file, {RECORD_FILE}"),
                ));
            }
        };
        let bytes = self.object(what, blob, gix::objs::Kind::Blob, BLOB_LIMIT)?;
        let id = RecordId::of(&bytes);
        let header = verify(&id, &bytes).map_err(|defect| defect.into_error(Path::new(what)))?;
        Ok(RecordCommit {
            bytes,
            id,
            previous: header.previous,
            parents,
            raw,
        })
    }

    /// The object `id`, which must be of `kind` and at most `limit` bytes: its
    /// header is read first, so a huge object is refused before it is loaded.
    fn object(
        &self,
        what: &str,
        id: ObjectId,
        kind: gix::objs::Kind,
        limit: u64,
    ) -> Result<Vec<u8>> {
        let header = self
            .repo
            .find_header(id)
            .map_err(|e| self.git(&format!("cannot find object {id} of {what}"), e))?;
        if header.kind() != kind {
            return Err(self.corrupt(
                what,
                format!(
                    "object {id} is a {}, where a ledger record has a {kind}",
                    header.kind()
                ),
            ));
        }
        if header.size() > limit {
            return Err(Error::TooLarge {
                path: DisplayPath::from(what),
                what: "record object",
                limit,
            });
        }
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| self.git(&format!("cannot read object {id} of {what}"), e))?;
        Ok(object.data.clone())
    }

    /// Writes the commit of a record (its exact `bytes`) with `parents`,
    /// signed when `key` is given, and returns its id.
    pub(crate) fn write(
        &self,
        bytes: &[u8],
        message: &str,
        parents: &[ObjectId],
        key: Option<&SigningKey>,
    ) -> Result<ObjectId> {
        let blob = self
            .repo
            .write_blob(bytes)
            .map_err(|e| self.unwritable("write a record blob into", e))?
            .detach();
        let tree = gix::objs::Tree {
            entries: vec![Entry {
                mode: EntryKind::Blob.into(),
                filename: RECORD_FILE.into(),
                oid: blob,
            }],
        };
        let tree = self
            .repo
            .write_object(&tree)
            .map_err(|e| self.unwritable("write a record tree into", e))?
            .detach();
        self.write_commit(tree, message, parents, key)
    }

    /// Writes a commit of the record tree `tree`.
    fn write_commit(
        &self,
        tree: ObjectId,
        message: &str,
        parents: &[ObjectId],
        key: Option<&SigningKey>,
    ) -> Result<ObjectId> {
        let actor = actor();
        let mut commit = gix::objs::Commit {
            tree,
            parents: parents.iter().copied().collect(),
            author: actor.clone(),
            committer: actor,
            encoding: None,
            message: BString::from(message),
            extra_headers: Vec::new(),
        };
        if let Some(key) = key {
            signing::sign_commit(&mut commit, key)?;
        }
        Ok(self
            .repo
            .write_object(&commit)
            .map_err(|e| self.unwritable("write a record commit into", e))?
            .detach())
    }

    /// A commit with `kept`'s record and every head as parents (`kept`
    /// first): the explicit write that ends a divergence.
    pub(crate) fn write_resolution(
        &self,
        kept: &Head,
        others: &[ObjectId],
        key: Option<&SigningKey>,
    ) -> Result<ObjectId> {
        let raw = self.object(
            "the kept head",
            kept.commit,
            gix::objs::Kind::Commit,
            OBJECT_LIMIT,
        )?;
        let tree = gix::objs::CommitRef::from_bytes(&raw, self.repo.object_hash())
            .map_err(|e| self.corrupt("the kept head", e.to_string()))?
            .tree();
        let mut parents = vec![kept.commit];
        parents.extend(others.iter().copied().filter(|c| *c != kept.commit));
        let message = format!("ledger resolve {}\n", kept.record);
        self.write_commit(tree, &message, &parents, key)
    }

    /// Compare-and-swap on the local head `name`: points it at `new` only if
    /// it still names `old` (`None`: it must not exist). `Ok(false)`: it did not.
    pub(crate) fn update(&self, name: &str, old: Option<ObjectId>, new: ObjectId) -> Result<bool> {
        check_ref_name(name)?;
        let full_text = format!("{LOCAL}{name}");
        self.check_name_free(&full_text, name)?;
        self.make_ref_dirs(&full_text);
        let full: FullName =
            full_text
                .as_str()
                .try_into()
                .map_err(|e: gix::validate::reference::name::Error| {
                    self.corrupt(name, e.to_string())
                })?;
        let expected = match old {
            Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
            None => PreviousValue::MustNotExist,
        };
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: "ledger: advance".into(),
                },
                expected,
                new: Target::Object(new),
            },
            name: full,
            deref: false,
        };
        let actor = actor();
        let mut time = gix::date::parse::TimeBuf::default();
        match self
            .repo
            .edit_references_as([edit], Some(actor.to_ref(&mut time)))
        {
            Ok(_) => Ok(true),
            // The current value does not match: another writer moved it.
            Err(e) if self.local_commit(name)? != old => {
                drop(e);
                Ok(false)
            }
            Err(e) => Err(self.edit_failed(&full_text, name, e)),
        }
    }

    /// Points the ref `full` (below `refs/ledger/`) at `commit`, whatever it
    /// named: for a copy kept beside the local heads, never for a local head.
    pub(crate) fn set(&self, full: &str, commit: ObjectId) -> Result<()> {
        self.make_ref_dirs(full);
        let name: FullName =
            full.try_into()
                .map_err(|e: gix::validate::reference::name::Error| {
                    self.corrupt(full, e.to_string())
                })?;
        let edit = RefEdit {
            change: Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: "ledger: migrate".into(),
                },
                expected: PreviousValue::Any,
                new: Target::Object(commit),
            },
            name,
            deref: false,
        };
        let actor = actor();
        let mut time = gix::date::parse::TimeBuf::default();
        self.repo
            .edit_references_as([edit], Some(actor.to_ref(&mut time)))
            .map_err(|e| self.edit_failed(full, full, e))?;
        Ok(())
    }

    /// The commit the local head `name` names, unchecked.
    pub(crate) fn local_commit(&self, name: &str) -> Result<Option<ObjectId>> {
        let reference = self
            .repo
            .try_find_reference(format!("{LOCAL}{name}").as_str())
            .map_err(|e| self.git("cannot read the refs", e))?;
        Ok(reference.and_then(|r| r.target().try_id().map(|id| id.to_owned())))
    }

    /// Whether `ancestor` is reachable from `from` through parents (a commit
    /// is its own ancestor). Bounded by the commits it visits.
    pub(crate) fn reaches(&self, from: ObjectId, ancestor: ObjectId) -> Result<bool> {
        let mut seen = HashSet::new();
        let mut next = vec![from];
        while let Some(commit) = next.pop() {
            if commit == ancestor {
                return Ok(true);
            }
            if !seen.insert(commit) {
                continue;
            }
            next.extend(self.parents(commit)?);
        }
        Ok(false)
    }

    fn parents(&self, commit: ObjectId) -> Result<Vec<ObjectId>> {
        let raw = self.object(
            "a record commit",
            commit,
            gix::objs::Kind::Commit,
            OBJECT_LIMIT,
        )?;
        let decoded = gix::objs::CommitRef::from_bytes(&raw, self.repo.object_hash())
            .map_err(|e| self.corrupt("a record commit", e.to_string()))?;
        Ok(decoded.parents().collect())
    }

    /// The record `id` as some ledger ref's chain holds it, local or fetched.
    pub(crate) fn find(&self, id: &RecordId) -> Result<Option<Vec<u8>>> {
        let mut seen = HashSet::new();
        for scanned in self.scan()? {
            let Ok(head) = scanned.head else { continue };
            let mut next = vec![head.commit];
            while let Some(commit) = next.pop() {
                if !seen.insert(commit) {
                    continue;
                }
                let Ok(record) = self.record(&scanned.full_name, commit) else {
                    continue;
                };
                if record.id == *id {
                    return Ok(Some(record.bytes));
                }
                next.extend(record.parents);
            }
        }
        Ok(None)
    }

    /// The commits of the chain from `head`, newest first, one per record:
    /// each step goes to the parent holding the record its record follows
    /// (the first parent of an ordinary commit; the kept parent of a
    /// resolution). A parent that holds no such record is `corrupt-record`.
    pub(crate) fn chain(
        &self,
        what: &str,
        head: ObjectId,
    ) -> Result<Vec<(ObjectId, RecordCommit)>> {
        self.chain_up_to(what, head, usize::MAX)
    }

    /// The first `limit` entries of [`GitRefs::chain`]: a reader that needs
    /// the newest record only does not walk the whole history.
    fn chain_up_to(
        &self,
        what: &str,
        head: ObjectId,
        limit: usize,
    ) -> Result<Vec<(ObjectId, RecordCommit)>> {
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut current = Some(head);
        while let Some(commit) = current.take() {
            if !seen.insert(commit) {
                return Err(self.corrupt(what, "its chain of commits loops"));
            }
            let record = self.record(what, commit)?;
            // A resolution holds the record of its first parent: one record, one entry.
            let same = match record.parents.first() {
                Some(first) => self.record(what, *first)?.id == record.id,
                None => false,
            };
            if same {
                current = record.parents.first().copied();
                continue;
            }
            if let Some(previous) = record.previous {
                let mut found = None;
                for parent in &record.parents {
                    if self.record(what, *parent)?.id == previous {
                        found = Some(*parent);
                        break;
                    }
                }
                current = Some(found.ok_or_else(|| {
                    self.corrupt(
                        what,
                        format!(
                            "record {} follows {previous}, but no parent of commit {commit} holds it",
                            record.id
                        ),
                    )
                })?);
            } else if !record.parents.is_empty() {
                return Err(self.corrupt(
                    what,
                    format!(
                        "record {} is a first record, but its commit {commit} has parents",
                        record.id
                    ),
                ));
            }
            chain.push((commit, record));
            if chain.len() >= limit {
                break;
            }
        }
        Ok(chain)
    }

    /// The signature of the commit that brought the record `head` names: a
    /// resolution brings none of its own, so its kept parent is asked.
    pub(crate) fn signature(
        &self,
        what: &str,
        head: ObjectId,
        allowed: Option<&signing::AllowedSigners>,
    ) -> Result<Signature> {
        let (_, record) = self
            .chain_up_to(what, head, 1)?
            .into_iter()
            .next()
            .ok_or_else(|| self.corrupt(what, "it names no record"))?;
        signing::commit_signature(&record.raw, allowed)
    }

    /// Adds the fetch refspec `+refs/ledger/heads/*:refs/ledger/remotes/<remote>/*`
    /// to the remote `remote` in the repository's own configuration file,
    /// unless it is there. `Ok(false)`: it was there already.
    pub(crate) fn add_fetch_refspec(&self, remote: &str) -> Result<bool> {
        let refspec = fetch_refspec(remote);
        let path = self.repo.common_dir().join("config");
        let unwritable = |e| crate::expand::ledger_dir::unwritable(&path, "write", e);
        // Git's own lock first (`config.lock`): a concurrent `git config` waits
        // for this write or is refused, and the file read is the file replaced.
        let mut lock = gix::lock::File::acquire_to_update_resource(
            &path,
            gix::lock::acquire::Fail::Immediately,
            None,
            0,
        )
        .map_err(|e| unwritable(std::io::Error::other(e)))?;
        let config = || "cannot edit the repository's configuration";
        let mut file =
            gix::config::File::from_path_no_includes(path.clone(), gix::config::Source::Local)
                .map_err(|e| self.git(config(), gix::Error::from_error(e)))?;
        let known = file
            .sections_by_name("remote")
            .into_iter()
            .flatten()
            .any(|s| s.header().subsection_name() == Some(remote.into()));
        if !known {
            return Err(Error::InvalidArgument {
                message: format!(
                    "the repository has no remote {remote:?}; add it first (git remote add {remote} <url>)"
                ),
            });
        }
        let present = file
            .strings_by("remote", Some(remote.into()), "fetch")
            .unwrap_or_default()
            .iter()
            .any(|v| v.as_bstr() == refspec.as_bytes().as_bstr());
        if present {
            return Ok(false);
        }
        file.section_mut("remote", Some(remote.into()))
            .map_err(|e| self.git(config(), gix::Error::from_error(e)))?
            .push("fetch", Some(refspec.as_bytes().as_bstr()))
            .map_err(|e| self.git(config(), gix::Error::from_error(e)))?;
        let mut bytes = Vec::new();
        file.write_to(&mut bytes).map_err(unwritable)?;
        std::io::Write::write_all(&mut lock, &bytes).map_err(unwritable)?;
        lock.commit().map_err(|e| unwritable(e.error))?;
        Ok(true)
    }
}

/// Who writes every record commit and ref update, now.
fn actor() -> gix::actor::Signature {
    gix::actor::Signature {
        name: AUTHOR.into(),
        email: AUTHOR_EMAIL.into(),
        time: gix::date::Time::now_utc(),
    }
}

/// The fetch refspec that brings `remote`'s ledger heads beside this store's.
pub(crate) fn fetch_refspec(remote: &str) -> String {
    format!("+{LOCAL}*:{REMOTES}{remote}/*")
}

/// The push refspec that sends this store's heads to a remote.
pub(crate) const PUSH_REFSPEC: &str = "refs/ledger/heads/*:refs/ledger/heads/*";

/// The store ref name and remote of the full ref name `full`: `(Some(name),
/// None)` for a local head, `(Some(name), Some(remote))` for a fetched one,
/// `(None, None)` for anything else below `refs/ledger/`.
fn store_name(full: &str) -> (Option<String>, Option<String>) {
    let valid = |name: &str| check_ref_name(name).is_ok().then(|| name.to_owned());
    if let Some(name) = full.strip_prefix(LOCAL) {
        return (valid(name), None);
    }
    if let Some(rest) = full.strip_prefix(REMOTES)
        && let Some((remote, name)) = rest.split_once('/')
        && check_ref_name(remote).is_ok()
    {
        return match valid(name) {
            Some(name) => (Some(name), Some(remote.to_owned())),
            None => (None, None),
        };
    }
    (None, None)
}

/// Heads that no other head descends from, local first: one is the head, more
/// are a divergence. A head equal to another or behind it says nothing new.
pub(crate) fn tips(refs: &GitRefs, heads: Vec<Head>) -> Result<Vec<Head>> {
    let mut tips: Vec<Head> = Vec::new();
    let commits: BTreeMap<usize, ObjectId> = heads.iter().map(|h| h.commit).enumerate().collect();
    'heads: for (i, head) in heads.iter().enumerate() {
        for (j, other) in &commits {
            if i == *j {
                continue;
            }
            let behind = *other != head.commit && refs.reaches(*other, head.commit)?;
            // Of two heads on one commit the first (local) stays.
            let duplicate = *other == head.commit && *j < i;
            if behind || duplicate {
                continue 'heads;
            }
        }
        tips.push(head.clone());
    }
    Ok(tips)
}

/// The operating system's answer inside gix's error `err`, with gix's chain
/// of messages on one line (the kind of the first I/O error in it, else
/// `Other`).
fn io_error(display: &str, err: gix::Error) -> std::io::Error {
    let kind = err
        .downcast_any_ref::<std::io::Error>()
        .map_or(std::io::ErrorKind::Other, std::io::Error::kind);
    let message = match gix_error(display, "gix", err) {
        Error::Git { message, .. } => message.strip_prefix("gix: ").unwrap_or(&message).to_owned(),
        other => other.to_string(),
    };
    std::io::Error::new(kind, message)
}
