//! Candidate listing from Git (docs/errors.md, Expansion), in process with `gix`.
//!
//! [`Listing::list_within`] answers exactly what `git -C dir ls-files --cached --others --exclude-standard -z`
//! answers: every index entry (staged or not, deleted from the worktree or not, skip-worktree
//! or not) plus every untracked file that no ignore rule (`.gitignore` at every level,
//! `.git/info/exclude`, `core.excludesFile`) excludes. The git CLI is never run; it is the
//! oracle of the tests only.
//!
//! Points where a plain `gix` dirwalk differs from git and that are handled here:
//!
//! * git lists a conflicted path once per stage; we list it once, as [`Status::Conflict`].
//! * git lists an untracked nested non-bare repository once as `dir/`; we list `dir`, as
//!   [`Status::NestedRepository`].
//! * `gix-dir` prunes directories whose index entries are all skip-worktree (sparse
//!   checkout), and would miss untracked files in them. Marking those entries (and sparse
//!   directory entries) `UPTODATE` in our in-memory copy of the index restores git's view.
//! * Sparse-index directory entries (mode 040000) stand for whole trees; `git ls-files`
//!   expands them, so we expand them from the object database.
//! * From a subdirectory git lists only paths below it, relative to it.
//! * A repository owned by another user is refused, as git refuses it.
//! * git reads a relative `core.excludesFile`, `$XDG_CONFIG_HOME/git/ignore` and
//!   `GIT_INDEX_FILE` from the top of the worktree; gix from the process's directory.
//! * git refuses a `.git` file that names no repository where gix would step over it
//!   and open an enclosing repository ([`dot_git`]).
//! * gix ignores `GIT_DIR` and `GIT_COMMON_DIR` and applies `GIT_WORK_TREE`; all three
//!   are accepted only when they change nothing, else refused. gix ignores the `git -c`
//!   values of `GIT_CONFIG_PARAMETERS`; they are applied as git applies them.
//! * git warns about an unreadable directory or ignore file and lists less; refused.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, ByteSlice};
use gix::dir::entry::{Kind as DiskKind, Status as WalkStatus};
use gix::dir::walk::{Action, Delegate, EmissionMode};
use gix::index::entry::Flags;
use gix::objs::FindExt;

use crate::error::{DisplayPath, Error, Result};
use crate::expand::cache::DigestCache;
use crate::expand::call::kept_for_the_call;
use crate::expand::walk_memo::{self, Location, Recorder, WalkKey, WalkMemos};
use crate::platform::{self, Handle, OsStrBytes, Stat};
use crate::quote::one_line;

/// How a candidate path appears in `git ls-files --cached --others --exclude-standard -z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// In the index at stage 0 (staged or not; possibly deleted from the worktree, possibly skip-worktree).
    Tracked,
    /// Untracked and not ignored.
    Untracked,
    /// In the index at a stage != 0 (unresolved merge conflict). Listed ONCE, not once per stage.
    Conflict,
    /// A gitlink (mode 160000, submodule) in the index.
    Submodule,
    /// An untracked directory holding a nested non-bare repository (git lists it once as `dir/`); path given WITHOUT the trailing slash.
    NestedRepository,
}

impl Status {
    /// Which status wins when the same path is seen twice (index beats worktree,
    /// a conflict beats everything): lower is stronger.
    fn rank(self) -> u8 {
        match self {
            Status::Conflict => 0,
            Status::Submodule => 1,
            Status::Tracked => 2,
            Status::NestedRepository => 3,
            Status::Untracked => 4,
        }
    }
}

/// One path listed by Git, with how it is listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// Raw path bytes, `/`-separated, relative to the `dir` passed to `list` (NOT to the repo root). Not validated as UTF-8 (the caller does that).
    pub path: Vec<u8>,
    /// How Git lists the path.
    pub status: Status,
}

/// Where to look for the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Locate {
    /// `dir` must itself be the root of a repository's worktree (it holds `.git`, a dir or a gitfile as in linked worktrees/submodules); otherwise Ok(None).
    RootOnly,
    /// Like `git -C dir`: discover the repository containing `dir` upward; `dir` may be a subdirectory of the worktree. Ok(None) when there is none.
    Discover,
}

/// A repository opened for listing. Reading the index is quick and walking the
/// worktree for untracked files is not, so the two are separate steps: a caller may
/// start on [`Listing::tracked_files`] while [`Listing::list_within`] walks.
pub(crate) struct Listing {
    repo: gix::Repository,
    /// Read once per [`opened_once`](crate::expand::call::opened_once), with skip-worktree entries marked up to
    /// date (see [`mark_excluded_from_worktree_uptodate`]).
    index: Rc<gix::index::File>,
    /// `prefix/` of `dir` in the worktree, or empty when `dir` is the worktree root:
    /// every repository path below `dir` starts with it, and stripping it makes the
    /// path relative to `dir`.
    prefix_slash: Vec<u8>,
    display: String,
    /// The excludes file the walk reads (`/dev/null` for none).
    excludes_file: PathBuf,
    /// The index file's status, taken before it was read (`None`: no index).
    index_stat: Option<Stat>,
}

impl Listing {
    /// Opens the repository for `dir` and reads its index. `Ok(None)` when there is
    /// no repository (see [`Locate`]).
    pub(crate) fn open(dir: &Path, locate: Locate, display: &str) -> Result<Option<Listing>> {
        let Some(repo) = open_repository(dir, locate, display)? else {
            return Ok(None);
        };
        Listing::of(repo, dir, display).map(Some)
    }

    /// [`Listing::open`] with [`Locate::Discover`], from the repository
    /// [`Worktree::open`] already opened for the same `dir`.
    pub(crate) fn of_worktree(worktree: Worktree, dir: &Path, display: &str) -> Result<Listing> {
        Listing::of(worktree.repo, dir, display)
    }

    /// Reads the index of `repo`, opened for `dir`.
    fn of(mut repo: gix::Repository, dir: &Path, display: &str) -> Result<Listing> {
        let workdir = repo
            .workdir()
            .ok_or_else(|| {
                git_error(
                    display,
                    "the repository is bare: it has no worktree to list",
                )
            })?
            .to_path_buf();
        let mut prefix_slash = worktree_prefix(dir, &workdir, repo.git_dir(), display)?;
        let excludes_file = anchor_excludes_file(&mut repo, &workdir, display)?;
        if !prefix_slash.is_empty() {
            prefix_slash.push(b'/');
        }
        let (index_stat, index) = shared_index(&repo, display)?;
        Ok(Listing {
            repo,
            index,
            prefix_slash,
            display: display.to_owned(),
            excludes_file,
            index_stat,
        })
    }

    /// The plain tracked files below `dir` (stage 0, not gitlinks), relative to it,
    /// straight from the index, each with the size the index last saw (the low 32
    /// bits; a hint, never an answer): a subset of what [`Listing::list_within`] lists as
    /// [`Status::Tracked`], known before the worktree is walked. Entries of a sparse
    /// index's directories are not expanded here.
    pub(crate) fn tracked_files(&self) -> impl Iterator<Item = (&[u8], u64)> {
        let state: &gix::index::State = &self.index;
        let entries = state.entries();
        // Below a subdirectory, only its range of the (sorted) index is looked at.
        let range = if self.prefix_slash.is_empty() {
            0..entries.len()
        } else {
            state
                .prefixed_entries_range(self.prefix_slash.as_bstr())
                .unwrap_or(0..0)
        };
        entries[range].iter().filter_map(move |entry| {
            let path: &[u8] = entry.path(state);
            path.strip_prefix(self.prefix_slash.as_slice())
                .filter(|rel| plain_file(entry) && !rel.is_empty())
                .map(|rel| (rel, u64::from(entry.stat.size)))
        })
    }

