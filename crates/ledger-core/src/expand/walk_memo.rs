//! The walk memo: what the last walk of a worktree for untracked files found,
//! kept beside the digest cache, so that an expansion of a tree whose
//! directories did not change `stat`s each directory the walk read instead of
//! reading it and classifying its names again — git's untracked cache
//! (`core.untrackedCache`), kept by ledger in its own store
//! (docs/performance.md, The walk memo).
//!
//! Why a replayed walk is exact. A walk's result is decided by the entries of
//! the directories it read, the ignore rules (the `.gitignore` files of those
//! directories and their ancestors, `info/exclude`, the excludes file and the
//! configuration), the index, and what was asked (the worktree, the listed
//! directory, the exclusions). The memo keeps:
//!
//! * a key over what was asked, the configuration as read, and the status of
//!   the index, `info/exclude` and the excludes file, taken before they were
//!   read;
//! * the status of every directory the walk read, of every `.gitignore` in
//!   them and of every nested repository it met, each taken before the walk
//!   read it;
//! * the status of what decides whether a directory is a nested repository
//!   (below): its `.git`, and in a `.git` directory the `HEAD`, `objects`,
//!   `refs` and `commondir` that gix looks at;
//! * what the walk found.
//!
//! Adding, removing or renaming an entry of a directory moves the directory's
//! modification and change times, and a change time cannot be set back by an
//! unprivileged program; a file's content moves its own. So when every status
//! is the one kept, and each was taken long enough before the walk that wrote
//! the memo (the digest cache's racily-clean rule), nothing that decides the
//! result changed, and the result is the one kept. Anything else — a status
//! that differs, a directory on another device, a `.gitignore` that is not a
//! regular file, a memo written by a clock later than this expansion's — and
//! the worktree is walked again. File contents are never answered here: every
//! listed file is still looked at and answered by the digest cache's rule.
//!
//! Whether a directory is a nested repository is decided by more than its
//! entries: gix reads its `.git` (a file naming a gitdir anywhere, or a
//! directory whose `HEAD` it parses and whose `objects` and `refs` it
//! follows), and rewriting a file in place moves no directory's times. So
//! below the worktree, a `.git` that is a directory is watched with the
//! `HEAD`, `objects`, `refs` and `commondir` in it (a new entry there moves
//! `.git`'s own times, a rewritten `HEAD` its own); any other `.git` — a file
//! naming a gitdir elsewhere, a symlink — or a `HEAD`, `objects` or `refs`
//! that is a symlink, or a `commondir` (which names another directory) is
//! not vouched for, and that walk is not remembered.
//!
//! The file lives in the store (`<store>/walk-memo`) under the digest cache's
//! trust boundary and is used only when the cache is on and trusted. Layout,
//! little-endian: the magic `LDGWMv1\n`; the memo count; each memo: its
//! location (32 bytes), key (32), reference time (i128, ns since the epoch), the watched
//! statuses (count; each a kind byte, a length-prefixed path and a
//! 16-byte status identity), the found paths (count; each a byte, 1 for a
//! nested repository, and a length-prefixed path); then the SHA-256 of
//! everything before. A file that does not check out is discarded, never an
//! error; writing it never fails an expansion.

use std::path::Path;
use std::sync::{Mutex, PoisonError};

use sha2::{Digest as _, Sha256};

use super::ledger_dir::{StoreDir, TempFile};

/// The memo's file in the store.
pub(crate) const WALK_MEMO: &str = "walk-memo";

use crate::platform::{self, FileType, Handle, Stat};

const MAGIC: &[u8; 8] = b"LDGWMv2\n";

/// The largest memo file read: a worktree of millions of untracked files.
const LIMIT: u64 = 256 << 20;

/// How many locations (worktree, listed directory, exclusions) the file keeps:
/// a scope of several repositories keeps one memo for each.
const LOCATIONS: usize = 8;

/// What a walk was asked: the worktree, the listed directory and the
/// exclusions. One memo per location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Location(pub [u8; 32]);

/// Everything besides the directories' entries that decides a walk's result
/// (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WalkKey(pub [u8; 32]);

