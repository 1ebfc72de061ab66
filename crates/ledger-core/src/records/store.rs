//! The record store (docs/approvals.md, The record store): immutable records under content-derived names,
//! and refs — the state pointers — replaced only by compare-and-swap.
//!
//! Layout below the store root (`<workspace>/.ledger`):
//!
//! ```text
//! records/<id>.json   immutable records; <id> is the SHA-256 of the file's bytes
//! refs/<name>         one line: the id of the record the ref names
//! objects/<hex>      raw bytes named by their SHA-256 (a gate's kept output)
//! tmp/                files being written; anything left here was interrupted
//! lock                held while a ref is compared and replaced
//! digest-cache        file digests by path and status (expand/cache.rs); disposable
//! .gitignore          `*`, written with the store: Git ignores it
//! ```
//!
//! Trust boundary (docs/errors.md, Security model): every path is opened `openat`-style from the
//! store directory, never through a symlink; an entry that is not a directory
//! or regular file where ledger keeps one, or that another user owns, is
//! refused with `untrusted-store` and never opened for reading; every read is
//! bounded (`too-large`); and a store whose files Git tracks came with the
//! checkout and is refused too. [`Store::check`] lists all of these instead.
//!
//! Saving order: canonical outcome → immutable record → state pointer. A record
//! is complete and synced before any ref names it, so an interrupted save leaves
//! at worst a temp file or an orphan record — both listed by [`Store::check`] —
//! never a ref naming half a record. A ref is replaced only if it still names the
//! record the writer started from; otherwise the write fails with
//! [`Error::PointerConflict`] and nothing is resolved by last-write-wins.
//!
//! ```
//! use ledger_core::records::Store;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! let store = Store::open(workspace)?;
//! let first = store.commit("changes/add-auth", "state", None, &"drafted")?;
//! let second = store.commit("changes/add-auth", "state", Some(&first), &"approved")?;
//! assert_eq!(store.history("changes/add-auth")?, vec![second, first]);
//!
//! // A writer that still believes the ref names `first` is refused.
//! let stale = store.commit("changes/add-auth", "state", Some(&first), &"other");
//! assert_eq!(stale.unwrap_err().code(), "pointer-conflict");
//! assert_eq!(store.check()?.orphans.len(), 1);
//! # Ok(())
//! # }
//! ```

mod check;
mod decide;
mod git;
mod locks;
mod objects;
mod shared;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use camino::{Utf8Path, Utf8PathBuf};
use std::str::FromStr;
use std::time::SystemTime;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};
use crate::expand::entry::Digest;
use crate::expand::scope::{STORE_DIR, Scope};

use crate::expand::ledger_dir::{
    Missing, RECORD_LIMIT, REF_LIMIT, StoreDir, TMP, TempFile, shown, unreadable, unwritable,
};
use crate::expand::trust;
use crate::records::signing::SigningSettings;
pub use crate::records::started_from::StartedFrom;
use crate::settings::Settings;
pub use check::{CorruptFile, DanglingRef, RefHead, StoreReport};
pub use decide::{DECISIONS, Orphan, OrphanChoice, OrphanDecision};
use git::GitRefs;
pub use locks::{ABANDONED_AFTER, RefLock, UNLOCK_FLOOR, Unlocked};
pub use shared::{Divergence, Provenance, RemoteSetup, why_unproven};

/// The store's directory in a repository's common git directory.
pub const GIT_STORE_DIR: &str = "ledger";

/// The store's entries, below its directory.
const RECORDS: &str = "records";
const REFS: &str = "refs";
const LOCK: &str = "lock";

/// The `format` field of every stored record.
pub const STORED_RECORD_FORMAT: &str = "ledger-record";

/// The version this library writes. Readers accept any `1.x`. Version 1.1
/// bodies hold no host path (every scope relative to the store's
/// workspace, docs/records.md, Host-free records); 1.0 bodies may hold
/// absolute ones, and are read as they are.
pub const STORED_RECORD_VERSION: &str = "1.1";

/// Name of an immutable record: the lowercase hex SHA-256 of its exact bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordId(Digest);

impl RecordId {
    /// The id of a record file holding exactly `bytes`.
    pub fn of(bytes: &[u8]) -> RecordId {
        RecordId(Digest(Sha256::digest(bytes).into()))
    }
}

impl fmt::Display for RecordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_hex())
    }
}

impl fmt::Debug for RecordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecordId({})", self.0.to_hex())
    }
}

impl FromStr for RecordId {
    type Err = Error;