    /// Whether the index tracks any file below `sub` (a directory relative to
    /// `dir`); `None` for a sparse index, whose directory entries would have to
    /// be expanded to tell.
    pub(crate) fn tracks_below(&self, sub: &[u8]) -> Option<bool> {
        let state: &gix::index::State = &self.index;
        if state.is_sparse() {
            return None;
        }
        let mut prefix = self.prefix_slash.clone();
        prefix.extend_from_slice(sub);
        prefix.push(b'/');
        Some(
            state
                .prefixed_entries_range(prefix.as_bstr())
                .is_some_and(|range| !range.is_empty()),
        )
    }

    /// Everything `git ls-files --cached --others --exclude-standard` lists below
    /// `dir`, sorted by path bytes, each path once, with its strongest status —
    /// but the worktree is walked only `within` the scope:
    /// directories outside it are never opened (an unreadable one there is no
    /// concern of the scope, and not reading it saves time). Tracked paths outside it
    /// may still be listed: the caller selects. `found` is told of each untracked
    /// file the moment the walk finds it, and of each plain tracked file as the
    /// index is read: a tracked file `found` takes is left out of the result.
    ///
    /// With the digest `cache`, the walk is replayed from its memo when nothing
    /// it depends on changed, and remembered otherwise ([`walk_memo`]).
    pub(crate) fn list_within(
        self,
        within: &Within,
        found: &mut dyn Found,
        cache: Option<&DigestCache<'_>>,
    ) -> Result<Vec<Candidate>> {
        let display = self.display.as_str();
        let mut out = tracked(
            &self.repo,
            &self.index,
            &self.prefix_slash,
            within,
            found,
            display,
        )?;
        found.tracked_done();
        let patterns = walk_patterns(&self.prefix_slash, within);
        let mut memo = cache
            .zip(patterns.as_ref())
            .and_then(|(cache, patterns)| self.memo_of(within, patterns, cache));
        let settled = |stat: &Stat| cache.is_some_and(|c| c.may_record(stat));
        let mut collect = CollectUntracked {
            prefix_slash: &self.prefix_slash,
            exclusions: &within.exclusions,
            out: Vec::new(),
            found,
            recorder: None,
        };
        if let Some(patterns) = &patterns {
            let replayed = memo.as_mut().is_some_and(|memo| memo.replay(&mut collect));
            if !replayed {
                collect.recorder = memo.as_ref().and_then(|memo| self.recorder(memo, &settled));
                walk_untracked(&self.repo, &self.index, patterns, &mut collect, display)?;
                if let (Some(memo), Some(recorder)) = (&memo, collect.recorder.take()) {
                    memo.keep(recorder, &collect.out);
                }
            }
        }

        refuse_broken_nested_gitfiles(&self.repo, &self.prefix_slash, &collect.out, display)?;
        // A tracked file that `found` took is out of `out`, so the stronger status
        // it has is applied here: such a path is never a nested repository.
        let state: &gix::index::State = &self.index;
        let mut path = self.prefix_slash.clone();
        collect.out.retain(|candidate| {
            candidate.status != Status::NestedRepository || {
                path.truncate(self.prefix_slash.len());
                path.extend_from_slice(&candidate.path);
                state
                    .entry_by_path(path.as_bstr())
                    .is_none_or(|entry| !plain_file(entry))
            }
        });
        // The index part is sorted already (unless sparse directories were expanded);
        // the sort finds that run.
        out.append(&mut collect.out);
        out.sort_by(|a, b| {
            a.path
                .cmp(&b.path)
                .then_with(|| a.status.rank().cmp(&b.status.rank()))
        });
        // Keeps the first of equal paths, i.e. the strongest status.
        out.dedup_by(|later, earlier| later.path == earlier.path);
        Ok(out)
    }
}

/// A walk as its memo knows it: where it is, what it depends on, the memos of
/// the digest cache it is kept with.
struct MemoOfWalk<'c> {
    memos: &'c WalkMemos,
    started: i128,
    worktree: Handle,
    location: Location,
    key: WalkKey,
}

impl Listing {
    /// The memo of the walk of `within` (restricted by `patterns`), when one
    /// may be kept: the whole listed directory is walked (a walk limited to
    /// roots starts below directories it does not read) and the index has a
    /// status that was settled before it was read.
    fn memo_of<'c>(
        &self,
        within: &Within,
        patterns: &[Vec<u8>],
        cache: &'c DigestCache<'_>,
    ) -> Option<MemoOfWalk<'c>> {
        if within.roots.is_some() {
            return None;
        }
        let index_id = match &self.index_stat {
            Some(stat) if !cache.may_record(stat) => return None,
            Some(stat) => walk_memo::status_id(stat),
            None => [0; 16],
        };
        let workdir = self.repo.workdir()?;
        let worktree = walk_memo::open_worktree(workdir)?;
        let mut asked: Vec<&[u8]> =
            vec![workdir.as_os_str().as_encoded_bytes(), &self.prefix_slash];
        asked.extend(within.exclusions.iter().map(Vec::as_slice));
        let location = Location(walk_memo::digest_of("ledger walk location v1", &asked));
        let config = self.repo.config_snapshot().plumbing().to_bstring();
        let mut parts: Vec<&[u8]> = vec![
            &location.0,
            env!("CARGO_PKG_VERSION").as_bytes(),
            &index_id,
            config.as_slice(),
        ];
        parts.extend(patterns.iter().map(Vec::as_slice));
        Some(MemoOfWalk {
            memos: cache.walk_memos(),
            started: cache.started(),
            worktree,
            location,
            key: WalkKey(walk_memo::digest_of("ledger walk key v1", &parts)),
        })
    }

    /// A recorder for the walk of `memo`, having watched what the walk reads
    /// before it enters the listed directory: the directories from the
    /// worktree down to its parent (their `.gitignore` files), `info/exclude`
    /// and the excludes file.
    fn recorder<'r>(
        &self,
        memo: &'r MemoOfWalk<'_>,
        settled: &'r dyn Fn(&Stat) -> bool,
    ) -> Option<Recorder<'r>> {
        let mut recorder = Recorder::new(&memo.worktree, memo.location, memo.started, settled)?;
        // The listed directory itself is watched by the walk's own first
        // `can_recurse`, as every directory it reads.
        let prefix = self.prefix_slash.strip_suffix(b"/").unwrap_or(&[]);
        if !prefix.is_empty() {
            recorder.directory(b"");
        }
        for (at, byte) in prefix.iter().enumerate() {
            if *byte == b'/' {
                recorder.directory(&prefix[..at]);
            }
        }
        recorder.file(&self.repo.common_dir().join("info").join("exclude"));
        recorder.file(&self.excludes_file);
        Some(recorder)
    }
}

impl MemoOfWalk<'_> {
    /// Tells `collect` what the remembered walk found, when its memo checks
    /// out: every status it watched is the one it kept.
    fn replay(&self, collect: &mut CollectUntracked<'_, '_>) -> bool {
        let Some(stored) = self.memos.stored(self.location, self.key, self.started) else {
            return false;
        };
        if !stored.unchanged(&self.worktree) {
            return false;
        }
        crate::expand::progress::walk_replayed();
        for walked in stored.found() {
            let status = match walked.nested_repository {
                true => Status::NestedRepository,
                false => {
                    collect.found.untracked(&walked.path);
                    Status::Untracked
                }
            };
            collect.out.push(Candidate {
                path: walked.path.clone(),
                status,
            });
        }
        true
    }

    /// Keeps what the walk `recorder` watched found, `out`.
    fn keep(&self, recorder: Recorder<'_>, out: &[Candidate]) {
        let found = out
            .iter()
            .map(|candidate| walk_memo::Found {
                path: candidate.path.clone(),
                nested_repository: candidate.status == Status::NestedRepository,
            })
            .collect();
        self.memos.keep(recorder, self.key, found);
    }
}

/// Told of files as a listing meets them, so that they can be read meanwhile.
pub(crate) trait Found {
    /// A plain tracked file (stage 0, not a gitlink; relative to the listed
    /// directory) with the size the index last saw (the low 32 bits; a hint):
    /// `true` when the caller takes it, which leaves it out of the listing's result.
    fn tracked(&mut self, path: &[u8], size: u64) -> bool;
    /// An untracked file, the moment the walk finds it (it stays in the result).
    fn untracked(&mut self, path: &[u8]);
    /// Every tracked file was offered; the worktree walk starts now.
    fn tracked_done(&mut self) {}
}

