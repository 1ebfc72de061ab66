//! Workspace paths (docs/format.md §1): validated, `/`-separated, relative, UTF-8.
//!
//! The type wraps a `String` rather than a `camino::Utf8PathBuf` because their
//! orderings differ: `Utf8PathBuf` compares by components (`a/b` < `a.b`), while the
//! fingerprint needs plain UTF-8 byte order (`a.b` < `a/b`, since `.` is 0x2E and `/`
//! is 0x2F). `str`'s `Ord` is exactly byte order, so deriving it is correct.

use std::fmt;

use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{DisplayPath, Error, Result};

/// A validated workspace-relative path naming a file (never a directory).
///
/// ```
/// use ledger_core::WorkspacePath;
/// let p = WorkspacePath::new("src/main.rs").unwrap();
/// assert_eq!(p.as_str(), "src/main.rs");
/// assert!(WorkspacePath::new("../etc/passwd").is_err());
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WorkspacePath(String);

impl WorkspacePath {
    /// Validates `path` against the rules of §2.
    pub fn new(path: impl Into<String>) -> Result<Self> {
        let path = path.into();
        match violation(&path) {
            None => Ok(WorkspacePath(path)),
            Some(reason @ (ABSOLUTE | DOTDOT)) => Err(Error::OutsideWorkspace {
                path: DisplayPath::from(path.as_str()),
                reason,
            }),
            Some(reason) => Err(Error::InvalidPath {
                path: DisplayPath::from(path.as_str()),
                reason,
            }),
        }
    }

    /// Validates raw bytes (as Git stores them): non-UTF-8 is a `non-utf8-path`
    /// error naming the escaped bytes, never a lossy replacement.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match std::str::from_utf8(bytes) {
            Ok(s) => WorkspacePath::new(s),
            Err(_) => Err(Error::NonUtf8Path {
                path: DisplayPath::from_bytes(bytes),
            }),
        }
    }

    /// Joins a validated prefix (a directory path, e.g. a repository's location)
    /// and a relative tail. An empty prefix means the workspace root.
    pub fn joined(prefix: &str, tail: &str) -> Result<Self> {
        if prefix.is_empty() {
            WorkspacePath::new(tail)
        } else {
            WorkspacePath::new(format!("{prefix}/{tail}"))
        }
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path as a `camino` path, for joining onto the workspace directory.
    pub fn as_path(&self) -> &Utf8Path {
        Utf8Path::new(&self.0)
    }

    /// Whether this path equals `root` or lies below it (`root` given as a
    /// validated path or `.` for everything).
    pub fn is_within(&self, root: &str) -> bool {
        is_within(self.0.as_bytes(), root)
    }

    /// This path with its directory `from` replaced by `to` when it lies below
    /// `from` (a change moved into the archive), otherwise itself.
    pub(crate) fn moved(&self, from: &str, to: &str) -> Result<WorkspacePath> {
        match self.0.strip_prefix(from) {
            Some(rest) if from != to && rest.starts_with('/') => {
                WorkspacePath::new(format!("{to}{rest}"))
            }
            _ => Ok(self.clone()),
        }
    }

    /// The directory holding this path, `""` for the workspace: `a/b/c` gives `a/b`.
    pub fn dir(&self) -> &str {
        self.0.rsplit_once('/').map_or("", |(dir, _)| dir)
    }

    /// The last component: `a/b/c` gives `c`.
    pub fn file_name(&self) -> &str {
        self.0
            .rsplit_once('/')
            .map_or(self.0.as_str(), |(_, name)| name)
    }

    /// The ancestors of this path, nearest last: `a/b/c` gives `a`, `a/b`.
    pub fn parents(&self) -> impl Iterator<Item = &str> {
        self.0.match_indices('/').map(move |(i, _)| &self.0[..i])
    }
}

/// Whether `path` equals `root` or lies below it; `.` contains everything.
/// Works on bytes so that a listed path can be tested before it is decoded: a
/// non-UTF-8 name outside every root must not block.
pub(crate) fn is_within(path: &[u8], root: &str) -> bool {
    let root = root.as_bytes();
    root == b"."
        || path == root
        || (path.len() > root.len() && path.starts_with(root) && path[root.len()] == b'/')
}

/// The two violations that would leave the workspace (code `outside-workspace`).
const ABSOLUTE: &str = "it is absolute";
const DOTDOT: &str = "it has a '..' segment";

/// Returns which rule of §2 `path` breaks, if any.
fn violation(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("it is empty");
    }
    if path.contains('\0') {
        return Some("it contains a NUL byte");
    }
    if path.starts_with('/') {
        return Some(ABSOLUTE);
    }
    if path.ends_with('/') {
        return Some("it ends with '/'; a path names a file, not a directory");
    }
    for segment in path.split('/') {
        match segment {
            "" => return Some("it has an empty segment ('//')"),
            "." => return Some("it has a '.' segment"),
            ".." => return Some(DOTDOT),
            _ => {}
        }
    }
    None
}

