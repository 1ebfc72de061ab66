//! The reads of one expansion as one queue (docs/performance.md, One queue for
//! every path): the listing adds work as it finds it — the tracked files from the
//! index first, then each untracked or walked file as the walk meets it — and
//! every thread of the pool takes the next piece until the listing is done, the
//! queue is empty and no piece is being read any more (one may still put a large
//! file back), so no thread idles while a file waits.
//!
//! A piece of work is a run of files of one directory (the directory is opened
//! once per run, and the cache is asked about the whole run at once); a file
//! known to be large is a piece of its own. The largest pieces go first, so
//! that the last file read is a small one and the threads finish together.
//! While the page cache serves the reads, a large file is left to the threads
//! at the process's priority (see [`Reader`] and [`Pending::next`]: the pool's
//! rule, docs/performance.md).

use std::collections::{BTreeMap, BinaryHeap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::expand::entry::{Content, Entry};
use crate::expand::read::{Looked, Outcome, look_at, read_at, read_regular};
use crate::nofollow::{open_dir, open_workspace};
use crate::path::WorkspacePath;
use crate::platform::{Handle, Stat};

use crate::expand::cache::{DigestCache, Lookup};
use crate::expand::progress;
use crate::expand::threads::{self, Priority};
use crate::tasks::rule::TaskRule;

/// The most files in one piece of work: enough to open a directory once for
/// many files, few enough that the work spreads over every thread.
pub(crate) const RUN: usize = 256;

/// The most readers one addition wakes one by one (the pool's default size).
const MOST_WOKEN: usize = crate::expand::threads::READS_IN_FLIGHT;

/// The number of a piece not queued yet: [`ReadQueue::push`] numbers it.
const NEW: u64 = u64::MAX;

/// A file at least this large (when its size is known) is a piece of its own.
const LARGE: u64 = 1 << 20;

/// How long the `stat` of a file a piece is about to read stays fresh enough to
/// read the file against it; an older one is taken again first.
const FRESH_STAT: Duration = Duration::from_millis(5);

/// A file whose size is not known yet counts as this large when pieces are
/// ordered.
const UNKNOWN_SIZE: u64 = 4096;

/// What one piece of work read: each path with its outcome, in path order.
type Read = Vec<(WorkspacePath, Outcome)>;

/// Who serves a queue, which decides whether it reads large files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// The thread that made the queue: it reads until the queue is closed, empty
    /// and no piece is being read any more, large files included, so that
    /// nothing is left unread whichever pool threads serve.
    Caller,
    /// A thread of the pool, or a disk helper.
    Pool,
}

impl Reader {
    /// Whether this reader, running at `priority`, reads a file of [`LARGE`]
    /// bytes or more. A thread at the lowest priority leaves them to the others
    /// while the page cache serves the reads (`disk_waited` false): a 256 MiB
    /// file it took while every core was busy would be finished by it alone,
    /// at the end, on a core it gets only when nobody else wants one (8 cached
    /// files of 256 MiB: 0.805 s against 0.772 s with both threads at normal
    /// priority; four of 256 MiB beside two busy threads of the host, on two
    /// cores: over 25 s against 1.1 to 1.5 s). The caller and the threads at
    /// the process's priority, one per core once the listing is done, read
    /// them ([`Pending::next`]). Once reads wait on the disk, every thread
    /// takes them: more reads in flight is then the point.
    fn takes_large_files(self, priority: Priority, disk_waited: bool) -> bool {
        self == Reader::Caller || priority == Priority::Process || disk_waited
    }
}

/// What a reader does next ([`Pending::next`]).
enum Next {
    /// Reads this piece.
    Read(Piece),
    /// Waits: the listing may add a piece, or a piece being read put one back.
    Wait,
    /// Stops serving: nothing is left for it to read.
    Leave,
}

/// Where a file to read came from, which decides whether it is in the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// In the set for certain (a tracked file taken from the index, a file of a
    /// walked directory, a path given by name).
    Listed,
    /// In the set if the listing lists it in the end (an untracked file the
    /// moment the walk finds it, before the listing has decided about it).
    Found,
}

/// The read queue of one expansion; see the module documentation.
pub(crate) struct ReadQueue<'a> {
    root: Handle,
    tasks: &'a BTreeMap<&'a WorkspacePath, TaskRule>,
    cache: Option<&'a DigestCache<'a>>,
    pending: Mutex<Pending>,
    more: Condvar,
    read: Mutex<Vec<(u64, Origin, Read)>>,
    stopped: AtomicBool,
    /// Whether the disk helpers were called to this queue.
    helped: AtomicBool,
    /// The workspace's thread count (`Settings::threads`): which pool reads.
    threads: usize,
}

