//! The digest cache (docs/performance.md, The digest cache): the digest of each
//! file an expansion read, under the file's path and status, so that the next
//! expansion answers an unchanged file with one `stat` instead of reading it.
//!
//! The cache is an optimization only: an expansion gives the same answer with it
//! and without it. A file is answered from the cache only when its path, device,
//! inode, size, mode, modification time and change time are all exactly those it
//! had when it was read, and an entry is recorded only for a file whose times lie
//! more than the file system's timestamp granularity ([`GRANULARITY_NS`], or
//! [`FINE_GRANULARITY_NS`] on the store's file system when it keeps fractions of a
//! second) before the expansion started — git's "racily
//! clean" rule: a file changed again within the same timestamp tick as the read
//! would keep its times, so a file changed that recently is read again next time
//! instead. The change time cannot be set by any unprivileged program, so a
//! rewrite that restores the modification time (`touch -r`) still shows.
//!
//! A write through a shared `mmap` moves the times only on a write fault, and a
//! page that is dirty and writable takes any number of writes without one. So a
//! digest is recorded only for a file on a file system whose writeback
//! write-protects the mapped pages it cleans ([`Writeback`]: ext2/3/4, XFS,
//! Btrfs), and only after [`platform::force_writeback`] has written back every page of it
//! that was dirty when the read began: from then on, any write to the file
//! faults and moves its times first. Files on other file systems (tmpfs, whose
//! mapped pages stay writable for as long as they are mapped; overlayfs and
//! network or FUSE file systems, whose pages ledger cannot reach or whose times
//! another machine sets) are read every time. A cache written when the clock
//! read later than now is not trusted (the clock was set back). The argument
//! in full: docs/performance.md, The cache's safety rule.
//!
//! The file lives in the store (`<store>/digest-cache`) and obeys its trust
//! boundary: it is used only in a store that exists, that this user owns and
//! that Git does not track; it is opened `openat`-style without following
//! symlinks, read with a bound, written to `tmp/` and renamed into place (or
//! appended to, see below). A cache that does not check out (wrong magic, size
//! or checksum, unsorted keys) is discarded, never an error, and writing it
//! never fails an expansion.
//!
//! Layout, little-endian: the magic `LDGDCv3\n`; the reference time (ns since
//! the epoch) of the expansion that wrote it; the entry count; the entries, each
//! a 24-byte key (8 bytes of the SHA-256 of the path, then 16 of the SHA-256 of
//! the path and status: see [`key`]), the 32-byte digest and an age byte,
//! strictly ascending by key; the SHA-256 of everything before. Then zero or
//! more appended batches (see [`Journal`]), each the magic
//! `LDGDCb3\n`, the reference time of the expansion that appended it, the entry
//! count, the entries (key and digest) and the SHA-256 of the batch before it.
//! A few new digests are appended as a batch; the file is rewritten whole, the
//! batches merged in, once they hold more than one entry per
//! [`APPEND_RATIO`] sorted ones — so that a write costs what was read anew, not
//! the size of the tree. A whole write keeps one version of a path that has a
//! current one (see [`Merge`]). A cache of another version (`LDGDCv1`, or
//! `LDGDCv2`, written before entries required a forced writeback) does not
//! check out: it is discarded and replaced.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::call::kept_for_the_call;
use super::ledger_dir::{Kind, Missing, StoreDir, TMP, TempFile, expect};
use super::walk_memo::WalkMemos;
use crate::error::Error;
use crate::error::Result;
use crate::expand::entry::Digest;
use crate::path::WorkspacePath;
use crate::platform::{self, FileType, FsKind, Stat};

/// The cache's file in the store.
pub(crate) const CACHE: &str = "digest-cache";

const MAGIC: &[u8; 8] = b"LDGDCv3\n";
const HEADER: usize = MAGIC.len() + 8 + 8;
/// A key: 8 bytes of a hash of the path, so that a path's versions sort
/// together, then 16 of a hash of the path and the status (see [`key`]).
const KEY: usize = PATH_PART + 16;
/// The part of a key that hashes the path alone.
const PATH_PART: usize = 8;
const ENTRY: usize = KEY + 32 + 1;
const TRAILER: usize = 32;
const BATCH_MAGIC: &[u8; 8] = b"LDGDCb3\n";
/// A batch's header has the sorted part's layout (magic, reference, count).
const BATCH_HEADER: usize = HEADER;
const BATCH_ENTRY: usize = KEY + 32;

/// New digests are appended as a batch while the batches hold at most one entry
/// per this many sorted entries; past that, the file is rewritten whole.
const APPEND_RATIO: usize = 8;

/// The largest cache ledger reads (about 21 million files).
const CACHE_LIMIT: u64 = 1 << 30;

/// How long before the expansion started a file must have last changed for its
/// digest to be recorded: coarser than every file system's timestamps (FAT keeps
/// two seconds, ext3 one) and than the lag of the kernel's coarse clock.
pub(crate) const GRANULARITY_NS: i128 = 2_000_000_000;

/// The same for a file on the store's own file system when that file system
/// keeps fractions of a second (see [`DigestCache::granularity`]): ext4, XFS,
/// Btrfs and tmpfs keep nanoseconds, set from the kernel's coarse clock (one
/// tick, 1–10 ms, behind); exFAT, the coarsest that keeps fractions, 10 ms.
pub(crate) const FINE_GRANULARITY_NS: i128 = 100_000_000;

/// An entry that no expansion confirmed in this many writes of the cache in a
/// row is dropped: the cache holds what recent expansions read, not every
/// version of every file ever seen.
const MAX_AGE: u8 = 8;

type Key = [u8; KEY];

/// What `store check` reports of the cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CacheReport {
    /// The size of the cache file in bytes.
    pub bytes: u64,
    /// How many file digests it holds (0 when it is not intact).
    pub entries: u64,
    /// Whether it checks out; one that does not is discarded by the next
    /// expansion (it is never an error).
    pub intact: bool,
}

/// The opened store directories the cache is read from and written to.
pub(crate) struct CacheDir {
    root: StoreDir,
    /// `None` when `tmp/` cannot be made (a read-only store): the cache is then
    /// only read.
    tmp: Option<StoreDir>,
}

/// A cache file as read and checked, before anything about the store is trusted
/// or written: reading it costs milliseconds for a large tree, so an expansion
/// reads it while it opens the index that tells whether the store is trusted.
pub(crate) struct CacheFile {
    root: StoreDir,
    entries: Entries,
    /// The file's status before it was read, when it was read now (not
    /// kept from earlier in the call).
    stat: Option<Stat>,
}

/// The entries of a cache file that checked out.
pub(crate) struct Entries {
    /// The file's bytes (empty when there was none or it did not check out).
    old: Vec<u8>,
    /// How many sorted entries it starts with.
    count: usize,
    reference: i128,
    buckets: Buckets,
    journal: Journal,
    /// The store's walk memos, read with the cache and kept under its rules.
    walks: WalkMemos,
}

/// The digests of a cache file as read and checked: what [`Entries`] holds
/// besides the walk memos (their own file), kept for the rest of a call.
#[derive(Clone)]
struct Digests {
    old: Vec<u8>,
    count: usize,
    reference: i128,
    buckets: Buckets,
    journal: Journal,
}

impl Digests {
    /// The digests of the cache file in `root`; none when there is no file or
    /// its sorted entries do not check out.
    fn read(root: &StoreDir) -> Digests {
        let bytes = match root.read(CACHE, "digest cache", CACHE_LIMIT) {
            Ok(Some(bytes)) => bytes,
            _ => Vec::new(),
        };
        let (old, count, reference, journal) = match parse(&bytes) {
            Some((count, reference)) => {
                let journal = Journal::parse(&bytes[sorted_len(count)..]);
                (bytes, count, reference, journal)
            }
            None => (Vec::new(), 0, i128::MIN, Journal::default()),
        };
        let buckets = Buckets::new(&old, count);
        Digests {
            old,
            count,
            reference,
            buckets,
            journal,
        }
    }
}