/// Turns a user-given relative path (which may use `./` or a trailing `/`) into
/// a root: `.` for the whole workspace, otherwise a validated path.
pub(crate) fn normalize_root(given: &str) -> Result<String> {
    if given.starts_with('/') {
        // Absolute: refuse before trimming could turn "/" into ".".
        return WorkspacePath::new(given).map(|p| p.0);
    }
    let trimmed = given.trim_end_matches('/');
    let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
    if trimmed.is_empty() || trimmed == "." {
        return Ok(".".to_owned());
    }
    WorkspacePath::new(trimmed).map(|p| p.0)
}

impl fmt::Display for WorkspacePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for WorkspacePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl AsRef<str> for WorkspacePath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<WorkspacePath> for Utf8PathBuf {
    fn from(p: WorkspacePath) -> Self {
        Utf8PathBuf::from(p.0)
    }
}

impl Serialize for WorkspacePath {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for WorkspacePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        WorkspacePath::new(s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A valid path survives text, bytes and JSON unchanged; an invalid one is
        /// refused by every entry point alike.
        #[test]
        fn validation_round_trips(segments in prop::collection::vec("[^/\\x00]{0,4}|\\.|\\.\\.", 0..5)) {
            let text = segments.join("/");
            match WorkspacePath::new(text.clone()) {
                Ok(p) => {
                    prop_assert!(segments.iter().all(|s| !s.is_empty() && s != "." && s != ".."));
                    prop_assert_eq!(p.as_str(), text.as_str());
                    prop_assert_eq!(WorkspacePath::from_bytes(text.as_bytes()).unwrap(), p.clone());
                    let json = serde_json::to_string(&p).unwrap();
                    prop_assert_eq!(serde_json::from_str::<WorkspacePath>(&json).unwrap(), p);
                }
                Err(e) => {
                    prop_assert!(["invalid-path", "outside-workspace"].contains(&e.code()));
                    prop_assert!(WorkspacePath::from_bytes(text.as_bytes()).is_err());
                    prop_assert!(serde_json::from_str::<WorkspacePath>(&serde_json::to_string(&text).unwrap()).is_err());
                }
            }
        }
    }

    #[test]
    fn rejects_each_rule() {
        for bad in ["", "a/", "a//b", "./a", "a/./b", "a\0b"] {
            let err = WorkspacePath::new(bad).unwrap_err();
            assert_eq!(err.code(), "invalid-path", "{bad:?}");
        }
        for escaping in ["/a", "/", "../a", "a/..", "a/../../b"] {
            let err = WorkspacePath::new(escaping).unwrap_err();
            assert_eq!(err.code(), "outside-workspace", "{escaping:?}");
        }
    }

    #[test]
    fn accepts_odd_but_valid_names() {
        for good in [
            "a",
            "-rf",
            "a b",
            "tab\there",
            "new\nline",
            "ü/ß",
            ".hidden",
            "a/...",
            "..x",
        ] {
            assert!(WorkspacePath::new(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn non_utf8_names_the_bytes() {
        let err = WorkspacePath::from_bytes(b"caf\xe9.txt").unwrap_err();
        assert_eq!(err.code(), "non-utf8-path");
        assert!(err.to_string().contains("caf\\351.txt"), "{err}");
    }

    #[test]
    fn byte_order_not_component_order() {
        let mut v: Vec<WorkspacePath> = ["a/b", "a.b", "a-b", "Z"]
            .iter()
            .map(|s| WorkspacePath::new(*s).unwrap())
            .collect();
        v.sort();
        let got: Vec<&str> = v.iter().map(|p| p.as_str()).collect();
        assert_eq!(got, ["Z", "a-b", "a.b", "a/b"]);
    }

    #[test]
    fn within_and_parents() {
        let p = WorkspacePath::new("a/b/c").unwrap();
        assert!(p.is_within(".") && p.is_within("a") && p.is_within("a/b/c"));
        assert!(!p.is_within("a/b/c/d") && !p.is_within("a/bb"));
        assert!(!WorkspacePath::new("ab").unwrap().is_within("a"));
        assert_eq!(p.parents().collect::<Vec<_>>(), ["a", "a/b"]);
        assert_eq!((p.dir(), p.file_name()), ("a/b", "c"));
        let top = WorkspacePath::new("top").unwrap();
        assert_eq!((top.dir(), top.file_name()), ("", "top"));
    }

    #[test]
    fn roots_are_normalized() {
        assert_eq!(normalize_root("./").unwrap(), ".");
        assert_eq!(normalize_root("src/").unwrap(), "src");
        assert_eq!(normalize_root("./src").unwrap(), "src");
        assert!(normalize_root("../x").is_err());
        assert!(normalize_root("/").is_err());
    }
}
