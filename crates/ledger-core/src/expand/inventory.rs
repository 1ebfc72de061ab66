//! Expansion: a scope becomes an inventory of entries and its fingerprint (what blocks it: docs/errors.md, Expansion).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::cache::{DigestCache, UnreadCache};
use crate::expand::call;
use crate::expand::entry::Entry;
use crate::expand::exclusion::{Exclusion, ExclusionMatch};
use crate::expand::fingerprint::{Encoder, Fingerprint, fingerprint_sorted};
use crate::expand::git::{self, Locate, Status};
use crate::expand::progress;
use crate::expand::read::Outcome;
use crate::expand::read_queue::{Feed, Origin, RUN, ReadQueue, Reader, read_contents};
use crate::expand::scope::{STORE_DIR, Scope};
use crate::expand::threads;
use crate::expand::trust;
use crate::expand::walk::{walk_root, walk_root_into};
use crate::path::{WorkspacePath, is_within};
use crate::platform::OsStrBytes;

/// The expanded set: entries in ascending path order and their fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
        refuse_unmatched_exclusions(scope)?;
        let settings = scope.settings();
        let _under_way = progress::UnderWay::start(settings.progress.as_ref());
        let (scope, worktree) = scope.resolve_opening()?;
        let previous: Vec<WorkspacePath> = previous.into_iter().cloned().collect();
        let workspace = scope.workspace.as_std_path();
        let store = scope.workspace.join(STORE_DIR);
        let unread_cache = UnreadCache::find(store.as_std_path(), settings.digest_cache);
        // What the store's cache holds says what the previous expansion read:
        // when that was one piece of work or less, this expansion starts on its
        // own thread, and the pool reads only if the listing queues more.
        let small = unread_cache.as_ref().is_some_and(|c| c.holds_at_most(RUN));
        let pool = threads::pool_if(settings.threads, !small)?;
        let mut cache_file = None;
        let repositories = threads::alongside(
            pool.as_deref(),
            || cache_file = unread_cache.map(UnreadCache::read),
            || open_repositories(&scope, worktree),
        );
        if let Some(file) = &cache_file {
            file.keep_for_the_call();
        }
        let (cache_dir, entries) = cache_file
            .and_then(|file| {
                // An index read already says it; else Git is asked (untrusted when it cannot say).
                let tracked = store_tracked(&repositories).or_else(|| {
                    trust::tracked(store.as_std_path())
                        .ok()
                        .map(|files| !files.is_empty())
                })?;
                file.trusted(tracked)
            })
            .unzip();
        // Started before any file is looked at: the start time decides what it records.
        let cache = cache_dir
            .as_ref()
            .zip(entries)
            .map(|(dir, entries)| DigestCache::start(dir, entries));
        let tasks = scope.tasks_files();
        let queue = match ReadQueue::new(workspace, &tasks, cache.as_ref(), settings.threads) {
            Ok(queue) => queue,
            // The errors keep their order: listing first, then reading.
            Err(e) => {
                return Err(candidates(&scope, repositories, &previous, None)
                    .err()
                    .unwrap_or(e));
            }
        };
        // The listing stays on this thread (gix repositories are not `Send`) and
        // feeds the queue that every thread of the pool reads from: each tracked
        // file as the index is read (milliseconds, where walking the worktree
        // takes far longer), each untracked or walked file as the walk meets it.
        let listed = match &pool {
            Some(pool) => pool.in_place_scope(|readers| {
                // Once on every thread: a spawned job could run twice on one
                // thread and never on another (a thread that leaves large files).
                readers.spawn_broadcast(|_, _| queue.serve(Reader::Pool));
                let listed = candidates(&scope, repositories, &previous, Some(&queue));
                match &listed {
                    Ok(_) => {
                        queue.close();
                        // Done listing, this thread reads what is left, as the pool's do.
                        queue.serve(Reader::Caller);
                    }
                    Err(_) => queue.stop(),
                }
                listed
            }),
            // A small expansion lists first, then reads.
            None => {
                let listed = candidates(&scope, repositories, &previous, Some(&queue));
                if listed.is_ok() {
                    queue.close();
                    queue.read_rest()?;
                }
                listed
            }
        };
        let (listing, walked_roots) = listed?;
        let read = queue.into_read().unwrap_or_default();
        // What no piece read: paths given by name, a comparison's previous ones.
        let unread = difference(&listing, read.paths());
        let never = AtomicBool::new(false);
        let contents = read_contents(
            workspace,
            &unread,
            &tasks,
            cache.as_ref(),
            settings.threads,
            &never,
        )?
        .unwrap_or_default();
        let capacity = read.len() + unread.len();
        let unread: Vec<_> = unread.into_iter().zip(contents).collect();
        // Writing the cache (megabytes for a large tree) takes another thread
        // while this one assembles the entries and streams the fingerprint.
        let (fingerprint, entries) = threads::alongside(
            pool.as_deref(),
            || cache.map_or((), DigestCache::save),
            || {
                let (sorted, rest) = read.into_runs(&listing, unread);
                drop(listing);
                assemble(sorted, rest, capacity)
            },
        )?;
        Ok(Inventory {
            walked_roots,
            fingerprint,
            entries,
            scope,
        })
    }
}