#[derive(Default)]
struct Pending {
    /// Pieces of one large file each ([`Piece::is_large`]).
    large: BinaryHeap<Piece>,
    /// Every other piece.
    pieces: BinaryHeap<Piece>,
    /// Pieces taken and not read yet: one may still put a large file back.
    reading: usize,
    closed: bool,
    /// The number the next piece gets: pieces are put back in this order.
    /// Even: the rest of a piece a reader handed back gets its number plus
    /// one, so that it follows it (and the run in path order stays one).
    next: u64,
}

impl Pending {
    fn insert(&mut self, piece: Piece) {
        if piece.is_large() {
            self.large.push(piece);
        } else {
            self.pieces.push(piece);
        }
    }

    /// The pool's rule: what `reader`, running at `priority`, does next. It
    /// takes the largest piece it reads ([`Reader::takes_large_files`]); with
    /// none queued, it waits while the listing may add one or a piece being
    /// read may put one back (a large file met among the small files of its
    /// directory), and leaves only when neither can happen. A thread that left
    /// while another split a piece of large files would leave them to fewer
    /// threads than there are cores: on two cores, when the thread at the
    /// lowest priority took the piece, to the caller alone (four cached files
    /// of 256 MiB: up to five runs in ten took 0.8 to 1.7 s, not 0.45 s).
    fn next(&mut self, reader: Reader, priority: Priority, disk_waited: bool) -> Next {
        if let Some(piece) = self.pop(reader.takes_large_files(priority, disk_waited)) {
            return Next::Read(piece);
        }
        match self.closed && self.reading == 0 {
            true => Next::Leave,
            false => Next::Wait,
        }
    }

    /// The largest piece, or the largest but large files.
    fn pop(&mut self, large_too: bool) -> Option<Piece> {
        let large_first = large_too
            && match (self.large.peek(), self.pieces.peek()) {
                (Some(large), Some(other)) => large > other,
                (large, _) => large.is_some(),
            };
        let piece = match large_first {
            true => self.large.pop(),
            false => self.pieces.pop(),
        };
        self.reading += usize::from(piece.is_some());
        piece
    }
}

/// Files of one directory, in path order.
struct Piece {
    bytes: u64,
    number: u64,
    origin: Origin,
    paths: Vec<WorkspacePath>,
}

impl Piece {
    /// One file of [`LARGE`] bytes or more.
    fn is_large(&self) -> bool {
        self.paths.len() == 1 && self.bytes >= LARGE
    }
}

impl Ord for Piece {
    /// Larger first; of equal size, the one added first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.bytes, std::cmp::Reverse(self.number))
            .cmp(&(other.bytes, std::cmp::Reverse(other.number)))
    }
}

impl PartialOrd for Piece {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Piece {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Piece {}

impl<'a> ReadQueue<'a> {
    /// An empty queue reading below `workspace`: each path normalized as `tasks`
    /// says, through `cache` when there is one.
    pub(crate) fn new(
        workspace: &Path,
        tasks: &'a BTreeMap<&'a WorkspacePath, TaskRule>,
        cache: Option<&'a DigestCache<'a>>,
        threads: usize,
    ) -> Result<Self> {
        Ok(ReadQueue {
            threads,
            root: open_workspace(workspace)?,
            tasks,
            cache,
            pending: Mutex::new(Pending::default()),
            more: Condvar::new(),
            read: Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
            helped: AtomicBool::new(false),
        })
    }

    /// Adds files to read, each with its size when known (a hint for the order
    /// only). Consecutive files of one directory become one piece of work.
    pub(crate) fn add(
        &self,
        files: impl IntoIterator<Item = (WorkspacePath, Option<u64>)>,
        origin: Origin,
    ) {
        let mut pieces: Vec<Piece> = Vec::new();
        for (path, size) in files {
            let bytes = size.unwrap_or(UNKNOWN_SIZE);
            let joins = pieces.last().is_some_and(|last| {
                bytes < LARGE
                    && last.bytes < LARGE
                    && last.paths.len() < RUN
                    && last.paths[0].dir() == path.dir()
            });
            match pieces.last_mut() {
                Some(last) if joins => {
                    last.bytes += bytes;
                    last.paths.push(path);
                }
                _ => pieces.push(Piece {
                    bytes,
                    number: NEW,
                    origin,
                    paths: vec![path],
                }),
            }
        }
        progress::listed(pieces.iter().map(|piece| piece.paths.len()).sum());
        self.push(pieces);
    }

    fn push(&self, pieces: Vec<Piece>) {
        if pieces.is_empty() || self.stopped.load(Ordering::Relaxed) {
            return;
        }
        let added = pieces.len();
        let large = pieces.iter().any(Piece::is_large);
        let mut pending = self.pending();
        for mut piece in pieces {
            if piece.number == NEW {
                piece.number = pending.next;
                pending.next += 2;
            }
            pending.insert(piece);
        }
        drop(pending);
        if large {
            // The reader woken for it must be one that reads large files.
            self.more.notify_all();
            return;
        }
        // As many readers woken as there are new pieces: waking every waiting
        // thread for each piece costs more than a small tree takes to read.
        for _ in 0..added.min(MOST_WOKEN) {
            self.more.notify_one();
        }
    }