/// Takes nothing: the listing's result is all of it.
pub(crate) struct Nothing;

impl Found for Nothing {
    fn tracked(&mut self, _: &[u8], _: u64) -> bool {
        false
    }

    fn untracked(&mut self, _: &[u8]) {}
}

/// A plain tracked file: stage 0, neither a gitlink nor a sparse directory.
fn plain_file(entry: &gix::index::Entry) -> bool {
    entry.stage_raw() == 0 && !entry.mode.is_submodule() && !entry.mode.is_sparse()
}

/// gix takes a directory for a nested repository when its `.git` file names one after
/// trimming all trailing whitespace; git trims only line ends, and where the `.git` file
/// then names no repository it lists the directory's files as plain ones. That listing
/// is not known here: such a directory is refused as the broken gitfile it is to git.
fn refuse_broken_nested_gitfiles(
    repo: &gix::Repository,
    prefix_slash: &[u8],
    untracked: &[Candidate],
    display: &str,
) -> Result<()> {
    let Some(workdir) = repo.workdir() else {
        return Ok(());
    };
    for candidate in untracked {
        if candidate.status != Status::NestedRepository {
            continue;
        }
        let mut in_worktree = prefix_slash.to_vec();
        in_worktree.extend_from_slice(&candidate.path);
        let dir = workdir.join(bytes_to_path(&in_worktree));
        let shown = || {
            let mut gitfile = candidate.path.clone();
            gitfile.extend_from_slice(b"/.git");
            in_display(display, &gitfile)
        };
        dot_git(&dir, &shown)?;
    }
    Ok(())
}

/// The top of the worktree of the repository containing `dir` (like
/// `git -C dir rev-parse --show-toplevel`: symlinks resolved), or `None` when `dir` is
/// in no repository or in a bare one. A repository owned by another user is an error,
/// as for [`list`].
pub(crate) fn worktree_root(dir: &Path) -> Result<Option<PathBuf>> {
    if let Some(root) = Worktree::opened_before(dir, |worktree| worktree.root.clone()) {
        return Ok(Some(root));
    }
    let Some(worktree) = Worktree::open_anew(dir)? else {
        return Ok(None);
    };
    let root = worktree.root.clone();
    // Kept as it is: only the expansion to come takes a handle of its own.
    Worktree::remember(worktree.found_from(dir), || worktree);
    Ok(Some(root))
}

/// The worktree containing a directory, with its repository left open: an
/// expansion asks whether its workspace is in one and then lists it, and opening
/// the repository a second time (its configuration files read and parsed again)
/// cost each expansion about 0.2 ms, a twentieth of a one-file run.
#[derive(Clone)]
pub(crate) struct Worktree {
    /// The top of the worktree, symlinks resolved.
    pub root: PathBuf,
    repo: gix::Repository,
}

/// What a call keeps of Git while it runs ([`opened_once`](crate::expand::call::opened_once)).
#[derive(Default)]
struct Opened {
    /// Each repository opened, under the path it was found at (the store
    /// opens the workspace's at its top, the expansion discovers it: both
    /// find one `.git`).
    repositories: Vec<(PathBuf, gix::Repository)>,
    /// Each worktree opened, under the directories that find it.
    worktrees: Vec<(Vec<PathBuf>, Worktree)>,
    /// Each index read, under its file's path, with the file's status taken
    /// before it was read: reused while the file's status is the same.
    indexes: Vec<(PathBuf, Stat, Rc<gix::index::File>)>,
}

thread_local! {
    /// What this thread opened and read from Git so far (see [`GitReads`]).
    static READS: Cell<GitReads> = const { Cell::new(GitReads { repository_opens: 0, index_reads: 0 }) };
}

/// How many times this thread opened a repository and read an index: one call
/// that evaluates many scopes (`check` of many changes) opens and reads each
/// once. Counted for the tests that hold it to that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GitReads {
    /// Repositories opened (their configuration read and parsed).
    pub repository_opens: u64,
    /// Index files read and decoded.
    pub index_reads: u64,
}

/// What this thread has opened and read from Git since it started.
pub fn git_reads() -> GitReads {
    READS.get()
}

/// Counts one more open or read on this thread.
fn count(add: impl FnOnce(&mut GitReads)) {
    let mut reads = READS.get();
    add(&mut reads);
    READS.set(reads);
}

impl Worktree {
    /// The worktree containing `dir`; `None` when `dir` is in no repository or in
    /// a bare one (see [`worktree_root`]). Within [`opened_once`](crate::expand::call::opened_once), one opened
    /// before for `dir` or with `dir` as its top.
    pub(crate) fn open(dir: &Path) -> Result<Option<Worktree>> {
        if let Some(worktree) = Worktree::opened_before(dir, Worktree::clone) {
            return Ok(Some(worktree));
        }
        let worktree = Worktree::open_anew(dir)?;
        if let Some(worktree) = &worktree {
            Worktree::remember(worktree.found_from(dir), || worktree.clone());
        }
        Ok(worktree)
    }

    /// What `read` gives of the worktree opened before for `dir` within
    /// [`opened_once`](crate::expand::call::opened_once), if any.
    fn opened_before<R>(dir: &Path, read: impl FnOnce(&Worktree) -> R) -> Option<R> {
        kept_for_the_call(|opened: &mut Opened| {
            let (_, worktree) =
                (opened.worktrees.iter()).find(|(keys, _)| keys.iter().any(|k| k == dir))?;
            Some(read(worktree))
        })
        .flatten()
    }

    /// The directories whose opening finds this worktree, opened for `dir`:
    /// `dir`, and its top when its git directory is the top's `.git` (not with
    /// `core.worktree` naming a worktree elsewhere, nor for a linked worktree:
    /// those open anew).
    fn found_from(&self, dir: &Path) -> Vec<PathBuf> {
        let top_finds_it = self
            .repo
            .workdir()
            .is_some_and(|workdir| workdir.join(gix::discover::DOT_GIT_DIR) == self.repo.git_dir());
        let mut keys = vec![dir.to_path_buf()];
        if top_finds_it {
            keys.push(self.root.clone());
        }
        keys
    }

    /// Within [`opened_once`](crate::expand::call::opened_once), keeps the worktree `keep` gives, found from
    /// `keys`, for the opens to come (a clone of a repository sets up an object
    /// cache of its own: only what is handed out is cloned).
    fn remember(keys: Vec<PathBuf>, keep: impl FnOnce() -> Worktree) {
        kept_for_the_call(|opened: &mut Opened| opened.worktrees.push((keys, keep())));
    }

    fn open_anew(dir: &Path) -> Result<Option<Worktree>> {
        let display = dir.display().to_string();
        let Some(repo) = open_repository(dir, Locate::Discover, &display)? else {
            return Ok(None);
        };
        let Some(workdir) = repo.workdir() else {
            return Ok(None);
        };
        let root = std::fs::canonicalize(workdir).map_err(|err| {
            git_error(
                &display,
                format!("cannot resolve the worktree {}: {err}", workdir.display()),
            )
        })?;
        Ok(Some(Worktree { root, repo }))
    }
}

/// An `Error::Git` for the repository shown as `display`.
fn git_error(display: &str, message: impl Into<String>) -> Error {
    Error::Git {
        path: DisplayPath::from(display),
        message: message.into(),
        source: None,
    }
}

/// An `Error::Git` carrying what gix reported: its whole chain of causes on one line
/// in the message (never gix's multi-line `Debug` rendering), the error itself as
/// the source.
pub(crate) fn gix_error(display: &str, what: &str, err: gix::Error) -> Error {
    Error::Git {
        path: DisplayPath::from(display),
        message: format!("{what}: {}", describe(&err)),
        source: Some(Box::new(err)),
    }
}

