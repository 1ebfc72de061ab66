//! Files ledger reads for its own purposes (docs/errors.md, Security model): design documents,
//! schemas, records. Unlike inventory inputs, which are hashed in bounded
//! chunks, these are parsed whole, so each read is bounded: opened without
//! following a symlink, only as a regular file (a FIFO never hangs the open,
//! a device is never read), and refused past a size limit.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{DisplayPath, Error, Result};
use crate::nofollow::{describe, open_dir, open_workspace};
use crate::path::WorkspacePath;
use crate::platform::{self, Access, AsHandle, BorrowedHandle, Errno, FileType, Follow};

/// The most ledger reads of a Markdown document or a schema.
pub(crate) const DOCUMENT_LIMIT: u64 = 16 * 1024 * 1024;

/// The most ledger reads of an inventory record (about 5 million entries).
pub(crate) const RECORD_LIMIT: u64 = 1024 * 1024 * 1024;

/// Reads the workspace file `path` (`what` names it in errors), reaching it
/// `openat`-style like an inventory input: no symlink is followed, neither its
/// own nor a parent directory's. `Ok(None)` when it does not exist.
pub(crate) fn read_in_workspace(
    workspace: &Path,
    path: &WorkspacePath,
    what: &'static str,
    limit: u64,
) -> Result<Option<Vec<u8>>> {
    let root = open_workspace(workspace)?;
    let dir = match open_dir(&root, path.dir()) {
        Ok(Some(dir)) => dir,
        Ok(None) => return Ok(None),
        Err(problem) => return Err(problem.for_file(path)),
    };
    read_at(dir.as_fd(), path.file_name(), path.as_str(), what, limit)
}

/// Reads the file the caller named (`what` names it in errors): its own name
/// is not followed if it is a symlink; its directory is the caller's choice.
pub(crate) fn read_file(path: &Path, what: &'static str, limit: u64) -> Result<Vec<u8>> {
    let shown = path.to_string_lossy();
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| Error::Unreadable {
        path: DisplayPath::from(shown.as_ref()),
        operation: "read (the path names no file)",
        source: std::io::ErrorKind::InvalidInput.into(),
    })?;
    let dir = platform::open_dir(dir, Follow::Yes)
        .map_err(|e| unreadable(&shown, "open the directory of", e))?;
    read_at(dir.as_fd(), name, &shown, what, limit)?.ok_or_else(|| Error::Unreadable {
        path: DisplayPath::from(shown.as_ref()),
        operation: "read",
        source: std::io::ErrorKind::NotFound.into(),
    })
}

/// Opens `name` in `dir` (shown as `shown`) and reads it whole, bounded.
fn read_at(
    dir: BorrowedHandle<'_>,
    name: impl AsRef<Path>,
    shown: &str,
    what: &'static str,
    limit: u64,
) -> Result<Option<Vec<u8>>> {
    // Never following it, and a FIFO's open does not wait for a writer
    // (`Access` says how).
    let fd = match platform::open_file_at(dir, name, Access::Read) {
        Ok(fd) => fd,
        Err(Errno::NOENT | Errno::NOTDIR) => return Ok(None),
        Err(Errno::LOOP) => {
            return Err(unreadable(
                shown,
                "read (it is a symlink, and ledger follows none)",
                Errno::LOOP,
            ));
        }
        Err(e) => return Err(unreadable(shown, "open", e)),
    };
    let stat = platform::fstat(&fd).map_err(|e| unreadable(shown, "stat", e))?;
    let file_type = stat.file_type();
    if file_type != FileType::RegularFile {
        return Err(Error::SpecialFile {
            path: DisplayPath::from(shown),
            what: describe(file_type),
        });
    }
    let too_large = || Error::TooLarge {
        path: DisplayPath::from(shown),
        what,
        limit,
    };
    if u64::try_from(stat.st_size).unwrap_or(u64::MAX) > limit {
        return Err(too_large());
    }
    // A file that grows while it is read is still read no further than the limit.
    let mut bytes = Vec::new();
    File::from(fd)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Unreadable {
            path: DisplayPath::from(shown),
            operation: "read",
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

fn unreadable(shown: &str, operation: &'static str, e: Errno) -> Error {
    Error::Unreadable {
        path: DisplayPath::from(shown),
        operation,
        source: e.into(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn code<T>(r: Result<T>) -> &'static str {
        r.err().map_or("ok", |e| e.code())
    }

    #[test]
    fn reads_regular_files_and_refuses_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("doc.md"), "# Doc\n").unwrap();
        let wp = |s: &str| WorkspacePath::new(s).unwrap();
        let read = |s: &str| read_in_workspace(d, &wp(s), "document", 10);
        assert_eq!(read("doc.md").unwrap().unwrap(), b"# Doc\n");
        assert_eq!(read("none.md").unwrap(), None);
        // A FIFO neither hangs nor is read.
        platform::make_fifo(&d.join("fifo")).unwrap();
        assert_eq!(code(read("fifo")), "special-file");
        // A symlink is not followed, to a device or anywhere else.
        platform::symlink("/dev/zero", d.join("zero.md")).unwrap();
        assert_eq!(code(read("zero.md")), "unreadable");
        assert_eq!(
            code(read_file(&d.join("zero.md"), "record", 10)),
            "unreadable"
        );
        assert_eq!(
            code(read_file(Path::new("/dev/zero"), "record", 10)),
            "special-file"
        );
        // Nor is a symlinked parent.
        std::fs::create_dir(d.join("real")).unwrap();
        std::fs::write(d.join("real/doc.md"), "x").unwrap();
        platform::symlink("real", d.join("link")).unwrap();
        assert_eq!(code(read("link/doc.md")), "symlinked-parent");
        // Past the bound: refused, not truncated.
        std::fs::write(d.join("big.md"), [b'x'; 11]).unwrap();
        assert_eq!(code(read("big.md")), "too-large");
        assert_eq!(
            read_file(&d.join("doc.md"), "record", 10).unwrap(),
            b"# Doc\n"
        );
        assert_eq!(
            code(read_file(&d.join("none.json"), "record", 10)),
            "unreadable"
        );
    }
}