    /// No more work will be added: the readers stop once the queue is empty.
    pub(crate) fn close(&self) {
        self.pending().closed = true;
        self.more.notify_all();
    }

    /// Reads what is queued once the queue is closed: with the pool when more
    /// than one piece of work waits, else on this thread alone (a piece is one
    /// thread's work; the pool would only add starting or waking its threads).
    pub(crate) fn read_rest(&self) -> Result<()> {
        let waiting = {
            let pending = self.pending();
            pending.pieces.len() + pending.large.len()
        };
        match threads::pool_if(self.threads, waiting > 1)? {
            Some(pool) => pool.in_place_scope(|readers| {
                readers.spawn_broadcast(|_, _| self.serve(Reader::Pool));
                self.serve(Reader::Caller);
            }),
            None => self.serve(Reader::Caller),
        }
        Ok(())
    }

    /// The reading is abandoned (the expansion failed for another reason): what
    /// is queued is dropped, and the readers stop after their current piece.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        let mut pending = self.pending();
        pending.pieces.clear();
        pending.large.clear();
        pending.closed = true;
        drop(pending);
        self.more.notify_all();
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads pieces until the queue is closed and empty and no piece is being
    /// read; every thread of the pool runs this, and the thread that made the
    /// queue ([`Reader::Caller`]).
    pub(crate) fn serve(&self, reader: Reader) {
        loop {
            self.call_helpers_if_waiting(reader);
            let Some(piece) = self.next_piece(reader) else {
                return;
            };
            let _reading = Reading(self);
            let large_too = takes_large_files(reader);
            let read = self.read_piece(piece.number, piece.paths, piece.origin, large_too);
            progress::answered(read.len());
            self.read
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((piece.number, piece.origin, read));
        }
    }

    /// Whether a read found the disk in its way and no helpers were called yet.
    fn helpers_wanted(&self) -> bool {
        disk_waited() && !self.helped.load(Ordering::Relaxed)
    }

    /// Once a read of this process found the disk in its way, the disk helpers
    /// (if any) serve this queue too, once: this thread serves on with them,
    /// and returns when they all are done.
    fn call_helpers_if_waiting(&self, reader: Reader) {
        if !self.helpers_wanted() || self.helped.swap(true, Ordering::Relaxed) {
            return;
        }
        let Some(helpers) = threads::disk_helpers(self.threads) else {
            return;
        };
        helpers.in_place_scope(|scope| {
            scope.spawn_broadcast(|_, _| self.serve(Reader::Pool));
            self.serve(reader);
        });
    }

