//! Scope files (`--scope-file`): a JSON [`Scope`] the caller keeps next to
//! its sources. A scope file is input like a record (docs/errors.md, Security model): it is read
//! bounded and without following a symlink, and it cannot move the workspace
//! above the caller's.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::scope::Scope;
use crate::own_file::{DOCUMENT_LIMIT, read_file};
use crate::platform::OsStrBytes;

impl Scope {
    /// Reads the scope file `path`. A relative `workspace` is relative to the
    /// file's own directory, and the workspace must be that directory or lie
    /// below it (`outside-workspace`): a file that came with a checkout cannot
    /// point hashing above itself. The file is opened without following a
    /// symlink, must be a regular file and is read with a size bound.
    ///
    /// Whether the workspace is also within the caller's is checked with
    /// [`Scope::check_within`].
    pub fn read(path: &Utf8Path) -> Result<Scope> {
        let bytes = read_file(path.as_std_path(), "scope file", DOCUMENT_LIMIT)?;
        let text = std::str::from_utf8(&bytes).map_err(|e| Error::MalformedRecord {
            record: DisplayPath::from(path.as_str()),
            reason: format!("a scope file is UTF-8 JSON: {e}"),
        })?;
        let mut scope = Scope::from_json(text, path.as_str())?;
        if scope.workspace.is_relative() {
            let base = path
                .parent()
                .filter(|p| !p.as_str().is_empty())
                .unwrap_or(Utf8Path::new("."));
            scope.workspace = base.join(&scope.workspace);
        }
        let base = path.parent().filter(|p| !p.as_str().is_empty());
        if !canonical(&scope.workspace)?.starts_with(canonical(base.unwrap_or(Utf8Path::new(".")))?)
        {
            return Err(Error::OutsideWorkspace {
                path: DisplayPath::from(scope.workspace.as_str()),
                reason: "a scope file's workspace must be the file's own directory or lie below it",
            });
        }
        Ok(scope)
    }

    /// Refuses (`outside-workspace`) a scope whose workspace is not `workspace`
    /// or a directory below it, both with symlinks resolved: a scope from a
    /// file, a record or the store must not move hashing, or a new store,
    /// above the caller's workspace.
    pub fn check_within(&self, workspace: &Utf8Path) -> Result<()> {
        let outer = canonical(workspace)?;
        let inner = canonical(&self.workspace)?;
        if inner.starts_with(&outer) {
            return Ok(());
        }
        Err(Error::OutsideWorkspace {
            path: DisplayPath::from(self.workspace.as_str()),
            reason: "a scope's workspace must be the caller's workspace or lie below it",
        })
    }
}

/// `dir` made absolute with its symlinks resolved.
fn canonical(dir: &Utf8Path) -> Result<Utf8PathBuf> {
    let path = std::fs::canonicalize(dir).map_err(|source| Error::Unreadable {
        path: DisplayPath::from(dir.as_str()),
        operation: "open workspace",
        source,
    })?;
    Utf8PathBuf::from_path_buf(path).map_err(|p| Error::NonUtf8Path {
        path: DisplayPath::from_bytes(p.as_os_str().as_bytes()),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_scope_file_cannot_move_the_workspace_above_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let checkout = root.join("checkout");
        std::fs::create_dir_all(checkout.join("ci")).unwrap();
        let write = |workspace: &str| {
            let file = checkout.join("ci/scope.json");
            let json = serde_json::json!({ "workspace": workspace, "roots": ["src"] });
            std::fs::write(&file, json.to_string()).unwrap();
            Scope::read(&file).unwrap()
        };
        // Relative to the file, and never above it.
        let scope = write(".");
        assert_eq!(scope.workspace, checkout.join("ci/."));
        scope.check_within(&checkout).unwrap();
        for above in ["..", "../..", "/", root.as_str()] {
            let file = checkout.join("ci/scope.json");
            let json = serde_json::json!({ "workspace": above, "roots": ["src"] });
            std::fs::write(&file, json.to_string()).unwrap();
            let e = Scope::read(&file).unwrap_err();
            assert_eq!(e.code(), "outside-workspace", "{above}: {e}");
        }
        // Within the file's directory but outside the caller's workspace.
        let e = write(".")
            .check_within(&checkout.join("ci/elsewhere"))
            .unwrap_err();
        assert_eq!(e.code(), "unreadable", "{e}");
        std::fs::create_dir(checkout.join("other")).unwrap();
        let e = write(".")
            .check_within(&checkout.join("other"))
            .unwrap_err();
        assert_eq!(e.code(), "outside-workspace", "{e}");
        // A symlink is not followed, and a FIFO is not waited for.
        let link = checkout.join("link.json");
        crate::platform::symlink(checkout.join("ci/scope.json"), &link).unwrap();
        assert_eq!(Scope::read(&link).unwrap_err().code(), "unreadable");
    }
}