/// The digests read within one call ([`opened_once`](super::opened_once)),
/// under the status the cache file had before they were read and still had
/// after: a call that expands many scopes (`check` of many changes) reads
/// and checks a cache file of a large tree (megabytes, its checksum a
/// SHA-256 of all of it) once, not once per scope. A file that changed
/// since (another expansion saved it, or another process did) has another
/// status (an append moves its size, a rewrite replaces its inode) and is
/// read again.
#[derive(Default)]
struct ReadInThisCall(Option<(Stat, Digests)>);

impl Entries {
    /// The entries of the cache file in `root` (the digests `kept`, when a
    /// read of the same file within this call gave them).
    fn read(root: &StoreDir, kept: Option<Digests>) -> Entries {
        let digests = kept.unwrap_or_else(|| Digests::read(root));
        Entries {
            walks: WalkMemos::read(root),
            old: digests.old,
            count: digests.count,
            reference: digests.reference,
            buckets: digests.buckets,
            journal: digests.journal,
        }
    }

    fn digests(&self) -> Digests {
        Digests {
            old: self.old.clone(),
            count: self.count,
            reference: self.reference,
            buckets: self.buckets.clone(),
            journal: self.journal.clone(),
        }
    }
}

/// The digests appended to the cache file after its sorted entries, each with
/// the reference time of its batch. A batch is appended in one `O_APPEND`
/// write; one that does not check out (torn by a crash or a full disk, or
/// being appended while the file is read) ends the journal: it and what
/// follows are ignored, and the next write rewrites the file whole.
#[derive(Default, Clone)]
struct Journal {
    /// Key, digest and the reference time of its batch.
    entries: Vec<(Key, Digest, i128)>,
    /// Where each key's latest entry is.
    index: HashMap<Key, usize>,
    /// Whether bytes that are not an intact batch follow the last intact one.
    torn: bool,
}

impl Journal {
    /// The batches at the start of `bytes`, up to the first that does not check out.
    fn parse(mut bytes: &[u8]) -> Journal {
        let mut journal = Journal::default();
        while !bytes.is_empty() {
            let Some((reference, entries, len)) = parse_batch(bytes) else {
                journal.torn = true;
                break;
            };
            for entry in entries.chunks_exact(BATCH_ENTRY) {
                let (mut key, mut digest) = ([0u8; KEY], [0u8; 32]);
                key.copy_from_slice(&entry[..KEY]);
                digest.copy_from_slice(&entry[KEY..]);
                journal.index.insert(key, journal.entries.len());
                journal.entries.push((key, Digest(digest), reference));
            }
            bytes = &bytes[len..];
        }
        journal
    }

    /// The index of `key`'s latest entry.
    fn find(&self, key: &Key) -> Option<usize> {
        self.index.get(key).copied()
    }
}

/// The reference time and entries of the batch `bytes` starts with, and its
/// length; `None` when it does not check out.
fn parse_batch(bytes: &[u8]) -> Option<(i128, &[u8], usize)> {
    let (reference, _, entries, len) = checked_section(bytes, BATCH_MAGIC, BATCH_ENTRY)?;
    Some((reference, entries, len))
}

/// The section `bytes` starts with, when it checks out: `magic`, a reference
/// time, an entry count, that many entries of `entry` bytes, and the SHA-256 of
/// all before it — the layout of the sorted part and of a batch alike. Gives
/// the reference time, the count, the entries and the section's length.
fn checked_section<'b>(
    bytes: &'b [u8],
    magic: &[u8; 8],
    entry: usize,
) -> Option<(i128, usize, &'b [u8], usize)> {
    if bytes.get(..magic.len())? != magic {
        return None;
    }
    let reference = i64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
    let count = usize::try_from(u64::from_le_bytes(bytes.get(16..24)?.try_into().ok()?)).ok()?;
    let body = count.checked_mul(entry)?.checked_add(HEADER)?;
    let section = bytes.get(..body.checked_add(TRAILER)?)?;
    let hash: [u8; 32] = Sha256::digest(&section[..body]).into();
    (hash[..] == section[body..]).then(|| {
        let entries = &section[HEADER..body];
        (i128::from(reference), count, entries, section.len())
    })
}

/// The length of the sorted part of a cache file of `count` entries.
fn sorted_len(count: usize) -> usize {
    HEADER + count * ENTRY + TRAILER
}

/// The store of an expansion when the digest cache is on, its cache file found
/// and not read yet: the file's size says how many files the expansion that
/// wrote it read, and so whether this one is likely to need more than one thread.
pub(crate) struct UnreadCache {
    root: StoreDir,
    /// The cache file's size; `None` when there is none (or not a file).
    size: Option<u64>,
    /// The cache file's status, when it is a file.
    stat: Option<Stat>,
    /// Its digests as read before within this call, when its status is the same.
    kept: Option<Digests>,
}

impl UnreadCache {
    /// Finds the cache file of the store directory `store` (`<workspace>/.ledger`),
    /// when the cache is on (`enabled`, the workspace's setting) and the store
    /// exists (it is never created).
    pub(crate) fn find(store: &Path, enabled: bool) -> Option<UnreadCache> {
        if !enabled {
            return None;
        }
        let root = StoreDir::open_root(store, Missing::Absent).ok()??;
        let stat = (root.stat(CACHE, &root.join(CACHE)).ok().flatten())
            .filter(|st| st.file_type() == FileType::RegularFile);
        let size = stat.map(|st| u64::try_from(st.st_size).unwrap_or(u64::MAX));
        let kept = stat.and_then(|stat| {
            kept_for_the_call(|read: &mut ReadInThisCall| match &read.0 {
                Some((kept, digests)) if *kept == stat => Some(digests.clone()),
                _ => None,
            })
            .flatten()
        });
        Some(UnreadCache {
            root,
            size,
            stat,
            kept,
        })
    }

    /// Whether the cache file is no larger than one of `entries` sorted
    /// entries: the expansion that wrote it read about that many files or fewer.
    pub(crate) fn holds_at_most(&self, entries: usize) -> bool {
        self.size
            .is_some_and(|size| size <= sorted_len(entries) as u64)
    }

    /// Reads the cache file. Nothing is written and nothing trusted yet: see
    /// [`CacheFile::trusted`].
    pub(crate) fn read(self) -> CacheFile {
        let read_anew = self.kept.is_none();
        let entries = Entries::read(&self.root, self.kept);
        CacheFile {
            stat: self.stat.filter(|_| read_anew),
            root: self.root,
            entries,
        }
    }
}

impl CacheFile {
    /// Keeps the digests read for the rest of the call (on the thread that
    /// runs it), when the file still has the status it had before the read:
    /// nothing changed it meanwhile.
    pub(crate) fn keep_for_the_call(&self) {
        let Some(before) = self.stat else {
            return;
        };
        let after = self.root.stat(CACHE, &self.root.join(CACHE)).ok().flatten();
        if after == Some(before) {
            let digests = self.entries.digests();
            kept_for_the_call(|read: &mut ReadInThisCall| read.0 = Some((before, digests)));
        }
    }

    /// The store's directories for the digest cache and the entries read from
    /// it, when the store is trusted: `tracked` says whether Git tracks any
    /// file of the store (the caller knows, from the index it read or from
    /// `trust::tracked`; the cache asks no listing itself).
    pub(crate) fn trusted(self, tracked: bool) -> Option<(CacheDir, Entries)> {
        let file = self;
        if tracked {
            return None;
        }
        let tmp = file.root.make_sub(TMP).ok();
        let dir = CacheDir {
            root: file.root,
            tmp,
        };
        Some((dir, file.entries))
    }
}