    /// The next piece `reader`, on this thread, reads; `None` when there is
    /// none left for it ([`Pending::next`]).
    fn next_piece(&self, reader: Reader) -> Option<Piece> {
        let mut pending = self.pending();
        loop {
            let (priority, disk_waited) = (threads::current_priority(), disk_waited());
            match pending.next(reader, priority, disk_waited) {
                Next::Read(piece) => return Some(piece),
                Next::Leave => return None,
                Next::Wait => {}
            }
            pending = self
                .more
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Reads the files of one directory: each looked at, the regular ones asked
    /// of the cache together, then the rest read. A large file the cache does
    /// not know is put back as a piece of its own, so that an idle thread reads
    /// it while this one goes on (or one that reads large files, when this
    /// reader does not: `large_too` false).
    fn read_piece(
        &self,
        number: u64,
        paths: Vec<WorkspacePath>,
        origin: Origin,
        large_too: bool,
    ) -> Read {
        let dir = match open_dir(&self.root, paths[0].dir()) {
            Ok(Some(dir)) => dir,
            Ok(None) => {
                return paths
                    .into_iter()
                    .map(|p| (p, Ok(Content::Missing)))
                    .collect();
            }
            Err(problem) => {
                let failed = |p: &WorkspacePath| Err(Box::new(problem.for_file(p)));
                return paths
                    .into_iter()
                    .map(|p| {
                        let outcome = failed(&p);
                        (p, outcome)
                    })
                    .collect();
            }
        };
        let looked_at = Instant::now();
        let looked: Vec<Result<Looked>> = paths.iter().map(|path| look_at(&dir, path)).collect();
        let lookups = self.lookups(&paths, &looked);
        let reads_large = paths.len() == 1 && large_too;
        let mut read = Vec::with_capacity(paths.len());
        let mut files = paths.into_iter().zip(looked).zip(lookups);
        while let Some(((path, looked), lookup)) = files.next() {
            let outcome = match looked {
                Err(e) => Err(e),
                Ok(Looked::Done(content)) => Ok(content),
                Ok(Looked::Regular(seen)) => {
                    let size = u64::try_from(seen.st_size).unwrap_or(0);
                    if !reads_large && size >= LARGE && !matches!(lookup, Lookup::Hit(_)) {
                        self.push(vec![Piece {
                            bytes: size,
                            number: NEW,
                            origin,
                            paths: vec![path],
                        }]);
                        continue;
                    }
                    let rule = self.tasks.get(&path).copied();
                    if matches!(lookup, Lookup::Hit(_)) || looked_at.elapsed() < FRESH_STAT {
                        read_regular(&dir, &path, &seen, rule, self.cache, lookup, || {})
                    } else {
                        // Looked at long enough ago (the piece's earlier files took
                        // time to read) that a file edited meanwhile would only be
                        // refused as changed: looked at again, just before reading.
                        read_at(&dir, &path, rule, self.cache, || {})
                    }
                }
            };
            read.push((path, outcome.map_err(Box::new)));
            if self.helpers_wanted() {
                // The disk is in the way: the rest of the piece goes back to the
                // queue, for the helpers this thread now calls to share.
                let rest: Vec<WorkspacePath> = files.map(|((path, _), _)| path).collect();
                if !rest.is_empty() {
                    self.push(vec![Piece {
                        bytes: UNKNOWN_SIZE * rest.len() as u64,
                        number: number + 1,
                        origin,
                        paths: rest,
                    }]);
                }
                break;
            }
        }
        read
    }

    /// What the cache says of each of `paths`, as [`look_at`] saw them: asked
    /// for every regular file at once (a Tasks file normalized under a rule,
    /// and anything but a regular file, is never cached).
    fn lookups(&self, paths: &[WorkspacePath], looked: &[Result<Looked>]) -> Vec<Lookup> {
        let cacheable = |(path, looked)| self.cacheable(path, looked);
        let files = paths.iter().zip(looked);
        let Some(cache) = self.cache else {
            return files.map(|_| Lookup::Uncacheable).collect();
        };
        let asked: Vec<_> = files.clone().filter_map(cacheable).collect();
        let mut answers = cache.lookup_many(&asked).into_iter();
        files
            .map(|file| match cacheable(file) {
                Some(_) => answers.next().unwrap_or(Lookup::Uncacheable),
                None => Lookup::Uncacheable,
            })
            .collect()
    }

    /// The status of `path` when the cache may answer for it.
    fn cacheable<'p>(
        &self,
        path: &'p WorkspacePath,
        looked: &'p Result<Looked>,
    ) -> Option<(&'p WorkspacePath, &'p Stat)> {
        match looked {
            Ok(Looked::Regular(seen)) if !self.tasks.contains_key(path) => Some((path, seen)),
            _ => None,
        }
    }

    /// A feed for files met one at a time: they join the queue in pieces.
    /// The digest cache the queue answers from, if any.
    pub(crate) fn cache(&self) -> Option<&'a DigestCache<'a>> {
        self.cache
    }

    pub(crate) fn feed(&self, origin: Origin) -> Feed<'_, 'a> {
        Feed {
            queue: self,
            origin,
            batch: Vec::with_capacity(RUN),
        }
    }

    /// Everything read; `None` when the reading was stopped.
    pub(crate) fn into_read(self) -> Option<Reads> {
        if self.stopped.into_inner() {
            return None;
        }
        let pieces = self
            .read
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        Some(Reads::of(pieces))
    }
}

impl Reads {
    /// The pieces' outcomes as runs (see [`Reads`]), from the pieces in any order.
    fn of(mut pieces: Vec<(u64, Origin, Read)>) -> Reads {
        // A piece whose files were all put back as pieces of their own is empty.
        pieces.retain(|(_, _, read)| !read.is_empty());
        pieces.sort_unstable_by_key(|(number, _, _)| *number);
        let (listed, found): (Vec<_>, Vec<_>) = pieces
            .into_iter()
            .partition(|(_, origin, _)| *origin == Origin::Listed);
        let mut listed = listed.into_iter().map(|(_, _, read)| read).peekable();
        let mut sorted: Vec<Read> = Vec::new();
        while let Some(next) = listed.next_if(|next| {
            let last = sorted.last().and_then(|read| read.last());
            let after =
                last.is_none_or(|(last, _)| next.first().is_some_and(|(first, _)| last < first));
            after && next.is_sorted_by(|a, b| a.0 < b.0)
        }) {
            sorted.push(next);
        }
        Reads {
            sorted,
            listed: sorted_unique(listed.flatten().collect()),
            found: sorted_unique(found.into_iter().flat_map(|(_, _, read)| read).collect()),
        }
    }
}

/// Sorted, the first of equal paths kept (a path read twice: listed by two
/// repositories, or in two walked roots).
fn sorted_unique(mut read: Read) -> Read {
    read.sort_by(|a, b| a.0.cmp(&b.0));
    read.dedup_by(|later, earlier| later.0 == earlier.0);
    read
}

/// What a queue read, as runs in path order (each path once within a run): the
/// pieces of listed files that came in path order — the tracked files, added
/// first and in index order — kept as they are, so that each is freed as soon
/// as it is consumed (two copies of a million outcomes would be a hundred
/// megabytes); the other listed files, sorted; the found ones, sorted.
#[derive(Default)]
pub(crate) struct Reads {
    sorted: Vec<Read>,
    listed: Read,
    found: Read,
}

impl Reads {
    /// Every path read, in path order (a path read twice, twice).
    pub(crate) fn paths(&self) -> impl Iterator<Item = &WorkspacePath> {
        let sorted = self.sorted.iter().flatten().map(|(path, _)| path);
        let listed = self.listed.iter().map(|(path, _)| path);
        let found = self.found.iter().map(|(path, _)| path);
        merge(merge(sorted, listed), found)
    }

