//! Expansion (SPEC §4): a scope becomes an inventory of entries and its fingerprint.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use camino::Utf8PathBuf;
use serde::{Deserialize, Serialize};

use crate::entry::Entry;
use crate::error::{DisplayPath, Error, Result};
use crate::fingerprint::{Encoder, Fingerprint};
use crate::git::{self, Locate, Status};
use crate::path::{WorkspacePath, is_within};
use crate::read::read_all;
use crate::scope::Scope;
use crate::walk::walk_root;

/// The expanded set: entries in ascending path order and their fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inventory {
    /// The scope as resolved: absolute workspace, default repositories filled in.
    pub scope: Scope,
    /// The roots that lay outside every repository and were walked in full.
    pub walked_roots: Vec<String>,
    /// One entry per path, ascending by UTF-8 bytes.
    pub entries: Vec<Entry>,
    /// The v1 fingerprint of `entries`.
    pub fingerprint: Fingerprint,
}

impl Inventory {
    /// Expands `scope`: lists candidates (Git, walked roots, explicit paths),
    /// reads every path in parallel and computes the fingerprint. Any blocking
    /// condition of §4.5 is an error; no partial inventory is returned.
    pub fn expand(scope: &Scope) -> Result<Inventory> {
        Self::expand_with(scope, std::iter::empty())
    }

    /// Like [`Inventory::expand`], with `previous` paths added to the set (a
    /// comparison re-expands a record's scope plus the paths it held, so that a
    /// vanished file stays in the set as `missing`).
    pub fn expand_with<'a>(
        scope: &Scope,
        previous: impl IntoIterator<Item = &'a WorkspacePath>,
    ) -> Result<Inventory> {
        let scope = scope.resolve()?;
        let workspace = scope.workspace.as_std_path();
        let (mut paths, walked_roots) = candidates(&scope)?;
        paths.extend(previous.into_iter().cloned());
        let paths: Vec<WorkspacePath> = paths.into_iter().collect();
        let entries = read_all(workspace, &paths, &scope.normalize)?;
        let mut encoder = Encoder::new();
        for entry in &entries {
            encoder.push(entry)?;
        }
        Ok(Inventory {
            walked_roots,
            entries,
            fingerprint: encoder.finish(),
            scope,
        })
    }
}

impl Scope {
    /// Fills in what the scope left to defaults, so that it says exactly what
    /// an expansion covers: the workspace made absolute (symlinks resolved),
    /// the default repository filled in, the store exclusion present. Two
    /// scopes that resolve equal expand the same set.
    pub fn resolve(&self) -> Result<Scope> {
        self.validate()?;
        let mut scope = self.clone();
        let given = scope.workspace.clone();
        let absolute =
            std::fs::canonicalize(given.as_std_path()).map_err(|source| Error::Unreadable {
                path: DisplayPath::from(given.as_str()),
                operation: "open workspace",
                source,
            })?;
        scope.workspace = Utf8PathBuf::from_path_buf(absolute).map_err(|p| Error::NonUtf8Path {
            path: DisplayPath::from_bytes(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())),
        })?;
        if scope.repositories.is_empty()
            && git::worktree_root(scope.workspace.as_std_path())?.is_some()
        {
            scope.repositories.push(".".to_owned());
        }
        scope.ensure_store_excluded();
        Ok(scope)
    }
}

/// Every candidate path of the scope (§4 steps 1–3), and the walked roots.
fn candidates(scope: &Scope) -> Result<(BTreeSet<WorkspacePath>, Vec<String>)> {
    let workspace = scope.workspace.as_std_path();
    let roots = scope.effective_roots();
    let selected = |path: &[u8]| roots.iter().any(|r| is_within(path, r)) && !scope.excludes(path);
    let mut set = BTreeSet::new();
    for repo in &scope.repositories {
        for path in repository_candidates(workspace, repo, scope, &selected)? {
            set.insert(path);
        }
    }
    let mut walked = Vec::new();
    for root in &roots {
        if scope
            .repositories
            .iter()
            .any(|r| is_within(root.as_bytes(), r))
        {
            continue;
        }
        set.extend(walk_root(workspace, root, scope, &scope.repositories)?);
        walked.push(root.clone());
    }
    set.extend(scope.paths.iter().cloned());
    set.extend(scope.normalize.iter().cloned());
    Ok((set, walked))
}

/// The selected candidates of one declared repository, with workspace paths.
fn repository_candidates(
    workspace: &Path,
    repo: &str,
    scope: &Scope,
    selected: &dyn Fn(&[u8]) -> bool,
) -> Result<Vec<WorkspacePath>> {
    let (dir, locate, prefix) = if repo == "." {
        (workspace.to_path_buf(), Locate::Discover, "")
    } else {
        (workspace.join(repo), Locate::RootOnly, repo)
    };
    let listing = git::list(&dir, locate, repo)?.ok_or_else(|| Error::Git {
        path: DisplayPath::from(repo),
        message: "not a Git repository (declared with --repo)".to_owned(),
    })?;
    let mut out = Vec::with_capacity(listing.len());
    let mut bytes = Vec::new();
    for candidate in listing {
        bytes.clear();
        if !prefix.is_empty() {
            bytes.extend_from_slice(prefix.as_bytes());
            bytes.push(b'/');
        }
        bytes.extend_from_slice(&candidate.path);
        if !selected(&bytes) {
            continue;
        }
        let path = WorkspacePath::from_bytes(&bytes)?;
        let display = || DisplayPath::from(path.as_str());
        match candidate.status {
            Status::Tracked | Status::Untracked => out.push(path),
            Status::Conflict => return Err(Error::Conflict { path: display() }),
            Status::Submodule | Status::NestedRepository => {
                if !scope.repositories.iter().any(|r| r == path.as_str()) {
                    return Err(Error::NestedRepository { path: display() });
                }
            }
        }
    }
    Ok(out)
}

/// The workspace a front door uses when none is given: the top of the Git
/// checkout containing `dir` (so a checkout has one fingerprint from any of
/// its subdirectories), else `dir` itself.
pub fn default_workspace(dir: &Path) -> Result<Utf8PathBuf> {
    let dir = worktree_root(dir)?.unwrap_or_else(|| dir.to_path_buf());
    Utf8PathBuf::from_path_buf(dir).map_err(|p| Error::NonUtf8Path {
        path: DisplayPath::from_bytes(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())),
    })
}

/// The top of the Git worktree containing `dir`, or `None` outside Git.
pub fn worktree_root(dir: &Path) -> Result<Option<PathBuf>> {
    git::worktree_root(dir)
}
