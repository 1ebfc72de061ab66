//! Expansion at a revision: a scope's entries and v1 fingerprint as they are in
//! a commit's tree, read from Git's objects with gix, so that a result is bound
//! to the exact commit it was computed on, whatever the working tree holds now.
//!
//! The working tree's rules (docs/format.md, SPEC §4–§5) apply to the tree's
//! files below the workspace (a commit has no untracked or ignored file): the
//! roots, exclusions (`.ledger` included), explicit paths and Tasks files (hashed
//! through the normalizer the working tree's reads use) alike; modes `100644`,
//! `100755` and `120000` (a symlink, hashed by its target: the blob) give the
//! entries a clean checkout gives. Refused with the working tree's codes: a
//! submodule (gitlink) in scope or above a path (`nested-repository`), a path
//! below a symlink (`symlinked-parent`) or naming a directory (`special-file`),
//! a path that is not UTF-8. What differs by nature:
//!
//! * One repository: a nested one has commits of its own, so a scope that
//!   declares any repository besides `.` is refused (`invalid-argument`), and so
//!   is a workspace outside Git (`git`).
//! * The bytes are the blob's: a file that checkout filters rewrite (`eol`,
//!   `ident`, LFS) or a symlink checked out as a file (`core.symlinks=false`)
//!   hashes apart from its working-tree copy. A blob is read whole into one
//!   reused buffer: memory grows with the largest blob, not with their number.
//! * A revision is any that gix's `rev_parse` reads as git does (`HEAD`,
//!   `main~2`, `v1^{}`, a full or abbreviated id), peeled to its commit; one
//!   that names no commit (a tree, a blob, nothing) is `invalid-argument`.

use std::collections::BTreeMap;
use std::path::Path;

use gix::ObjectId;
use gix::objs::FindExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::entry::{Content, Digest, Entry};
use crate::expand::fingerprint::fingerprint_sorted;
use crate::expand::git::{self, Locate};
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::path::{WorkspacePath, is_within};
use crate::quote::one_line;
use crate::tasks::normalize::{HashOutput, TasksNormalizer};
use crate::tasks::rule::TaskRule;

/// How the workspace's repository is named in messages.
const REPOSITORY: &str = ".";

/// A scope expanded as it is in one commit's tree, and that commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AtRevision {
    /// The full id of the commit the revision resolved to (40 lowercase hex
    /// digits): results are consolidated by it, never by the revision as given.
    pub commit: String,
    /// The entries and fingerprint of the scope in that commit's tree, with the
    /// scope as resolved; `walked_roots` is empty (a commit holds no file outside
    /// its repository).
    pub inventory: Inventory,
}

impl Inventory {
    /// Expands `scope` as it is in the commit `rev` names in the workspace's
    /// repository (module docs: which revisions, what is refused). For a clean
    /// checkout of that commit, the fingerprint equals [`Inventory::expand`]'s.
    pub fn expand_at(scope: &Scope, rev: &str) -> Result<AtRevision> {
        let scope = scope.resolve()?;
        one_repository(&scope)?;
        let workspace = scope.workspace.as_std_path();
        let repo = git::open_repository(workspace, Locate::Discover, REPOSITORY)?
            .ok_or_else(no_repository)?;
        let commit = resolve_commit(&repo, rev)?;
        let prefix = workspace_prefix(workspace)?;
        let mut objects = Objects {
            repo: &repo,
            buffer: Vec::new(),
        };
        let top = objects.workspace_tree(commit, &prefix)?;
        let candidates = objects.candidates(top, &scope)?;
        let entries = objects.entries(top, &scope, candidates)?;
        let fingerprint = fingerprint_sorted(&entries)?;
        Ok(AtRevision {
            commit: commit.to_hex().to_string(),
            inventory: Inventory {
                scope,
                walked_roots: Vec::new(),
                entries,
                fingerprint,
            },
        })
    }
}

/// The commit `HEAD` named when a result was made (gate evidence, a verdict,
/// a validation PASS), and whether the scope's files were exactly that
/// commit's: results are consolidated by the full commit id (seed 001), and a
/// result made on uncommitted files says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ObservedHead {
    /// The full id of the commit `HEAD` named.
    pub commit: String,
    /// Whether the scope's inventory was that commit's ([`Inventory::expand_at`]
    /// equal to it): no file in scope modified, added, removed or untracked.
    pub clean: bool,
}