impl Inventory {
    /// Checks a stored inventory (one read from a record, not expanded here):
    /// a valid scope, entries sorted and unique that reproduce its fingerprint.
    /// The reason when it is not.
    pub(crate) fn check_stored(&self) -> std::result::Result<(), String> {
        self.scope.validate().map_err(|e| format!("scope: {e}"))?;
        let computed = fingerprint_sorted(&self.entries).map_err(|e| format!("entries: {e}"))?;
        if computed != self.fingerprint {
            return Err(format!(
                "the entries give {computed}, not the stored {}",
                self.fingerprint
            ));
        }
        Ok(())
    }
}

impl Inventory {
    /// This inventory as a record stores it: its scope's workspace relative
    /// to `base`, the resolved workspace the record belongs to
    /// ([`Scope::stored_in`]). Entries and fingerprint are unchanged: they
    /// never held a host path.
    pub fn stored_in(&self, base: &Utf8Path) -> Inventory {
        Inventory {
            scope: self.scope.stored_in(base),
            ..self.clone()
        }
    }

    /// A stored inventory read back in `base`, the caller's resolved
    /// workspace ([`Scope::rerooted`]); the reason, for `malformed-record`,
    /// when its workspace is relative but not in normal form.
    pub fn rerooted(self, base: &Utf8Path) -> std::result::Result<Inventory, String> {
        let scope = self.scope.rerooted(base)?;
        Ok(Inventory { scope, ..self })
    }
}

impl Scope {
    /// Fills in what the scope left to defaults, so that it says exactly what
    /// an expansion covers: the workspace made absolute (symlinks resolved),
    /// the default repository filled in, the store exclusion present. Two
    /// scopes that resolve equal expand the same set.
    pub fn resolve(&self) -> Result<Scope> {
        Ok(self.resolve_opening()?.0)
    }

    /// [`Scope::resolve`], and the worktree it opened to find the default
    /// repository (`.`), for the expansion to list without opening it again.
    fn resolve_opening(&self) -> Result<(Scope, Option<git::Worktree>)> {
        self.validate()?;
        let mut scope = self.clone();
        let given = scope.workspace.clone();
        let absolute =
            std::fs::canonicalize(given.as_std_path()).map_err(|source| Error::Unreadable {
                path: DisplayPath::from(given.as_str()),
                operation: "open workspace",
                source,
            })?;
        if !absolute.is_dir() {
            return Err(Error::Unreadable {
                path: DisplayPath::from(given.as_str()),
                operation: "open workspace",
                source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
            });
        }
        scope.workspace = Utf8PathBuf::from_path_buf(absolute).map_err(|p| Error::NonUtf8Path {
            path: DisplayPath::from_bytes(crate::platform::OsStrBytes::as_bytes(p.as_os_str())),
        })?;
        let worktree = match scope.repositories.is_empty() {
            true => git::Worktree::open(scope.workspace.as_std_path())?,
            false => None,
        };
        if worktree.is_some() {
            scope.repositories.push(".".to_owned());
        }
        scope.ensure_store_excluded();
        Ok((scope, worktree))
    }
}

