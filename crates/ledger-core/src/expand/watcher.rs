//! The opt-in watcher (docs/performance.md, The watcher): with it on, an
//! expansion asks Watchman — the file-watching service git's fsmonitor hook
//! uses — what changed in a worktree since the clock kept in its walk memo,
//! instead of looking at every directory the remembered walk read.
//!
//! What it vouches for, and what it never does. A walk memo stands when no
//! entry was added to, removed from or renamed in a directory the walk read,
//! and no ignore rule changed (see `walk_memo`). Watchman reports every such
//! change through inotify, which sees every change of a directory's entries;
//! so when every change it reports since the memo's clock is the rewrite of a
//! file the walk already knew (an untracked file it found, or a tracked one)
//! in a directory it read, or lies in a directory the walk never read, the
//! walk's result stands without a `stat` of its directories. A file's bytes
//! are never answered here: a write through a shared mapping moves the file's
//! times but gives inotify nothing to report, so every listed file is still
//! looked at and answered by the digest cache's rule (SPEC §16).
//!
//! Whenever anything is off — Watchman absent, slow (every request has a
//! deadline), restarted (a fresh instance), a warning (a recrawl after its
//! queue overflowed), a clock it does not know, a change it cannot vouch
//! for — the directories are looked at as without the watcher. The watcher
//! never fails an expansion and never changes an answer.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use super::switch::Switch;
use super::watchman::{ChangeKind, Watch, Watchman};

/// The environment variable that turns the watcher on when set to anything
/// but empty or `0` (unless [`set_watchman`] was called).
pub const WATCHMAN_ENV: &str = "LEDGER_WATCHMAN";

/// What [`set_watchman`] chose, else [`WATCHMAN_ENV`]: off unless it is set.
static SWITCH: Switch = Switch::new(WATCHMAN_ENV, true);

/// How long Watchman may take to answer a request before the expansion goes
/// on without it.
const DEADLINE: Duration = Duration::from_secs(2);

/// Turns the watcher on or off for every later expansion in this process (the
/// CLI's `--watchman`). Without a call, [`WATCHMAN_ENV`] decides; it is off by
/// default. It never changes an answer, and it is used only with the digest
/// cache, whose store keeps the walk memos it vouches for.
///
/// ```
/// ledger_core::expand::set_watchman(true);
/// assert!(ledger_core::expand::watchman_enabled());
/// ledger_core::expand::set_watchman(false);
/// ```
pub fn set_watchman(enabled: bool) {
    SWITCH.set(enabled);
}

/// Whether expansions ask Watchman now.
pub fn watchman_enabled() -> bool {
    SWITCH.on()
}

/// A worktree as Watchman watches it, for one expansion.
pub(crate) struct Watcher {
    client: Watchman,
    watch: Watch,
}

impl Watcher {
    /// Watchman's watch of the worktree `workdir`, when the watcher is on and
    /// Watchman answers; its names are then relative to `workdir`.
    pub(crate) fn open(workdir: &Path) -> Option<Watcher> {
        if !watchman_enabled() {
            return None;
        }
        let mut client = Watchman::connect(DEADLINE).ok()?;
        let watch = client.watch_project(workdir).ok()?;
        Some(Watcher { client, watch })
    }

    /// Watchman's clock now, after it has seen every change made before the
    /// call: taken before a walk, so that whatever changes during the walk is
    /// reported against it next time.
    pub(crate) fn clock(&mut self) -> Option<String> {
        self.client.clock(&self.watch).ok()
    }

    /// Whether nothing the walk remembered in `walk` depends on changed since
    /// `clock`: `Some` when it did not, with Watchman's clock now when anything
    /// at all changed since (the clock to keep, so that the same changes are
    /// not reported again), `None` inside when nothing did (the old clock
    /// serves; keeping a new one would rewrite the memo on every run).
    pub(crate) fn vouches(&mut self, clock: &str, walk: &Remembered<'_>) -> Option<Option<String>> {
        let since = self.client.since(&self.watch, clock).ok()?;
        if since.fresh_instance {
            return None;
        }
        let harmless = since.changes.iter().all(|change| {
            let name = change.name.as_slice();
            let (parent, file_name) = match name.iter().rposition(|b| *b == b'/') {
                Some(at) => (&name[..at], &name[at + 1..]),
                None => (&name[..0], name),
            };
            // The repository's own files (`git status` writes its index
            // lock there) and the scope's exclusions are no part of the walk;
            // what the index and configuration say is checked by the memo's key.
            if (walk.excluded)(name) {
                return true;
            }
            if !walk.read_dirs.contains(parent) {
                // In no directory the walk read: an ignored directory's
                // content is not listed.
                return true;
            }
            if walk.ignored_dirs.contains(name) {
                // An ignored directory whose entries changed, still one.
                return change.exists && change.kind == ChangeKind::Directory;
            }
            change.exists
                && change.kind == ChangeKind::File
                && file_name != b".gitignore"
                && (walk.known)(name)
        });
        let newer = (!since.changes.is_empty()).then_some(since.clock);
        harmless.then_some(newer)
    }
}

/// What a remembered walk read and found, as the watcher judges changes.
pub(crate) struct Remembered<'w> {
    /// Every directory the walk read or found a nested repository in,
    /// relative to the worktree.
    pub read_dirs: HashSet<&'w [u8]>,
    /// Every ignored directory the walk met in them and did not read.
    pub ignored_dirs: HashSet<&'w [u8]>,
    /// Whether a path (relative to the worktree) is a file the walk knew: an
    /// untracked one it found, or one the index tracks.
    pub known: &'w dyn Fn(&[u8]) -> bool,
    /// Whether a path lies where the walk never looks: the repository's own
    /// `.git`, or an exclusion of the scope.
    pub excluded: &'w dyn Fn(&[u8]) -> bool,
}
