//! Reading paths into entries (docs/format.md §2): never following a symlink, neither
//! the file's own nor a parent directory's, in bounded chunks, and refusing a
//! file that changes while it is read.
//!
//! Every path is reached `openat`-style: the workspace directory is opened
//! once, each directory below it is opened relative to its parent with
//! `O_NOFOLLOW | O_DIRECTORY`, and files are opened relative to their
//! directory with `O_NOFOLLOW`. A directory swapped for a symlink at any moment
//! makes the open fail instead of leading outside the workspace, and the kernel
//! resolves one path component per call instead of the whole path per file.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest as _, Sha256};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::cache::{DigestCache, Lookup};
use crate::expand::disk_waits::read_without_waiting;
use crate::expand::entry::{Content, Digest, Entry};
use crate::expand::progress;
use crate::nofollow::{DirProblem, describe, open_dir, open_workspace};
use crate::path::WorkspacePath;
use crate::platform::{self, Access, Errno, FileType, Handle, Stat};
use crate::tasks::normalize::{HashOutput, TasksNormalizer};
use crate::tasks::rule::TaskRule;

/// Read size. 256 KiB amortizes the syscall over enough bytes that SHA-256
/// dominates, while a thread's buffer stays far below the memory budget.
const CHUNK: usize = 256 * 1024;

/// Files larger than this are announced to the kernel as read sequentially.
const SEQUENTIAL_FROM: u64 = 4 * CHUNK as u64;

/// The alignment of the read buffer: a page.
const PAGE: usize = 4096;

thread_local! {
    /// One buffer per hashing thread, reused for every file: no per-file
    /// allocation. Over-allocated by a page so that [`aligned`] can start the
    /// reads on a page boundary.
    static BUFFER: RefCell<Box<[u8]>> = RefCell::new(vec![0u8; CHUNK + PAGE].into_boxed_slice());
}

/// The [`CHUNK`] bytes of `buffer` that start on a page boundary. The kernel
/// copies from the page cache into a page-aligned buffer with whole-page moves;
/// into `malloc`'s buffer, 16 bytes past a page, the same copy cost 3 to 4 times
/// the system time when SHA-256 ran right after it (8 files of 256 MiB,
/// `--no-cache`: 1.18 s before, 0.82 s after; docs/performance.md, B).
fn aligned(buffer: &mut [u8]) -> &mut [u8] {
    let offset = buffer.as_ptr().align_offset(PAGE).min(PAGE);
    &mut buffer[offset..offset + CHUNK]
}

impl Entry {
    /// Reads one path below `workspace` into its entry: bytes from the working
    /// tree, never following a symlink (the path's own or a parent
    /// directory's), in bounded chunks. `normalize` applies the default Tasks
    /// normalization, `task-checkbox-v1` (approval Tasks only).
    pub fn read(workspace: &Path, path: &WorkspacePath, normalize: bool) -> Result<Self> {
        Self::read_with(workspace, path, normalize.then(TaskRule::default))
    }

    /// [`Entry::read`], a Tasks file normalized under `rule` (`None`: raw bytes).
    pub fn read_with(
        workspace: &Path,
        path: &WorkspacePath,
        rule: Option<TaskRule>,
    ) -> Result<Self> {
        // On the calling thread: handing one file to the pool costs more than reading it.
        let root = open_workspace(workspace)?;
        let content = read_in(&open_dir(&root, path.dir()), path, rule, None)?;
        Ok(Entry {
            path: path.clone(),
            content,
        })
    }
}

/// What reading one path gave. The error is boxed: it is rare and large, and
/// an inventory holds one outcome per path until they become entries.
pub(crate) type Outcome = std::result::Result<Content, Box<Error>>;

/// Reads `path` in its directory, as [`open_dir`] opened it.
fn read_in(
    dir: &std::result::Result<Option<Handle>, DirProblem>,
    path: &WorkspacePath,
    rule: Option<TaskRule>,
    cache: Option<&DigestCache<'_>>,
) -> Result<Content> {
    match dir {
        Ok(Some(fd)) => read_at(fd, path, rule, cache, || {}),
        Ok(None) => Ok(Content::Missing),
        Err(problem) => Err(problem.for_file(path)),
    }
}

