//! The store of a Git checkout (docs/sharing.md): its refs are Git refs, its
//! heads may have been fetched from other machines, two heads that went apart
//! are a divergence shown and never merged, and an older `.ledger/` is
//! migrated into it once, losing nothing.

use std::io;
use std::path::PathBuf;

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::git::{self, GitRefs, Head, LOCAL, PUSH_REFSPEC, REMOTES};
use super::{
    LEGACY_REMOTE, MIGRATED, RECORDS, RecordId, Store, StoredRecord, lock, or_none, verify,
};
use crate::error::{Error, Result};
use crate::expand::ledger_dir::{Missing, StoreDir, TMP, TempFile, unreadable};
use crate::records::signing::{AllowedSigners, Signature, SigningKey};

/// Two or more heads of one ref that went apart: each advanced from a record
/// the other does not follow. Nothing is merged; an explicit write resolves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Divergence {
    /// The ref name, e.g. `changes/add-auth`.
    pub reference: String,
    /// Every head, local first: `<record> (local)` or `<record> (fetched from <remote>)`.
    pub heads: Vec<String>,
}

/// Where the record a ref names came from, and who signed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Provenance {
    /// The record the ref names.
    pub record: RecordId,
    /// Whether this store wrote it (its bytes are in the store's `records/`):
    /// a record that reached the store only through Git objects is not local.
    pub local: bool,
    /// The remote whose fetched head names it (`None`: the local head does).
    pub remote: Option<String>,
    /// The signer's principal, when an allowed signer signed it.
    pub signer: Option<String>,
    /// The signing key's fingerprint (`SHA256:...`), when it is signed.
    pub key: Option<String>,
    /// Why a signature does not count (bad, unknown key, no allowed signers
    /// given), when there is one that does not.
    pub signature_problem: Option<String>,
}

impl Provenance {
    /// A local record, unsigned.
    fn local(record: RecordId) -> Provenance {
        Provenance {
            record,
            local: true,
            remote: None,
            signer: None,
            key: None,
            signature_problem: None,
        }
    }

    /// Whether an allowed signer signed it.
    pub fn is_signed_by_allowed_signer(&self) -> bool {
        self.signer.is_some()
    }
}

/// Why the record `judged`, read as a ref's head, cannot stand as proof on
/// this machine, given what [`Store::provenance`] then says of that ref
/// (`seen`): `None` when this store wrote it or an allowed signer signed it.
///
/// Every proof read from a ref (gate evidence, an audit verdict) asks this
/// one question, so a record fetched from elsewhere is trusted by the same
/// rule wherever it is used. A ref that moved between the two reads is
/// unproven too: what was judged is not what was read.
pub fn why_unproven(judged: &RecordId, seen: Option<&Provenance>) -> Option<String> {
    let Some(seen) = seen else {
        return Some(format!(
            "the ref moved while it was read (record {judged} is no longer its head); check again"
        ));
    };
    if seen.record != *judged {
        return Some(format!(
            "the ref moved while it was read (from {judged} to {}); check again",
            seen.record
        ));
    }
    if seen.local || seen.is_signed_by_allowed_signer() {
        return None;
    }
    let from = match &seen.remote {
        Some(remote) => format!("fetched from {remote}"),
        None => "reached this store through Git objects only".to_owned(),
    };
    let lacks = match (&seen.key, &seen.signature_problem) {
        (None, _) => "it is not signed".to_owned(),
        (Some(key), Some(problem)) => format!("its signature by {key} does not count: {problem}"),
        (Some(key), None) => format!("it is signed by {key}, not by an allowed signer"),
    };
    Some(format!(
        "it was {from} and {lacks}; a record from elsewhere counts only when an allowed signer signed it"
    ))
}

/// What `remote setup` did to a repository's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RemoteSetup {
    /// The remote.
    pub remote: String,
    /// The fetch refspec it now has.
    pub fetch: String,
    /// Whether it was added (`false`: it was there).
    pub added: bool,
    /// The refspec that pushes this store's heads: `git push <remote> <push>`.
    pub push: String,
}