/// The messages of `err` and its causes, outermost first, joined on one line.
fn describe(err: &gix::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.iter_errors() {
        let text = one_line(&cause.to_string());
        // A wrapper often repeats its cause's message.
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}

/// Opens the repository for `dir`, refusing repositories owned by another user (as git
/// does, `safe.directory` aside). `Ok(None)` when there is no repository to open.
/// Within [`opened_once`](crate::expand::call::opened_once), each directory's repository is opened once.
pub(crate) fn open_repository(
    dir: &Path,
    locate: Locate,
    display: &str,
) -> Result<Option<gix::Repository>> {
    check_git_environment(dir, locate)?;
    let options = open_options(display)?;
    let Some(found) = locate_repository(dir, locate, display)? else {
        return Ok(None);
    };
    let kept = kept_for_the_call(|opened: &mut Opened| {
        let (_, repo) = opened
            .repositories
            .iter()
            .find(|(path, _)| *path == found)?;
        Some(repo.clone())
    });
    if let Some(repo) = kept.flatten() {
        return Ok(Some(repo));
    }
    count(|reads| reads.repository_opens += 1);
    match gix::open_opts(&found, options) {
        Ok(repo) => {
            kept_for_the_call(|opened: &mut Opened| {
                opened.repositories.push((found, repo.clone()));
            });
            Ok(Some(repo))
        }
        Err(err) => {
            if is_owned_by_someone_else(dir) {
                return Err(Error::UntrustedRepository {
                    path: DisplayPath::from(display),
                });
            }
            if let Some(worktree) = missing_worktree(&found) {
                return Err(git_error(
                    display,
                    format!(
                        "its worktree {} (core.worktree or GIT_WORK_TREE) does not exist",
                        DisplayPath::from_bytes(worktree.as_os_str().as_encoded_bytes())
                    ),
                ));
            }
            Err(gix_error(display, "cannot open the repository", err))
        }
    }
}

/// The directory to open for `dir`, or `None` when there is no repository: `dir`
/// itself when it holds `.git` ([`Locate::RootOnly`]), else the first directory from
/// `dir` upward that git takes for a repository ([`find_upward`]).
fn locate_repository(dir: &Path, locate: Locate, display: &str) -> Result<Option<PathBuf>> {
    if locate == Locate::Discover {
        return find_upward(dir, display);
    }
    match std::fs::symlink_metadata(dir.join(gix::discover::DOT_GIT_DIR)) {
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            return Err(Error::Unreadable {
                path: DisplayPath::from(display),
                operation: "stat .git in",
                source: err,
            });
        }
    }
    // git refuses a broken `.git` file; gix might open something else.
    dot_git(dir, &|| in_display(display, b".git"))?;
    Ok(Some(dir.to_path_buf()))
}

/// How every repository is opened: refused when owned by another user, with the
/// `git -c` values a parent git passed down in `GIT_CONFIG_PARAMETERS` (a hook of
/// `git -c core.excludesFile=... commit` sees them; gix does not read them).
fn open_options(display: &str) -> Result<gix::open::Options> {
    let parameters = match std::env::var_os("GIT_CONFIG_PARAMETERS") {
        Some(text) => parse_config_parameters(text.as_encoded_bytes()).ok_or_else(|| {
            git_error(
                display,
                "GIT_CONFIG_PARAMETERS is not in git's format ('key'='value' ...); git refuses it too",
            )
        })?,
        None => Vec::new(),
    };
    Ok(gix::open::Options::default()
        .bail_if_untrusted(true)
        .cli_overrides(parameters))
}

/// `GIT_CONFIG_PARAMETERS` as git parses it: shell-single-quoted words separated by
/// spaces, each `'key'='value'`, or `'key=value'` / `'key'` (true) in the old form.
/// Returns `key=value` (or `key`) items; `None` for what git calls a bogus format.
fn parse_config_parameters(text: &[u8]) -> Option<Vec<gix::bstr::BString>> {
    let mut out = Vec::new();
    let mut rest = text.trim_ascii_start();
    while !rest.is_empty() {
        let (key, after) = sq_dequote_step(rest)?;
        let (item, after) = match after.split_first() {
            // `'key'=` alone is an implicit `true`, as `'key'` is.
            Some((b'=', value)) if value.first() == Some(&b'\'') => {
                let (value, after) = sq_dequote_step(value)?;
                ([key, b"=".to_vec(), value].concat(), after)
            }
            Some((b'=', after)) => (key, after),
            _ => (key, after),
        };
        if after.first().is_some_and(|c| !c.is_ascii_whitespace()) {
            return None;
        }
        out.push(item.into());
        rest = after.trim_ascii_start();
    }
    Some(out)
}

/// One single-quoted word at the start of `text` (`'\''` and `'\!'` stand for a quote
/// and a `!`), and what follows it; `None` when `text` does not start with one.
fn sq_dequote_step(text: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = text.strip_prefix(b"'")?;
    let mut word = Vec::new();
    loop {
        let end = rest.iter().position(|b| *b == b'\'')?;
        word.extend_from_slice(&rest[..end]);
        rest = &rest[end + 1..];
        match rest {
            [b'\\', c @ (b'\'' | b'!'), b'\'', after @ ..] => {
                word.push(*c);
                rest = after;
            }
            _ => return Some((word, rest)),
        }
    }
}

/// `name` below the repository shown as `display` (`.` is the workspace itself).
pub(crate) fn in_display(display: &str, name: &[u8]) -> DisplayPath {
    if display == "." {
        return DisplayPath::from_bytes(name);
    }
    // Escaped once, as a whole: `name` holds raw bytes.
    let mut bytes = display.trim_end_matches('/').as_bytes().to_vec();
    bytes.push(b'/');
    bytes.extend_from_slice(name);
    DisplayPath::from_bytes(&bytes)
}

/// What a directory's `.git` is, by git's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DotGit {
    /// There is no `.git`, or one git does not take for a repository (a directory that
    /// is no Git directory, a FIFO, ...): git looks further up, or lists the directory
    /// as plain files.
    NotARepository,
    /// A Git directory, or a `.git` file whose `gitdir:` line names one.
    Repository,
}

/// Classifies `dir/.git` as git does (`read_gitfile_gently`, `is_git_directory`); a
/// `.git` file that names no repository is [`Error::InvalidGitfile`], shown as `shown()`,
/// because git refuses it ("invalid gitfile format", "not a git repository") rather than
/// looking elsewhere.
pub(crate) fn dot_git(dir: &Path, shown: &dyn Fn() -> DisplayPath) -> Result<DotGit> {
    let path = dir.join(gix::discover::DOT_GIT_DIR);
    // Like git, follows a symlinked `.git`; a `.git` that cannot be stat'ed is none.
    let Ok(meta) = std::fs::metadata(&path) else {
        return Ok(DotGit::NotARepository);
    };
    if meta.is_dir() {
        return Ok(match gix::discover::is_git(&path) {
            Ok(_) => DotGit::Repository,
            Err(_) => DotGit::NotARepository,
        });
    }
    if !meta.is_file() {
        return Ok(DotGit::NotARepository);
    }
    let invalid = |reason: String| Error::InvalidGitfile {
        path: shown(),
        reason,
    };
    let target = gitfile_target(&path, meta.len()).map_err(|problem| match problem {
        GitfileProblem::Invalid(reason) => invalid(reason.to_owned()),
        GitfileProblem::Unreadable(source) => Error::Unreadable {
            path: shown(),
            operation: "read the gitfile",
            source,
        },
    })?;
    if gix::discover::is_git(&target).is_err() {
        return Err(invalid(format!(
            "not a git repository: {}",
            DisplayPath::from_bytes(target.as_os_str().as_encoded_bytes())
        )));
    }
    Ok(DotGit::Repository)
}