/// What the cache says about a file.
pub(crate) enum Lookup {
    /// Unchanged since it was read: this is its digest.
    Hit(Digest),
    /// Not known in this version; record it under this key once read.
    Miss(Key),
    /// Never cached: its status is incomplete.
    Uncacheable,
}

/// An entry of the loaded cache, as this expansion met it.
const UNSEEN: u8 = 0;
const MATCHED: u8 = 1;
const EVICT: u8 = 2;

/// The digest cache during one expansion: the entries loaded, which of them were
/// used, and the digests read anew.
pub(crate) struct DigestCache<'a> {
    dir: &'a CacheDir,
    /// The cache file as read (empty when there was none or it did not check out).
    old: Vec<u8>,
    /// How many sorted entries `old` starts with.
    count: usize,
    buckets: Buckets,
    journal: Journal,
    /// How this expansion met each entry: the sorted ones, then the journal's.
    state: Vec<AtomicU8>,
    fresh: Mutex<Vec<(Key, Digest)>>,
    /// The reference time of the cache file read: an entry is trusted only for
    /// a file that last changed a granularity before it.
    reference: i128,
    /// This expansion's reference time, written into the new cache: a file is
    /// recorded only when it last changed a granularity before it.
    started: i128,
    /// The store's file system, when its clock was read and keeps fractions of
    /// a second: files on it have [`FINE_GRANULARITY_NS`].
    fine_device: Option<u64>,
    /// Whether each device met so far has a file system whose writeback
    /// write-protects mapped pages (see [`Writeback`]).
    devices: Mutex<Vec<(u64, Writeback)>>,
    /// The walks remembered in the store and those recorded now.
    walks: WalkMemos,
}

