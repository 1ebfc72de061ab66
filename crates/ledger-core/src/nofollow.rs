//! Opening paths below a directory without following symlinks: the one way
//! ledger reaches a workspace file, its own files and its store (the ground
//! floor: it knows no wing).
//!
//! Every path is reached `openat`-style: the directory is opened once, each
//! directory below it relative to its parent with `O_NOFOLLOW | O_DIRECTORY`.
//! A directory swapped for a symlink at any moment makes the open fail instead
//! of leading outside.

use std::io;
use std::path::Path;

use crate::error::{DisplayPath, Error, Result};
use crate::path::WorkspacePath;
use crate::platform::{self, Errno, FileType, Follow, Handle};

/// Opens the workspace directory itself (it was canonicalized: following is fine).
pub(crate) fn open_workspace(workspace: &Path) -> Result<Handle> {
    platform::open_dir(workspace, Follow::Yes).map_err(|e| Error::Unreadable {
        path: DisplayPath::from_bytes(workspace.as_os_str().as_encoded_bytes()),
        operation: "open workspace",
        source: e.into(),
    })
}

/// Why the files of a directory cannot be read.
pub(crate) enum DirProblem {
    /// An ancestor (this workspace path) is a symlink.
    Symlink(String),
    /// A directory could not be opened.
    Unreadable(String, io::Error),
}

impl DirProblem {
    pub(crate) fn for_file(&self, path: &WorkspacePath) -> Error {
        match self {
            DirProblem::Symlink(link) => Error::SymlinkedParent {
                path: DisplayPath::from(path.as_str()),
                link: DisplayPath::from(link.as_str()),
            },
            DirProblem::Unreadable(dir, e) => Error::Unreadable {
                path: DisplayPath::from(dir.as_str()),
                operation: "open directory",
                source: io::Error::new(e.kind(), e.to_string()),
            },
        }
    }
}

/// Opens `dir` (a workspace path, or "" for the workspace) one component at a
/// time without following symlinks. `Ok(None)`: it does not exist (or a
/// component is a regular file), so every path below it is missing.
pub(crate) fn open_dir(
    root: &Handle,
    dir: &str,
) -> std::result::Result<Option<Handle>, DirProblem> {
    let mut current: Option<Handle> = None;
    let mut end = 0;
    for component in dir.split('/').filter(|c| !c.is_empty()) {
        end += component.len() + usize::from(end > 0);
        let parent = current.as_ref().unwrap_or(root);
        match platform::open_dir_at(parent, component) {
            Ok(fd) => current = Some(fd),
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let stat = platform::stat_at(parent, component);
                return match stat {
                    Ok(st) if st.file_type() == FileType::Symlink => {
                        Err(DirProblem::Symlink(dir[..end].to_owned()))
                    }
                    _ => Ok(None),
                };
            }
            Err(e) => return Err(DirProblem::Unreadable(dir[..end].to_owned(), e.into())),
        }
    }
    match current {
        Some(fd) => Ok(Some(fd)),
        None => platform::duplicate(root)
            .map(Some)
            .map_err(|e| DirProblem::Unreadable(".".to_owned(), e.into())),
    }
}

/// Names a file type for an error message.
pub(crate) fn describe(file_type: FileType) -> &'static str {
    match file_type {
        FileType::Symlink => "symlink",
        FileType::RegularFile => "regular file",
        FileType::Directory => "directory",
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::BlockDevice | FileType::CharacterDevice => "device",
        _ => "special file",
    }
}