/// Why a `.git` file gives no Git directory.
enum GitfileProblem {
    /// Its content is not one `gitdir: <path>` line (git's wording).
    Invalid(&'static str),
    /// It cannot be read.
    Unreadable(std::io::Error),
}

/// The directory the `.git` file `path` of `size` bytes names, parsed as git's
/// `read_gitfile_gently` does: `gitdir: ` then the path up to trailing CR/LF, relative
/// to the file's directory unless absolute. Existence is not checked here.
fn gitfile_target(path: &Path, size: u64) -> std::result::Result<PathBuf, GitfileProblem> {
    use std::io::Read;
    const LARGEST: u64 = 1 << 20;
    if size > LARGEST {
        return Err(GitfileProblem::Invalid("too large to be a .git file"));
    }
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(LARGEST).read_to_end(&mut buf))
        .map_err(GitfileProblem::Unreadable)?;
    // git reads the file as a C string.
    let text = buf.split(|b| *b == 0).next().unwrap_or_default();
    let rest = text
        .strip_prefix(b"gitdir: ")
        .ok_or(GitfileProblem::Invalid("invalid gitfile format"))?;
    let mut end = rest.len();
    while end > 0 && matches!(rest[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    if end == 0 {
        return Err(GitfileProblem::Invalid("no path in gitfile"));
    }
    let target = bytes_to_path(&rest[..end]);
    Ok(match path.parent() {
        Some(parent) if target.is_relative() => parent.join(target),
        _ => target.to_path_buf(),
    })
}

/// git's discovery (`setup_git_directory`): from `dir` upward, the first directory
/// whose `.git` is a repository (a `.git` file that names none is refused, where gix
/// would step over it and open an enclosing superproject, whose listing below a
/// submodule is empty), or that is a Git directory itself; never reaching a
/// `GIT_CEILING_DIRECTORIES` entry above `dir` (gix looks into the ceiling itself) nor
/// crossing a filesystem unless `GIT_DISCOVERY_ACROSS_FILESYSTEM` is true.
fn find_upward(dir: &Path, display: &str) -> Result<Option<PathBuf>> {
    let Ok(start) = std::fs::canonicalize(dir) else {
        return Ok(Some(dir.to_path_buf())); // opening it reports why
    };
    let highest = ceiling_height(&start);
    let device = |path: &Path| std::fs::metadata(path).ok().map(|m| platform::device(&m));
    let start_device = device(&start);
    let cross_fs = env_is_true("GIT_DISCOVERY_ACROSS_FILESYSTEM");
    for (height, ancestor) in start.ancestors().enumerate() {
        if highest.is_some_and(|h| height > h) || (!cross_fs && device(ancestor) != start_device) {
            break;
        }
        let shown = || {
            if ancestor == start {
                in_display(display, b".git")
            } else {
                DisplayPath::from_bytes(ancestor.join(".git").as_os_str().as_encoded_bytes())
            }
        };
        if dot_git(ancestor, &shown)? == DotGit::Repository
            || gix::discover::is_git(ancestor).is_ok()
        {
            return Ok(Some(ancestor.to_path_buf()));
        }
    }
    Ok(None)
}

/// How many directories above `start` git's discovery may look into: it stops below
/// the deepest `GIT_CEILING_DIRECTORIES` entry that is a proper ancestor of `start`
/// (absolute entries only; those after an empty entry are taken as written, the
/// others with symlinks resolved). `None`: no limit.
fn ceiling_height(start: &Path) -> Option<usize> {
    let ceilings = std::env::var_os("GIT_CEILING_DIRECTORIES")?;
    let mut resolve = true;
    let mut highest: Option<usize> = None;
    for entry in std::env::split_paths(&ceilings) {
        if entry.as_os_str().is_empty() {
            resolve = false;
            continue;
        }
        if entry.is_relative() {
            continue;
        }
        let ceiling = if resolve {
            std::fs::canonicalize(&entry).unwrap_or(entry)
        } else {
            entry
        };
        let Ok(below) = start.strip_prefix(&ceiling) else {
            continue;
        };
        let depth = below.components().count();
        if depth > 0 {
            highest = Some(highest.map_or(depth - 1, |h| h.min(depth - 1)));
        }
    }
    highest
}

/// Whether the environment variable `name` is set to one of git's true values.
fn env_is_true(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|value| {
        let value = value.to_string_lossy().to_ascii_lowercase();
        matches!(value.as_str(), "true" | "yes" | "on" | "1")
    })
}

/// The variables that make git use another repository or worktree than the one found
/// from the directory it runs in. gix ignores `GIT_DIR` and `GIT_COMMON_DIR` and applies
/// `GIT_WORK_TREE`: following them half-way would be a third answer.
const LOCATING_VARIABLES: [&str; 3] = ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"];

/// Refuses (`git-environment`) a `GIT_DIR`, `GIT_WORK_TREE` or `GIT_COMMON_DIR` under
/// which `git -C dir ls-files` would list another repository or worktree than the one
/// found from `dir` without them; set to exactly those, they change nothing and are
/// accepted (a hook may run with them). `GIT_INDEX_FILE` is honoured as it is.
fn check_git_environment(dir: &Path, locate: Locate) -> Result<()> {
    let set: Vec<(&str, std::ffi::OsString)> = LOCATING_VARIABLES
        .iter()
        .filter_map(|&name| std::env::var_os(name).map(|value| (name, value)))
        .collect();
    if set.is_empty() {
        return Ok(());
    }
    let found = open_without_environment(dir, locate);
    let value_of = |name: &str| set.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
    // What each variable must name for git to list what ledger lists.
    let expected = |name: &str| -> Option<PathBuf> {
        let repo = found.as_ref()?;
        match name {
            "GIT_DIR" => Some(repo.git_dir().to_path_buf()),
            "GIT_COMMON_DIR" => Some(repo.common_dir().to_path_buf()),
            _ => repo.workdir().map(Path::to_path_buf),
        }
    };
    for (name, value) in &set {
        // A relative value: relative to the current directory for whoever set it,
        // to `dir` for `git -C dir`; it must fit both readings.
        let value = Path::new(value);
        let expected = expected(name);
        if !same_place(value, expected.as_deref())
            || (value.is_relative() && !same_place(&dir.join(value), expected.as_deref()))
        {
            return Err(environment_error(name, value.as_os_str()));
        }
    }
    // With `GIT_DIR` alone, git takes the directory it runs in for the top of the
    // worktree (unless `core.worktree` says otherwise).
    if let (Some(value), None, Some(repo)) =
        (value_of("GIT_DIR"), value_of("GIT_WORK_TREE"), &found)
        && repo.config_snapshot().string("core.worktree").is_none()
        && !same_place(dir, repo.workdir())
    {
        return Err(environment_error("GIT_DIR", value));
    }
    Ok(())
}

/// The repository for `dir` as found without any of git's locating variables, `None`
/// when there is none or it cannot be opened.
fn open_without_environment(dir: &Path, locate: Locate) -> Option<gix::Repository> {
    let mut permissions = gix::open::Permissions::all();
    permissions.env.git_prefix = gix::sec::Permission::Deny;
    let options = open_options(".").ok()?.permissions(permissions);
    let found = locate_repository(dir, locate, ".").ok()??;
    gix::open_opts(found, options).ok()
}

/// Whether `a` and `b` name the same existing directory.
fn same_place(a: &Path, b: Option<&Path>) -> bool {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    b.is_some_and(|b| real(a).is_some_and(|a| Some(a) == real(b)))
}

fn environment_error(name: &str, value: &std::ffi::OsStr) -> Error {
    Error::GitEnvironment {
        variable: name.to_owned(),
        value: DisplayPath::from_bytes(value.as_encoded_bytes()).to_string(),
    }
}

/// The configured worktree of the repository at `found` when it does not exist: gix
/// refuses such a repository as if it were owned by someone else, which it is not.
/// Only asked once opening failed.
fn missing_worktree(found: &Path) -> Option<PathBuf> {
    let options = open_options(".").ok()?.bail_if_untrusted(false);
    let repo = gix::open_opts(found, options).ok()?;
    let worktree = repo.workdir()?;
    (!worktree.exists()).then(|| worktree.to_path_buf())
}

/// Whether the repository containing `dir` fails the ownership check git applies (its
/// `.git`, git directory or worktree is owned by another user). Only asked once opening
/// failed, to tell "untrusted" apart from other failures.
fn is_owned_by_someone_else(dir: &Path) -> bool {
    let options = gix::discover::upwards::Options {
        trust: gix::discover::upwards::TrustPolicy::Required(gix::sec::Trust::Full),
        ..Default::default()
    };
    match gix::discover::upwards_opts(dir, options) {
        Ok(_) => false,
        Err(err) => matches!(
            err.downcast_any_ref::<gix::discover::upwards::Error>(),
            Some(gix::discover::upwards::Error::NoTrustedGitRepository { .. })
        ),
    }
}

/// The path of `dir` relative to the worktree root, `/`-separated, empty for the root.
fn worktree_prefix(dir: &Path, workdir: &Path, git_dir: &Path, display: &str) -> Result<Vec<u8>> {
    let canonical = |path: &Path, what: &str| -> Result<PathBuf> {
        std::fs::canonicalize(path).map_err(|err| {
            git_error(
                display,
                format!("cannot resolve the {what} {}: {err}", path.display()),
            )
        })
    };
    let dir_real = canonical(dir, "directory")?;
    let workdir_real = canonical(workdir, "worktree")?;
    if let Ok(git_dir_real) = std::fs::canonicalize(git_dir)
        && dir_real.starts_with(&git_dir_real)
    {
        return Err(git_error(
            display,
            "the directory lies inside the Git directory, not in a worktree",
        ));
    }
    let relative = dir_real.strip_prefix(&workdir_real).map_err(|_| {
        git_error(
            display,
            format!(
                "the directory lies outside the repository's worktree {}",
                workdir_real.display()
            ),
        )
    })?;
    let bytes = gix::path::os_str_into_bstr(relative.as_os_str()).map_err(|_| {
        git_error(
            display,
            "the directory's path cannot be represented as bytes",
        )
    })?;
    let mut bytes = bytes.to_vec();
    if std::path::MAIN_SEPARATOR != '/' {
        for b in &mut bytes {
            if *b == std::path::MAIN_SEPARATOR as u8 {
                *b = b'/';
            }
        }
    }
    Ok(bytes)
}

/// git reads `core.excludesFile` (default `$XDG_CONFIG_HOME/git/ignore`, else
/// `$HOME/.config/git/ignore`) after moving to the top of the worktree, so a relative
/// path is relative to that top; gix would resolve it against the process's current
/// directory and silently lose the rules elsewhere. The path git uses is computed here and
/// set, absolute, in the repository's in-memory configuration, which the walk then reads.
fn anchor_excludes_file(
    repo: &mut gix::Repository,
    workdir: &Path,
    display: &str,
) -> Result<PathBuf> {
    // No file at all: an empty file has the same (no) rules, and keeps gix from
    // looking for its own default.
    let file = match excludes_file_git_reads(repo, display)? {
        // git skips a file it cannot open (silently when absent, with a warning
        // otherwise, e.g. below an unreadable `$HOME`); gix would fail the walk.
        Some(file) if std::fs::File::open(workdir.join(&file)).is_ok() => workdir.join(file),
        _ => PathBuf::from("/dev/null"),
    };
    let value = gix::path::os_str_into_bstr(file.as_os_str())
        .map_err(|_| git_error(display, "core.excludesFile is not valid UTF-8"))?
        .to_owned();
    let mut config = repo.config_snapshot_mut();
    config
        .set_value(&gix::config::tree::Core::EXCLUDES_FILE, value.as_bstr())
        .map_err(|err| gix_error(display, "cannot set core.excludesFile", err))?;
    config
        .commit()
        .map_err(|err| gix_error(display, "cannot read the configuration", err))?;
    Ok(file)
}

/// The excludes file git reads, as configured (possibly relative), or `None`:
/// `core.excludesFile` from trusted configuration, `~` expanded as git does (from
/// `$HOME`), none when it is set empty; the default when it is unset.
fn excludes_file_git_reads(repo: &gix::Repository, display: &str) -> Result<Option<PathBuf>> {
    let Some(path) = repo
        .config_snapshot()
        .plumbing()
        .path_filter("core.excludesFile", gix::config::section::is_trusted)
    else {
        return Ok(default_excludes_file());
    };
    if path.value.is_empty() {
        return Ok(None);
    }
    let home = gix::path::env::home_dir();
    let context = gix::config::path::interpolate::Context {
        git_install_dir: None,
        home_dir: home.as_deref(),
        home_for_user: Some(gix::config::path::interpolate::home_for_user),
    };
    let value = path.value.clone();
    let interpolated = path.interpolate(context).map_err(|err| {
        git_error(
            display,
            format!(
                "cannot expand core.excludesFile {}: {}",
                DisplayPath::from_bytes(&value),
                one_line(&err.to_string())
            ),
        )
    })?;
    Ok(Some(interpolated))
}

/// The excludes file git reads when `core.excludesFile` is unset: `git/ignore` below a
/// non-empty `$XDG_CONFIG_HOME`, else below `$HOME/.config`, else none.
fn default_excludes_file() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(xdg) => PathBuf::from(xdg),
        // git writes `$HOME/.config`: an empty `$HOME` gives `/.config`.
        None => {
            let mut home = std::env::var_os("HOME")?;
            home.push("/.config");
            PathBuf::from(home)
        }
    };
    Some(base.join("git").join("ignore"))
}