/// A hash of length-prefixed parts: what [`Location`] and [`WalkKey`] are made of.
pub(crate) fn digest_of(domain: &str, parts: &[&[u8]]) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(domain.as_bytes());
    hash.update([0]);
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash.finalize().into()
}

/// The identity of a status: device, inode, size, mode, modification and
/// change time (16 bytes of their SHA-256); all of it, so that any change of
/// any of them shows.
pub(crate) fn status_id(stat: &Stat) -> [u8; 16] {
    let mut hash = Sha256::new();
    hash.update(stat.st_dev.to_le_bytes());
    hash.update(stat.st_ino.to_le_bytes());
    hash.update(stat.st_size.to_le_bytes());
    hash.update(stat.st_mode.to_le_bytes());
    hash.update(stat.st_mtime.to_le_bytes());
    hash.update(stat.st_mtime_nsec.to_le_bytes());
    hash.update(stat.st_ctime.to_le_bytes());
    hash.update(stat.st_ctime_nsec.to_le_bytes());
    let mut id = [0u8; 16];
    id.copy_from_slice(&hash.finalize()[..16]);
    id
}

/// How a watched path is looked at again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// `lstat` relative to the worktree.
    InWorktree = 0,
    /// `lstat` of an absolute path.
    Absolute = 1,
    /// `stat` of an absolute path, following a symlink (as the file is read).
    AbsoluteFollowed = 2,
}

impl Look {
    fn of(byte: u8) -> Option<Look> {
        match byte {
            0 => Some(Look::InWorktree),
            1 => Some(Look::Absolute),
            2 => Some(Look::AbsoluteFollowed),
            _ => None,
        }
    }

    /// The status of `path`, `None` when it does not exist or cannot be looked at.
    fn stat(self, worktree: &Handle, path: &[u8]) -> Option<Stat> {
        let path = platform::path_from_bytes(path);
        match self {
            // The worktree itself is `.`: `statat` refuses an empty name.
            Look::InWorktree if path.as_os_str().is_empty() => platform::fstat(worktree).ok(),
            Look::InWorktree => platform::stat_at(worktree, path).ok(),
            Look::Absolute => platform::lstat(path).ok(),
            Look::AbsoluteFollowed => platform::stat(path).ok(),
        }
    }
}

/// A status the memo depends on: a path and the identity of its status, or
/// of its absence (all zero).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Watched {
    look: Look,
    path: Vec<u8>,
    id: [u8; 16],
}

/// What a walk found: an untracked file, or a nested repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Relative to the listed directory, as the listing gives it.
    pub path: Vec<u8>,
    /// An untracked directory holding a repository of its own.
    pub nested_repository: bool,
}

/// One walk, remembered.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Memo {
    location: Location,
    key: WalkKey,
    reference: i128,
    watched: Vec<Watched>,
    found: Vec<Found>,
}

/// The memos of a store during one expansion: those read, and the walks
/// recorded meanwhile, written when the expansion is done.
#[derive(Debug, Default)]
pub(crate) struct WalkMemos {
    stored: Vec<Memo>,
    fresh: Mutex<Vec<Memo>>,
}

impl WalkMemos {
    /// The memos of the store `root`; none when there is no file or it does not
    /// check out.
    pub(crate) fn read(root: &StoreDir) -> WalkMemos {
        let stored = match root.read(WALK_MEMO, "walk memo", LIMIT) {
            Ok(Some(bytes)) => decode(&bytes).unwrap_or_default(),
            _ => Vec::new(),
        };
        WalkMemos {
            stored,
            fresh: Mutex::default(),
        }
    }