/// Reads the file `path` in its opened directory `dir`: a raw regular file the
/// `cache` knows in this very version is not read (a Tasks file normalized under
/// a rule, a symlink or a special file never goes through the cache).
///
/// `after_chunk` runs after each chunk is hashed; it exists so that tests can
/// change the file mid-read deterministically (production passes a no-op).
pub(crate) fn read_at(
    dir: &Handle,
    path: &WorkspacePath,
    rule: Option<TaskRule>,
    cache: Option<&DigestCache<'_>>,
    after_chunk: impl FnMut(),
) -> Result<Content> {
    let seen = match look_at(dir, path)? {
        Looked::Done(content) => return Ok(content),
        Looked::Regular(seen) => seen,
    };
    let lookup = match (cache, rule) {
        (Some(cache), None) => cache.lookup(path, &seen),
        _ => Lookup::Uncacheable,
    };
    read_regular(dir, path, &seen, rule, cache, lookup, after_chunk)
}

/// What a `stat` of a path found, before any file is opened.
pub(crate) enum Looked {
    /// A regular file in this version, to be read (or answered by the cache).
    Regular(Stat),
    /// The answer already: missing, or a symlink's target.
    Done(Content),
}

/// Looks at `path` in its opened directory without following a symlink: a
/// regular file's status, or the content of anything else. A special file
/// (FIFO, socket, device, directory) is refused, never opened.
pub(crate) fn look_at(dir: &Handle, path: &WorkspacePath) -> Result<Looked> {
    let name = path.file_name();
    let unreadable = |operation, e: Errno| Error::Unreadable {
        path: DisplayPath::from(path.as_str()),
        operation,
        source: e.into(),
    };
    let seen = match platform::stat_at(dir, name) {
        Ok(st) => st,
        Err(Errno::NOENT | Errno::NOTDIR) => {
            return Ok(Looked::Done(Content::Missing));
        }
        Err(e) => return Err(unreadable("stat", e)),
    };
    match seen.file_type() {
        FileType::RegularFile => Ok(Looked::Regular(seen)),
        FileType::Symlink => {
            let target =
                platform::read_link_at(dir, name).map_err(|e| unreadable("read link", e))?;
            let digest = Sha256::digest(&target);
            Ok(Looked::Done(Content::Symlink {
                digest: Digest(digest.into()),
            }))
        }
        other => Err(Error::SpecialFile {
            path: DisplayPath::from(path.as_str()),
            what: describe(other),
        }),
    }
}

/// The content of the regular file `path`, seen in the version `seen`: from the
/// cache's `lookup` when it knows this version, else read (and then recorded
/// in the cache).
pub(crate) fn read_regular(
    dir: &Handle,
    path: &WorkspacePath,
    seen: &Stat,
    rule: Option<TaskRule>,
    cache: Option<&DigestCache<'_>>,
    lookup: Lookup,
    after_chunk: impl FnMut(),
) -> Result<Content> {
    if let Lookup::Hit(digest) = lookup {
        return Ok(Content::File {
            executable: seen.st_mode & 0o111 != 0,
            digest,
        });
    }
    // Recorded only when old enough and settled before the read: every page
    // dirty then written back, so that a later write moves the times
    // (docs/performance.md, The cache's safety rule).
    let recording = match (cache, lookup) {
        (Some(cache), Lookup::Miss(key)) if cache.may_record(seen) => Some((cache, key)),
        _ => None,
    };
    let settle = |file: &File| recording.is_some_and(|(cache, _)| cache.settle(file, seen));
    let (content, settled) =
        hash_regular_file(dir, path.file_name(), path, seen, rule, settle, after_chunk)?;
    // `seen` is the version the read verified (the descriptor matched it after).
    if let (Some((cache, key)), true, Content::File { digest, .. }) = (recording, settled, &content)
    {
        cache.record(key, seen, *digest);
    }
    Ok(content)
}