impl<'a> DigestCache<'a> {
    /// Starts the cache of `dir` with the `entries` its file held at the start of an
    /// expansion (before any file is looked at: the start time decides what may
    /// be recorded).
    pub(crate) fn start(dir: &'a CacheDir, file: Entries) -> DigestCache<'a> {
        let local = nanos_since_epoch(SystemTime::now());
        // The file system's clock may differ from ours (a network file system):
        // the earlier of the two is the safe reference.
        let clock = dir.tmp.as_ref().and_then(|tmp| tmp.now().ok());
        let started = clock
            .as_ref()
            .and_then(times)
            .map_or(local, |(mtime, ctime)| local.min(mtime).min(ctime));
        DigestCache {
            dir,
            buckets: file.buckets,
            state: (0..file.count + file.journal.entries.len())
                .map(|_| AtomicU8::new(UNSEEN))
                .collect(),
            old: file.old,
            count: file.count,
            journal: file.journal,
            fresh: Mutex::new(Vec::new()),
            reference: file.reference,
            started,
            fine_device: clock.filter(has_fractions).map(|st| st.st_dev),
            devices: Mutex::new(Vec::new()),
            walks: file.walks,
        }
    }

    /// This expansion's reference time (ns since the epoch): what changed a
    /// granularity before it may be recorded ([`DigestCache::may_record`]).
    pub(crate) fn started(&self) -> i128 {
        self.started
    }

    /// The walk memos of the store (see `walk_memo`), which follow the cache:
    /// read and written with it, under its trust and its racily-clean rule.
    pub(crate) fn walk_memos(&self) -> &WalkMemos {
        &self.walks
    }

    /// The timestamp granularity assumed for the file with the status `stat`:
    /// [`FINE_GRANULARITY_NS`] when it is on the store's file system, that file
    /// system keeps fractions of a second (the clock just read had them) and the
    /// file's own times have them; else [`GRANULARITY_NS`]. A file system that
    /// keeps whole seconds (or two) gives every time zero nanoseconds; one on
    /// another device may run on another clock.
    fn granularity(&self, stat: &Stat) -> i128 {
        if self.fine_device == Some(stat.st_dev) && has_fractions(stat) {
            FINE_GRANULARITY_NS
        } else {
            GRANULARITY_NS
        }
    }

    /// Looks up the regular file `path` with the status `stat` (taken without
    /// following a symlink).
    pub(crate) fn lookup(&self, path: &WorkspacePath, stat: &Stat) -> Lookup {
        match key(path, stat) {
            Some(key) => self.answer(key, self.buckets.range(&key), stat),
            None => Lookup::Uncacheable,
        }
    }

    /// Looks up the regular files of a directory at once: the answers of
    /// [`DigestCache::lookup`], one per file, with the memory of every lookup
    /// fetched before any is compared, so that the lookups do not wait on each
    /// other's cache misses (a lookup is two misses into a table of megabytes).
    pub(crate) fn lookup_many(&self, files: &[(&WorkspacePath, &Stat)]) -> Vec<Lookup> {
        let keys: Vec<Option<Key>> = files.iter().map(|(path, stat)| key(path, stat)).collect();
        let ranges: Vec<(usize, usize)> = keys
            .iter()
            .map(|key| key.as_ref().map_or((0, 0), |key| self.buckets.range(key)))
            .collect();
        keys.into_iter()
            .zip(ranges)
            .zip(files)
            .map(|((key, range), (_, stat))| match key {
                Some(key) => self.answer(key, range, stat),
                None => Lookup::Uncacheable,
            })
            .collect()
    }

    /// The answer for `key`, which lies within `range` of the sorted entries if
    /// it is among them, else maybe in the journal: its digest when the file
    /// last changed before the reference time of the entry's write minus the
    /// granularity.
    fn answer(&self, key: Key, range: (usize, usize), stat: &Stat) -> Lookup {
        let found = match self.find(&key, range) {
            Some(i) => Some((i, self.sorted_digest(i), self.reference)),
            None => self.journal.find(&key).map(|j| {
                let (_, digest, reference) = self.journal.entries[j];
                (self.count + j, digest, reference)
            }),
        };
        if let Some((i, digest, reference)) = found {
            // A reference later than this expansion's start: the clock was set
            // back since, and a write in between may have been given the times
            // the entry holds. Never trusted, and dropped.
            if reference <= self.started
                && latest_change(stat) < reference.saturating_sub(self.granularity(stat))
            {
                self.state[i].store(MATCHED, Ordering::Relaxed);
                return Lookup::Hit(digest);
            }
            // Only a cache ledger did not write holds a racy entry: never again.
            self.state[i].store(EVICT, Ordering::Relaxed);
        }
        Lookup::Miss(key)
    }

    /// Whether a file in the version `stat` last changed long enough before this
    /// expansion started for its digest to be recorded: a change after the read
    /// is then given later times than it has (the racy-timestamp rule).
    pub(crate) fn may_record(&self, stat: &Stat) -> bool {
        latest_change(stat) < self.started.saturating_sub(self.granularity(stat))
    }

    /// Prepares the opened regular file `file` in the version `stat` for a read
    /// whose digest is to be recorded, before the read: `true` when its file
    /// system is one whose writeback write-protects what it cleans and every
    /// page dirty now was written back ([`platform::force_writeback`]), so that any later
    /// write, through a shared mapping too, moves the file's times. `false`:
    /// the digest must not be recorded.
    pub(crate) fn settle(&self, file: &File, stat: &Stat) -> bool {
        self.writeback(file, stat.st_dev) == Writeback::Protects
            && platform::force_writeback(file).is_ok()
    }

    /// What writeback does on the device `device` (the one `file` is on),
    /// asked of the file system once per device.
    fn writeback(&self, file: &File, device: u64) -> Writeback {
        let mut devices = self
            .devices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, known)) = devices.iter().find(|(d, _)| *d == device) {
            return *known;
        }
        let found = Writeback::of(platform::fs_kind(file));
        devices.push((device, found));
        found
    }

    /// Records the digest of a file read in the version `stat` (the one the read
    /// verified, after [`DigestCache::settle`] said yes), unless it changed too
    /// recently to be told apart from a change after the read.
    pub(crate) fn record(&self, key: Key, stat: &Stat, digest: Digest) {
        if self.may_record(stat) {
            self.fresh
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push((key, digest));
        }
    }

    /// The digest of the sorted entry `i`.
    fn sorted_digest(&self, i: usize) -> Digest {
        let at = HEADER + i * ENTRY + KEY;
        let mut digest = [0u8; 32];
        digest.copy_from_slice(&self.old[at..at + 32]);
        Digest(digest)
    }

    /// The index of `key` among the sorted entries: bisected within `range`,
    /// its bucket (see [`Buckets`]), which holds about one entry.
    fn find(&self, key: &Key, (mut low, mut high): (usize, usize)) -> Option<usize> {
        while low < high {
            let mid = low + (high - low) / 2;
            let at = HEADER + mid * ENTRY;
            match self.old[at..at + KEY].cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Writes what this expansion read anew, best effort: appended as a batch
    /// while the journal is small, else the whole new cache — the entries used
    /// or read now, and those of the old cache this expansion did not meet, one
    /// write older. Nothing is written when no file was read and recorded (and
    /// no entry was found racy): a tree whose changes are all too recent to
    /// record costs no write. A failure is ignored: the next expansion reads
    /// more, and answers the same.
    pub(crate) fn save(mut self) {
        if let Some(tmp) = &self.dir.tmp {
            std::mem::take(&mut self.walks).save(&self.dir.root, tmp);
        }
        let mut fresh = std::mem::take(
            &mut *self
                .fresh
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        fresh.sort_unstable_by_key(|entry| entry.0);
        fresh.dedup_by(|later, earlier| later.0 == earlier.0);
        // Without a new digest nothing is written (entries not met this time only
        // age by the next write) — unless an entry was found racy: it is dropped
        // now, before a newer reference time could make it look trusted.
        let state: Vec<u8> = self
            .state
            .iter()
            .map(|met| met.load(Ordering::Relaxed))
            .collect();
        if fresh.is_empty() && !state.contains(&EVICT) {
            return;
        }
        let Some(tmp) = &self.dir.tmp else {
            return;
        };
        let journal = self.journal.entries.len() + fresh.len();
        let appendable = self.count > 0
            && !self.journal.torn
            && !state.contains(&EVICT)
            && journal.saturating_mul(APPEND_RATIO) <= self.count;
        // Not appended (the file was removed, or is linked elsewhere too, or
        // the write failed): rewritten whole, which replaces the name.
        let appended = appendable
            && matches!(
                self.dir.root.append(CACHE, &batch(self.started, &fresh)),
                Ok(true)
            );
        if !appended {
            self.rewrite(tmp, &state, fresh);
        }
    }

    /// Writes the whole new cache, the journal's entries (but those found racy)
    /// merged in with the `fresh` ones, and renames it into place.
    fn rewrite(&self, tmp: &StoreDir, state: &[u8], mut fresh: Vec<(Key, Digest)>) {
        let journal = self.journal.entries.iter().zip(&state[self.count..]);
        fresh.extend(
            journal
                .rev()
                .filter(|(_, met)| **met != EVICT)
                .map(|(&(key, digest, _), _)| (key, digest)),
        );
        // A stable sort: of a key read now and kept in the journal, the fresh
        // entry (first) stays; of one appended twice, the later.
        fresh.sort_by_key(|entry| entry.0);
        fresh.dedup_by(|later, earlier| later.0 == earlier.0);
        let Ok(mut temp) = TempFile::create(tmp, "cache") else {
            return;
        };
        let state = &state[..self.count];
        let merged = || Merge::new(&self.old, state, &fresh);
        let count = merged().count() as u64;
        let mut out = Output::new(&mut temp);
        out.put(MAGIC);
        out.put(&i64::try_from(self.started).unwrap_or(0).to_le_bytes());
        out.put(&count.to_le_bytes());
        for (key, digest, age) in merged() {
            out.put(key);
            out.put(digest);
            out.put(&[age]);
        }
        if out.finish().is_ok() {
            // A failed rename leaves the old cache in place; the temp file goes.
            let _ = temp.rename_to(&self.dir.root, CACHE);
        }
    }
}

/// What a file system's writeback does to the pages of a shared mapping, which
/// decides whether a digest of one of its files may be recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writeback {
    /// A write fault on a clean page moves the file's times before the page
    /// becomes writable, and writing a dirty page back write-protects it in
    /// every mapping first ([`FsKind::writeback_protects`]: ext4, XFS, Btrfs
    /// on Linux, where [`platform::force_writeback`] reaches the page cache).
    Protects,
    /// Any other, and every file system of a platform that cannot prove it
    /// ([`platform::PROVES_WRITEBACK`]): tmpfs and ramfs have no writeback,
    /// overlayfs keeps the pages in another file system's inode, and on NFS,
    /// SMB, FUSE and the like another machine or process sets the times. The
    /// file is re-read every time.
    Unknown,
}

impl Writeback {
    /// What writeback does on the file system `kind`.
    fn of(kind: FsKind) -> Writeback {
        match kind.writeback_protects() {
            true => Writeback::Protects,
            false => Writeback::Unknown,
        }
    }
}

/// Where the entries of each key prefix start: the keys are truncated SHA-256
/// values, spread evenly, so with as many buckets as entries a lookup touches
/// the bucket table and about one entry — two cache misses, where bisecting
/// 100,000 entries takes 17. Keys that are not evenly spread (a cache written by
/// someone else) only make the buckets uneven: a lookup then bisects a larger
/// one, never answers differently.
#[derive(Clone)]
struct Buckets {
    /// Bits of the key prefix that choose a bucket.
    bits: u32,
    /// `starts[b]`: the first entry whose bucket is `b` or later; one more at the end.
    starts: Vec<u32>,
}

impl Buckets {
    fn new(old: &[u8], count: usize) -> Buckets {
        let bits = usize::BITS - count.leading_zeros();
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        for i in 0..count {
            let bucket = bucket(key_prefix(&old[HEADER + i * ENTRY..]), bits);
            while starts.len() <= bucket {
                starts.push(i as u32);
            }
        }
        starts.resize((1 << bits) + 1, count as u32);
        Buckets { bits, starts }
    }

    /// The entries `key` can be among.
    fn range(&self, key: &Key) -> (usize, usize) {
        let b = bucket(key_prefix(key), self.bits);
        (self.starts[b] as usize, self.starts[b + 1] as usize)
    }
}

/// The bucket of a key prefix: its top `bits` bits.
fn bucket(prefix: u64, bits: u32) -> usize {
    match bits {
        0 => 0,
        _ => usize::try_from(prefix >> (64 - bits)).unwrap_or(0),
    }
}

/// The entries of the new cache, ascending by key: the old ones kept (matched
/// ones as new, unseen ones one write older, racy ones and the too old dropped)
/// merged with the fresh ones (which win over an old entry of the same key).
/// An unseen entry of a path that has a live version is dropped too: that path
/// has changed since, and its old status never comes back (no unprivileged
/// program sets a change time back), so after every file of a tree changed the
/// cache holds one version of each, not two (an unchanged check loads and
/// bisects only those). Two paths whose path parts collide only cost a read.
struct Merge<'m> {
    old: &'m [u8],
    state: &'m [u8],
    fresh: &'m [(Key, Digest)],
    i: usize,
    j: usize,
}

impl<'m> Merge<'m> {
    fn new(old: &'m [u8], state: &'m [u8], fresh: &'m [(Key, Digest)]) -> Self {
        Merge {
            old,
            state,
            fresh,
            i: 0,
            j: 0,
        }
    }