impl ObservedHead {
    /// `HEAD` of `inventory`'s workspace, and whether `inventory` is its
    /// tree's; `None` when there is no `HEAD` to observe (outside Git, no
    /// commit yet, a scope across nested repositories, a tree that cannot be
    /// read), which the record then says by leaving it out.
    pub fn observe(inventory: &Inventory) -> Option<ObservedHead> {
        let at = Inventory::expand_at(&inventory.scope, "HEAD").ok()?;
        Some(ObservedHead {
            clean: at.inventory.fingerprint == inventory.fingerprint,
            commit: at.commit,
        })
    }

    /// The full id of the commit `HEAD` names now in the repository of
    /// `scope`'s workspace; `None` as for [`ObservedHead::observe`].
    pub fn current(scope: &Scope) -> Option<String> {
        let scope = scope.resolve().ok()?;
        let repo =
            git::open_repository(scope.workspace.as_std_path(), Locate::Discover, REPOSITORY)
                .ok()??;
        Some(resolve_commit(&repo, "HEAD").ok()?.to_hex().to_string())
    }
}

/// Refuses a scope that is not exactly the workspace's repository: a commit
/// of it says nothing of a nested repository's files, nor of a root outside Git.
fn one_repository(scope: &Scope) -> Result<()> {
    match scope.repositories.as_slice() {
        [only] if only == REPOSITORY => Ok(()),
        [] => Err(no_repository()),
        declared => {
            let named: Vec<_> = declared.iter().map(|r| quoted(r)).collect();
            Err(Error::InvalidArgument {
                message: format!(
                    "a revision names a commit of the workspace's repository only, and this scope declares the repositories {}: expand each nested repository's own scope at its own revision",
                    named.join(", ")
                ),
            })
        }
    }
}

fn no_repository() -> Error {
    repository_error("not a Git repository: a revision is read from the workspace's repository")
}

/// An `Error::Git` about the workspace's repository.
fn repository_error(message: impl Into<String>) -> Error {
    Error::Git {
        path: DisplayPath::from(REPOSITORY),
        message: message.into(),
        source: None,
    }
}

/// `text` as messages show a name: escaped, between single quotes.
fn quoted(text: &str) -> String {
    DisplayPath::from(text).to_string()
}

/// The workspace's path in its worktree, `/`-separated (empty at its top):
/// the commit's tree is read from there down.
fn workspace_prefix(workspace: &Path) -> Result<Vec<u8>> {
    let top = git::worktree_root(workspace)?.ok_or_else(no_repository)?;
    // Both are canonical: the resolved scope's workspace and git's top.
    let below = workspace.strip_prefix(&top).map_err(|_| {
        repository_error(format!("the workspace lies outside the worktree {top:?}"))
    })?;
    let parts: Vec<&[u8]> = below
        .components()
        .map(|c| c.as_os_str().as_encoded_bytes())
        .collect();
    Ok(parts.join(&b'/'))
}

/// The commit `rev` names (any revision git reads: `HEAD`, `main~2`, a full
/// or abbreviated id, `v1^{}`; gix's `rev_parse`), tags peeled;
/// `invalid-argument` naming `rev` when it names none.
fn resolve_commit(repo: &gix::Repository, rev: &str) -> Result<ObjectId> {
    let refused = |why: String| Error::InvalidArgument {
        message: format!(
            "revision {} does not name a commit of the workspace's repository: {why}",
            quoted(rev)
        ),
    };
    let id = (repo.rev_parse_single(rev)).map_err(|e| refused(one_line(&e.to_string())))?;
    let object = id.object().map_err(|e| refused(one_line(&e.to_string())))?;
    let kind = object.kind;
    let commit = (object.peel_to_commit())
        .map_err(|_| refused(format!("it names a {kind}, not a commit")))?;
    Ok(commit.id)
}

/// A file of the tree, as its entry gives it.
#[derive(Debug, Clone, Copy)]
enum Blob {
    /// Mode `100644` or `100755`.
    File { id: ObjectId, executable: bool },
    /// Mode `120000`: the blob is the link's target.
    Symlink(ObjectId),
}

/// What a tree holds under a name.
enum Found {
    Blob(Blob),
    Missing,
    Tree(ObjectId),
    /// Mode `160000`: a submodule's commit, whose files are not in this repository.
    Gitlink,
}

/// The repository's objects, read through one reused buffer.
struct Objects<'r> {
    repo: &'r gix::Repository,
    buffer: Vec<u8>,
}