/// Hashes a regular file through an `O_NOFOLLOW` descriptor, and checks after
/// the read that it is the same, unchanged file the stat before it saw.
/// `settle` runs on the opened file before the read; what it answered is
/// returned with the content.
fn hash_regular_file(
    dir: &Handle,
    name: &str,
    path: &WorkspacePath,
    seen: &Stat,
    rule: Option<TaskRule>,
    settle: impl FnOnce(&File) -> bool,
    after_chunk: impl FnMut(),
) -> Result<(Content, bool)> {
    let display = || DisplayPath::from(path.as_str());
    let changed = || Error::ChangedWhileReading { path: display() };
    let unreadable = |operation, source| Error::Unreadable {
        path: display(),
        operation,
        source,
    };
    // Never followed: if the path became a symlink since the stat, fail (ELOOP)
    // rather than hash what it points to. If it became a FIFO, the open does
    // not hang (`Access`).
    let fd = match platform::open_file_at(dir, name, Access::Read) {
        Ok(fd) => fd,
        Err(Errno::LOOP | Errno::NOENT | Errno::NOTDIR) => {
            return Err(changed());
        }
        Err(e) => return Err(unreadable("open", e.into())),
    };
    let mut file = File::from(fd);
    if platform::ADVISES_READ_AHEAD && u64::try_from(seen.st_size).unwrap_or(0) > SEQUENTIAL_FROM {
        // A hint only (a failure changes nothing): read from a cold disk, a large
        // file gets the kernel's larger readahead window.
        platform::advise_sequential(&file);
    }
    let settled = settle(&file);
    let started = SystemTime::now();
    // The stat taken before the open serves as the "before" state: if the path
    // was replaced or written between the two, the inode, size or times of the
    // descriptor differ from it after the read. This saves one stat per file.
    let mut after_chunk = after_chunk;
    let digest =
        hash_checked(&mut file, seen, rule, &mut after_chunk).map_err(|e| e.for_path(path))?;
    // A write that was already in progress at the stat updated the times before
    // it, so the check above cannot see it, yet the read may have met half its
    // bytes. Such a file was modified moments ago: read it once more, from the
    // start, and accept only if both reads agree.
    if modified_recently(seen, started) {
        file.rewind().map_err(|e| unreadable("read", e))?;
        let again =
            hash_checked(&mut file, seen, rule, &mut || {}).map_err(|e| e.for_path(path))?;
        if again != digest {
            return Err(changed());
        }
    }
    let content = Content::File {
        executable: seen.st_mode & 0o111 != 0,
        digest,
    };
    Ok((content, settled))
}

/// Why one hashing pass failed.
enum PassFailure {
    Changed,
    Io(&'static str, io::Error),
}

impl PassFailure {
    fn for_path(self, path: &WorkspacePath) -> Error {
        match self {
            PassFailure::Changed => Error::ChangedWhileReading {
                path: DisplayPath::from(path.as_str()),
            },
            PassFailure::Io(operation, source) => Error::Unreadable {
                path: DisplayPath::from(path.as_str()),
                operation,
                source,
            },
        }
    }
}

/// One pass: hashes the file's `seen.st_size` bytes, then checks that the
/// descriptor still shows the version `seen` describes.
fn hash_checked(
    file: &mut File,
    seen: &Stat,
    rule: Option<TaskRule>,
    after_chunk: &mut dyn FnMut(),
) -> std::result::Result<Digest, PassFailure> {
    let size = u64::try_from(seen.st_size).unwrap_or(0);
    let digest = hash_stream(file, size, seen.st_dev, rule, after_chunk)
        .map_err(|e| PassFailure::Io("read", e))?
        .ok_or(PassFailure::Changed)?;
    let after = platform::fstat(&*file).map_err(|e| PassFailure::Io("stat", e.into()))?;
    if !same_version(seen, &after) {
        return Err(PassFailure::Changed);
    }
    Ok(digest)
}

/// Hashes exactly `size` bytes; `None` when the file ends early (it shrank).
/// Reading stops at `size` rather than at EOF, saving one syscall per file; a
/// file that grew is caught by the size check after the read.
fn hash_stream(
    file: &mut File,
    size: u64,
    device: u64,
    rule: Option<TaskRule>,
    after_chunk: &mut dyn FnMut(),
) -> io::Result<Option<Digest>> {
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        let buffer = aligned(&mut buffer);
        let mut remaining = size;
        let mut sink = Sink::new(rule);
        while remaining > 0 {
            let want = buffer
                .len()
                .min(usize::try_from(remaining).unwrap_or(usize::MAX));
            let read = match remaining == size {
                true => read_first(file, &mut buffer[..want], device),
                false => file.read(&mut buffer[..want]),
            };
            let n = match read {
                Ok(0) => return Ok(None),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            sink.update(&buffer[..n]);
            progress::hashed(n);
            remaining -= n as u64;
            after_chunk();
        }
        Ok(Some(sink.finish()))
    })
}