    /// The path part of old entry `i`'s key.
    fn old_prefix(&self, i: usize) -> u64 {
        key_prefix(&self.old[HEADER + i * ENTRY..])
    }

    /// Whether the path of old entry `i` has a version the new cache keeps as
    /// current: a fresh one, or an old one this expansion matched. Keys sort by
    /// their path part first, so a path's versions are neighbours in both lists.
    fn has_live_version(&self, i: usize) -> bool {
        let prefix = self.old_prefix(i);
        let first_fresh = self
            .fresh
            .partition_point(|(key, _)| key_prefix(key) < prefix);
        let fresh = self
            .fresh
            .get(first_fresh)
            .is_some_and(|(key, _)| key_prefix(key) == prefix);
        let same_path = |&k: &usize| self.old_prefix(k) == prefix;
        let before = (0..i).rev().take_while(same_path);
        let after = (i + 1..self.state.len()).take_while(same_path);
        fresh || before.chain(after).any(|k| self.state[k] == MATCHED)
    }

    /// The key and digest of old entry `i`.
    fn old_entry(&self, i: usize) -> (&'m [u8], &'m [u8]) {
        let at = HEADER + i * ENTRY;
        (&self.old[at..at + KEY], &self.old[at + KEY..at + KEY + 32])
    }

    /// The age of old entry `i` in the new cache; `None`: dropped.
    fn new_age(&self, i: usize) -> Option<u8> {
        let age = self.old[HEADER + i * ENTRY + ENTRY - 1];
        match self.state[i] {
            MATCHED => Some(0),
            UNSEEN if age < MAX_AGE && !self.has_live_version(i) => Some(age + 1),
            _ => None,
        }
    }
}

impl<'m> Iterator for Merge<'m> {
    type Item = (&'m [u8], &'m [u8], u8);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let fresh = self.fresh.get(self.j);
            if self.i == self.state.len() {
                let (key, digest) = fresh?;
                self.j += 1;
                return Some((&key[..], &digest.0[..], 0));
            }
            let (key, digest) = self.old_entry(self.i);
            match fresh {
                Some((fresh_key, fresh_digest)) if &fresh_key[..] <= key => {
                    if &fresh_key[..] == key {
                        self.i += 1;
                    }
                    self.j += 1;
                    return Some((&fresh_key[..], &fresh_digest.0[..], 0));
                }
                _ => {
                    let age = self.new_age(self.i);
                    self.i += 1;
                    if let Some(age) = age {
                        return Some((key, digest, age));
                    }
                }
            }
        }
    }
}

/// Writes through a buffer into the temp file, hashing what it writes; the hash
/// is the file's trailer.
struct Output<'t, 'a> {
    temp: &'t mut TempFile<'a>,
    buffer: Vec<u8>,
    hash: Sha256,
    failed: bool,
}

impl<'t, 'a> Output<'t, 'a> {
    const SIZE: usize = 64 * 1024;