/// The paths of sorted `all` that are not in sorted `done`.
fn difference<'a>(
    all: &[WorkspacePath],
    done: impl Iterator<Item = &'a WorkspacePath>,
) -> Vec<WorkspacePath> {
    let mut done = done.peekable();
    all.iter()
        .filter(|path| {
            while done.next_if(|d| d < path).is_some() {}
            done.next_if(|d| d == path).is_none()
        })
        .cloned()
        .collect()
}

/// The entries of the runs `sorted` and `rest` (each in path order) in path
/// order, each path once (the outcome in `sorted` of a path in both), and their
/// fingerprint, streamed as they are made; the first error in path order is
/// the one reported. `capacity`: at most how many there are.
fn assemble(
    sorted: impl Iterator<Item = (WorkspacePath, Outcome)>,
    rest: Vec<(WorkspacePath, Outcome)>,
    capacity: usize,
) -> Result<(Fingerprint, Vec<Entry>)> {
    let mut rest = rest.into_iter().peekable();
    let mut entries = Vec::with_capacity(capacity);
    let mut encoder = Encoder::new();
    let mut add = |path: WorkspacePath, outcome: Outcome| -> Result<()> {
        let entry = Entry {
            path,
            content: outcome.map_err(|e| *e)?,
        };
        encoder.push(&entry)?;
        entries.push(entry);
        Ok(())
    };
    for (path, outcome) in sorted {
        while let Some((before, outcome)) = rest.next_if(|(other, _)| *other < path) {
            add(before, outcome)?;
        }
        rest.next_if(|(other, _)| *other == path);
        add(path, outcome)?;
    }
    for (path, outcome) in rest {
        add(path, outcome)?;
    }
    Ok((encoder.finish(), entries))
}

/// Whether Git tracks files of the workspace's store, when the workspace's own
/// repository is among those opened (its index answers without a second read);
/// `None`: the store's trust check reads the index itself.
fn store_tracked(repositories: &[Repository<'_>]) -> Option<bool> {
    repositories.iter().find_map(|r| match (&r.opened, r.name) {
        (Ok(Some(listing)), ".") => listing.tracks_below(STORE_DIR.as_bytes()),
        _ => None,
    })
}

/// A repository declared by the scope: its name there (`.` or a workspace path)
/// and what opening it gave.
struct Repository<'a> {
    name: &'a str,
    opened: Result<Option<git::Listing>>,
}

/// Opens the scope's repositories in order, up to the first that fails (its error
/// is the one reported; later ones are never reached). `worktree`: the one
/// resolving the scope opened, the workspace's own (`.`).
fn open_repositories(scope: &Scope, mut worktree: Option<git::Worktree>) -> Vec<Repository<'_>> {
    let workspace = scope.workspace.as_std_path();
    let mut out = Vec::with_capacity(scope.repositories.len());
    for name in &scope.repositories {
        let opened = if name == "." {
            match worktree.take() {
                Some(worktree) => git::Listing::of_worktree(worktree, workspace, name).map(Some),
                None => git::Listing::open(workspace, Locate::Discover, name),
            }
        } else {
            git::Listing::open(&workspace.join(name), Locate::RootOnly, name)
        };
        let failed = !matches!(opened, Ok(Some(_)));
        out.push(Repository { name, opened });
        if failed {
            break;
        }
    }
    out
}