/// The first read of a file: what the page cache holds, until the process has
/// met the disk (`disk_waits::read_without_waiting`); when that reads nothing, an
/// ordinary read.
fn read_first(file: &mut File, buffer: &mut [u8], device: u64) -> io::Result<usize> {
    match read_without_waiting(file, buffer, u64::MAX, device) {
        Some(n) => Ok(n),
        None => file.read(buffer),
    }
}

/// Raw hashing, or hashing through a Tasks normalizer.
enum Sink {
    Raw(Sha256),
    Tasks(TasksNormalizer, HashOutput),
}

impl Sink {
    fn new(rule: Option<TaskRule>) -> Self {
        match rule {
            Some(rule) => Sink::Tasks(TasksNormalizer::new(rule), HashOutput::default()),
            None => Sink::Raw(Sha256::new()),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Sink::Raw(h) => h.update(bytes),
            Sink::Tasks(n, out) => n.update(bytes, out),
        }
    }

    fn finish(self) -> Digest {
        match self {
            Sink::Raw(h) => Digest(h.finalize().into()),
            Sink::Tasks(n, mut out) => {
                n.finish(&mut out);
                Digest(out.finalize())
            }
        }
    }
}

/// How close to the start of a read a file's last change must be for the read
/// to be repeated. Generous on purpose: timestamps may be as coarse as a clock
/// tick, and a second read of a file edited a second ago costs little.
const RECENT: Duration = Duration::from_secs(1);

/// Whether the file's content or metadata changed within [`RECENT`] of `started`.
fn modified_recently(stat: &Stat, started: SystemTime) -> bool {
    let time = |secs: i64, nanos: i64| {
        Duration::new(
            u64::try_from(secs).unwrap_or(0),
            u32::try_from(nanos).unwrap_or(0),
        )
    };
    let changed =
        time(stat.st_mtime, stat.st_mtime_nsec).max(time(stat.st_ctime, stat.st_ctime_nsec));
    let started = started.duration_since(UNIX_EPOCH).unwrap_or_default();
    changed + RECENT >= started
}