    /// The memo of the walk at `location`, when it was written under `key`
    /// at a reference time not later than `started` (this expansion's): a
    /// clock set back since could have given a later change the times kept.
    pub(crate) fn stored(
        &self,
        location: Location,
        key: WalkKey,
        started: i128,
    ) -> Option<Stored<'_>> {
        self.stored
            .iter()
            .find(|memo| memo.location == location)
            .filter(|memo| memo.key == key && memo.reference <= started)
            .map(Stored)
    }

    /// Keeps the walk `recorder` watched, which found `found`, for the next
    /// expansion; nothing when it saw anything it cannot vouch for.
    pub(crate) fn keep(&self, recorder: Recorder<'_>, key: WalkKey, found: Vec<Found>) {
        let Some(watched) = recorder.into_watched() else {
            return;
        };
        self.fresh
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Memo {
                location: watched.location,
                key,
                reference: watched.reference,
                watched: watched.items,
                found,
            });
    }

    /// Writes the memos kept during this expansion, with the stored ones of
    /// other locations (the newest first, up to [`LOCATIONS`]), through `tmp`
    /// into `root`. Best effort: a failure leaves the old file, and the next
    /// expansion walks.
    pub(crate) fn save(self, root: &StoreDir, tmp: &StoreDir) {
        let mut memos = self
            .fresh
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        if memos.is_empty() {
            return;
        }
        for old in self.stored {
            if !memos.iter().any(|memo| memo.location == old.location) {
                memos.push(old);
            }
        }
        memos.truncate(LOCATIONS);
        let Ok(mut temp) = TempFile::create(tmp, "walk memo") else {
            return;
        };
        if temp.write_unsynced(&encode(&memos)).is_ok() {
            let _ = temp.rename_to(root, WALK_MEMO);
        }
    }
}

/// A memo that matches what an expansion asks (see [`WalkMemos::stored`]).
#[derive(Clone, Copy)]
pub(crate) struct Stored<'m>(&'m Memo);

impl<'m> Stored<'m> {
    /// What the remembered walk found.
    pub(crate) fn found(self) -> &'m [Found] {
        &self.0.found
    }

    /// Whether every status the memo watched is still the one it kept, in the
    /// worktree opened as `worktree`.
    pub(crate) fn unchanged(self, worktree: &Handle) -> bool {
        self.0.watched.iter().all(|watched| {
            let now = watched.look.stat(worktree, &watched.path);
            now.as_ref().map_or([0; 16], status_id) == watched.id
        })
    }
}

/// The statuses a walk depends on, taken as it goes: each before what it
/// stands for is read.
pub(crate) struct Recorder<'a> {
    worktree: &'a Handle,
    location: Location,
    /// The device of the worktree: a directory elsewhere (a mount point inside
    /// it) is on a file system whose times the memo does not vouch for.
    device: u64,
    /// Whether a status was taken long enough before the expansion started
    /// (the digest cache's racily-clean rule).
    settled: &'a dyn Fn(&Stat) -> bool,
    reference: i128,
    items: Vec<Watched>,
    /// Something was met that the memo cannot vouch for: nothing is kept.
    spoiled: bool,
}

/// What a [`Recorder`] took, once it vouches for all of it.
struct Recorded {
    location: Location,
    reference: i128,
    items: Vec<Watched>,
}