impl Store {
    /// The repository's refs, when this is a Git store; an older `.ledger/`
    /// of the workspace is migrated first.
    pub(super) fn git_refs(&self) -> Result<Option<GitRefs>> {
        let Some(refs) = self.open_git()? else {
            return Ok(None);
        };
        if self.needs_migration()? {
            self.migrate(&refs)?;
        }
        Ok(Some(refs))
    }

    /// The repository's refs, when this is a Git store, as they are.
    pub(super) fn open_git(&self) -> Result<Option<GitRefs>> {
        let Some(place) = &self.git else {
            return Ok(None);
        };
        let refs = GitRefs::open(place.workspace.as_std_path())?.ok_or_else(|| {
            unreadable(
                place.workspace.join(".git").as_std_path(),
                "open repository",
                io::ErrorKind::NotFound.into(),
            )
        })?;
        Ok(Some(refs))
    }

    /// The one head of `reference` (`None`: it has none); heads that went
    /// apart are `divergent-heads`.
    pub(super) fn git_head(&self, refs: &GitRefs, reference: &str) -> Result<Option<Head>> {
        let mut tips = git::tips(refs, refs.heads(reference)?)?;
        match tips.len() {
            0 | 1 => Ok(tips.pop()),
            _ => Err(divergent(reference, &tips)),
        }
    }

    /// Advances the local head of `reference` to the record `new`, which
    /// follows `expected`; the caller holds the store's lock. When heads went
    /// apart, a write that starts from one of them resolves the divergence:
    /// its commit has every head as a parent, so nothing is dropped and the
    /// next push fast-forwards.
    pub(super) fn git_advance(
        &self,
        refs: &GitRefs,
        reference: &str,
        expected: Option<&RecordId>,
        new: &RecordId,
    ) -> Result<()> {
        let heads = refs.heads(reference)?;
        let tips = git::tips(refs, heads.clone())?;
        let conflict = |found: Option<&RecordId>| Error::PointerConflict {
            pointer: reference.to_owned(),
            expected: or_none(expected),
            found: or_none(found),
            orphan: new.to_string(),
        };
        let parents: Vec<ObjectId> = match tips.as_slice() {
            [] if expected.is_none() => Vec::new(),
            [] => return Err(conflict(None)),
            [head] if head.record == *new => return Ok(()),
            [head] if Some(&head.record) == expected => vec![head.commit],
            [head] => return Err(conflict(Some(&head.record))),
            many => {
                let Some(from) = many.iter().find(|h| Some(&h.record) == expected) else {
                    return Err(divergent(reference, many));
                };
                let mut parents = vec![from.commit];
                parents.extend(many.iter().map(|h| h.commit).filter(|c| *c != from.commit));
                parents
            }
        };
        // Only a record this store wrote is committed (and signed with its key):
        // a fetched record's bytes are someone else's.
        if !self.is_local(new)? {
            return Err(Error::InvalidArgument {
                message: format!(
                    "record {new} is not one this store wrote: a ref advances only to a record written here"
                ),
            });
        }
        let (_, bytes, header) = self.read_header(new)?;
        let message = format!("ledger {} {new}\n", header.kind);
        let commit = refs.write(&bytes, &message, &parents, self.signing_key()?.as_ref())?;
        // Compared with the local head as it was read, not as it is now.
        let old = local_of(&heads);
        if refs.update(reference, old, commit)? {
            return Ok(());
        }
        let now = self.git_head(refs, reference).ok().flatten();
        Err(conflict(now.as_ref().map(|h| &h.record)))
    }