/// Same inode, and size, modification time and change time unchanged. The
/// change time also catches a `chmod` or a rewrite that restored the old mtime.
fn same_version(a: &Stat, b: &Stat) -> bool {
    (a.st_ino, a.st_dev, a.st_size, a.st_mode) == (b.st_ino, b.st_dev, b.st_size, b.st_mode)
        && (a.st_mtime, a.st_mtime_nsec) == (b.st_mtime, b.st_mtime_nsec)
        && (a.st_ctime, a.st_ctime_nsec) == (b.st_ctime, b.st_ctime_nsec)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::expand::read_queue::read_contents;
    use crate::platform::symlink;
    use std::collections::BTreeMap;
    use std::fs::OpenOptions;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn wp(s: &str) -> WorkspacePath {
        WorkspacePath::new(s).unwrap()
    }

    #[test]
    fn a_raised_stop_abandons_the_reading() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        let paths = [wp("f"), wp("g")];
        let go = AtomicBool::new(false);
        let read = read_contents(dir.path(), &paths, &BTreeMap::new(), None, 0, &go)
            .unwrap()
            .unwrap();
        assert!(matches!(read[0], Ok(Content::File { .. })));
        assert!(matches!(read[1], Ok(Content::Missing)));
        let stop = AtomicBool::new(true);
        assert!(
            read_contents(dir.path(), &paths, &BTreeMap::new(), None, 0, &stop)
                .unwrap()
                .is_none()
        );
    }

    fn read_content(workspace: &Path, path: &WorkspacePath, normalize: bool) -> Result<Content> {
        Entry::read(workspace, path, normalize).map(|e| e.content)
    }

    fn sha(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    #[test]
    fn file_symlink_missing_and_modes() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.txt"), b"hello\n").unwrap();
        std::fs::write(d.join("run.sh"), b"#!/bin/sh\n").unwrap();
        platform::set_mode(d.join("run.sh"), 0o744).unwrap();
        symlink("a.txt", d.join("link")).unwrap();
        symlink("nowhere", d.join("dangling")).unwrap();
        assert_eq!(
            read_content(d, &wp("a.txt"), false).unwrap(),
            Content::File {
                executable: false,
                digest: sha(b"hello\n")
            }
        );
        assert_eq!(
            read_content(d, &wp("run.sh"), false).unwrap(),
            Content::File {
                executable: true,
                digest: sha(b"#!/bin/sh\n")
            }
        );
        assert_eq!(
            read_content(d, &wp("link"), false).unwrap(),
            Content::Symlink {
                digest: sha(b"a.txt")
            }
        );
        assert_eq!(
            read_content(d, &wp("dangling"), false).unwrap(),
            Content::Symlink {
                digest: sha(b"nowhere")
            }
        );
        assert_eq!(
            read_content(d, &wp("gone"), false).unwrap(),
            Content::Missing
        );
        assert_eq!(
            read_content(d, &wp("a.txt/x"), false).unwrap(),
            Content::Missing
        );
    }

    #[test]
    fn symlinked_parents_are_never_traversed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("real/sub")).unwrap();
        std::fs::write(d.join("real/sub/f"), b"x").unwrap();
        symlink("real", d.join("link")).unwrap();
        std::fs::write(d.join("plain"), b"x").unwrap();
        let err = read_content(d, &wp("link/sub/f"), false).unwrap_err();
        assert_eq!(err.code(), "symlinked-parent");
        assert!(
            err.to_string().contains("below the symlink 'link'"),
            "{err}"
        );
        assert_eq!(
            read_content(d, &wp("plain/f"), false).unwrap(),
            Content::Missing
        );
        assert_eq!(
            read_content(d, &wp("none/f"), false).unwrap(),
            Content::Missing
        );
        let never = AtomicBool::new(false);
        let paths = [wp("link/sub/f"), wp("real/sub/f")];
        let read = read_contents(d, &paths, &BTreeMap::new(), None, 0, &never)
            .unwrap()
            .unwrap();
        assert_eq!(read[0].as_ref().unwrap_err().code(), "symlinked-parent");
        assert!(matches!(read[1], Ok(Content::File { .. })));
    }

    /// Reads `hot` repeatedly while `write(i)` keeps producing versions `a` and
    /// `b` in another thread. Every read must give one whole version or block
    /// with `changed-while-reading`, and the race must really be met.
    fn race(a: &[u8], b: &[u8], write: impl Fn(&Path, &[u8]) + Sync) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hot");
        std::fs::write(&path, a).unwrap();
        let (da, db) = (sha(a), sha(b));
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    write(&path, if i % 2 == 0 { b } else { a });
                }
            });
            // Stops the writer however this thread leaves the scope, so that a
            // failed assertion reports instead of waiting for the writer forever.
            struct StopOnDrop<'a>(&'a AtomicBool);
            impl Drop for StopOnDrop<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _stop = StopOnDrop(&stop);
            let (mut whole, mut blocked) = (0, 0);
            // Until enough whole reads were checked (bounded, in case the
            // writer never gets a core).
            for _ in 0..5000 {
                if whole >= 50 && blocked > 0 {
                    break;
                }
                match read_content(dir.path(), &wp("hot"), false) {
                    Ok(content) => {
                        let d = content.digest_for_test();
                        assert!(
                            d == da || d == db,
                            "mixed content after {whole} whole reads"
                        );
                        whole += 1;
                    }
                    Err(e) => {
                        assert_eq!(e.code(), "changed-while-reading", "{e}");
                        blocked += 1;
                    }
                }
            }
            assert!(
                blocked > 0,
                "the writer never overlapped a read ({whole} whole reads)"
            );
        });
    }

    /// In place, one page at a time: each write replaces the whole content in
    /// one step, and the times it changes (fine-grained once queried) tell.
    #[test]
    fn an_in_place_writer_is_caught() {
        race(&[b'a'; 4096], &[b'b'; 4096], |path, data| {
            let f = OpenOptions::new().write(true).open(path).unwrap();
            platform::write_at(&f, data, 0).unwrap();
        });
    }

    /// Write-then-rename, the atomic way to rewrite a file, with contents
    /// spanning several chunks and of different sizes.
    #[test]
    fn a_renaming_writer_is_caught() {
        let (a, b) = (vec![b'a'; 3 * CHUNK + 1], vec![b'b'; 2 * CHUNK + 7]);
        race(&a, &b, |path, data| {
            let temp = path.with_extension("tmp");
            std::fs::write(&temp, data).unwrap();
            std::fs::rename(&temp, path).unwrap();
        });
    }

    #[test]
    fn large_file_spans_many_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..(CHUNK * 3 + 17)).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("big"), &data).unwrap();
        assert_eq!(
            read_content(dir.path(), &wp("big"), false).unwrap(),
            Content::File {
                executable: false,
                digest: sha(&data)
            }
        );
    }

    #[test]
    fn tasks_are_normalized_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tasks.md"), b"- [x] 1.1 [core] A\n").unwrap();
        let normalized = read_content(dir.path(), &wp("tasks.md"), true).unwrap();
        let raw = read_content(dir.path(), &wp("tasks.md"), false).unwrap();
        assert_eq!(normalized.digest_for_test(), sha(b"- [ ] 1.1 [core] A\n"));
        assert_eq!(raw.digest_for_test(), sha(b"- [x] 1.1 [core] A\n"));
    }

    #[test]
    fn each_rule_normalizes_its_own_lines() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"- [x] 1.1 [core] A\n  * [X] 1.2 B\r\n";
        std::fs::write(dir.path().join("tasks.md"), text).unwrap();
        let read = |rule| {
            Entry::read_with(dir.path(), &wp("tasks.md"), rule)
                .unwrap()
                .content
                .digest_for_test()
        };
        assert_eq!(read(None), sha(text));
        assert_eq!(
            read(Some(TaskRule::TaskCheckboxV1)),
            sha(b"- [ ] 1.1 [core] A\n  * [X] 1.2 B\r\n")
        );
        assert_eq!(
            read(Some(TaskRule::OpenspecCheckbox)),
            sha(b"- [ ] 1.1 [core] A\n  * [ ] 1.2 B\r\n")
        );
    }

    #[test]
    fn special_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = read_content(dir.path(), &wp("sub"), false).unwrap_err();
        assert_eq!(err.code(), "special-file");
        assert!(err.to_string().contains("'sub' is a directory"), "{err}");
        let socket = platform::bind_socket(dir.path().join("sock")).unwrap();
        let err = read_content(dir.path(), &wp("sock"), false).unwrap_err();
        assert_eq!(
            (err.code(), err.to_string().contains("socket")),
            ("special-file", true)
        );
        drop(socket);
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let err = read_content(dir.path(), &wp("pipe"), false).unwrap_err();
        assert_eq!(err.code(), "special-file");
        assert!(err.to_string().contains("FIFO"), "{err}");
    }

    /// Hashes `path` while `mutate` changes it after the first chunk was read.
    fn read_while(mutate: impl FnOnce(&Path)) -> Result<Content> {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("hot");
        std::fs::write(&full, vec![b'a'; 3 * CHUNK]).unwrap();
        let root = open_workspace(dir.path()).unwrap();
        let seen = platform::stat_at(&root, "hot").unwrap();
        let mut mutate = Some(mutate);
        let settle = |_: &File| false;
        hash_regular_file(&root, "hot", &wp("hot"), &seen, None, settle, || {
            if let Some(m) = mutate.take() {
                m(&full);
            }
        })
        .map(|(content, _)| content)
    }

    #[test]
    fn a_file_changed_during_the_read_blocks() {
        use std::io::Write;
        let grow = |p: &Path| {
            let mut f = OpenOptions::new().append(true).open(p).unwrap();
            f.write_all(b"more").unwrap();
        };
        let shrink = |p: &Path| {
            OpenOptions::new()
                .write(true)
                .open(p)
                .unwrap()
                .set_len(10)
                .unwrap();
        };
        // Same size, new bytes, and a different mtime (set explicitly, so the test
        // does not depend on the file system's timestamp granularity).
        let rewrite = |p: &Path| {
            std::fs::write(p, vec![b'b'; 3 * CHUNK]).unwrap();
            let f = OpenOptions::new().write(true).open(p).unwrap();
            f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        };
        let chmod = |p: &Path| {
            platform::set_mode(p, 0o755).unwrap();
        };
        for (name, mutate) in [
            ("grow", &grow as &dyn Fn(&Path)),
            ("shrink", &shrink),
            ("rewrite", &rewrite),
            ("chmod", &chmod),
        ] {
            let err = read_while(mutate).unwrap_err();
            assert_eq!(err.code(), "changed-while-reading", "{name}: {err}");
            assert!(err.to_string().contains("'hot'"), "{err}");
        }
        assert!(read_while(|_| {}).is_ok());
    }

    impl Content {
        fn digest_for_test(&self) -> Digest {
            match self {
                Content::File { digest, .. } | Content::Symlink { digest } => *digest,
                Content::Missing => panic!("missing"),
            }
        }
    }
}
