//! The one error type of the core, with a stable machine-readable code per variant.
//!
//! Every variant that concerns a file names it: the message a user reads must say
//! which path and which operation failed (BurntSushi's `walkdir`/`ignore` are the
//! model). The code returned by [`Error::code`] is part of the public contract: the
//! CLI prints it as `error[<code>]`, the bindings expose it as `.code`.

use std::fmt;
use std::io;

/// Convenient alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A path as the user should read it in a message: workspace-relative when it is
/// valid UTF-8, otherwise with the offending bytes escaped (`\xNN`), never lossy.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct DisplayPath(pub String);

impl DisplayPath {
    /// Renders raw bytes, escaping every byte that is not part of valid UTF-8 and
    /// every control character, so that the message is one readable line.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut out = String::with_capacity(bytes.len());
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                if c.is_control() {
                    out.extend(c.escape_default());
                } else {
                    out.push(c);
                }
            }
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02X}"));
            }
        }
        DisplayPath(out)
    }
}

impl fmt::Display for DisplayPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}'", self.0)
    }
}

impl fmt::Debug for DisplayPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<&str> for DisplayPath {
    fn from(s: &str) -> Self {
        DisplayPath::from_bytes(s.as_bytes())
    }
}

/// Everything that can go wrong in ledger. No variant ever comes with a fingerprint:
/// a blocked expansion produces an error, never an approximate result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A path is not a valid workspace path (§2): empty, absolute, `.`/`..` or empty
    /// segment, trailing `/`, NUL.
    #[error("invalid workspace path {path}: {reason}")]
    InvalidPath {
        /// The offending path as given.
        path: DisplayPath,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A path that is not valid UTF-8; the message shows the bytes escaped.
    #[error(
        "path {path} is not valid UTF-8; rename it, or exclude the directory holding it from the scope"
    )]
    NonUtf8Path {
        /// The path with its invalid bytes escaped as `\xNN`.
        path: DisplayPath,
    },
    /// An in-scope path with an unresolved merge conflict (index stage ≠ 0).
    #[error("{path} has an unresolved merge conflict; resolve it (git add) before fingerprinting")]
    Conflict {
        /// Workspace path of the conflicted file.
        path: DisplayPath,
    },
    /// A directory where a file is listed, a FIFO, socket or device.
    #[error("{path} is a {what}, not a regular file or symlink; exclude it from the scope")]
    SpecialFile {
        /// Workspace path.
        path: DisplayPath,
        /// What was found instead ("directory", "FIFO", "socket", "device").
        what: &'static str,
    },
    /// A nested repository or submodule in scope that is not declared as a repository.
    #[error(
        "{path} is a nested Git repository or submodule that is not declared; declare it with --repo or exclude it"
    )]
    NestedRepository {
        /// Workspace path of the nested repository's directory.
        path: DisplayPath,
    },
    /// An input that cannot be read (permission, I/O error).
    #[error("cannot {operation} {path}: {source}")]
    Unreadable {
        /// Workspace path (or the workspace directory itself).
        path: DisplayPath,
        /// What was being done: "open", "read", "stat", "read directory", ...
        operation: &'static str,
        /// The operating system's answer.
        #[source]
        source: io::Error,
    },
    /// An output (a record file) that cannot be written.
    #[error("cannot {operation} {path}: {source}")]
    Unwritable {
        /// The file being written.
        path: DisplayPath,
        /// What was being done.
        operation: &'static str,
        /// The operating system's answer.
        #[source]
        source: io::Error,
    },
    /// A path whose parent directory is a symlink.
    #[error(
        "{path} lies below the symlink {link}; reading through it would hash content outside the declared file — declare the link target as its own input"
    )]
    SymlinkedParent {
        /// Workspace path of the file.
        path: DisplayPath,
        /// The ancestor that is a symlink.
        link: DisplayPath,
    },
    /// A file whose size or mtime changed while it was being read.
    #[error("{path} changed while it was being read; retry when writers have finished")]
    ChangedWhileReading {
        /// Workspace path.
        path: DisplayPath,
    },
    /// A path that would leave the workspace: absolute, or with a `..` segment.
    #[error(
        "{path} escapes the workspace: {reason}; give paths relative to the workspace, without '..'"
    )]
    OutsideWorkspace {
        /// The path as given.
        path: DisplayPath,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A repository owned by another user: git refuses it (safe.directory), so do we.
    #[error(
        "repository {path} is owned by another user; git refuses it too — add it to safe.directory if you trust it"
    )]
    UntrustedRepository {
        /// Workspace path of the repository (`.` for the workspace itself).
        path: DisplayPath,
    },
    /// A declared repository that is not a Git repository, or whose index or
    /// configuration cannot be read.
    #[error("cannot read Git repository {path}: {message}")]
    Git {
        /// Workspace path of the repository.
        path: DisplayPath,
        /// What gix reported.
        message: String,
    },
    /// A string that is not `sha256:` followed by 64 lowercase hex digits.
    #[error("invalid fingerprint {text:?}: expected 'sha256:' and 64 lowercase hex digits")]
    BadFingerprint {
        /// The text as given (truncated for display).
        text: String,
    },
    /// A record that is not valid JSON, has wrong types or invalid values, or
    /// whose entries do not reproduce its fingerprint.
    #[error("malformed record {record}: {reason}")]
    MalformedRecord {
        /// Where the record came from (a file path).
        record: DisplayPath,
        /// What is wrong, with the field's location.
        reason: String,
    },
    /// A record of another format or an unknown major version.
    #[error("record {record} is {found}; this ledger reads {supported}")]
    UnsupportedVersion {
        /// Where the record came from.
        record: DisplayPath,
        /// The format and version found.
        found: String,
        /// What this version reads.
        supported: String,
    },
    /// An entry given by the caller that is not a valid `(path, kind, mode, digest)`.
    #[error("invalid entry for {path}: {reason}")]
    BadEntry {
        /// The entry's path.
        path: DisplayPath,
        /// What is wrong with it.
        reason: String,
    },
    /// The same path given twice to [`crate::fingerprint_entries`].
    #[error("entry {path} is listed twice")]
    DuplicateEntry {
        /// The repeated path.
        path: DisplayPath,
    },
}