    /// Accepts exactly 64 lowercase hex digits, nothing around them.
    fn from_str(text: &str) -> Result<Self> {
        Digest::from_hex(text)
            .map(RecordId)
            .ok_or_else(|| Error::BadRecordId {
                text: text.chars().take(80).collect(),
            })
    }
}

impl Serialize for RecordId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RecordId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The stored form of every record: a header, then the caller's typed body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoredRecord<T> {
    /// Always [`STORED_RECORD_FORMAT`].
    pub format: String,
    /// `major.minor`; this library writes [`STORED_RECORD_VERSION`].
    pub version: String,
    /// What the body is, chosen by the caller, e.g. `state` or `evidence`.
    pub kind: String,
    /// The record this one follows on its ref (`None` for the first).
    pub previous: Option<RecordId>,
    /// When the record was written, RFC 3339 UTC with milliseconds.
    pub written_at: String,
    /// The caller's content.
    pub body: T,
}

impl<T> StoredRecord<T> {
    /// A record of the current format, written now.
    pub fn new(kind: &str, previous: Option<&RecordId>, body: T) -> Self {
        StoredRecord {
            format: STORED_RECORD_FORMAT.to_owned(),
            version: STORED_RECORD_VERSION.to_owned(),
            kind: kind.to_owned(),
            previous: previous.copied(),
            written_at: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
            body,
        }
    }
}

/// An append-only record store with compare-and-swap refs: in one directory,
/// or, in a Git checkout, in the repository (records in its common directory,
/// refs as Git refs: docs/sharing.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    root: Utf8PathBuf,
    git: Option<GitPlace>,
    signing: SigningSettings,
    /// The settings of the workspace it was opened for ([`Store::with_settings`]):
    /// its signing part is `signing`, and scopes the upper wings build for
    /// this workspace are expanded with them.
    settings: Settings,
}

/// Where a store in a Git checkout keeps what is not in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
struct GitPlace {
    /// The workspace: the top of the checkout's worktree.
    workspace: Utf8PathBuf,
    /// `<workspace>/.ledger`, where an older ledger kept the store (migrated).
    legacy: Utf8PathBuf,
}

/// The file an older store gets once its records and refs are in the repository.
pub(crate) const MIGRATED: &str = "migrated";

/// The remote name a migrated ref is kept under when the repository already
/// has another head of that name: a visible divergence, nothing dropped.
pub(crate) const LEGACY_REMOTE: &str = "legacy";

impl Store {
    /// The store of a workspace. When the workspace is the top of a Git
    /// checkout's worktree, the store belongs to the repository, shared by
    /// all its worktrees: records in `<common git dir>/ledger/`, refs as
    /// `refs/ledger/heads/<name>` (an older `<workspace>/.ledger/` is migrated
    /// into it on first use and left in place). Otherwise it is
    /// `<workspace>/.ledger` ([`STORE_DIR`]). Creates nothing until something
    /// is written; an absent store is empty and clean.
    ///
    /// `untrusted-repository`: the repository is another user's; `git`: it
    /// cannot be opened.
    ///
    /// ```
    /// use ledger_core::records::Store;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
    /// let init = std::process::Command::new("git").args(["init", "-q"]).current_dir(workspace).status()?;
    /// assert!(init.success());
    /// // A Git checkout: the store is the repository's, its refs are Git refs.
    /// let store = Store::open(workspace)?;
    /// assert!(store.is_git());
    /// let id = store.commit("gates/test", "evidence", None, &"passed")?;
    /// let seen = store.provenance("gates/test")?.ok_or("no head")?;
    /// assert!(seen.local && seen.remote.is_none() && seen.record == id);
    /// assert!(dir.path().join(".git/refs/ledger/heads/gates/test").is_file());
    /// # Ok(())
    /// # }
    /// ```
    pub fn open(workspace: &Utf8Path) -> Result<Store> {
        let legacy = workspace.join(STORE_DIR);
        let Some(refs) = GitRefs::open(workspace.as_std_path())? else {
            return Ok(Store::at(legacy));
        };
        // Every worktree names the common directory its own way (`../..`).
        let common = refs.common_dir();
        let common = std::fs::canonicalize(&common)
            .map_err(|e| unreadable(&common, "resolve the common git directory", e))?;
        let root = Utf8PathBuf::from_path_buf(common.join(GIT_STORE_DIR)).map_err(|path| {
            Error::NonUtf8Path {
                path: crate::error::DisplayPath::from_bytes(path.as_os_str().as_encoded_bytes()),
            }
        })?;
        Ok(Store {
            root,
            git: Some(GitPlace {
                workspace: workspace.to_owned(),
                legacy,
            }),
            signing: SigningSettings::default(),
            settings: Settings::default(),
        })
    }