    /// How many outcomes there are.
    pub(crate) fn len(&self) -> usize {
        self.sorted.iter().map(Vec::len).sum::<usize>() + self.listed.len() + self.found.len()
    }

    /// The outcomes as two runs in path order: the pieces that came sorted
    /// (most of them, each freed as it is consumed), and the rest sorted — the
    /// other listed files, the found ones that are among `listing` (sorted,
    /// the listing's final word on them), and `more`.
    pub(crate) fn into_runs(
        self,
        listing: &[WorkspacePath],
        more: Read,
    ) -> (impl Iterator<Item = (WorkspacePath, Outcome)> + use<>, Read) {
        let mut listing = listing.iter().peekable();
        let found = self.found.into_iter().filter(|(path, _)| {
            while listing.next_if(|listed| *listed < path).is_some() {}
            listing.peek().is_some_and(|listed| *listed == path)
        });
        let mut rest = self.listed;
        rest.extend(found);
        rest.extend(more);
        (self.sorted.into_iter().flatten(), sorted_unique(rest))
    }
}

/// The outcome of `path` from a run in path order, skipping the paths before it.
pub(crate) fn take<I: Iterator<Item = (WorkspacePath, Outcome)>>(
    run: &mut std::iter::Peekable<I>,
    path: &WorkspacePath,
) -> Option<(WorkspacePath, Outcome)> {
    while run.next_if(|(done, _)| done < path).is_some() {}
    run.next_if(|(done, _)| done == path)
}

/// Two iterators in order, merged in order.
fn merge<'p>(
    a: impl Iterator<Item = &'p WorkspacePath>,
    b: impl Iterator<Item = &'p WorkspacePath>,
) -> impl Iterator<Item = &'p WorkspacePath> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if y < x => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// A piece taken from the queue and being read: counted in
/// [`Pending::reading`] until dropped, even by a panic.
struct Reading<'q, 'a>(&'q ReadQueue<'a>);

impl Drop for Reading<'_, '_> {
    fn drop(&mut self) {
        let mut pending = self.0.pending();
        pending.reading -= 1;
        if pending.reading == 0 && pending.closed {
            // The caller may be waiting for the last piece to be read.
            self.0.more.notify_all();
        }
    }
}

/// Files found one at a time (by a walk), added to the queue [`RUN`] at a time
/// and when the feed is dropped.
pub(crate) struct Feed<'q, 'a> {
    queue: &'q ReadQueue<'a>,
    origin: Origin,
    batch: Vec<(WorkspacePath, Option<u64>)>,
}

impl Feed<'_, '_> {
    /// Hands what is batched to the queue now.
    pub(crate) fn flush(&mut self) {
        self.queue.add(std::mem::take(&mut self.batch), self.origin);
    }