/// The index of `repo` with the status its file had before it was read (`None`:
/// no index file), read once within [`opened_once`](crate::expand::call::opened_once) while that status holds
/// (git replaces the file to write it: a new one has another inode and ctime),
/// its skip-worktree entries marked up to date for the walk.
fn shared_index(
    repo: &gix::Repository,
    display: &str,
) -> Result<(Option<Stat>, Rc<gix::index::File>)> {
    let path = index_path(repo);
    // Before the read: a walk memo keyed by it vouches for no later index.
    let stat = platform::lstat(&path).ok();
    let kept = stat.and_then(|stat| {
        kept_for_the_call(|opened: &mut Opened| {
            let (_, _, index) =
                (opened.indexes.iter()).find(|(p, s, _)| *p == path && *s == stat)?;
            Some(Rc::clone(index))
        })
        .flatten()
    });
    if let Some(index) = kept {
        return Ok((stat, index));
    }
    let mut index = load_index(repo, display)?;
    mark_excluded_from_worktree_uptodate(&mut index);
    let index = Rc::new(index);
    if let Some(stat) = stat {
        kept_for_the_call(|opened: &mut Opened| {
            opened.indexes.retain(|(p, _, _)| *p != path);
            opened.indexes.push((path, stat, Rc::clone(&index)));
        });
    }
    Ok((stat, index))
}

/// Reads the index as an owned copy we may modify; an absent index (fresh repository)
/// is an empty one.
fn load_index(repo: &gix::Repository, display: &str) -> Result<gix::index::File> {
    let path = index_path(repo);
    match std::fs::symlink_metadata(&path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(gix::index::File::from_state(
                gix::index::State::new(repo.object_hash()),
                path,
            ));
        }
        _ => {}
    }
    // git reads the index without checking its trailing checksum (only `git fsck`
    // does: `verify_index_checksum`), so a listing must too: an index git lists
    // from is never refused here, and hashing megabytes of index (SHA-1 with
    // collision detection) no longer delays the walk. The entries are still
    // decoded and validated as before.
    count(|reads| reads.index_reads += 1);
    let read = gix::index::File::at(&path, repo.object_hash(), true, Default::default())
        .map_err(gix::Error::from_error);
    read.map_err(|err| {
        let what = format!(
            "cannot read the index {}",
            DisplayPath::from_bytes(path.as_os_str().as_encoded_bytes())
        );
        gix_error(display, &what, err)
    })
}

/// The index git reads: `GIT_INDEX_FILE` when set (a hook of `git commit -a` gets a
/// temporary one), a relative value being relative to the top of the worktree, where
/// git runs; gix would take it relative to the process's current directory.
fn index_path(repo: &gix::Repository) -> PathBuf {
    match (std::env::var_os("GIT_INDEX_FILE"), repo.workdir()) {
        (Some(value), Some(workdir)) if !value.is_empty() && Path::new(&value).is_relative() => {
            workdir.join(value)
        }
        _ => repo.index_path(),
    }
}