    /// The store of `scope`'s workspace, as resolving the scope finds it (made
    /// absolute, symlinks resolved): where a gate over that scope keeps its
    /// evidence.
    pub fn of_scope(scope: &Scope) -> Result<Store> {
        Ok(Store::open(&scope.resolve()?.workspace)?.with_settings(scope.settings().clone()))
    }

    /// The same store, for a workspace of `settings`: it signs with and
    /// trusts what they say, and [`Store::settings`] gives them to the scopes
    /// built for it. A store opened without them signs nothing and trusts
    /// nobody.
    pub fn with_settings(mut self, settings: Settings) -> Store {
        self.signing = SigningSettings::of(&settings);
        self.settings = settings;
        self
    }

    /// The settings of the workspace it was opened for.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The store in an explicit directory (never a Git store).
    pub fn at(root: impl Into<Utf8PathBuf>) -> Store {
        Store {
            root: root.into(),
            git: None,
            signing: SigningSettings::default(),
            settings: Settings::default(),
        }
    }

    /// The same store, signing with and trusting what `signing` says instead
    /// of its settings' signing part.
    pub fn with_signing(mut self, signing: SigningSettings) -> Store {
        self.signing = signing;
        self
    }

    /// The store's directory: where its records are (`.ledger`, or
    /// `ledger` in the repository's common git directory).
    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// The workspace the store belongs to, symlinks resolved: the top of the
    /// Git checkout whose repository holds it, or the directory holding
    /// `.ledger`. `None` for a store in a directory of another name
    /// ([`Store::at`]): its records keep absolute workspaces.
    pub fn workspace(&self) -> Option<Utf8PathBuf> {
        let workspace = match &self.git {
            Some(place) => place.workspace.as_path(),
            None if self.root.file_name() == Some(STORE_DIR) => match self.root.parent() {
                Some(p) if !p.as_str().is_empty() => p,
                _ => Utf8Path::new("."),
            },
            None => return None,
        };
        workspace.canonicalize_utf8().ok()
    }

    /// Whether the store's refs are Git refs (docs/sharing.md).
    pub fn is_git(&self) -> bool {
        self.git.is_some()
    }

    /// The store's directory, for the file system calls.
    pub(crate) fn dir(&self) -> &Path {
        self.root.as_std_path()
    }

    /// A file the store keeps beside its records that can always be derived
    /// from them again (an index), read with the bound `limit`; `None` when it
    /// is absent or cannot be read. Never proof of anything: its reader checks
    /// every record it names.
    pub(crate) fn read_derived(&self, name: &str, limit: u64) -> Option<Vec<u8>> {
        let root = self.existing_dir().ok()??;
        root.read(name, "derived file", limit).ok()?
    }

    /// Writes a derived file (see [`Store::read_derived`]) through `tmp/`.
    /// Best effort: a failure leaves the old one, and the next reader derives
    /// it again.
    pub(crate) fn write_derived(&self, name: &str, bytes: &[u8]) {
        let Ok(root) = self.create_dir() else {
            return;
        };
        let Ok(tmp) = root.make_sub(TMP) else {
            return;
        };
        let Ok(mut temp) = TempFile::create(&tmp, "derived file") else {
            return;
        };
        if temp.write_unsynced(bytes).is_ok() {
            let _ = temp.rename_to(&root, name);
        }
    }

    /// Writes an immutable record and returns its id. Writing the same bytes
    /// twice is harmless: same content, same name, one file.
    ///
    /// Refused with `corrupt-record` when a file with the record's name exists
    /// with other bytes (that file was edited; it is left as it is).
    pub fn write_record<T: Serialize>(
        &self,
        kind: &str,
        previous: Option<&RecordId>,
        body: &T,
    ) -> Result<RecordId> {
        self.write_stored(&StoredRecord::new(kind, previous, body))
    }

    /// Writes a fully formed record (the header as given).
    pub(crate) fn write_stored<T: Serialize>(&self, record: &StoredRecord<T>) -> Result<RecordId> {
        let mut bytes = serde_json::to_vec_pretty(record).map_err(|e| {
            let source = io::Error::new(io::ErrorKind::InvalidData, e);
            unwritable(&self.records_dir(), "serialize a record for", source)
        })?;
        bytes.push(b'\n');
        self.write_bytes(&bytes)
    }