impl<'a> Recorder<'a> {
    /// A recorder for the walk at `location` of the worktree opened as
    /// `worktree`, by an expansion that started at `reference` and whose
    /// statuses are `settled` when they may be recorded. `None` when the
    /// worktree is on a file system whose directory times are not known to
    /// move with every change of their entries.
    pub(crate) fn new(
        worktree: &'a Handle,
        location: Location,
        reference: i128,
        settled: &'a dyn Fn(&Stat) -> bool,
    ) -> Option<Recorder<'a>> {
        let stat = platform::fstat(worktree).ok()?;
        // Where the platform cannot prove it, no file system qualifies: the
        // untracked files are walked every time, never remembered.
        platform::fs_kind(worktree)
            .directory_times_move()
            .then_some(Recorder {
                worktree,
                location,
                device: stat.st_dev,
                settled,
                reference,
                items: Vec::new(),
                spoiled: false,
            })
    }

    /// Watches the directory `dir` (relative to the worktree, `/`-separated,
    /// empty for the worktree) that the walk is about to read, and its
    /// `.gitignore` when it has one, which must be a regular file.
    pub(crate) fn directory(&mut self, dir: &[u8]) {
        if self.watch(Look::InWorktree, dir, true) != Some(FileType::Directory) {
            self.spoiled = true;
            return;
        }
        // The worktree's own `.git` is the repository the walk lists.
        if !dir.is_empty() {
            self.dot_git(dir);
        }
        let gitignore = joined(dir, b".gitignore");
        match self.watch(Look::InWorktree, &gitignore, false) {
            // Its coming into being moves the directory's times.
            None => {
                self.items.pop();
            }
            Some(FileType::RegularFile) => {}
            // git reads no `.gitignore` through a symlink; whatever gix does,
            // the memo does not vouch for it.
            Some(_) => self.spoiled = true,
        }
    }

    /// Watches the nested repository `dir` the walk found and did not enter:
    /// the directory and what makes it one.
    pub(crate) fn nested_repository(&mut self, dir: &[u8]) {
        self.watch(Look::InWorktree, dir, true);
        self.dot_git(dir);
    }

    /// Watches what decides whether `dir` is a nested repository (the module
    /// documentation): its `.git`, absent or a directory, and in a directory
    /// the `HEAD`, `objects` and `refs` gix checks and the `commondir` it
    /// would follow. Anything whose meaning lies beyond a status — a `.git`
    /// file or symlink naming a gitdir elsewhere, a symlink inside, a
    /// `commondir` — spoils the memo.
    fn dot_git(&mut self, dir: &[u8]) {
        let dot_git = joined(dir, b".git");
        match self.watch(Look::InWorktree, &dot_git, false) {
            // Its coming into being moves the directory's times.
            None => {
                self.items.pop();
                return;
            }
            Some(FileType::Directory) => {}
            Some(_) => {
                self.spoiled = true;
                return;
            }
        }
        for name in [&b"HEAD"[..], b"objects", b"refs", b"commondir"] {
            match self.watch(Look::InWorktree, &joined(&dot_git, name), false) {
                // Its coming into being moves `.git`'s times.
                None => {
                    self.items.pop();
                }
                Some(FileType::Symlink) => self.spoiled = true,
                Some(_) if name == b"commondir" => self.spoiled = true,
                Some(_) => {}
            }
        }
    }

    /// Watches a file outside the worktree that the walk reads (the excludes
    /// file, `info/exclude`): as a link and as what it names.
    pub(crate) fn file(&mut self, path: &Path) {
        let bytes = path.as_os_str().as_encoded_bytes();
        self.watch(Look::Absolute, bytes, false);
        self.watch(Look::AbsoluteFollowed, bytes, false);
    }

    /// Takes the status of `path` and keeps it (absent: all zero); `None` when
    /// it does not exist. `on_device`: it must lie on the worktree's device.
    fn watch(&mut self, look: Look, path: &[u8], on_device: bool) -> Option<FileType> {
        let stat = look.stat(self.worktree, path);
        let id = stat.as_ref().map_or([0; 16], status_id);
        self.items.push(Watched {
            look,
            path: path.to_vec(),
            id,
        });
        let stat = stat?;
        if !(self.settled)(&stat) || on_device && stat.st_dev != self.device {
            self.spoiled = true;
        }
        Some(stat.file_type())
    }

    fn into_watched(self) -> Option<Recorded> {
        (!self.spoiled).then_some(Recorded {
            location: self.location,
            reference: self.reference,
            items: self.items,
        })
    }
}

