//! Reading one path into an entry (SPEC §5): never following a symlink, in
//! bounded chunks, and refusing a file that changes while it is read.

use std::cell::RefCell;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use sha2::{Digest as _, Sha256};

use crate::entry::{Content, Digest};
use crate::error::{DisplayPath, Error, Result};
use crate::normalize::{HashOutput, Normalizer};
use crate::path::WorkspacePath;

/// Read size. 256 KiB amortizes the syscall over enough bytes that SHA-256
/// dominates, while a thread's buffer stays far below the memory budget.
const CHUNK: usize = 256 * 1024;

thread_local! {
    /// One buffer per hashing thread, reused for every file: no per-file allocation.
    static BUFFER: RefCell<Box<[u8]>> = RefCell::new(vec![0u8; CHUNK].into_boxed_slice());
}

impl crate::entry::Entry {
    /// Reads one path below `workspace` into its entry: bytes from the working
    /// tree, never following a symlink, in bounded chunks. `normalize` applies
    /// the task-checkbox normalization (approval Tasks only).
    ///
    /// Unlike [`crate::Inventory::expand`], this does not check whether a parent
    /// directory of `path` is a symlink: use it for paths you have vetted.
    pub fn read(workspace: &Path, path: &WorkspacePath, normalize: bool) -> Result<Self> {
        Ok(crate::entry::Entry {
            path: path.clone(),
            content: read_content(workspace, path, normalize)?,
        })
    }
}

/// Reads `path` below `workspace` into its entry content.
///
/// `normalize` applies the task-checkbox normalization to a regular file's bytes.
/// A path that does not exist (or whose parent is no longer a directory) is
/// `Missing`. The caller has already checked that no parent is a symlink.
pub(crate) fn read_content(
    workspace: &Path,
    path: &WorkspacePath,
    normalize: bool,
) -> Result<Content> {
    let full = workspace.join(path.as_str());
    let unreadable = |operation, source| Error::Unreadable {
        path: DisplayPath::from(path.as_str()),
        operation,
        source,
    };
    let meta = match std::fs::symlink_metadata(&full) {
        Ok(meta) => meta,
        Err(e) if is_absent(&e) => return Ok(Content::Missing),
        Err(e) => return Err(unreadable("stat", e)),
    };
    let file_type = meta.file_type();
    if file_type.is_symlink() {
        let target = std::fs::read_link(&full).map_err(|e| unreadable("read link", e))?;
        let digest = Sha256::digest(target.as_os_str().as_bytes());
        return Ok(Content::Symlink {
            digest: Digest(digest.into()),
        });
    }
    if !file_type.is_file() {
        return Err(Error::SpecialFile {
            path: DisplayPath::from(path.as_str()),
            what: describe(&meta),
        });
    }
    hash_regular_file(&full, path, &meta, normalize, || {})
}

/// Hashes a regular file through an `O_NOFOLLOW` descriptor, checking before and
/// after that it is the same, unchanged file.
///
/// `after_chunk` runs after each chunk is hashed; it exists so that tests can
/// change the file mid-read deterministically (production passes a no-op).
fn hash_regular_file(
    full: &Path,
    path: &WorkspacePath,
    seen: &Metadata,
    normalize: bool,
    after_chunk: impl FnMut(),
) -> Result<Content> {
    let display = || DisplayPath::from(path.as_str());
    let changed = || Error::ChangedWhileReading { path: display() };
    let unreadable = |operation, source| Error::Unreadable {
        path: display(),
        operation,
        source,
    };
    // O_NOFOLLOW: if the path became a symlink since the lstat, fail (ELOOP)
    // rather than hash what it points to. O_NONBLOCK: if it became a FIFO,
    // do not hang in open.
    let mut file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(full)
    {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) || is_absent(&e) => return Err(changed()),
        Err(e) => return Err(unreadable("open", e)),
    };
    // The lstat taken before the open serves as the "before" state: if the path
    // was replaced or written between the two, the inode, size or times of the
    // descriptor differ from it after the read. This saves one stat per file.
    let digest = hash_stream(&mut file, seen.len(), normalize, after_chunk)
        .map_err(|e| unreadable("read", e))?
        .ok_or_else(changed)?;
    let after = file.metadata().map_err(|e| unreadable("stat", e))?;
    if !after.is_file() || !same_version(seen, &after) {
        return Err(changed());
    }
    Ok(Content::File {
        executable: seen.permissions().mode() & 0o111 != 0,
        digest,
    })
}

/// Hashes exactly `size` bytes; `None` when the file ends early (it shrank).
/// Reading stops at `size` rather than at EOF, saving one syscall per file; a
/// file that grew is caught by the size check after the read.
fn hash_stream(
    file: &mut File,
    size: u64,
    normalize: bool,
    mut after_chunk: impl FnMut(),
) -> io::Result<Option<Digest>> {
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        let mut remaining = size;
        let mut sink = Sink::new(normalize);
        while remaining > 0 {
            let want = buffer
                .len()
                .min(usize::try_from(remaining).unwrap_or(usize::MAX));
            let n = match file.read(&mut buffer[..want]) {
                Ok(0) => return Ok(None),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            sink.update(&buffer[..n]);
            remaining -= n as u64;
            after_chunk();
        }
        Ok(Some(sink.finish()))
    })
}

/// Raw hashing, or hashing through the task-checkbox normalizer.
enum Sink {
    Raw(Sha256),
    Tasks(Normalizer, HashOutput),
}

impl Sink {
    fn new(normalize: bool) -> Self {
        if normalize {
            Sink::Tasks(Normalizer::default(), HashOutput::default())
        } else {
            Sink::Raw(Sha256::new())
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

/// Same inode, and size, modification time and change time unchanged. The
/// change time also catches a `chmod` or a rewrite that restored the old mtime.
fn same_version(a: &Metadata, b: &Metadata) -> bool {
    a.ino() == b.ino()
        && a.dev() == b.dev()
        && a.len() == b.len()
        && a.mtime() == b.mtime()
        && a.mtime_nsec() == b.mtime_nsec()
        && a.ctime() == b.ctime()
        && a.ctime_nsec() == b.ctime_nsec()
}

/// Not found, or a parent that is no longer a directory: the path is absent.
fn is_absent(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// Names a non-regular, non-symlink file type for the error message.
fn describe(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_block_device() || t.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use std::os::unix::fs::symlink;

    fn wp(s: &str) -> WorkspacePath {
        WorkspacePath::new(s).unwrap()
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
        std::fs::set_permissions(d.join("run.sh"), std::fs::Permissions::from_mode(0o744)).unwrap();
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
    fn special_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let err = read_content(dir.path(), &wp("sub"), false).unwrap_err();
        assert_eq!(err.code(), "special-file");
        assert!(err.to_string().contains("'sub' is a directory"), "{err}");
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
        let seen = std::fs::symlink_metadata(&full).unwrap();
        let mut mutate = Some(mutate);
        hash_regular_file(&full, &wp("hot"), &seen, false, || {
            if let Some(m) = mutate.take() {
                m(&full);
            }
        })
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
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
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