    /// Stores `bytes` under their hash: temp file, fsync, then a hard link to the
    /// final name. A link, not a rename: `link` fails when the name exists, so an
    /// existing record is never replaced, even by a racing writer.
    fn write_bytes(&self, bytes: &[u8]) -> Result<RecordId> {
        let id = RecordId::of(bytes);
        let root = self.create_dir()?;
        let records = root.make_sub(RECORDS)?;
        let tmp = root.make_sub(TMP)?;
        let mut temp = TempFile::create(&tmp, "record")?;
        temp.write_synced(bytes)?;
        let name = record_name(&id);
        let linked = tmp.link(temp.name(), &records, &name);
        // The temp name is removed whatever happened; should that fail, the
        // leftover is harmless and `check` lists it.
        drop(temp);
        match linked {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                same_bytes(&records, &name, bytes)?;
            }
            Err(e) => return Err(unwritable(&records.join(&name), "link record", e)),
        }
        // The new name is durable only once its directory is synced. Also after
        // AlreadyExists: the writer that created it may not have synced yet.
        records.sync()?;
        Ok(id)
    }

    /// Reads a record, checking that its bytes hash to its name.
    ///
    /// `unreadable`: the file is missing or cannot be read. `corrupt-record`: its
    /// bytes do not hash to its name, or its header does not parse.
    /// `unsupported-version`: another format or major version.
    /// `malformed-record`: the record is intact but its body is not a `T`.
    /// `untrusted-store`, `too-large`: see [`Store::head`].
    pub fn read_record<T: DeserializeOwned>(&self, id: &RecordId) -> Result<StoredRecord<T>> {
        let (path, bytes, _) = self.read_header(id)?;
        let mut json = serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(&mut json).map_err(|e| Error::MalformedRecord {
            record: shown(&path),
            reason: format!("at {}: {}", e.path(), e.inner()),
        })
    }

    /// [`Store::read_record`] of a record that must be of `kind`: its header is
    /// checked before the body is interpreted, so that a record of another kind
    /// (which might parse as a `T` full of defaults) is `corrupt-record`.
    pub fn read_record_of_kind<T: DeserializeOwned>(
        &self,
        id: &RecordId,
        kind: &str,
    ) -> Result<StoredRecord<T>> {
        let (path, bytes, header) = self.read_header(id)?;
        if header.kind != kind {
            return Err(Error::CorruptRecord {
                path: shown(&path),
                reason: format!(
                    "it is a \"{}\" record where a \"{}\" record belongs",
                    crate::quote::escape(header.kind.as_bytes()),
                    crate::quote::escape(kind.as_bytes())
                ),
            });
        }
        let mut json = serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(&mut json).map_err(|e| Error::MalformedRecord {
            record: shown(&path),
            reason: format!("at {}: {}", e.path(), e.inner()),
        })
    }

    /// Reads a record's file and verified header. In a Git store, a record
    /// this store did not write (a fetched one) is read from the repository.
    fn read_header(&self, id: &RecordId) -> Result<(PathBuf, Vec<u8>, StoredRecord<IgnoredAny>)> {
        let refs = self.git_refs()?;
        let root = self.existing_dir()?;
        let path = self.record_path(id);
        match read_header_in(root.as_ref(), &path, id) {
            Ok((bytes, header)) => Ok((path, bytes, header)),
            Err(Error::Unreadable { source, .. })
                if source.kind() == io::ErrorKind::NotFound && refs.is_some() =>
            {
                self.read_fetched(refs.as_ref(), id)
            }
            Err(e) => Err(e),
        }
    }

    /// The record a ref names now (`None` when the ref does not exist yet).
    ///
    /// Ref names are `/`-separated segments of `[A-Za-z0-9._-]`, none starting
    /// with `.`, e.g. `changes/add-auth` or `gates/test`.
    ///
    /// Every read of the store refuses with `untrusted-store` a store that is
    /// not what ledger created for this user — a symlink, FIFO, device or socket
    /// where a file or directory belongs, an entry owned by another user, a
    /// store whose files Git tracks — and with `too-large` a ref or record past
    /// its bound. An absent store is empty, but only in a workspace that exists:
    /// a workspace that does not (a mistyped `--workspace`) is `unreadable`.
    pub fn head(&self, reference: &str) -> Result<Option<RecordId>> {
        check_ref_name(reference)?;
        if let Some(refs) = self.git_refs()? {
            return Ok(self.git_head(&refs, reference)?.map(|head| head.record));
        }
        match self.existing_dir()? {
            Some(root) => read_ref(&root, reference),
            None => Ok(None),
        }
    }

    /// The store directory, opened and trusted; `None` when there is none yet.
    fn existing_dir(&self) -> Result<Option<StoreDir>> {
        let root = StoreDir::open_root(self.dir(), Missing::Absent)?;
        // A store in a git directory is not in any worktree: Git cannot track it.
        if root.is_some() && self.git.is_none() {
            trust::refuse_tracked(self.dir())?;
        }
        Ok(root)
    }

    /// The store directory, created if needed, opened and trusted.
    fn create_dir(&self) -> Result<StoreDir> {
        // Refused before anything is created or written in it.
        match &self.git {
            None => trust::refuse_tracked(self.dir())?,
            // The checkout keeps its own `.ledger/` for what is not shared:
            // the digest cache, which answers for this worktree's files only.
            Some(place) => {
                trust::refuse_tracked(place.legacy.as_std_path())?;
                StoreDir::open_root(place.legacy.as_std_path(), Missing::Create)?;
            }
        }
        StoreDir::open_root(self.dir(), Missing::Create)?.ok_or_else(|| {
            let gone = io::Error::new(io::ErrorKind::NotFound, "removed as it was created");
            unwritable(self.dir(), "create directory", gone)
        })
    }

    /// Compare-and-swap: points `reference` at `new` only if it still names
    /// `expected` (`None`: the ref must not exist yet).
    ///
    /// `new` must be an intact record whose `previous` is `expected`
    /// (`chain-mismatch` otherwise): the record itself says what the writer
    /// started from, so a ref can never skip a record. If the ref names another
    /// record, `pointer-conflict` names both, and `new` stays as an orphan. If it
    /// already names `new`, this advance already happened (a retry): `Ok`.
    pub fn advance(
        &self,
        reference: &str,
        expected: Option<&RecordId>,
        new: &RecordId,
    ) -> Result<()> {
        check_ref_name(reference)?;
        let root = self.create_dir()?;
        let _lock = lock(&root)?;
        self.advance_locked(&root, reference, expected, new)
    }

    /// [`Store::advance`] by a caller that holds the store's lock.
    fn advance_locked(
        &self,
        root: &StoreDir,
        reference: &str,
        expected: Option<&RecordId>,
        new: &RecordId,
    ) -> Result<()> {
        let (_, _, header) = self.read_header(new)?;
        if header.previous.as_ref() != expected {
            return Err(Error::ChainMismatch {
                pointer: reference.to_owned(),
                record: new.to_string(),
                follows: or_none(header.previous.as_ref()),
                expected: or_none(expected),
            });
        }
        if let Some(refs) = self.git_refs()? {
            return self.git_advance(&refs, reference, expected, new);
        }
        let (dir, leaf) = ref_dir(root, reference)?;
        let found = read_ref_in(&dir, leaf)?;
        if found.as_ref() == Some(new) {
            return Ok(());
        }
        if found.as_ref() != expected {
            return Err(Error::PointerConflict {
                pointer: reference.to_owned(),
                expected: or_none(expected),
                found: or_none(found.as_ref()),
                orphan: new.to_string(),
            });
        }
        replace_ref(root, &dir, leaf, new)
    }

    /// Appends a record to a ref's chain, whatever the ref names now: under the
    /// lock, reads the head, writes the record following it and advances. For
    /// logs such as gate evidence, whose new entry does not depend on the one
    /// before; state derived from what a writer read uses [`Store::commit`].
    pub fn append<T: Serialize>(&self, reference: &str, kind: &str, body: &T) -> Result<RecordId> {
        check_ref_name(reference)?;
        self.refuse_name_conflict(reference)?;
        let root = self.create_dir()?;
        if let Some(refs) = self.git_refs()? {
            let _lock = lock(&root)?;
            let head = self.git_head(&refs, reference)?.map(|head| head.record);
            let id = self.write_record(kind, head.as_ref(), body)?;
            self.git_advance(&refs, reference, head.as_ref(), &id)?;
            return Ok(id);
        }
        let (dir, leaf) = ref_dir(&root, reference)?;
        let _lock = lock(&root)?;
        let head = read_ref_in(&dir, leaf)?;
        let id = self.write_record(kind, head.as_ref(), body)?;
        replace_ref(&root, &dir, leaf, &id)?;
        Ok(id)
    }

    /// Writes a record following `expected`, then advances the ref to it. On
    /// `pointer-conflict` the record stays in the store as an orphan.
    pub fn commit<T: Serialize>(
        &self,
        reference: &str,
        kind: &str,
        expected: Option<&RecordId>,
        body: &T,
    ) -> Result<RecordId> {
        self.commit_or_rebase(reference, kind, expected, body, &mut |_| Ok(None))
    }

    /// [`Store::commit`] of a write that need not depend on what landed since
    /// its writer read `expected` (docs/lifecycle.md, ledger for agents): when
    /// the ref names another head, `rebase` is asked, under the store's lock,
    /// for the body to record after that head instead — the same observation,
    /// on top of what landed — or `None` when the write depends on what
    /// landed, which is `pointer-conflict` as in [`Store::commit`] (the record
    /// written after `expected` stays as an orphan: a real conflict stays
    /// visible). A write that rebases writes no orphan. In a Git store, whose
    /// refs other worktrees move without this lock, a ref moved between the
    /// look and the update is looked at again, up to [`REBASES`] times.
    pub fn commit_or_rebase<T: Serialize>(
        &self,
        reference: &str,
        kind: &str,
        expected: Option<&RecordId>,
        body: &T,
        rebase: &mut dyn FnMut(Option<&RecordId>) -> Result<Option<T>>,
    ) -> Result<RecordId> {
        check_ref_name(reference)?;
        self.refuse_name_conflict(reference)?;
        let root = self.create_dir()?;
        let _lock = lock(&root)?;
        let mut rebased: Option<(Option<RecordId>, T)> = None;
        for _ in 0..REBASES {
            let (base, body) = match &rebased {
                Some((head, body)) => (head.as_ref(), body),
                None => (expected, body),
            };
            // Heads that went apart are no head to rebase on: the write goes
            // after `base` and the advance resolves or refuses as ever.
            let head = self.head(reference).ok();
            if let Some(head) = head
                && head.as_ref() != base
                && let Some(body) = rebase(head.as_ref())?
            {
                rebased = Some((head, body));
                continue;
            }
            let id = self.write_record(kind, base, body)?;
            match self.advance_locked(&root, reference, base, &id) {
                // Moved between the look and the update (another worktree).
                Err(Error::PointerConflict { .. }) if head.flatten().as_ref() == base => {}
                done => return done.map(|()| id),
            }
        }
        let (base, body) = match &rebased {
            Some((head, body)) => (head.as_ref(), body),
            None => (expected, body),
        };
        let id = self.write_record(kind, base, body)?;
        self.advance_locked(&root, reference, base, &id)?;
        Ok(id)
    }

    /// Every ref and the record it names, sorted by name. A ref file that does
    /// not hold a record id is refused with `corrupt-record`; an entry below
    /// `refs/` that is not a file or directory of this user's, with
    /// `untrusted-store`.
    pub fn refs(&self) -> Result<Vec<(String, RecordId)>> {
        if let Some(refs) = self.git_refs()? {
            return self.git_ref_list(&refs);
        }
        self.scan_refs()?
            .into_iter()
            .map(|r| r.head.map(|id| (r.name, id)))
            .collect()
    }

    /// The ids on a ref, newest first, following each record's `previous`. A
    /// missing or corrupt record on the way ends the walk with its error.
    pub fn history(&self, reference: &str) -> Result<Vec<RecordId>> {
        check_ref_name(reference)?;
        if let Some(refs) = self.git_refs()? {
            return self.git_history(&refs, reference);
        }
        let Some(root) = self.existing_dir()? else {
            return Ok(Vec::new());
        };
        let mut ids = Vec::new();
        let mut seen = HashSet::new();
        let mut next = read_ref(&root, reference)?;
        while let Some(id) = next {
            // Unreachable without a SHA-256 collision, but a loop must not hang.
            if !seen.insert(id) {
                return Err(Error::CorruptRecord {
                    path: shown(&self.record_path(&id)),
                    reason: "the chain of previous records loops back to it".to_owned(),
                });
            }
            next = read_header_in(Some(&root), &self.record_path(&id), &id)?
                .1
                .previous;
            ids.push(id);
        }
        Ok(ids)
    }

    /// In a Git store, refuses before any record is written for it, so that
    /// the refused write leaves no orphan, a ref that cannot exist beside
    /// another (`x/y` beside `x`: `ref-name-conflict`) or whose lock file a
    /// killed writer left (`ref-locked`). The update checks both again, and
    /// meets a lock a live writer holds.
    fn refuse_name_conflict(&self, reference: &str) -> Result<()> {
        match self.open_git()? {
            Some(refs) => refs.check_writable(reference),
            None => Ok(()),
        }
    }

    /// Removes the lock files left below `refs/ledger/` of a Git store that
    /// are at least `older_than` old ([`ABANDONED_AFTER`] when `None`): those
    /// a killed writer left (docs/sharing.md, Stale ref locks). Younger ones
    /// are kept and listed: a writer may hold them. Runs under the store's
    /// lock, so no ledger writer of this store holds a ref's lock meanwhile,
    /// and each file is removed only if it is still the very file judged.
    /// A store that is not in a Git repository has no such locks.
    ///
    /// `invalid-argument` for a bound under [`UNLOCK_FLOOR`].
    pub fn unlock(&self, older_than: Option<std::time::Duration>) -> Result<Unlocked> {
        let older_than = older_than.unwrap_or(ABANDONED_AFTER);
        if older_than < UNLOCK_FLOOR {
            return Err(Error::InvalidArgument {
                message: format!(
                    "a lock younger than {} may belong to a writer still running: ledger removes none that young",
                    humantime::format_duration(UNLOCK_FLOOR)
                ),
            });
        }
        let Some(refs) = self.open_git()? else {
            return Ok(Unlocked {
                older_than_seconds: older_than.as_secs(),
                ..Unlocked::default()
            });
        };
        let root = self.create_dir()?;
        let _lock = lock(&root)?;
        refs.unlock(older_than)
    }

    fn records_dir(&self) -> PathBuf {
        self.dir().join(RECORDS)
    }

    #[cfg(test)]
    fn refs_dir(&self) -> PathBuf {
        self.dir().join(REFS)
    }

    #[cfg(test)]
    fn tmp_dir(&self) -> PathBuf {
        self.dir().join(TMP)
    }

    pub(crate) fn record_path(&self, id: &RecordId) -> PathBuf {
        self.records_dir().join(record_name(id))
    }

    /// The file of a ref whose name has been checked.
    #[cfg(test)]
    fn ref_path(&self, reference: &str) -> PathBuf {
        self.refs_dir().join(reference)
    }
}