    /// Every ref with a head and the record it names, sorted by name; a ref
    /// whose heads went apart is `divergent-heads`, a forged one `corrupt-record`.
    pub(super) fn git_ref_list(&self, refs: &GitRefs) -> Result<Vec<(String, RecordId)>> {
        let mut names = std::collections::BTreeSet::new();
        for scanned in refs.scan()? {
            scanned.head?;
            names.extend(scanned.name);
        }
        let mut list = Vec::new();
        for name in names {
            if let Some(head) = self.git_head(refs, &name)? {
                list.push((name, head.record));
            }
        }
        Ok(list)
    }

    /// The records on `reference`, newest first.
    pub(super) fn git_history(&self, refs: &GitRefs, reference: &str) -> Result<Vec<RecordId>> {
        let Some(head) = self.git_head(refs, reference)? else {
            return Ok(Vec::new());
        };
        let what = full_name(&head, reference);
        Ok(refs
            .chain(&what, head.commit)?
            .into_iter()
            .map(|(_, record)| record.id)
            .collect())
    }

    /// A record this store did not write, as a fetched chain holds it.
    pub(super) fn read_fetched(
        &self,
        refs: Option<&GitRefs>,
        id: &RecordId,
    ) -> Result<(PathBuf, Vec<u8>, StoredRecord<serde::de::IgnoredAny>)> {
        let path = self.record_path(id);
        let bytes = match refs {
            Some(refs) => refs.find(id)?,
            None => None,
        };
        let bytes = bytes
            .ok_or_else(|| unreadable(&path, "read record", io::ErrorKind::NotFound.into()))?;
        let header = verify(id, &bytes).map_err(|defect| defect.into_error(&path))?;
        Ok((path, bytes, header))
    }

    /// Whether this store wrote the record `id` (its bytes are in `records/`).
    pub fn is_local(&self, id: &RecordId) -> Result<bool> {
        let Some(root) = StoreDir::open_root(self.dir(), Missing::Absent)? else {
            return Ok(false);
        };
        let Some(records) = root.sub(RECORDS, Missing::Absent)? else {
            return Ok(false);
        };
        let bytes = records.read(&super::record_name(id), "record", super::RECORD_LIMIT)?;
        Ok(bytes.is_some_and(|bytes| RecordId::of(&bytes) == *id))
    }

    /// Where the record `reference` names came from and who signed it,
    /// judged against the allowed signers of the store's signing settings
    /// ([`Store::with_signing`]). `None`: the ref has no head.
    pub fn provenance(&self, reference: &str) -> Result<Option<Provenance>> {
        super::check_ref_name(reference)?;
        let Some(refs) = self.git_refs()? else {
            return Ok(self.head(reference)?.map(Provenance::local));
        };
        let Some(head) = self.git_head(&refs, reference)? else {
            return Ok(None);
        };
        let allowed = self.allowed_signers()?;
        let what = full_name(&head, reference);
        let signature = refs.signature(&what, head.commit, allowed.as_ref())?;
        let mut provenance = Provenance::local(head.record);
        provenance.local = self.is_local(&head.record)?;
        provenance.remote = head.remote;
        if let Signature::Signed {
            key,
            principal,
            problem,
        } = signature
        {
            provenance.key = Some(key);
            provenance.signer = principal;
            provenance.signature_problem = problem;
        }
        Ok(Some(provenance))
    }

    /// Ends the divergence of `reference` by keeping the head that names
    /// `keep`: a commit of that record with every head as a parent becomes
    /// the local head. Nothing is dropped; the other heads' records stay
    /// reachable in Git. `invalid-argument`: the ref has not gone apart, or
    /// `keep` is none of its heads.
    pub fn resolve(&self, reference: &str, keep: &RecordId) -> Result<RecordId> {
        super::check_ref_name(reference)?;
        let refs = self.git_refs()?.ok_or_else(|| Error::InvalidArgument {
            message: "this store is not in a Git repository: its refs never go apart".to_owned(),
        })?;
        let root = self.create_dir()?;
        let _lock = lock(&root)?;
        let heads = refs.heads(reference)?;
        let tips = git::tips(&refs, heads.clone())?;
        if tips.len() < 2 {
            return Err(Error::InvalidArgument {
                message: format!(
                    "ref {reference:?} has not gone apart: there is nothing to resolve"
                ),
            });
        }
        let Some(kept) = tips.iter().find(|h| h.record == *keep) else {
            return Err(Error::InvalidArgument {
                message: format!(
                    "record {keep} is none of the heads of {reference:?}: {}",
                    shown(&tips)
                ),
            });
        };
        let others: Vec<ObjectId> = tips.iter().map(|h| h.commit).collect();
        let commit = refs.write_resolution(kept, &others, self.signing_key()?.as_ref())?;
        let old = local_of(&heads);
        if !refs.update(reference, old, commit)? {
            return Err(Error::PointerConflict {
                pointer: reference.to_owned(),
                expected: keep.to_string(),
                found: "another head".to_owned(),
                orphan: keep.to_string(),
            });
        }
        Ok(*keep)
    }