impl Objects<'_> {
    /// The tree of the workspace's directory in `commit`; `None` when the
    /// commit has no such directory (it then holds no file of the scope).
    fn workspace_tree(&mut self, commit: ObjectId, prefix: &[u8]) -> Result<Option<ObjectId>> {
        let commit = self
            .repo
            .find_commit(commit)
            .map_err(|e| git::gix_error(REPOSITORY, "cannot read the commit", e))?;
        let mut tree = commit
            .tree_id()
            .map_err(|e| git::gix_error(REPOSITORY, "cannot read the commit's tree", e))?
            .detach();
        for name in prefix.split(|b| *b == b'/').filter(|n| !n.is_empty()) {
            match self.child(tree, name)? {
                Found::Tree(id) => tree = id,
                _ => return Ok(None),
            }
        }
        Ok(Some(tree))
    }

    /// What the tree `tree` holds under the name `name`.
    fn child(&mut self, tree: ObjectId, name: &[u8]) -> Result<Found> {
        let read = self.repo.objects.find_tree(&tree, &mut self.buffer);
        let tree = read
            .map_err(|e| git::gix_error(REPOSITORY, &format!("cannot read the tree {tree}"), e))?;
        // A linear scan: git's tree order puts `a/` after `a.b`, and only the
        // explicit paths are looked up this way.
        let Some(entry) = tree.entries.iter().find(|e| e.filename == name) else {
            return Ok(Found::Missing);
        };
        found(entry.mode, entry.oid.to_owned(), name)
    }

    /// The selected files below `top` by workspace path, as the working tree's
    /// listing selects them (a submodule in scope refused), with the explicit
    /// paths and Tasks files (`None`: to be looked up).
    fn candidates(
        &mut self,
        top: Option<ObjectId>,
        scope: &Scope,
    ) -> Result<BTreeMap<WorkspacePath, Option<Blob>>> {
        let mut met = self.walk(top, scope)?;
        // In path order, so that the first error is the one the working tree reports.
        met.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = BTreeMap::new();
        for (path, found) in met {
            match found {
                Found::Blob(blob) => {
                    out.insert(WorkspacePath::from_bytes(&path)?, Some(blob));
                }
                Found::Gitlink if in_scope_as_repository(scope, &path) => {
                    let path = DisplayPath::from_bytes(&path);
                    return Err(Error::NestedRepository { path });
                }
                _ => {}
            }
        }
        for path in scope.paths.iter().chain(scope.tasks_paths()) {
            out.entry(path.clone()).or_insert(None);
        }
        Ok(out)
    }

    /// The selected files and every submodule below `top`, in no order:
    /// directories no root reaches or an exclusion removes are not read.
    fn walk(&mut self, top: Option<ObjectId>, scope: &Scope) -> Result<Vec<(Vec<u8>, Found)>> {
        let mut met = Vec::new();
        let mut stack: Vec<(Vec<u8>, ObjectId)> =
            top.map(|id| (Vec::new(), id)).into_iter().collect();
        while let Some((dir, id)) = stack.pop() {
            let shown = DisplayPath::from_bytes(if dir.is_empty() { b"." } else { &dir });
            let read = self.repo.objects.find_tree(&id, &mut self.buffer);
            let what = || format!("cannot read the tree of {shown}");
            let tree = read.map_err(|e| git::gix_error(REPOSITORY, &what(), e))?;
            for entry in &tree.entries {
                let path = match dir.is_empty() {
                    true => entry.filename.to_vec(),
                    false => [&dir[..], b"/", entry.filename].concat(),
                };
                match found(entry.mode, entry.oid.to_owned(), &path)? {
                    Found::Tree(id) if reaches(scope, &path) => stack.push((path, id)),
                    found @ Found::Blob(_) if selected(scope, &path) => met.push((path, found)),
                    found @ Found::Gitlink => met.push((path, found)),
                    _ => {}
                }
            }
        }
        Ok(met)
    }

    /// Every entry of the scope in path order, each read from the tree.
    fn entries(
        &mut self,
        top: Option<ObjectId>,
        scope: &Scope,
        all: BTreeMap<WorkspacePath, Option<Blob>>,
    ) -> Result<Vec<Entry>> {
        let rules = scope.tasks_files();
        let mut entries = Vec::with_capacity(all.len());
        for (path, blob) in all {
            let blob = blob.map_or_else(|| self.look_up(top, &path), |b| Ok(Some(b)))?;
            let content = match blob {
                Some(blob) => self.content(&path, blob, rules.get(&path).copied())?,
                None => Content::Missing,
            };
            entries.push(Entry { path, content });
        }
        Ok(entries)
    }

    /// The file at `path` below `top`, read as the working tree reads a path:
    /// `None` when absent (or below a file), refused below a symlink or a
    /// submodule, or when it is a directory.
    fn look_up(&mut self, top: Option<ObjectId>, path: &WorkspacePath) -> Result<Option<Blob>> {
        let Some(mut tree) = top else {
            return Ok(None);
        };
        let names: Vec<&str> = path.as_str().split('/').collect();
        for (at, name) in names.iter().enumerate() {
            let last = at + 1 == names.len();
            let so_far = || names[..=at].join("/");
            match self.child(tree, name.as_bytes())? {
                Found::Missing => return Ok(None),
                Found::Blob(blob) if last => return Ok(Some(blob)),
                Found::Tree(id) if !last => tree = id,
                Found::Tree(_) | Found::Gitlink if last => {
                    return Err(Error::SpecialFile {
                        path: DisplayPath::from(path.as_str()),
                        what: "directory",
                    });
                }
                Found::Blob(Blob::Symlink(_)) => {
                    return Err(Error::SymlinkedParent {
                        path: DisplayPath::from(path.as_str()),
                        link: DisplayPath::from(so_far().as_str()),
                    });
                }
                Found::Gitlink => {
                    return Err(Error::NestedRepository {
                        path: DisplayPath::from(so_far().as_str()),
                    });
                }
                // A file where a directory would be: nothing below it.
                Found::Blob(Blob::File { .. }) | Found::Tree(_) => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The content of `blob` at `path`: a file's digest (normalized under
    /// `rule` for a Tasks file), a symlink's target digest.
    fn content(
        &mut self,
        path: &WorkspacePath,
        blob: Blob,
        rule: Option<TaskRule>,
    ) -> Result<Content> {
        let id = match blob {
            Blob::File { id, .. } | Blob::Symlink(id) => id,
        };
        let what = || format!("cannot read the blob of {}", quoted(path.as_str()));
        let read = self.repo.objects.find_blob(&id, &mut self.buffer);
        let data = read
            .map_err(|e| git::gix_error(REPOSITORY, &what(), e))?
            .data;
        Ok(match blob {
            Blob::File { executable, .. } => Content::File {
                executable,
                digest: file_digest(data, rule),
            },
            // As the working tree: a link's target is never normalized.
            Blob::Symlink(_) => Content::Symlink {
                digest: Digest(Sha256::digest(data).into()),
            },
        })
    }
}

/// What the tree entry of `mode` and `id` at `path` holds; an unknown mode is refused.
fn found(mode: gix::object::tree::EntryMode, id: ObjectId, path: &[u8]) -> Result<Found> {
    use gix::object::tree::EntryKind;
    let file = |executable| Found::Blob(Blob::File { id, executable });
    Ok(match mode.kind() {
        EntryKind::Tree => Found::Tree(id),
        EntryKind::Blob => file(false),
        EntryKind::BlobExecutable => file(true),
        EntryKind::Link => Found::Blob(Blob::Symlink(id)),
        // `kind` takes every mode it does not know for a gitlink.
        EntryKind::Commit if mode.is_commit() => Found::Gitlink,
        EntryKind::Commit => {
            let path = DisplayPath::from_bytes(path);
            let message = format!("the tree entry {path} has the unknown mode {mode:o}");
            return Err(repository_error(message));
        }
    })
}

/// The digest of a file's bytes: through the Tasks normalizer of `rule` (the
/// one the working tree's reads stream through), else raw.
fn file_digest(data: &[u8], rule: Option<TaskRule>) -> Digest {
    match rule {
        Some(rule) => {
            let mut normalizer = TasksNormalizer::new(rule);
            let mut out = HashOutput::default();
            normalizer.update(data, &mut out);
            normalizer.finish(&mut out);
            Digest(out.finalize())
        }
        None => Digest(Sha256::digest(data).into()),
    }
}

/// Whether the scope selects the file `path`: below a root, not excluded.
fn selected(scope: &Scope, path: &[u8]) -> bool {
    scope.roots.iter().any(|r| is_within(path, r)) && !scope.excludes(path)
}

/// Whether a root may select something below the directory `dir`: it lies
/// below a root, or a root lies below it; and no exclusion removes it.
fn reaches(scope: &Scope, dir: &[u8]) -> bool {
    !scope.excludes(dir)
        && scope
            .roots
            .iter()
            .any(|r| is_within(dir, r) || below(r.as_bytes(), dir))
}

/// Whether the submodule at `path` is in scope, as the working tree decides:
/// selected itself, or holding a root (a root inside it selects part of it).
fn in_scope_as_repository(scope: &Scope, path: &[u8]) -> bool {
    selected(scope, path)
        || (scope.roots.iter().any(|r| below(r.as_bytes(), path)) && !scope.excludes(path))
}

/// Whether `path` lies strictly below the directory `dir`.
fn below(path: &[u8], dir: &[u8]) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path[dir.len()] == b'/'
}