/// `id` as text, or `none`.
/// How many times [`Store::commit_or_rebase`] looks at a head that moved
/// before it gives up with `pointer-conflict`.
pub const REBASES: usize = 16;

fn or_none(id: Option<&RecordId>) -> String {
    id.map_or_else(
        || crate::records::StartedFrom::NO_RECORD.to_owned(),
        RecordId::to_string,
    )
}

/// The file name of a record.
fn record_name(id: &RecordId) -> String {
    format!("{id}.json")
}

/// Succeeds when the existing record file `name` holds exactly `bytes`.
fn same_bytes(records: &StoreDir, name: &str, bytes: &[u8]) -> Result<()> {
    let path = records.join(name);
    let existing = records
        .read(name, "record", RECORD_LIMIT)?
        .ok_or_else(|| unreadable(&path, "read record", io::ErrorKind::NotFound.into()))?;
    if existing == bytes {
        return Ok(());
    }
    Err(Error::CorruptRecord {
        path: shown(&path),
        reason: "it already exists with other bytes than the record named by their hash".to_owned(),
    })
}

/// Reads the record `id` (at `path`, for messages) of the store `root` (`None`:
/// there is no store) and verifies its header.
fn read_header_in(
    root: Option<&StoreDir>,
    path: &Path,
    id: &RecordId,
) -> Result<(Vec<u8>, StoredRecord<IgnoredAny>)> {
    let records = match root {
        Some(root) => root.sub(RECORDS, Missing::Absent)?,
        None => None,
    };
    let bytes = match records {
        Some(records) => records.read(&record_name(id), "record", RECORD_LIMIT)?,
        None => None,
    };
    let bytes =
        bytes.ok_or_else(|| unreadable(path, "read record", io::ErrorKind::NotFound.into()))?;
    match verify(id, &bytes) {
        Ok(header) => Ok((bytes, header)),
        Err(defect) => Err(defect.into_error(path)),
    }
}