    fn new(temp: &'t mut TempFile<'a>) -> Self {
        Output {
            temp,
            buffer: Vec::with_capacity(Self::SIZE),
            hash: Sha256::new(),
            failed: false,
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= Self::SIZE {
            self.flush();
        }
    }

    /// Hashes and writes what is buffered: hashed a buffer at a time, not an
    /// entry's three small fields one by one.
    fn flush(&mut self) {
        self.hash.update(&self.buffer);
        self.write();
    }

    fn write(&mut self) {
        if !self.failed && self.temp.write_unsynced(&self.buffer).is_err() {
            self.failed = true;
        }
        self.buffer.clear();
    }

    fn finish(mut self) -> std::result::Result<(), ()> {
        self.flush();
        let trailer: [u8; 32] = std::mem::take(&mut self.hash).finalize().into();
        self.buffer.extend_from_slice(&trailer);
        self.write();
        if self.failed { Err(()) } else { Ok(()) }
    }
}

/// A batch of the `fresh` entries, appended by the expansion that started at `started`.
fn batch(started: i128, fresh: &[(Key, Digest)]) -> Vec<u8> {
    let mut batch = Vec::with_capacity(BATCH_HEADER + fresh.len() * BATCH_ENTRY + TRAILER);
    batch.extend_from_slice(BATCH_MAGIC);
    batch.extend_from_slice(&i64::try_from(started).unwrap_or(0).to_le_bytes());
    batch.extend_from_slice(&(fresh.len() as u64).to_le_bytes());
    for (key, digest) in fresh {
        batch.extend_from_slice(key);
        batch.extend_from_slice(&digest.0);
    }
    let hash: [u8; 32] = Sha256::digest(&batch).into();
    batch.extend_from_slice(&hash);
    batch
}

/// The count and reference time of the sorted entries a cache file starts
/// with, when they are intact; `None` for anything else (the file is then
/// discarded). What follows them is the journal.
fn parse(bytes: &[u8]) -> Option<(usize, i128)> {
    let (reference, count, entries, _) = checked_section(bytes, MAGIC, ENTRY)?;
    let keys = entries.chunks_exact(ENTRY).map(|e| &e[..KEY]);
    if !keys.clone().zip(keys.skip(1)).all(|(a, b)| a < b) {
        return None;
    }
    Some((count, reference))
}

/// Checks the cache file for `store check`: `None` when there is none; an entry
/// that is not a regular file of this user's is listed in `corrupt` instead.
/// `Ok(Some(Err(e)))`: the entry is there but unusable, for `store check` to list.
pub(crate) fn report(root: &StoreDir) -> Result<Option<std::result::Result<CacheReport, Error>>> {
    let path = root.join(CACHE);
    let Some(stat) = root.stat(CACHE, &path)? else {
        return Ok(None);
    };
    if let Err(e) = expect(&path, &stat, Kind::File) {
        return Ok(Some(Err(e)));
    }
    let bytes = u64::try_from(stat.st_size).unwrap_or(0);
    let entries = Entries::read(root, None);
    Ok(Some(Ok(CacheReport {
        bytes,
        entries: (entries.count + entries.journal.index.len()) as u64,
        intact: !entries.old.is_empty() && !entries.journal.torn,
    })))
}

/// The body of the `digest_cache` fuzz target (`crate::fuzzing::digest_cache`):
/// a cache file of any bytes parses without a panic; when its sorted entries
/// check out, their keys ascend strictly and the buckets find each at its place;
/// the journal's intact batches are exactly its bytes up to the tear, and each
/// key's latest entry is the one found.
#[cfg(feature = "fuzzing")]
pub(crate) fn fuzz_cache_file(bytes: &[u8]) {
    let Some((count, _)) = parse(bytes) else {
        return;
    };
    let buckets = Buckets::new(bytes, count);
    let key_at = |i: usize| -> Key {
        bytes[HEADER + i * ENTRY..][..KEY]
            .try_into()
            .unwrap_or_default()
    };
    for i in 0..count {
        let key = key_at(i);
        assert!(i == 0 || key_at(i - 1) < key, "unsorted keys accepted");
        let (low, high) = buckets.range(&key);
        assert!(
            low <= i && i < high,
            "entry {i} outside its bucket {low}..{high}"
        );
    }
    let rest = &bytes[sorted_len(count)..];
    let journal = Journal::parse(rest);
    let mut intact = 0;
    while let Some((_, _, len)) = parse_batch(&rest[intact..]) {
        intact += len;
    }
    assert_eq!(journal.torn, intact < rest.len(), "tear misplaced");
    let again = Journal::parse(&rest[..intact]);
    assert!(
        !again.torn && again.entries == journal.entries,
        "batches depend on the tail"
    );
    for (key, &at) in &journal.index {
        assert_eq!(journal.entries[at].0, *key);
        assert!(
            journal.entries[at + 1..].iter().all(|e| e.0 != *key),
            "not the latest entry"
        );
    }
}

/// The key of a regular file: a hash of its path (the first [`PATH_PART`]
/// bytes: the versions of a path sort together), then a hash of its path and
/// status (128 bits: two statuses of a path share a key with odds of 2^-128).
/// `None` when the
/// status is incomplete (no inode number, or times that say nothing), which a
/// file system without stable inodes or times gives: such files are never cached.
fn key(path: &WorkspacePath, stat: &Stat) -> Option<Key> {
    let (mtime, ctime) = times(stat)?;
    let complete = FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
        && stat.st_ino != 0
        && stat.st_size >= 0
        && mtime > 0
        && ctime > 0;
    if !complete {
        return None;
    }
    let mut path_hash = Sha256::new();
    path_hash.update(b"ledger digest cache path v3\0");
    path_hash.update(path.as_str().as_bytes());
    let mut hash = Sha256::new();
    hash.update(b"ledger digest cache v3\0");
    hash.update(path.as_str().as_bytes());
    hash.update([0]);
    hash.update(stat.st_dev.to_le_bytes());
    hash.update(stat.st_ino.to_le_bytes());
    hash.update(stat.st_size.to_le_bytes());
    hash.update(stat.st_mode.to_le_bytes());
    hash.update(mtime.to_le_bytes());
    hash.update(ctime.to_le_bytes());
    let mut key = [0u8; KEY];
    key[..PATH_PART].copy_from_slice(&path_hash.finalize()[..PATH_PART]);
    key[PATH_PART..].copy_from_slice(&hash.finalize()[..KEY - PATH_PART]);
    Some(key)
}

/// The first eight bytes of a key as a number, in the keys' sort order.
fn key_prefix(key: &[u8]) -> u64 {
    let mut prefix = [0u8; 8];
    prefix.copy_from_slice(&key[..8]);
    u64::from_be_bytes(prefix)
}

/// Modification and change time in ns since the epoch; `None` when a
/// nanosecond field is out of range.
fn times(stat: &Stat) -> Option<(i128, i128)> {
    let ns = |secs: i64, nanos: i128| {
        (0..1_000_000_000)
            .contains(&nanos)
            .then(|| i128::from(secs) * 1_000_000_000 + nanos)
    };
    let (mtime_nsec, ctime_nsec) = (
        i128::from(stat.st_mtime_nsec),
        i128::from(stat.st_ctime_nsec),
    );
    Some((
        ns(stat.st_mtime, mtime_nsec)?,
        ns(stat.st_ctime, ctime_nsec)?,
    ))
}

/// Whether both the modification and the change time have a fraction of a second.
fn has_fractions(stat: &Stat) -> bool {
    stat.st_mtime_nsec != 0 && stat.st_ctime_nsec != 0
}

/// The later of the modification and change time (`i128::MAX`, never old
/// enough, when they are out of range).
fn latest_change(stat: &Stat) -> i128 {
    times(stat).map_or(i128::MAX, |(m, c)| m.max(c))
}

fn nanos_since_epoch(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => i128::try_from(d.as_nanos()).unwrap_or(i128::MAX),
        Err(e) => -i128::try_from(e.duration().as_nanos()).unwrap_or(i128::MAX),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn file(entries: &[([u8; KEY], u8)]) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&7i64.to_le_bytes());
        bytes.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (key, age) in entries {
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(&[9u8; 32]);
            bytes.push(*age);
        }
        let hash: [u8; 32] = Sha256::digest(&bytes).into();
        bytes.extend_from_slice(&hash);
        bytes
    }

    /// Within one call, expansions share the cache file's digests while its
    /// status holds, and one after a file changed still answers the change;
    /// nothing is kept past the call.
    #[test]
    fn one_call_reads_the_cache_file_once_and_answers_what_changed() {
        use crate::expand::{Inventory, Scope, opened_once};
        let temp = std::env::temp_dir();
        let parent = match crate::probe::in_memory(&temp) {
            true => std::path::PathBuf::from("/var/tmp"),
            false => temp,
        };
        let dir = tempfile::tempdir_in(parent).unwrap();
        std::fs::create_dir(dir.path().join(".ledger")).unwrap();
        for name in ["a", "b"] {
            std::fs::write(dir.path().join(name), name.repeat(1 << 16)).unwrap();
        }
        // Past the cache's coarsest granularity, where an expansion records them.
        std::thread::sleep(std::time::Duration::from_millis(2200));
        let ws = camino::Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        let mut scope = Scope::new(ws);
        scope.add_root(".").unwrap();
        let kept = || {
            kept_for_the_call(|read: &mut ReadInThisCall| read.0.as_ref().map(|(_, d)| d.count))
                .flatten()
        };
        let changed = opened_once(|| {
            Inventory::expand(&scope).unwrap();
            Inventory::expand(&scope).unwrap();
            // Where digests are recorded at all, the second expansion read the
            // file the first saved, and kept its digests.
            if platform::PROVES_WRITEBACK {
                assert_eq!(kept(), Some(2));
            }
            std::fs::write(dir.path().join("b"), "B".repeat(1 << 16)).unwrap();
            Inventory::expand(&scope).unwrap()
        });
        let anew = scope.clone().with_settings(crate::Settings {
            digest_cache: false,
            ..crate::Settings::default()
        });
        assert_eq!(
            changed.fingerprint,
            Inventory::expand(&anew).unwrap().fingerprint
        );
        assert_eq!(opened_once(kept), None, "nothing outlives a call");
    }

    #[test]
    fn only_an_intact_file_parses() {
        let good = file(&[([1; KEY], 0), ([2; KEY], 3)]);
        assert_eq!(parse(&good), Some((2, 7)));
        assert_eq!(parse(&file(&[])), Some((0, 7)));
        // Truncated, extended, a flipped bit, unsorted keys, another magic.
        assert_eq!(parse(&good[..good.len() - 1]), None);
        // What follows the sorted entries is the journal: a byte that is no
        // batch tears it, and leaves the sorted entries intact.
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(parse(&longer), Some((2, 7)));
        assert!(Journal::parse(&longer[sorted_len(2)..]).torn);
        assert!(!Journal::parse(&good[sorted_len(2)..]).torn);
        let mut flipped = good.clone();
        flipped[HEADER + KEY] ^= 1;
        assert_eq!(parse(&flipped), None);
        assert_eq!(parse(&file(&[([2; KEY], 0), ([1; KEY], 0)])), None);
        assert_eq!(parse(&file(&[([2; KEY], 0), ([2; KEY], 0)])), None);
        let mut magic = good.clone();
        magic[0] = b'X';
        assert_eq!(parse(&magic), None);
        assert_eq!(parse(b""), None);
    }

    /// A new store in `workspace` with its `tmp/`, as an expansion that may write opens it.
    fn writable_store(workspace: &std::path::Path) -> CacheDir {
        let root = StoreDir::open_root(&workspace.join(".ledger"), Missing::Create)
            .unwrap()
            .unwrap();
        let tmp = root.make_sub(TMP).unwrap();
        CacheDir {
            root,
            tmp: Some(tmp),
        }
    }

    /// The racy-entry rule, on a clock the test sets: a file is recorded only
    /// when its times are older than the expansion's start minus the
    /// granularity, and trusted only when older than the cache's reference
    /// minus it — as a file system whose timestamps are coarser than the time
    /// between a read and the next write would need.
    #[test]
    fn racily_clean_files_are_neither_recorded_nor_trusted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), b"one").unwrap();
        let cache_dir = writable_store(dir.path());
        let stat = platform::stat(dir.path().join("f")).unwrap();
        let path = WorkspacePath::new("f").unwrap();
        let changed = latest_change(&stat);
        let digest = Digest([7; 32]);

        let mut cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let Lookup::Miss(key) = cache.lookup(&path, &stat) else {
            panic!("an empty cache knows nothing");
        };
        let granularity = cache.granularity(&stat);
        // Changed at the very moment the reference allows: not recorded.
        cache.started = changed + granularity;
        cache.record(key, &stat, digest);
        assert!(cache.fresh.lock().unwrap().is_empty());
        cache.started = changed + granularity + 1;
        cache.record(key, &stat, digest);
        cache.save();

        // Reloaded: the file is trusted only when older than the reference (and
        // the clock is not behind the reference: this one was set ahead).
        let mut cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        cache.started = cache.started.max(cache.reference);
        assert_eq!(cache.reference, changed + granularity + 1);
        assert!(matches!(cache.lookup(&path, &stat), Lookup::Hit(d) if d == digest));
        cache.reference = changed + granularity;
        assert!(matches!(cache.lookup(&path, &stat), Lookup::Miss(_)));
        assert_eq!(cache.state[0].load(Ordering::Relaxed), EVICT);

        // Nothing new read but an entry found racy: written, without it.
        let file = dir.path().join(".ledger").join(CACHE);
        let inode = || platform::stat(&file).unwrap().st_ino;
        let before = inode();
        cache.save();
        assert_ne!(inode(), before);
        let cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        assert_eq!(cache.state.len(), 0);

        // Nothing new read, nothing racy: nothing written (the file keeps its inode).
        let mut cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let Lookup::Miss(key) = cache.lookup(&path, &stat) else {
            panic!("the entry was dropped");
        };
        cache.started = changed + granularity + 1;
        cache.record(key, &stat, digest);
        cache.save();
        let mut cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        cache.started = cache.started.max(cache.reference);
        assert!(matches!(cache.lookup(&path, &stat), Lookup::Hit(d) if d == digest));
        let before = inode();
        cache.save();
        assert_eq!(inode(), before);
    }

    /// A cache written when the clock read later than it does at this
    /// expansion's start (the clock was set back since) answers nothing, and
    /// its entries go.
    #[test]
    fn a_cache_written_by_a_later_clock_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), b"one").unwrap();
        let cache_dir = writable_store(dir.path());
        let stat = platform::stat(dir.path().join("f")).unwrap();
        let path = WorkspacePath::new("f").unwrap();
        let cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let Lookup::Miss(key) = cache.lookup(&path, &stat) else {
            panic!("an empty cache knows nothing");
        };
        let mut cache = cache;
        cache.started = latest_change(&stat) + 2 * GRANULARITY_NS;
        cache.record(key, &stat, Digest([7; 32]));
        cache.save();
        let reload = || DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let mut cache = reload();
        cache.started = cache.reference;
        assert!(matches!(cache.lookup(&path, &stat), Lookup::Hit(_)));
        let mut cache = reload();
        cache.started = cache.reference - 1;
        assert!(matches!(cache.lookup(&path, &stat), Lookup::Miss(_)));
        assert_eq!(cache.state[0].load(Ordering::Relaxed), EVICT);
    }

    /// A file has the fine granularity only on the store's own file system when
    /// that keeps fractions of a second and the file's times have them.
    #[test]
    fn only_fractional_times_on_the_stores_file_system_are_fine() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = writable_store(dir.path());
        let mut cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let mut stat = platform::stat(dir.path()).unwrap();
        stat.st_mtime_nsec = 5;
        stat.st_ctime_nsec = 7;
        cache.fine_device = Some(stat.st_dev);
        assert_eq!(cache.granularity(&stat), FINE_GRANULARITY_NS);
        let mut whole = stat;
        whole.st_mtime_nsec = 0;
        assert_eq!(cache.granularity(&whole), GRANULARITY_NS);
        let mut whole = stat;
        whole.st_ctime_nsec = 0;
        assert_eq!(cache.granularity(&whole), GRANULARITY_NS);
        let mut elsewhere = stat;
        elsewhere.st_dev ^= 1;
        assert_eq!(cache.granularity(&elsewhere), GRANULARITY_NS);
        cache.fine_device = None;
        assert_eq!(cache.granularity(&stat), GRANULARITY_NS);
        // The clock read at the start: the store's device, when it keeps fractions.
        let started = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let clock = cache_dir.tmp.as_ref().unwrap().now().unwrap();
        // (Read twice, the clock lands on a whole second in one of them once in
        // 10^9 runs.)
        assert_eq!(
            started.fine_device,
            has_fractions(&clock).then_some(clock.st_dev)
        );
    }

    /// Every key is found, and no other, whether the keys are spread evenly (as
    /// hashes are) or crowded into one corner of the key space.
    #[test]
    fn lookups_find_exactly_the_stored_keys() {
        let evenly = |i: u64| Sha256::digest(i.to_le_bytes())[..KEY].try_into().unwrap();
        let crowded = |i: u64| {
            let mut key = [0u8; KEY];
            key[8..16].copy_from_slice(&(i * 3).to_be_bytes());
            key
        };
        let generators: [&dyn Fn(u64) -> Key; 2] = [&evenly, &crowded];
        for make in generators {
            for count in [0u64, 1, 2, 3, 1000] {
                let mut keys: Vec<Key> = (0..count).map(make).collect();
                keys.sort_unstable();
                let dir = tempfile::tempdir().unwrap();
                let root = StoreDir::open_root(&dir.path().join(".ledger"), Missing::Create)
                    .unwrap()
                    .unwrap();
                let entries: Vec<_> = keys.iter().map(|k| (*k, 0)).collect();
                std::fs::write(dir.path().join(".ledger").join(CACHE), file(&entries)).unwrap();
                let cache_dir = CacheDir { root, tmp: None };
                let cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
                assert_eq!(cache.state.len(), keys.len());
                for (i, key) in keys.iter().enumerate() {
                    assert_eq!(cache.find(key, cache.buckets.range(key)), Some(i));
                }
                for absent in (count..count + 200)
                    .map(make)
                    .chain([[0; KEY], [0xff; KEY]])
                {
                    let found = cache.find(&absent, cache.buckets.range(&absent));
                    assert_eq!(found, keys.iter().position(|k| *k == absent));
                }
            }
        }
    }

    /// Records the digests `[i; 32]` of the keys `keys` (of files last changed
    /// long ago) in the cache of `dir`, and saves it.
    fn record_and_save(dir: &CacheDir, keys: std::ops::Range<u8>) {
        let cache = DigestCache::start(dir, Entries::read(&dir.root, None));
        for i in keys {
            cache.record(test_key(i), &long_ago(), Digest([i; 32]));
        }
        cache.save();
    }

    fn test_key(i: u8) -> Key {
        Sha256::digest([i])[..KEY].try_into().unwrap()
    }

    /// A status whose times lie long before any reference time.
    fn long_ago() -> Stat {
        let mut stat = platform::stat("/").unwrap();
        (stat.st_mtime, stat.st_ctime) = (1_000, 1_000);
        stat
    }

    /// The answer for the key `i` of a file with the status `stat`.
    fn answer(cache: &DigestCache<'_>, i: u8, stat: &Stat) -> Option<Digest> {
        let key = test_key(i);
        match cache.answer(key, cache.buckets.range(&key), stat) {
            Lookup::Hit(digest) => Some(digest),
            _ => None,
        }
    }

    /// A few new digests are appended to the file as a batch; once the batches
    /// hold more than one entry per [`APPEND_RATIO`] sorted ones, the file is
    /// rewritten whole with them merged in. Every digest is found either way.
    #[test]
    fn a_few_new_digests_are_appended_and_many_rewrite_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = writable_store(dir.path());
        let file = dir.path().join(".ledger").join(CACHE);
        let inode_and_size = || {
            let meta = std::fs::metadata(&file).unwrap();
            (platform::stat(&file).unwrap().st_ino, meta.len() as usize)
        };
        let loaded = || DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        record_and_save(&cache_dir, 0..80);
        let (whole, whole_size) = inode_and_size();
        assert_eq!(whole_size, sorted_len(80));
        record_and_save(&cache_dir, 80..85);
        record_and_save(&cache_dir, 85..90);
        let batch_len = BATCH_HEADER + 5 * BATCH_ENTRY + TRAILER;
        assert_eq!(inode_and_size(), (whole, whole_size + 2 * batch_len));
        let cache = loaded();
        assert_eq!((cache.count, cache.journal.entries.len()), (80, 10));
        for i in 0..90 {
            assert_eq!(answer(&cache, i, &long_ago()), Some(Digest([i; 32])));
        }
        assert_eq!(answer(&cache, 90, &long_ago()), None);
        // (10 + 1) x 8 > 80: rewritten, the journal merged in.
        record_and_save(&cache_dir, 90..91);
        let (rewritten, size) = inode_and_size();
        assert_ne!(rewritten, whole);
        assert_eq!(size, sorted_len(91));
        let cache = loaded();
        assert_eq!((cache.count, cache.journal.entries.len()), (91, 0));
        for i in 0..91 {
            assert_eq!(answer(&cache, i, &long_ago()), Some(Digest([i; 32])));
        }
    }

    /// A cache file with a second name (a hard link planted in the store) is
    /// never appended to: the file outside keeps its bytes, the store gets a
    /// file of its own.
    #[test]
    fn a_hard_linked_cache_is_replaced_not_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = writable_store(dir.path());
        record_and_save(&cache_dir, 0..80);
        let file = dir.path().join(".ledger").join(CACHE);
        let outside = dir.path().join("outside");
        std::fs::hard_link(&file, &outside).unwrap();
        let before = std::fs::read(&outside).unwrap();
        record_and_save(&cache_dir, 80..81);
        assert_eq!(std::fs::read(&outside).unwrap(), before);
        assert_eq!(
            std::fs::metadata(&file).unwrap().len() as usize,
            sorted_len(81)
        );
    }

    /// A torn batch ends the journal: the batches before it still answer, the
    /// report says the file is not intact, and the next write rewrites it whole.
    /// A journal entry is trusted against its own batch's reference time.
    #[test]
    fn a_torn_journal_is_rewritten_and_racy_journal_entries_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = writable_store(dir.path());
        let file = dir.path().join(".ledger").join(CACHE);
        let loaded = || DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        record_and_save(&cache_dir, 0..80);
        record_and_save(&cache_dir, 80..82);
        let report = || super::report(&cache_dir.root).unwrap().unwrap().unwrap();
        assert_eq!((report().entries, report().intact), (82, true));
        let mut bytes = std::fs::read(&file).unwrap();
        let torn = batch(0, &[(test_key(99), Digest([99; 32]))]);
        bytes.extend_from_slice(&torn[..torn.len() - 1]);
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!((report().entries, report().intact), (82, false));
        let cache = loaded();
        assert!(cache.journal.torn);
        assert_eq!(answer(&cache, 81, &long_ago()), Some(Digest([81; 32])));
        assert_eq!(answer(&cache, 99, &long_ago()), None);

        // Rewritten whole, though one new digest would be appended otherwise.
        record_and_save(&cache_dir, 82..83);
        assert_eq!(
            std::fs::metadata(&file).unwrap().len() as usize,
            sorted_len(83)
        );
        assert_eq!((report().entries, report().intact), (83, true));

        // A file changed at its batch's reference time is not trusted, and the
        // entry goes at the next write.
        record_and_save(&cache_dir, 83..84);
        let cache = loaded();
        let (_, _, reference) = cache.journal.entries[0];
        let mut recent = long_ago();
        recent.st_mtime = (reference / 1_000_000_000) as i64 + 1;
        assert_eq!(answer(&cache, 83, &recent), None);
        assert_eq!(cache.state[cache.count].load(Ordering::Relaxed), EVICT);
        cache.save();
        let cache = loaded();
        assert_eq!((cache.count, cache.journal.entries.len()), (83, 0));
        assert_eq!(answer(&cache, 83, &long_ago()), None);
    }

    /// Only the file systems whose writeback write-protects mapped pages let a
    /// digest be recorded; the store's own (this test's) is asked once.
    #[test]
    fn only_file_systems_whose_writeback_protects_pages_record() {
        let protects = [FsKind::Ext4, FsKind::Xfs, FsKind::Btrfs];
        for kind in protects {
            let expected = match platform::PROVES_WRITEBACK {
                true => Writeback::Protects,
                false => Writeback::Unknown,
            };
            assert_eq!(Writeback::of(kind), expected);
        }
        for kind in [FsKind::Tmpfs, FsKind::Ramfs, FsKind::Other] {
            assert_eq!(Writeback::of(kind), Writeback::Unknown);
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), b"one").unwrap();
        let cache_dir = writable_store(dir.path());
        let cache = DigestCache::start(&cache_dir, Entries::read(&cache_dir.root, None));
        let file = File::open(dir.path().join("f")).unwrap();
        let stat = platform::fstat(&file).unwrap();
        let kind = Writeback::of(platform::fs_kind(&file));
        assert_eq!(cache.settle(&file, &stat), kind == Writeback::Protects);
        assert_eq!(*cache.devices.lock().unwrap(), [(stat.st_dev, kind)]);
    }

    #[test]
    fn merging_keeps_matched_ages_unseen_and_drops_evicted_and_old() {
        let old = file(&[
            ([1; KEY], 5),
            ([2; KEY], 0),
            ([3; KEY], MAX_AGE),
            ([4; KEY], 0),
            ([6; KEY], 2),
        ]);
        let state = [MATCHED, EVICT, UNSEEN, UNSEEN, UNSEEN];
        let fresh = [([4; KEY], Digest([1; 32])), ([5; KEY], Digest([2; 32]))];
        let merged: Vec<(u8, u8, u8)> = Merge::new(&old, &state, &fresh)
            .map(|(k, d, age)| (k[0], d[0], age))
            .collect();
        assert_eq!(merged, [(1, 9, 0), (4, 1, 0), (5, 2, 0), (6, 9, 3)]);
    }

    /// The unseen versions of a path that has a live one (matched, or read
    /// anew) are dropped; a path met in no version keeps its entries, aged.
    #[test]
    fn merging_drops_the_old_versions_of_a_path_with_a_live_one() {
        let version = |path: u8, status: u8| {
            let mut key = [path; KEY];
            key[PATH_PART..].fill(status);
            key
        };
        // Path 1: two old versions and one read now (sorting after them); path
        // 2: untouched; paths 3 and 5: an old version and the matched one
        // (after it, before it); path 4: an old version and one read now
        // (sorting before it).
        let old = file(&[
            (version(1, 1), 0),
            (version(1, 2), 1),
            (version(2, 1), 0),
            (version(3, 1), 0),
            (version(3, 2), 0),
            (version(4, 2), 0),
            (version(5, 1), 0),
            (version(5, 2), 0),
        ]);
        let state = [
            UNSEEN, UNSEEN, UNSEEN, UNSEEN, MATCHED, UNSEEN, MATCHED, UNSEEN,
        ];
        let fresh = [
            (version(1, 3), Digest([1; 32])),
            (version(4, 1), Digest([1; 32])),
        ];
        let merged: Vec<(u8, u8, u8)> = Merge::new(&old, &state, &fresh)
            .map(|(k, _, age)| (k[0], k[PATH_PART], age))
            .collect();
        let kept = [(1, 3, 0), (2, 1, 1), (3, 2, 0), (4, 1, 0), (5, 1, 0)];
        assert_eq!(merged, kept);
    }
}