/// Every index path below `prefix_slash`, relative to it: stage-0 entries as tracked
/// (gitlinks as submodules), other stages once as conflicts, sparse directory entries
/// expanded from their trees.
fn tracked(
    repo: &gix::Repository,
    state: &gix::index::State,
    prefix_slash: &[u8],
    within: &Within,
    found: &mut dyn Found,
    display: &str,
) -> Result<Vec<Candidate>> {
    let entries = state.entries();
    let ranges = index_ranges(state, prefix_slash, within);
    let strip = prefix_slash.len();
    let mut out: Vec<Candidate> =
        Vec::with_capacity(ranges.iter().map(ExactSizeIterator::len).sum());
    for entry in ranges.into_iter().flat_map(|range| &entries[range]) {
        let path: &[u8] = entry.path(state);
        if entry.mode.is_sparse() {
            expand_sparse_directory(repo, path, entry.id, prefix_slash, &mut out, display)?;
            continue;
        }
        if !path.starts_with(prefix_slash) {
            continue;
        }
        let rel = &path[strip..];
        if entry.stage_raw() != 0 {
            // Stages of one path are adjacent in the index: list the path once.
            if let Some(last) = out.last_mut()
                && last.path == rel
            {
                last.status = Status::Conflict;
                continue;
            }
            out.push(Candidate {
                path: rel.to_vec(),
                status: Status::Conflict,
            });
            continue;
        }
        let status = if entry.mode.is_submodule() {
            Status::Submodule
        } else {
            Status::Tracked
        };
        if status == Status::Tracked
            && !rel.is_empty()
            && found.tracked(rel, u64::from(entry.stat.size))
        {
            continue;
        }
        out.push(Candidate {
            path: rel.to_vec(),
            status,
        });
    }
    Ok(out)
}