/// Takes the store's exclusive lock, released when the file is dropped.
///
/// The lock is a file of its own because the ref itself is replaced by
/// rename: a lock on the ref would be held on a file that is swapped away,
/// and the next writer would lock the new one without waiting. The lock is
/// advisory (`flock`), so the kernel drops it when its holder dies: a killed
/// writer never leaves a stale lock behind. It is opened `O_NOFOLLOW`, so a
/// symlink planted as `lock` never makes ledger create a file elsewhere.
fn lock(root: &StoreDir) -> Result<File> {
    let file = root.open_or_create(LOCK)?;
    file.lock()
        .map_err(|e| unwritable(&root.join(LOCK), "lock", e))?;
    Ok(file)
}

/// The directory of the ref `reference` (a checked name), created if needed,
/// and the ref's file name in it.
fn ref_dir<'r>(root: &StoreDir, reference: &'r str) -> Result<(StoreDir, &'r str)> {
    let (dirs, leaf) = match reference.rsplit_once('/') {
        Some((dirs, leaf)) => (Some(dirs), leaf),
        None => (None, reference),
    };
    let mut dir = root.make_sub(REFS)?;
    for segment in dirs.into_iter().flat_map(|d| d.split('/')) {
        dir = dir.make_sub(segment)?;
    }
    Ok((dir, leaf))
}