/// Where the scope's roots and exclusions meet the repository `name`, relative to it,
/// so that its walk opens no directory outside the scope.
fn within_repository(name: &str, scope: &Scope, roots: &[String]) -> git::Within {
    // `Some(b"")`: all of the repository; `None`: nothing of it.
    let relative = |path: &str| -> Option<Vec<u8>> {
        if name == "." {
            return Some(if path == "." { Vec::new() } else { path.into() });
        }
        if is_within(name.as_bytes(), path) {
            Some(Vec::new())
        } else {
            let below = path.strip_prefix(name)?.strip_prefix('/')?;
            Some(below.into())
        }
    };
    let mut roots: Vec<Vec<u8>> = roots.iter().filter_map(|r| relative(r)).collect();
    let dir = match name {
        "." => scope.workspace.as_std_path().to_path_buf(),
        _ => scope.workspace.as_std_path().join(name),
    };
    roots.extend(repositories_above_roots(&dir, &roots));
    git::Within {
        roots: (!roots.iter().any(Vec::is_empty)).then_some(roots),
        // Patterns are matched as each path is selected, not pruned by git.
        exclusions: (scope.exclusions.iter().filter(|e| !e.pattern))
            .filter_map(|e| relative(&e.path))
            .collect(),
    }
}

/// The directories between `dir` and one of its `roots` that hold a repository git
/// takes for one (e.g. `nested` for the root `nested/file`): a walk restricted to the
/// root alone would not see it, and it must block (or be declared) like any nested
/// repository in scope. Walked as roots of their own, they are listed as git lists
/// them (once, unless ignored). A few `stat`s per root, none per file.
fn repositories_above_roots(dir: &Path, roots: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    for root in roots {
        let ancestors = root
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'/')
            .map(|(i, _)| &root[..i]);
        for ancestor in ancestors {
            let path = dir.join(std::ffi::OsStr::from_bytes(ancestor));
            let nested = git::dot_git(&path, &|| DisplayPath::from_bytes(ancestor));
            if matches!(nested, Ok(git::DotGit::Repository)) && !found.iter().any(|f| f == ancestor)
            {
                found.push(ancestor.to_vec());
            }
        }
    }
    found
}

/// Hands the files a listing of the repository `name` meets to the read queue:
/// the selected ones (a path that is not a valid workspace path is left to the
/// listing's result, which reports it).
struct Feeder<'s, 'q, 'a> {
    name: &'s str,
    scope: &'s Scope,
    tracked: Feed<'q, 'a>,
    untracked: Feed<'q, 'a>,
    bytes: Vec<u8>,
}

impl Feeder<'_, '_, '_> {
    fn selected(&mut self, relative: &[u8]) -> Option<WorkspacePath> {
        in_repository(self.name, relative, &mut self.bytes);
        selected(self.scope, &self.scope.roots, &self.bytes)
            .then(|| WorkspacePath::from_bytes(&self.bytes).ok())
            .flatten()
    }
}

impl git::Found for Feeder<'_, '_, '_> {
    fn tracked(&mut self, relative: &[u8], size: u64) -> bool {
        let Some(path) = self.selected(relative) else {
            return false;
        };
        self.tracked.push(path, Some(size));
        true
    }

    /// What is batched goes to the queue before the walk, which takes long.
    fn tracked_done(&mut self) {
        self.tracked.flush();
    }

    fn untracked(&mut self, relative: &[u8]) {
        if let Some(path) = self.selected(relative) {
            self.untracked.push(path, None);
        }
    }
}

/// The workspace path of `relative` in the repository `name` (`.` is the workspace).
fn in_repository(name: &str, relative: &[u8], bytes: &mut Vec<u8>) {
    bytes.clear();
    if name != "." {
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(b'/');
    }
    bytes.extend_from_slice(relative);
}