    /// Adds a file, with its size when known.
    pub(crate) fn push(&mut self, path: WorkspacePath, size: Option<u64>) {
        self.batch.push((path, size));
        if self.batch.len() == RUN {
            self.queue.add(std::mem::take(&mut self.batch), self.origin);
        }
    }
}

impl Drop for Feed<'_, '_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Whether `reader`, on this thread, reads large files now
/// ([`Reader::takes_large_files`]).
fn takes_large_files(reader: Reader) -> bool {
    reader.takes_large_files(threads::current_priority(), disk_waited())
}

/// Whether a read of this process has met the disk.
fn disk_waited() -> bool {
    crate::expand::disk_waits::disk_waited()
}

/// Reads every path in parallel on the pool of `threads` (the workspace's
/// count). One outcome per path, in the
/// input order; `None` when `stop` was raised before every path was read (the
/// caller has failed for another reason and no longer needs them).
pub(crate) fn read_contents(
    workspace: &Path,
    paths: &[WorkspacePath],
    tasks: &BTreeMap<&WorkspacePath, TaskRule>,
    cache: Option<&DigestCache<'_>>,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Option<Vec<Outcome>>> {
    if paths.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let queue = ReadQueue::new(workspace, tasks, cache, threads)?;
    if stop.load(Ordering::Relaxed) {
        queue.stop();
    }
    queue.add(
        paths.iter().map(|path| (path.clone(), None)),
        Origin::Listed,
    );
    queue.close();
    queue.read_rest()?;
    let Some(read) = queue.into_read() else {
        return Ok(None);
    };
    let (sorted, rest) = read.into_runs(&[], Vec::new());
    let (mut sorted, mut rest) = (sorted.peekable(), rest.into_iter().peekable());
    let outcomes = paths.iter().map(|path| {
        match take(&mut sorted, path).or_else(|| take(&mut rest, path)) {
            Some((_, outcome)) => outcome,
            // Only a path given twice or out of order: read on this thread.
            None => Entry::read_with(workspace, path, tasks.get(path).copied())
                .map(|entry| entry.content)
                .map_err(Box::new),
        }
    });
    Ok(Some(outcomes.collect()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use sha2::{Digest as _, Sha256};

    fn wp(s: &str) -> WorkspacePath {
        WorkspacePath::new(s).unwrap()
    }

    fn queued(queue: &ReadQueue<'_>) -> Vec<(u64, Vec<String>)> {
        let mut pending = queue.pending();
        std::iter::from_fn(|| pending.pop(true))
            .map(|piece| {
                let paths = piece.paths.iter().map(|p| p.as_str().to_owned()).collect();
                (piece.bytes, paths)
            })
            .collect()
    }

    fn outcomes(paths: &[&str], byte: u8) -> Read {
        let digest = crate::expand::entry::Digest([byte; 32]);
        let file = || {
            Ok(Content::File {
                executable: false,
                digest,
            })
        };
        paths.iter().map(|p| (wp(p), file())).collect()
    }

    fn run_paths(read: Reads, listing: &[&str]) -> Vec<(String, u8)> {
        let listing: Vec<WorkspacePath> = listing.iter().map(|p| wp(p)).collect();
        let (sorted, rest) = read.into_runs(&listing, Vec::new());
        let byte = |outcome: &Outcome| match outcome {
            Ok(Content::File { digest, .. }) => digest.0[0],
            _ => 0,
        };
        let mut runs: Vec<(String, u8)> = Vec::new();
        for (path, outcome) in sorted.chain(std::iter::once((wp("~"), Ok(Content::Missing)))) {
            runs.push((path.as_str().to_owned(), byte(&outcome)));
        }
        for (path, outcome) in rest {
            runs.push((path.as_str().to_owned(), byte(&outcome)));
        }
        runs
    }

    /// The sorted run takes pieces only while they come in path order (an empty
    /// piece, all of whose files were put back, breaks nothing); everything else
    /// is sorted, the first of a path read twice kept, and a found file counts
    /// only when the listing lists it.
    #[test]
    fn reads_come_back_as_runs_in_path_order() {
        let pieces = vec![
            (0, Origin::Listed, outcomes(&["m"], 1)),
            (1, Origin::Listed, Vec::new()),
            (2, Origin::Listed, outcomes(&["a", "b"], 2)),
            (3, Origin::Listed, outcomes(&["x", "y"], 3)),
            (4, Origin::Found, outcomes(&["c", "n"], 4)),
            (5, Origin::Listed, outcomes(&["b", "z"], 5)),
            (6, Origin::Listed, outcomes(&["q", "p"], 6)),
        ];
        let read = Reads::of(pieces.into_iter().rev().collect());
        let paths: Vec<&str> = read.paths().map(WorkspacePath::as_str).collect();
        assert_eq!(paths, ["a", "b", "c", "m", "n", "p", "q", "x", "y", "z"]);
        let runs = run_paths(read, &["c"]);
        let expected = [
            ("m", 1),
            ("~", 0),
            ("a", 2),
            ("b", 2),
            ("c", 4),
            ("p", 6),
            ("q", 6),
            ("x", 3),
            ("y", 3),
            ("z", 5),
        ];
        let expected: Vec<(String, u8)> = expected
            .iter()
            .map(|(p, b)| ((*p).to_owned(), *b))
            .collect();
        assert_eq!(runs, expected);
    }

    /// The rest of a piece a reader hands back (the disk was in its way) is
    /// numbered right after the piece, between two queued ones: the pieces of
    /// the index stay one run in path order, freed as they are merged, instead
    /// of being collected and sorted (a copy of every outcome at 10^6 files).
    #[test]
    fn a_handed_back_rest_stays_in_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = BTreeMap::new();
        let queue = ReadQueue::new(dir.path(), &tasks, None, 0).unwrap();
        let piece = |paths: &[&str], number| Piece {
            bytes: 1,
            number,
            origin: Origin::Listed,
            paths: paths.iter().map(|p| wp(p)).collect(),
        };
        queue.push(vec![piece(&["a/1", "a/2"], NEW), piece(&["b/1"], NEW)]);
        let mut pending = queue.pending();
        let numbers: Vec<u64> = std::iter::from_fn(|| pending.pieces.pop())
            .map(|p| p.number)
            .collect();
        drop(pending);
        assert_eq!(numbers, [0, 2], "queued pieces are numbered two apart");
        let read = Reads::of(vec![
            (2, Origin::Listed, outcomes(&["b/1"], 3)),
            (1, Origin::Listed, outcomes(&["a/2"], 2)),
            (0, Origin::Listed, outcomes(&["a/1"], 1)),
        ]);
        assert_eq!((read.sorted.len(), read.listed.len()), (3, 0));
    }

    #[test]
    fn pieces_hold_one_directory_and_the_largest_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = BTreeMap::new();
        let queue = ReadQueue::new(dir.path(), &tasks, None, 0).unwrap();
        let sized = |p: &str, size: u64| (wp(p), Some(size));
        queue.add(
            [
                sized("a/1", 10),
                sized("a/2", 20),
                sized("a/big", LARGE),
                sized("a/3", 30),
                sized("b/1", 5),
            ],
            Origin::Listed,
        );
        queue.add(
            (0..RUN + 1).map(|i| (wp(&format!("c/{i:03}")), None)),
            Origin::Found,
        );
        let order = queued(&queue);
        let firsts: Vec<(u64, &str, usize)> = order
            .iter()
            .map(|(bytes, paths)| (*bytes, paths[0].as_str(), paths.len()))
            .collect();
        let unknown = UNKNOWN_SIZE;
        assert_eq!(
            firsts,
            [
                (LARGE, "a/big", 1),
                (RUN as u64 * unknown, "c/000", RUN),
                (unknown, "c/256", 1),
                (30, "a/1", 2),
                (30, "a/3", 1),
                (5, "b/1", 1),
            ]
        );
        assert_eq!(order[3].1, ["a/1", "a/2"]);
    }

    /// A large file met among small ones of its directory is read by itself (by
    /// whichever thread is free), and every answer is still the file's own.
    #[test]
    fn a_large_file_among_small_ones_is_read_alone_and_right() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; (LARGE + 5) as usize];
        std::fs::write(dir.path().join("a"), b"small").unwrap();
        std::fs::write(dir.path().join("b"), &big).unwrap();
        std::fs::write(dir.path().join("c"), b"also small").unwrap();
        let paths = [wp("a"), wp("b"), wp("c"), wp("d")];
        let never = AtomicBool::new(false);
        let read = read_contents(dir.path(), &paths, &BTreeMap::new(), None, 0, &never)
            .unwrap()
            .unwrap();
        let digest = |bytes: &[u8]| crate::expand::entry::Digest(Sha256::digest(bytes).into());
        let expected = [
            Some(digest(b"small")),
            Some(digest(&big)),
            Some(digest(b"also small")),
            None,
        ];
        for (outcome, expected) in read.iter().zip(expected) {
            match (outcome.as_ref().unwrap(), expected) {
                (Content::File { digest, .. }, Some(want)) => assert_eq!(*digest, want),
                (Content::Missing, None) => {}
                (other, want) => panic!("{other:?} where {want:?} was expected"),
            }
        }
    }