/// Points the ref `leaf` of `dir` at `id`; the caller holds the lock.
fn replace_ref(root: &StoreDir, dir: &StoreDir, leaf: &str, id: &RecordId) -> Result<()> {
    let tmp = root.make_sub(TMP)?;
    let mut temp = TempFile::create(&tmp, "ref")?;
    temp.write_synced(format!("{id}\n").as_bytes())?;
    // rename() replaces the ref atomically: a reader sees the old id or the
    // new one, never a partly written file.
    temp.rename_to(dir, leaf)?;
    dir.sync()
}

/// Reads the ref `reference` (a checked name) of the store `root`: `None`
/// when it does not exist.
fn read_ref(root: &StoreDir, reference: &str) -> Result<Option<RecordId>> {
    let Some(mut dir) = root.sub(REFS, Missing::Absent)? else {
        return Ok(None);
    };
    let mut segments = reference.split('/').peekable();
    while let Some(segment) = segments.next() {
        if segments.peek().is_none() {
            return read_ref_in(&dir, segment);
        }
        match dir.sub(segment, Missing::AbsentOrFile)? {
            Some(next) => dir = next,
            None => return Ok(None),
        }
    }
    Ok(None)
}

/// Reads the ref file `leaf` of `dir`: `None` when it does not exist.
fn read_ref_in(dir: &StoreDir, leaf: &str) -> Result<Option<RecordId>> {
    let Some(bytes) = dir.read(leaf, "ref", REF_LIMIT)? else {
        return Ok(None);
    };
    parse_ref(&bytes)
        .map(Some)
        .map_err(|reason| Error::CorruptRecord {
            path: shown(&dir.join(leaf)),
            reason,
        })
}