/// Whether the scope selects `path`: below one of its roots and not excluded.
fn selected(scope: &Scope, roots: &[String], path: &[u8]) -> bool {
    roots.iter().any(|r| is_within(path, r)) && !scope.excludes(path)
}

/// Every candidate path of the scope (§4 steps 1–3) with the `previous` paths,
/// sorted and unique, and the walked roots — but what `queue` took as listed
/// (the tracked files and the files of walked roots, added as they are met) is
/// left out: it is in the set, read by the queue. Each untracked file is added
/// to `queue` as the walk finds it, and stays in the result; each file of a
/// walked root is added as its walk meets it, and is left out.
fn candidates(
    scope: &Scope,
    repositories: Vec<Repository<'_>>,
    previous: &[WorkspacePath],
    queue: Option<&ReadQueue<'_>>,
) -> Result<(Vec<WorkspacePath>, Vec<String>)> {
    let workspace = scope.workspace.as_std_path();
    let roots = &scope.roots;
    let mut paths = Vec::new();
    for repository in repositories {
        let listing = repository.opened?.ok_or_else(|| Error::Git {
            path: DisplayPath::from(repository.name),
            message: "not a Git repository (declared as a repository of the scope)".to_owned(),
            source: None,
        })?;
        repository_candidates(repository.name, listing, scope, queue, &mut paths)?;
    }
    let mut walked = Vec::new();
    for root in roots {
        if scope
            .repositories
            .iter()
            .any(|r| is_within(root.as_bytes(), r))
        {
            continue;
        }
        match queue {
            Some(queue) => {
                let mut feed = queue.feed(Origin::Listed);
                let mut found = |path| feed.push(path, None);
                walk_root_into(workspace, root, scope, &scope.repositories, &mut found)?;
            }
            None => paths.extend(walk_root(workspace, root, scope, &scope.repositories)?),
        }
        walked.push(root.clone());
    }
    paths.extend(scope.paths.iter().cloned());
    paths.extend(scope.tasks_paths().cloned());
    paths.extend(previous.iter().cloned());
    // In place: a stable sort would take a scratch copy of half the paths.
    paths.sort_unstable();
    paths.dedup();
    Ok((paths, walked))
}