    /// A thread at the lowest priority reads the small files and leaves the
    /// large ones, known large or found large when looked at, to the caller,
    /// which reads them after the pool's threads are done.
    #[test]
    fn a_low_priority_reader_leaves_large_files_to_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; (LARGE + 5) as usize];
        for name in ["a", "b", "c"] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
        }
        std::fs::write(dir.path().join("a/small"), b"small").unwrap();
        std::fs::write(dir.path().join("b/big"), &big).unwrap();
        std::fs::write(dir.path().join("c/unknown"), &big).unwrap();
        let tasks = BTreeMap::new();
        let queue = ReadQueue::new(dir.path(), &tasks, None, 0).unwrap();
        queue.add(
            [
                (wp("a/small"), Some(5)),
                (wp("b/big"), Some(LARGE + 5)),
                (wp("c/unknown"), None),
            ],
            Origin::Listed,
        );
        queue.close();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                crate::expand::threads::lowest_priority();
                assert_eq!(threads::current_priority(), Priority::Lowest);
                assert!(!disk_waited(), "the files are in the page cache");
                queue.serve(Reader::Pool);
            });
        });
        let left: Vec<(u64, Vec<String>)> = {
            let pending = queue.pending();
            let large = pending
                .large
                .iter()
                .map(|p| (p.bytes, p.paths[0].to_string()));
            large.map(|(bytes, path)| (bytes, vec![path])).collect()
        };
        let mut left = left;
        left.sort();
        let expected = |path: &str| (LARGE + 5, vec![path.to_owned()]);
        assert_eq!(left, [expected("b/big"), expected("c/unknown")]);
        assert!(queue.pending().pieces.is_empty());
        queue.serve(Reader::Caller);
        let read = queue.into_read().unwrap();
        let first_byte = |bytes: &[u8]| Sha256::digest(bytes)[0];
        let expected = [
            ("a/small", first_byte(b"small")),
            ("b/big", first_byte(&big)),
            ("c/unknown", first_byte(&big)),
            ("~", 0),
        ];
        let expected: Vec<(String, u8)> = expected
            .iter()
            .map(|(p, b)| ((*p).to_owned(), *b))
            .collect();
        assert_eq!(run_paths(read, &[]), expected);
    }

    /// Four files of [`LARGE`] bytes or more that the walk found in one
    /// directory (sizes unknown: one piece), read, the listing done, by the
    /// calling thread and the pool of `count` threads on `cores` cores
    /// ([`threads::priorities`]), the page cache serving the reads: each
    /// thread in turn, the pool's last first, asks the queue what to do next,
    /// and reads the piece it took at its next turn. Which files each thread
    /// hashed, the caller's first. No timing: the queue's own decisions
    /// ([`Pending::next`], [`ReadQueue::read_piece`]), step by step.
    fn assignment(count: usize, cores: usize) -> Vec<Vec<String>> {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; (LARGE + 5) as usize];
        let names = ["f1", "f2", "f3", "f4"];
        for name in names {
            std::fs::write(dir.path().join(name), &big).unwrap();
        }
        let tasks = BTreeMap::new();
        let queue = ReadQueue::new(dir.path(), &tasks, None, count).unwrap();
        queue.add(names.map(|name| (wp(name), None)), Origin::Listed);
        queue.close();
        let pool = threads::priorities(count, cores).into_iter();
        let readers: Vec<(Reader, Priority)> = std::iter::once((Reader::Caller, Priority::Process))
            .chain(pool.map(|priority| (Reader::Pool, priority)))
            .collect();
        let mut holding: Vec<Option<Piece>> = readers.iter().map(|_| None).collect();
        let mut left = vec![false; readers.len()];
        let mut hashed = vec![Vec::new(); readers.len()];
        let turns = (0..readers.len()).rev().cycle();
        for thread in turns.take(64 * readers.len()) {
            let (reader, priority) = readers[thread];
            if left[thread] {
                continue;
            }
            match holding[thread].take() {
                Some(piece) => {
                    let _reading = Reading(&queue);
                    let large_too = reader.takes_large_files(priority, false);
                    let read = queue.read_piece(piece.number, piece.paths, piece.origin, large_too);
                    for (path, outcome) in read {
                        assert!(matches!(outcome, Ok(Content::File { .. })));
                        hashed[thread].push(path.as_str().to_owned());
                    }
                }
                None => match queue.pending().next(reader, priority, false) {
                    Next::Read(piece) => holding[thread] = Some(piece),
                    Next::Wait => {}
                    Next::Leave => left[thread] = true,
                },
            }
        }
        assert!(left.iter().all(|left| *left), "every thread is done");
        let mut all: Vec<&String> = hashed.iter().flatten().collect();
        all.sort();
        assert_eq!(all, names, "every file hashed once");
        hashed
    }

    /// The default pool on two cores: the two threads at the process's
    /// priority (the caller, once it has listed, and the pool's first) hash
    /// two large files each, even when the pool's thread at the lowest
    /// priority takes the piece that holds them (the pool's first does not
    /// leave while it is split). An explicit count is that many threads in
    /// all: with two, the pool's one thread and the caller hash two each;
    /// with one, the caller hashes all four.
    #[test]
    fn large_files_are_hashed_by_a_thread_per_core() {
        let [caller, first, lowest] = &assignment(0, 2)[..] else {
            panic!("the caller and two threads");
        };
        assert_eq!((caller.len(), first.len()), (2, 2), "{caller:?} {first:?}");
        assert!(lowest.is_empty(), "{lowest:?}");
        // An explicit count is that many threads in all, the caller among them.
        let [caller, other] = &assignment(2, 2)[..] else {
            panic!("the caller and one thread");
        };
        assert_eq!((caller.len(), other.len()), (2, 2), "{caller:?} {other:?}");
        let [caller] = &assignment(1, 2)[..] else {
            panic!("the caller alone");
        };
        assert_eq!(caller.len(), 4, "{caller:?}");
    }

    #[test]
    fn paths_given_out_of_order_or_twice_are_each_answered() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), b"a").unwrap();
        std::fs::write(dir.path().join("b"), b"b").unwrap();
        let paths = [wp("b"), wp("a"), wp("b")];
        let never = AtomicBool::new(false);
        let read = read_contents(dir.path(), &paths, &BTreeMap::new(), None, 0, &never)
            .unwrap()
            .unwrap();
        assert_eq!(read.len(), 3);
        assert!(read.iter().all(|o| matches!(o, Ok(Content::File { .. }))));
        assert_eq!(format!("{:?}", read[0]), format!("{:?}", read[2]));
    }
}