/// Why a record file cannot be trusted.
enum Defect {
    /// The bytes do not hash to the name, or the header does not parse.
    Corrupt(String),
    /// An intact record of another format or major version.
    Unsupported(String),
}

impl Defect {
    fn reason(&self) -> &str {
        match self {
            Defect::Corrupt(reason) | Defect::Unsupported(reason) => reason,
        }
    }

    fn into_error(self, path: &Path) -> Error {
        match self {
            Defect::Corrupt(reason) => Error::CorruptRecord {
                path: shown(path),
                reason,
            },
            Defect::Unsupported(found) => Error::UnsupportedVersion {
                record: shown(path),
                found,
                supported: format!("format {STORED_RECORD_FORMAT} version 1.x"),
            },
        }
    }
}

/// Checks a record file's bytes against its id and parses its header.
fn verify(id: &RecordId, bytes: &[u8]) -> Result<StoredRecord<IgnoredAny>, Defect> {
    let actual = RecordId::of(bytes);
    if actual != *id {
        return Err(Defect::Corrupt(format!(
            "its bytes hash to {actual}, not to its name"
        )));
    }
    let header: StoredRecord<IgnoredAny> = serde_json::from_slice(bytes)
        .map_err(|e| Defect::Corrupt(format!("unparsable record header: {e}")))?;
    let major = header.version.split('.').next();
    if header.format != STORED_RECORD_FORMAT || major != Some("1") {
        return Err(Defect::Unsupported(format!(
            "format {} version {}",
            header.format, header.version
        )));
    }
    Ok(header)
}

/// A ref file holds exactly `<64 hex>\n`.
fn parse_ref(bytes: &[u8]) -> Result<RecordId, String> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| text.strip_suffix('\n'))
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| {
            "a ref holds one record id (64 lowercase hex digits) and a newline".to_owned()
        })
}

/// Refuses a ref name that is not `/`-separated segments of `[A-Za-z0-9._-]`
/// with no segment starting with `.` — so a name can neither leave `refs/`
/// (`..`) nor hide as a dot file nor collide with an empty path component.
pub(crate) fn check_ref_name(name: &str) -> Result<()> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else {
        name.split('/').find_map(segment_problem)
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(Error::BadRefName {
            name: name.chars().take(200).collect(),
            reason,
        }),
    }
}

fn segment_problem(segment: &str) -> Option<&'static str> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
    if segment.is_empty() {
        Some("it has an empty segment (a leading, trailing or doubled '/')")
    } else if segment.starts_with('.') {
        Some("a segment starts with '.'")
    } else if segment.len() > 255 {
        Some("a segment is longer than 255 bytes")
    } else if !segment.bytes().all(allowed) {
        Some("a segment has a character other than A-Z, a-z, 0-9, '.', '_', '-'")
    } else {
        None
    }
}