/// `dir/name`, or `name` for the worktree.
fn joined(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = dir.to_vec();
    if !path.is_empty() {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

/// Opens the worktree `dir` for [`Recorder`] and [`WalkMemos::recall`]:
/// every watched path is looked at relative to it.
pub(crate) fn open_worktree(dir: &Path) -> Option<Handle> {
    platform::open_for_looking(dir).ok()
}

fn encode(memos: &[Memo]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    put_len(&mut out, memos.len());
    for memo in memos {
        out.extend_from_slice(&memo.location.0);
        out.extend_from_slice(&memo.key.0);
        out.extend_from_slice(&memo.reference.to_le_bytes());
        put_len(&mut out, memo.watched.len());
        for watched in &memo.watched {
            out.push(watched.look as u8);
            put_bytes(&mut out, &watched.path);
            out.extend_from_slice(&watched.id);
        }
        put_len(&mut out, memo.found.len());
        for found in &memo.found {
            out.push(u8::from(found.nested_repository));
            put_bytes(&mut out, &found.path);
        }
    }
    let checksum: [u8; 32] = Sha256::digest(&out).into();
    out.extend_from_slice(&checksum);
    out
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u64).to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// The memos of a file's `bytes`; `None` unless it checks out whole.
fn decode(bytes: &[u8]) -> Option<Vec<Memo>> {
    let body_len = bytes.len().checked_sub(32)?;
    let (body, checksum) = bytes.split_at(body_len);
    if Sha256::digest(body).as_slice() != checksum {
        return None;
    }
    let mut input = Input(body.strip_prefix(MAGIC.as_slice())?);
    let count = input.len()?;
    let mut memos = Vec::new();
    for _ in 0..count {
        memos.push(input.memo()?);
    }
    input.0.is_empty().then_some(memos)
}

/// The unread rest of a memo file.
struct Input<'b>(&'b [u8]);

impl<'b> Input<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (taken, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(taken)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    /// A count or length: never more than the bytes left could hold, so that a
    /// forged one allocates nothing.
    fn len(&mut self) -> Option<usize> {
        let len = usize::try_from(u64::from_le_bytes(self.array()?)).ok()?;
        (len <= self.0.len()).then_some(len)
    }

    fn bytes(&mut self) -> Option<Vec<u8>> {
        let len = self.len()?;
        Some(self.take(len)?.to_vec())
    }

    fn memo(&mut self) -> Option<Memo> {
        let location = Location(self.array()?);
        let key = WalkKey(self.array()?);
        let reference = i128::from_le_bytes(self.array()?);
        let mut watched = Vec::new();
        for _ in 0..self.len()? {
            let look = Look::of(self.array::<1>()?[0])?;
            let path = self.bytes()?;
            let id = self.array()?;
            watched.push(Watched { look, path, id });
        }
        let mut found = Vec::new();
        for _ in 0..self.len()? {
            let nested_repository = match self.array::<1>()?[0] {
                0 => false,
                1 => true,
                _ => return None,
            };
            let path = self.bytes()?;
            found.push(Found {
                path,
                nested_repository,
            });
        }
        Some(Memo {
            location,
            key,
            reference,
            watched,
            found,
        })
    }
}

/// The body of the `walk_memo` fuzz target (`crate::fuzzing::walk_memo`): a
/// memo file of any bytes decodes without a panic, and one that decodes
/// encodes back to exactly its bytes.
#[cfg(feature = "fuzzing")]
pub(crate) fn fuzz_walk_memo(bytes: &[u8]) {
    if let Some(memos) = decode(bytes) {
        assert_eq!(encode(&memos), bytes);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn memo(location: u8, found: &[&str]) -> Memo {
        Memo {
            location: Location([location; 32]),
            key: WalkKey([7; 32]),
            reference: 1_700_000_000_000_000_000,
            watched: vec![Watched {
                look: Look::InWorktree,
                path: b"src".to_vec(),
                id: [3; 16],
            }],
            found: found
                .iter()
                .map(|path| Found {
                    path: path.as_bytes().to_vec(),
                    nested_repository: path.ends_with("repo"),
                })
                .collect(),
        }
    }

    #[test]
    fn a_file_round_trips_and_any_damage_discards_it() {
        let memos = vec![memo(1, &["a", "nested/repo"]), memo(2, &[])];
        let bytes = encode(&memos);
        assert_eq!(decode(&bytes), Some(memos));
        for at in [0, 8, 40, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert_eq!(decode(&damaged), None, "byte {at} flipped");
        }
        assert_eq!(decode(&bytes[..bytes.len() - 1]), None);
        assert_eq!(decode(b""), None);
    }

    #[test]
    fn a_forged_count_allocates_nothing() {
        let mut body = MAGIC.to_vec();
        body.extend_from_slice(&u64::MAX.to_le_bytes());
        let checksum: [u8; 32] = Sha256::digest(&body).into();
        body.extend_from_slice(&checksum);
        assert_eq!(decode(&body), None);
    }

    #[test]
    fn a_status_identity_covers_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let stat = platform::stat(dir.path()).unwrap();
        let base = status_id(&stat);
        let changes: [fn(&mut Stat); 6] = [
            |s| s.st_dev += 1,
            |s| s.st_ino += 1,
            |s| s.st_size += 1,
            |s| s.st_mode ^= 1,
            |s| s.st_mtime_nsec ^= 1,
            |s| s.st_ctime += 1,
        ];
        for change in changes {
            let mut changed = stat;
            change(&mut changed);
            assert_ne!(status_id(&changed), base);
        }
    }
}