/// Adds the selected candidates of the repository `name` to `out`, as workspace
/// paths, and each selected untracked file to `queue` as the walk finds it.
fn repository_candidates(
    name: &str,
    listing: git::Listing,
    scope: &Scope,
    queue: Option<&ReadQueue<'_>>,
    out: &mut Vec<WorkspacePath>,
) -> Result<()> {
    let roots = &scope.roots;
    let within = within_repository(name, scope, roots);
    let listing = match queue {
        Some(queue) => {
            let mut feeder = Feeder {
                name,
                scope,
                tracked: queue.feed(Origin::Listed),
                untracked: queue.feed(Origin::Found),
                bytes: Vec::new(),
            };
            listing.list_within(&within, &mut feeder, queue.cache())?
        }
        None => listing.list_within(&within, &mut git::Nothing, None)?,
    };
    out.reserve(listing.len());
    let mut bytes = Vec::new();
    for candidate in listing {
        in_repository(name, &candidate.path, &mut bytes);
        let nested = matches!(
            candidate.status,
            Status::Submodule | Status::NestedRepository
        );
        // A root inside a nested repository selects part of it: the nested
        // repository is in scope (git lists none of its files).
        let holds_root = nested
            && std::str::from_utf8(&bytes)
                .is_ok_and(|path| roots.iter().any(|r| is_within(r.as_bytes(), path)));
        let in_scope = selected(scope, roots, &bytes) || (holds_root && !scope.excludes(&bytes));
        if !in_scope {
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
    Ok(())
}

/// What each exclusion the caller declared in `scope` removes now: the
/// candidates (listed, not read) that it holds. A path or directory holds
/// itself when it exists below one of the scope's roots (what it holds is
/// never opened: excluding an unreadable, huge or nested-repository directory
/// is how a caller leaves it out); a pattern holds the candidates it matches
/// among those the scope lists without its patterns. Exclusions ledger adds
/// itself (its store, a record's own file) are not listed.
pub fn exclusion_matches(scope: &Scope) -> Result<Vec<ExclusionMatch>> {
    let declared = scope.declared().exclusions.clone();
    let (resolved, _) = scope.resolve_opening()?;
    let exclusions: Vec<&Exclusion> = (resolved.exclusions.iter())
        .filter(|e| declared.contains(&e.path))
        .collect();
    let mut without_patterns = None;
    let mut out = Vec::new();
    for exclusion in exclusions {
        let paths = match exclusion.pattern {
            false => {
                let mut held = held_by_path(&resolved, &exclusion.path)?;
                held.retain(|p| {
                    (resolved.roots.iter())
                        .any(|r| p.is_within(r) || is_within(r.as_bytes(), p.as_str()))
                });
                held
            }
            true => {
                if without_patterns.is_none() {
                    without_patterns =
                        Some(list_candidates(&resolved.without_declared_patterns()?)?);
                }
                let removes = exclusion.matcher()?;
                (without_patterns.iter().flatten())
                    .filter(|p| removes(p.as_str().as_bytes()))
                    .cloned()
                    .collect()
            }
        };
        out.push(ExclusionMatch {
            exclusion: exclusion.clone(),
            paths,
        });
    }
    Ok(out)
}

/// `path` when it exists in the workspace (a file, a directory, a symlink, a
/// nested repository): what a path exclusion removes is never opened, so
/// that excluding an unreadable directory or a huge one costs nothing.
fn held_by_path(scope: &Scope, path: &str) -> Result<Vec<WorkspacePath>> {
    let exists = std::fs::symlink_metadata(scope.workspace.join(path)).is_ok();
    Ok(match exists {
        true => vec![WorkspacePath::new(path)?],
        false => Vec::new(),
    })
}

/// The candidates of `scope` (listed, not read), ascending.
fn list_candidates(scope: &Scope) -> Result<Vec<WorkspacePath>> {
    let (resolved, worktree) = scope.resolve_opening()?;
    let repositories = open_repositories(&resolved, worktree);
    Ok(candidates(&resolved, repositories, &[], None)?.0)
}

/// `unmatched-exclusion` for the first exclusion the caller declared that
/// removes no candidate, unless the caller allowed it: a boundary that holds
/// nothing (a mistyped path, a pattern that matches nothing) is never taken
/// silently. A scope read from a record is not held to it: its exclusions
/// are re-applied as recorded, whatever they remove now.
fn refuse_unmatched_exclusions(scope: &Scope) -> Result<()> {
    let declared = scope.declared();
    if declared.exclusions.is_empty() || declared.allow_unmatched {
        return Ok(());
    }
    let matches = exclusion_matches(scope)?;
    match matches.iter().find(|m| m.paths.is_empty()) {
        None => Ok(()),
        Some(unmatched) => Err(Error::UnmatchedExclusion {
            exclusion: DisplayPath::from(unmatched.exclusion.path.as_str()),
            workspace: DisplayPath::from(scope.workspace().as_str()),
        }),
    }
}

/// The workspace a front door uses when none is given: the top of the Git
/// checkout containing `dir` (so a checkout has one fingerprint from any of
/// its subdirectories), else `dir` itself.
pub fn default_workspace(dir: &Path) -> Result<Utf8PathBuf> {
    let dir = worktree_root(dir)?.unwrap_or_else(|| dir.to_path_buf());
    Utf8PathBuf::from_path_buf(dir).map_err(|p| Error::NonUtf8Path {
        path: DisplayPath::from_bytes(crate::platform::OsStrBytes::as_bytes(p.as_os_str())),
    })
}

/// Runs `work` with each Git repository opened once on this thread, as one
/// git command reads its configuration once: a front door that finds the
/// [`default_workspace`] and then expands a scope in it opens the repository
/// once instead of twice (0.3 ms of a 3 ms one-file fingerprint). A
/// repository opened again within `work` is configured as it was when first
/// opened, so nothing within it may change a configuration it relies on (the
/// CLI wraps its verbs that run no other program).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// use ledger_core::expand::{Inventory, Scope, default_workspace, opened_once};
/// let inventory = opened_once(|| -> ledger_core::Result<Inventory> {
///     let workspace = default_workspace(dir.path())?;
///     Inventory::expand(&Scope::new(workspace))
/// })?;
/// assert!(inventory.entries.is_empty());
/// # Ok(())
/// # }
/// ```
pub fn opened_once<R>(work: impl FnOnce() -> R) -> R {
    call::opened_once(work)
}

/// The top of the Git worktree containing `dir`, or `None` outside Git.
pub fn worktree_root(dir: &Path) -> Result<Option<PathBuf>> {
    git::worktree_root(dir)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::expand::entry::Content;

    #[test]
    fn assembling_merges_the_runs_in_path_order_each_path_once() {
        let wp = |s: &str| WorkspacePath::new(s).unwrap();
        let file = |byte: u8| {
            Ok(Content::File {
                executable: false,
                digest: crate::expand::entry::Digest([byte; 32]),
            })
        };
        // "b" is in both runs: the sorted run's outcome is the one kept.
        let sorted = vec![(wp("b"), file(1)), (wp("d"), file(4))];
        let rest = vec![
            (wp("a"), file(0)),
            (wp("b"), file(9)),
            (wp("c"), Ok(Content::Missing)),
        ];
        let (fingerprint, entries) = assemble(sorted.into_iter(), rest, 5).unwrap();
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["a", "b", "c", "d"]);
        assert_eq!(entries[1].content, file(1).unwrap());
        assert_eq!(entries[2].content, Content::Missing);
        assert_eq!(fingerprint, fingerprint_sorted(&entries).unwrap());

        // The first error in path order is the one reported.
        let failed = |path: &str| -> Outcome {
            Err(Box::new(Error::ChangedWhileReading {
                path: DisplayPath::from(path),
            }))
        };
        let sorted = vec![(wp("m"), failed("m")), (wp("y"), file(2))];
        let rest = vec![(wp("z"), failed("z"))];
        let err = assemble(sorted.into_iter(), rest, 3).unwrap_err();
        assert!(err.to_string().contains("'m'"), "{err}");
    }

    #[test]
    fn resolving_hands_the_expansion_the_worktree_it_opened_for_the_default_repository() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let init = std::process::Command::new("git")
            .args(["init", "-q", "top"])
            .current_dir(&top)
            .status()
            .unwrap();
        assert!(init.success());
        std::fs::create_dir_all(top.join("top/sub")).unwrap();
        std::fs::create_dir(top.join("plain")).unwrap();
        let at = |dir: &str| Scope::new(Utf8PathBuf::from_path_buf(top.join(dir)).unwrap());

        // In a checkout, from a subdirectory: `.` filled in, its worktree kept open.
        let (scope, worktree) = at("top/sub").resolve_opening().unwrap();
        assert_eq!(scope.repositories, ["."]);
        assert_eq!(worktree.unwrap().root, top.join("top"));
        assert_eq!(scope, at("top/sub").resolve().unwrap());

        // Declared repositories are opened by the listing, not while resolving.
        let mut declared = at("top");
        declared.add_repository(".").unwrap();
        let (scope, worktree) = declared.resolve_opening().unwrap();
        assert_eq!(scope.repositories, ["."]);
        assert!(worktree.is_none());

        // Outside Git: no repository, nothing open.
        let (scope, worktree) = at("plain").resolve_opening().unwrap();
        assert!(scope.repositories.is_empty());
        assert!(worktree.is_none());
    }
}