    /// Every ref whose heads went apart.
    pub(super) fn divergences(&self, refs: &GitRefs) -> Result<Vec<Divergence>> {
        let mut names = std::collections::BTreeSet::new();
        for scanned in refs.scan()? {
            if scanned.head.is_ok() {
                names.extend(scanned.name);
            }
        }
        let mut found = Vec::new();
        for name in names {
            let Ok(heads) = refs.heads(&name) else {
                continue;
            };
            let Ok(tips) = git::tips(refs, heads) else {
                continue;
            };
            if tips.len() > 1 {
                found.push(Divergence {
                    reference: name,
                    heads: tips.iter().map(Head::shown).collect(),
                });
            }
        }
        Ok(found)
    }

    /// Adds to the repository's configuration the fetch refspec that brings
    /// `remote`'s ledger heads beside this store's
    /// (`+refs/ledger/heads/*:refs/ledger/remotes/<remote>/*`), unless it is
    /// there, and says how to push. The push refspec is not configured: a
    /// `push` line would change what a plain `git push` sends.
    pub fn remote_setup(&self, remote: &str) -> Result<RemoteSetup> {
        super::check_ref_name(remote).map_err(|_| Error::InvalidArgument {
            message: format!(
                "{remote:?} is not a remote name ledger takes (letters, digits, '.', '_', '-')"
            ),
        })?;
        if remote.contains('/') {
            return Err(Error::InvalidArgument {
                message: format!("{remote:?} is not a remote name ledger takes: it holds '/'"),
            });
        }
        let refs = self.git_refs()?.ok_or_else(|| Error::InvalidArgument {
            message: "this store is not in a Git repository: there is no remote to set up"
                .to_owned(),
        })?;
        let added = refs.add_fetch_refspec(remote)?;
        Ok(RemoteSetup {
            remote: remote.to_owned(),
            fetch: git::fetch_refspec(remote),
            added,
            push: PUSH_REFSPEC.to_owned(),
        })
    }

    /// Whether the workspace has an older `.ledger/` with refs that was not
    /// migrated yet.
    pub(super) fn needs_migration(&self) -> Result<bool> {
        let Some(place) = &self.git else {
            return Ok(false);
        };
        let Some(legacy) = StoreDir::open_root(place.legacy.as_std_path(), Missing::Absent)? else {
            return Ok(false);
        };
        let has_refs = legacy.sub(super::REFS, Missing::Absent)?.is_some();
        let done = legacy.stat(MIGRATED, &legacy.join(MIGRATED))?.is_some();
        Ok(has_refs && !done)
    }

