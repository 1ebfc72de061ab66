//! Walking a root that lies outside every repository (docs/errors.md, Expansion): every regular
//! file and symlink, symlinks not followed, no ignore rules. Special files are
//! listed too, so that reading refuses them.

use std::path::Path;

use walkdir::WalkDir;

use crate::error::{DisplayPath, Error, Result};
use crate::expand::git;
use crate::expand::scope::Scope;
use crate::path::WorkspacePath;
use crate::platform::OsStrBytes;

/// Lists the files and symlinks below `root` (a normalized root: `.` or a path).
///
/// Declared repositories are skipped (their own listing covers them); excluded
/// subtrees are pruned before they are read; a directory holding `.git` that is
/// not declared blocks with `nested-repository`. A root that does not exist
/// contributes nothing: a later comparison then reports its files as removed.
pub(crate) fn walk_root(
    workspace: &Path,
    root: &str,
    scope: &Scope,
    repositories: &[String],
) -> Result<Vec<WorkspacePath>> {
    let mut files = Vec::new();
    walk_root_into(workspace, root, scope, repositories, &mut |path| {
        files.push(path)
    })?;
    Ok(files)
}

/// Like [`walk_root`], telling `found` of each file the moment the walk meets
/// it, in the order directories list them (an expansion reads them meanwhile).
pub(crate) fn walk_root_into(
    workspace: &Path,
    root: &str,
    scope: &Scope,
    repositories: &[String],
    found: &mut dyn FnMut(WorkspacePath),
) -> Result<()> {
    let start = if root == "." {
        workspace.to_path_buf()
    } else {
        workspace.join(root)
    };
    if std::fs::symlink_metadata(&start).is_err() {
        return Ok(());
    }
    let mut walker = WalkDir::new(&start).follow_links(false).into_iter();
    while let Some(item) = walker.next() {
        let item = item.map_err(|e| walk_error(workspace, e))?;
        let relative = item.path().strip_prefix(workspace).unwrap_or(item.path());
        let bytes = relative.as_os_str().as_bytes();
        if bytes.is_empty() {
            // The workspace itself (root `.`).
            check_not_repository(item.path(), ".", repositories)?;
            continue;
        }
        let path = WorkspacePath::from_bytes(bytes)?;
        if scope.is_excluded(path.as_str()) {
            if item.file_type().is_dir() {
                walker.skip_current_dir();
            }
            continue;
        }
        let file_type = item.file_type();
        if file_type.is_dir() {
            if repositories.iter().any(|r| r == path.as_str()) {
                walker.skip_current_dir();
            } else {
                check_not_repository(item.path(), path.as_str(), repositories)?;
            }
        } else {
            // Files, symlinks, and special files alike: reading reports a FIFO or
            // a socket as `special-file`, in path order like every other error.
            found(path);
        }
    }
    Ok(())
}

/// A directory holding `.git` (a directory or a gitfile) is a repository; unless
/// declared, it blocks the walk. A `.git` file that names no repository is refused as
/// such (`invalid-gitfile`): declaring it would not help.
fn check_not_repository(dir: &Path, display: &str, repositories: &[String]) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(dir.join(".git")) else {
        return Ok(());
    };
    if repositories.iter().any(|r| r == display) {
        return Ok(());
    }
    if meta.is_file() {
        git::dot_git(dir, &|| git::in_display(display, b".git"))?;
    }
    Err(Error::NestedRepository {
        path: DisplayPath::from(display),
    })
}

fn walk_error(workspace: &Path, e: walkdir::Error) -> Error {
    let path = e
        .path()
        .map(|p| {
            p.strip_prefix(workspace)
                .unwrap_or(p)
                .as_os_str()
                .as_bytes()
                .to_vec()
        })
        .unwrap_or_default();
    let source = e
        .into_io_error()
        .unwrap_or_else(|| std::io::Error::other("filesystem loop"));
    Error::Unreadable {
        path: DisplayPath::from_bytes(if path.is_empty() { b"." } else { &path }),
        operation: "read directory",
        source,
    }
}