impl Error {
    /// The stable machine-readable code of this error, e.g. `"conflict"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidPath { .. } => "invalid-path",
            Error::NonUtf8Path { .. } => "non-utf8-path",
            Error::Conflict { .. } => "conflict",
            Error::SpecialFile { .. } => "special-file",
            Error::NestedRepository { .. } => "nested-repository",
            Error::Unreadable { .. } => "unreadable",
            Error::Unwritable { .. } => "unwritable",
            Error::SymlinkedParent { .. } => "symlinked-parent",
            Error::ChangedWhileReading { .. } => "changed-while-reading",
            Error::OutsideWorkspace { .. } => "outside-workspace",
            Error::UntrustedRepository { .. } => "untrusted-repository",
            Error::Git { .. } => "git",
            Error::BadFingerprint { .. } => "bad-fingerprint",
            Error::MalformedRecord { .. } => "malformed-record",
            Error::UnsupportedVersion { .. } => "unsupported-version",
            Error::BadEntry { .. } => "bad-entry",
            Error::DuplicateEntry { .. } => "duplicate-entry",
        }
    }

    /// The workspace path the error is about, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidPath { path, .. }
            | Error::NonUtf8Path { path }
            | Error::Conflict { path }
            | Error::SpecialFile { path, .. }
            | Error::NestedRepository { path }
            | Error::Unreadable { path, .. }
            | Error::Unwritable { path, .. }
            | Error::SymlinkedParent { path, .. }
            | Error::ChangedWhileReading { path }
            | Error::OutsideWorkspace { path, .. }
            | Error::UntrustedRepository { path }
            | Error::Git { path, .. }
            | Error::MalformedRecord { record: path, .. }
            | Error::UnsupportedVersion { record: path, .. }
            | Error::BadEntry { path, .. }
            | Error::DuplicateEntry { path } => Some(&path.0),
            Error::BadFingerprint { .. } => None,
        }
    }

    /// Every code this version can return, for documentation and binding tests.
    pub const CODES: &'static [&'static str] = &[
        "invalid-path",
        "non-utf8-path",
        "conflict",
        "special-file",
        "nested-repository",
        "unreadable",
        "unwritable",
        "symlinked-parent",
        "changed-while-reading",
        "outside-workspace",
        "untrusted-repository",
        "git",
        "bad-fingerprint",
        "malformed-record",
        "unsupported-version",
        "bad-entry",
        "duplicate-entry",
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_path_escapes_invalid_bytes_and_controls() {
        let p = DisplayPath::from_bytes(b"a\xffb\nc");
        assert_eq!(p.0, "a\\xFFb\\nc");
    }
}