/// The ranges of the (sorted) index that hold every entry below `prefix_slash`
/// within the scope's roots, disjoint and in index order: each root's own
/// entries, those below it, and those of the directories above it (a submodule
/// holding a root is a candidate). One binary search per root and directory,
/// where a scan of the index would compare every entry: a call that evaluates
/// many small scopes (`check` of many changes) pays for what they hold. A
/// sparse directory entry may hold `dir` or a root itself and is in none of
/// these ranges, so a sparse index is scanned in full (such indexes are small
/// by design).
fn index_ranges(
    state: &gix::index::State,
    prefix_slash: &[u8],
    within: &Within,
) -> Vec<std::ops::Range<usize>> {
    let everything = 0..state.entries().len();
    if state.is_sparse() {
        return vec![everything];
    }
    let roots = match &within.roots {
        // An empty root is all of `dir`.
        Some(roots) if roots.iter().all(|root| !root.is_empty()) => roots,
        _ => return Vec::from_iter(state.prefixed_entries_range(prefix_slash.as_bstr())),
    };
    let mut ranges = Vec::new();
    let mut path = Vec::new();
    for root in roots {
        let above = (root.iter().enumerate())
            .filter(|(_, b)| **b == b'/')
            .map(|(i, _)| &root[..i]);
        for exact in above.chain([root.as_slice()]) {
            path.clear();
            path.extend_from_slice(prefix_slash);
            path.extend_from_slice(exact);
            ranges.extend(state.entry_range(path.as_bstr()));
        }
        path.push(b'/');
        ranges.extend(state.prefixed_entries_range(path.as_bstr()));
    }
    ranges.sort_by_key(|range| range.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Adds the files of the tree `id`, which a sparse index stores as the single directory
/// entry `dir_path`, keeping those below `prefix_slash` (relative to it).
fn expand_sparse_directory(
    repo: &gix::Repository,
    dir_path: &[u8],
    id: gix::ObjectId,
    prefix_slash: &[u8],
    out: &mut Vec<Candidate>,
    display: &str,
) -> Result<()> {
    let mut root = dir_path.to_vec();
    if root.last() != Some(&b'/') {
        root.push(b'/');
    }
    // Only trees that may hold paths below the prefix are read.
    let relevant = |dir: &[u8]| dir.starts_with(prefix_slash) || prefix_slash.starts_with(dir);
    if !relevant(&root) {
        return Ok(());
    }
    let mut stack = vec![(root, id)];
    let mut buf = Vec::new();
    while let Some((dir, id)) = stack.pop() {
        let tree = repo.objects.find_tree(&id, &mut buf).map_err(|err| {
            gix_error(
                display,
                &format!(
                    "cannot read the tree of the sparse directory {}",
                    DisplayPath::from_bytes(&dir)
                ),
                err,
            )
        })?;
        for entry in &tree.entries {
            let mut path = Vec::with_capacity(dir.len() + entry.filename.len() + 1);
            path.extend_from_slice(&dir);
            path.extend_from_slice(entry.filename);
            if entry.mode.is_tree() {
                path.push(b'/');
                if relevant(&path) {
                    stack.push((path, entry.oid.to_owned()));
                }
                continue;
            }
            if !path.starts_with(prefix_slash) {
                continue;
            }
            path.drain(..prefix_slash.len());
            let status = if entry.mode.is_commit() {
                Status::Submodule
            } else {
                Status::Tracked
            };
            out.push(Candidate { path, status });
        }
    }
    Ok(())
}

/// `gix-dir` treats a directory whose index entries are all skip-worktree (and a sparse
/// directory entry) as excluded from the worktree and prunes it, missing the untracked
/// files git lists there. Entries marked `UPTODATE` make such directories count as
/// tracked, so they are traversed like git does. Other entries are left alone: their
/// worktree state (e.g. a file replaced by a directory) must come from the disk.
fn mark_excluded_from_worktree_uptodate(state: &mut gix::index::State) {
    for entry in state.entries_mut() {
        if entry.flags.contains(Flags::SKIP_WORKTREE) || entry.mode.is_sparse() {
            entry.flags.insert(Flags::UPTODATE);
        }
    }
}

/// The part of a listing's directory a scope selects, as paths relative to that
/// directory (`/`-separated; an empty path is all of it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Within {
    /// Only these paths and what lies below them; `None`: everything.
    pub roots: Option<Vec<Vec<u8>>>,
    /// Never these paths nor what lies below them.
    pub exclusions: Vec<Vec<u8>>,
}

/// The pathspecs restricting the walk to `within` below `prefix_slash`, or `None`
/// when nothing is to be walked. `top` anchors a pattern at the worktree root whatever
/// the process's current directory, `literal` disables globbing; a pattern matches its
/// path and everything below it, as a scope root does.
fn walk_patterns(prefix_slash: &[u8], within: &Within) -> Option<Vec<Vec<u8>>> {
    let pattern = |magic: &[u8], relative: &[u8]| {
        let mut pattern = magic.to_vec();
        pattern.extend_from_slice(prefix_slash);
        pattern.extend_from_slice(relative);
        if relative.is_empty() {
            pattern.pop(); // the prefix's `/`
        }
        pattern
    };
    let mut patterns = Vec::new();
    match &within.roots {
        Some(roots) if roots.is_empty() => return None,
        Some(roots) if roots.iter().all(|r| !r.is_empty()) => {
            patterns.extend(roots.iter().map(|r| pattern(b":(top,literal)", r)));
        }
        // All of `dir`.
        _ if !prefix_slash.is_empty() => patterns.push(pattern(b":(top,literal)", b"")),
        _ => {}
    }
    for exclusion in &within.exclusions {
        if exclusion.is_empty() {
            return None;
        }
        patterns.push(pattern(b":(top,literal,exclude)", exclusion));
    }
    Some(patterns)
}

/// Runs the dirwalk restricted by `patterns`, emitting untracked, non-ignored files
/// and untracked nested repositories to `collect`.
fn walk_untracked(
    repo: &gix::Repository,
    state: &gix::index::State,
    patterns: &[Vec<u8>],
    collect: &mut CollectUntracked<'_, '_>,
    display: &str,
) -> Result<()> {
    let options = repo
        .dirwalk_options()
        .map_err(|err| gix_error(display, "cannot read the configuration", err))?
        .emit_untracked(EmissionMode::Matching)
        .emit_ignored(None)
        .emit_tracked(false)
        .emit_pruned(false)
        .emit_empty_directories(false)
        .recurse_repositories(false)
        .classify_untracked_bare_repositories(false)
        .symlinks_to_directories_are_ignored_like_directories(false)
        .empty_patterns_match_prefix(false);
    let interrupt = AtomicBool::new(false);
    repo.dirwalk(
        state,
        patterns.iter().map(|p| p.as_bstr()),
        &interrupt,
        options,
        collect,
    )
    .map_err(|err| walk_error(repo, collect.prefix_slash, err, display))?;
    Ok(())
}

/// A failed walk as a coded error: a directory that cannot be read is `unreadable`,
/// named relative to the listed directory as shown by `display` (git would only warn
/// and list less); anything else is `git`.
fn walk_error(
    repo: &gix::Repository,
    prefix_slash: &[u8],
    err: gix::Error,
    display: &str,
) -> Error {
    let Some(io) = err.downcast_any_ref::<std::io::Error>() else {
        return gix_error(display, "cannot walk the worktree", err);
    };
    let source = std::io::Error::new(io.kind(), io.to_string());
    let messages: Vec<String> = err.iter_errors().map(|c| c.to_string()).collect();
    // gix names the directory in its message only.
    let dir = messages.iter().find_map(|text| {
        let quoted = text.strip_prefix("Failed to read the directory at \"")?;
        Some(PathBuf::from(quoted.strip_suffix('"')?))
    });
    if let (Some(dir), Some(workdir)) = (dir, repo.workdir()) {
        return Error::Unreadable {
            path: shown_below(&dir, workdir, prefix_slash, display),
            operation: "read directory",
            source,
        };
    }
    // git would skip an unreadable ignore file with a warning, listing files it
    // excludes: refused. gix does not say which `.gitignore` failed; it is looked for.
    if messages
        .iter()
        .any(|m| m.starts_with("Failed to update the excludes stack"))
        && let Some(workdir) = repo.workdir()
        && let Some(gitignore) =
            find_unreadable_gitignore(&workdir.join(bytes_to_path(prefix_slash)))
    {
        return Error::Unreadable {
            path: shown_below(&gitignore, workdir, prefix_slash, display),
            operation: "read ignore rules from",
            source,
        };
    }
    // The excludes file was checked before: what fails is `info/exclude`.
    if messages
        .iter()
        .any(|m| m == "Could not read repository exclude")
    {
        let exclude = repo.common_dir().join("info").join("exclude");
        return Error::Unreadable {
            path: DisplayPath::from_bytes(exclude.as_os_str().as_encoded_bytes()),
            operation: "read ignore rules from",
            source,
        };
    }
    gix_error(display, "cannot walk the worktree", err)
}

/// The first `.gitignore` below `dir` (nested repositories and unreadable directories
/// aside) that cannot be opened. Only looked for once a walk has failed on one.
fn find_unreadable_gitignore(dir: &Path) -> Option<PathBuf> {
    let mut walker = walkdir::WalkDir::new(dir).follow_links(false).into_iter();
    while let Some(item) = walker.next() {
        // An unreadable directory is skipped, not the end of the search.
        let Ok(entry) = item else { continue };
        let kind = entry.file_type();
        if kind.is_dir()
            && entry.depth() > 0
            && std::fs::symlink_metadata(entry.path().join(".git")).is_ok()
        {
            walker.skip_current_dir();
        } else if kind.is_file()
            // Only a regular file is opened (never a FIFO, never through a link).
            && entry.file_name() == ".gitignore"
            && std::fs::File::open(entry.path()).is_err()
        {
            return Some(entry.into_path());
        }
    }
    None
}

/// Raw `/`-separated bytes as a path.
fn bytes_to_path(bytes: &[u8]) -> &Path {
    Path::new(<std::ffi::OsStr as OsStrBytes>::from_bytes(bytes))
}

/// `path` (in the worktree `workdir`) as shown relative to the listed directory, whose
/// worktree prefix is `prefix_slash` and which is shown as `display`; absolute when it
/// lies elsewhere.
fn shown_below(path: &Path, workdir: &Path, prefix_slash: &[u8], display: &str) -> DisplayPath {
    let relative = path
        .strip_prefix(workdir)
        .ok()
        .map(|rel| rel.as_os_str().as_encoded_bytes())
        .and_then(|rel| {
            let prefix = prefix_slash.strip_suffix(b"/").unwrap_or(prefix_slash);
            if rel == prefix {
                Some(&b""[..])
            } else {
                rel.strip_prefix(prefix_slash)
            }
        });
    match relative {
        Some([]) => DisplayPath::from(display),
        Some(rel) => in_display(display, rel),
        None => DisplayPath::from_bytes(path.as_os_str().as_encoded_bytes()),
    }
}

/// Collects what `git ls-files --others --exclude-standard` prints, relative to `dir`.
struct CollectUntracked<'a, 'r> {
    /// `prefix/` of `dir` in the worktree, or empty.
    prefix_slash: &'a [u8],
    /// Paths relative to `dir` whose directories are never opened.
    exclusions: &'a [Vec<u8>],
    /// Untracked candidates, in walk order.
    out: Vec<Candidate>,
    /// Told of each untracked file (not a nested repository) the moment the
    /// walk finds it, so that it can be read while the walk goes on.
    found: &'a mut dyn Found,
    /// Watches what the walk reads, for its memo.
    recorder: Option<Recorder<'r>>,
}

impl Delegate for CollectUntracked<'_, '_> {
    /// An excluded directory is not opened: exclusion pathspecs alone would still
    /// have gix read it (and fail on an unreadable one the scope does not concern).
    fn can_recurse(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        for_deletion: Option<gix::dir::walk::ForDeletionMode>,
        worktree_root_is_repository: bool,
    ) -> bool {
        let path: &[u8] = entry.rela_path.as_ref();
        let excluded = path.strip_prefix(self.prefix_slash).is_some_and(|rel| {
            self.exclusions.iter().any(|e| {
                rel == e.as_slice() || rel.starts_with(e) && rel.get(e.len()) == Some(&b'/')
            })
        });
        let recurse = !excluded
            && entry.status.can_recurse(
                entry.disk_kind,
                entry.pathspec_match,
                for_deletion,
                worktree_root_is_repository,
            );
        // Taken before the walk reads the directory (or decides it is a
        // repository): a later change shows in the next expansion's look.
        if let Some(recorder) = &mut self.recorder {
            match entry.disk_kind {
                _ if recurse => recorder.directory(path),
                _ if excluded => {}
                Some(DiskKind::Repository) => recorder.nested_repository(path),
                _ => {}
            }
        }
        recurse
    }

    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed_directory_status: Option<WalkStatus>,
    ) -> Action {
        if entry.status != WalkStatus::Untracked {
            return Action::Continue(());
        }
        let status = match entry.disk_kind {
            Some(DiskKind::File | DiskKind::Symlink) => Status::Untracked,
            Some(DiskKind::Repository) => Status::NestedRepository,
            // Directories are recursed (or empty, which git does not list); FIFOs,
            // sockets and devices are not listed by git either.
            Some(DiskKind::Directory | DiskKind::Untrackable) | None => {
                return Action::Continue(());
            }
        };
        let path: &BStr = entry.rela_path.as_ref();
        if let Some(rel) = path.strip_prefix(self.prefix_slash)
            && !rel.is_empty()
        {
            if status == Status::Untracked {
                self.found.untracked(rel);
            }
            self.out.push(Candidate {
                path: rel.to_vec(),
                status,
            });
        }
        Action::Continue(())
    }
}

#[cfg(test)]
mod tests;