    /// Copies every record and kept object of the older `.ledger/` into this
    /// store and each of its refs into the repository, then marks it
    /// migrated. The old store stays as it was. A ref the repository already
    /// has with another head is kept as the fetched head
    /// `refs/ledger/remotes/legacy/<name>`: a divergence to resolve, never a loss.
    pub(super) fn migrate(&self, refs: &GitRefs) -> Result<()> {
        let Some(place) = &self.git else {
            return Ok(());
        };
        let legacy = Store::at(place.legacy.clone()).with_settings(self.settings.clone());
        let root = self.create_dir()?;
        let _lock = lock(&root)?;
        if !self.needs_migration()? {
            return Ok(());
        }
        for id in legacy.record_ids()? {
            let (_, bytes, _) = legacy.read_header(&id)?;
            self.write_bytes(&bytes)?;
        }
        for digest in legacy.object_ids()? {
            self.write_object(&legacy.read_object(&digest)?)?;
        }
        for (name, _) in legacy.refs()? {
            self.migrate_ref(refs, &legacy, &name)?;
        }
        mark_migrated(&legacy, &self.root)
    }

    /// Rebuilds the chain of the older store's ref `name` as commits.
    fn migrate_ref(&self, refs: &GitRefs, legacy: &Store, name: &str) -> Result<()> {
        let mut parent: Option<ObjectId> = None;
        let mut last = None;
        for id in legacy.history(name)?.into_iter().rev() {
            let (_, bytes, header) = legacy.read_header(&id)?;
            let message = format!("ledger {} {id}\n", header.kind);
            let parents: Vec<ObjectId> = parent.into_iter().collect();
            parent = Some(refs.write(&bytes, &message, &parents, None)?);
            last = Some(id);
        }
        let (Some(commit), Some(record)) = (parent, last) else {
            return Ok(());
        };
        let local = refs.heads(name)?.into_iter().find(|h| h.remote.is_none());
        match local {
            // Written by nobody else meanwhile: the store's lock is held. Should
            // anything outside ledger have, the chain is kept beside it.
            None if refs.update(name, None, commit)? => {}
            None => refs.set(&format!("{REMOTES}{LEGACY_REMOTE}/{name}"), commit)?,
            Some(head) if head.record == record => {}
            Some(_) => refs.set(&format!("{REMOTES}{LEGACY_REMOTE}/{name}"), commit)?,
        }
        Ok(())
    }
}

/// Writes `<legacy>/migrated`, saying where the store went.
fn mark_migrated(legacy: &Store, to: &camino::Utf8Path) -> Result<()> {
    let Some(root) = StoreDir::open_root(legacy.dir(), Missing::Absent)? else {
        return Ok(());
    };
    let tmp = root.make_sub(TMP)?;
    let mut temp = TempFile::create(&tmp, "migrated")?;
    let text = format!(
        "This store was migrated into the repository: records in {to}, refs under {LOCAL}.\n\
         It is kept as it was; ledger no longer reads it.\n"
    );
    temp.write_synced(text.as_bytes())?;
    temp.rename_to(&root, MIGRATED)?;
    root.sync()
}

/// The commit of the local head among `heads`, if there is one.
fn local_of(heads: &[Head]) -> Option<ObjectId> {
    heads.iter().find(|h| h.remote.is_none()).map(|h| h.commit)
}

/// `divergent-heads` for `reference`.
fn divergent(reference: &str, tips: &[Head]) -> Error {
    Error::DivergentHeads {
        pointer: reference.to_owned(),
        heads: shown(tips),
    }
}

fn shown(tips: &[Head]) -> String {
    tips.iter().map(Head::shown).collect::<Vec<_>>().join(", ")
}

/// The full Git ref name of `head` of `reference`, for messages.
fn full_name(head: &Head, reference: &str) -> String {
    match &head.remote {
        None => format!("{LOCAL}{reference}"),
        Some(remote) => format!("{REMOTES}{remote}/{reference}"),
    }
}

impl Store {
    /// The signing key of the store's signing settings, loaded (`None`: none is set).
    fn signing_key(&self) -> Result<Option<SigningKey>> {
        self.signing.key_path()?.map(SigningKey::load).transpose()
    }

    /// The allowed signers of the store's signing settings, loaded (`None`: none given).
    pub(crate) fn allowed_signers(&self) -> Result<Option<AllowedSigners>> {
        self.signing
            .allowed_signers_path()?
            .map(AllowedSigners::load)
            .transpose()
    }
}
