//! Entries (docs/format.md §2): one `(path, kind, mode, digest)` per inventory path.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{DisplayPath, Error, Result};
use crate::path::WorkspacePath;

/// A SHA-256 digest, printed as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// Parses 64 lowercase hex digits (uppercase is refused: the format is lowercase).
    pub fn from_hex(text: &str) -> Option<Digest> {
        let bytes = text.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            out[i] = (hex_value(pair[0])? << 4) | hex_value(pair[1])?;
        }
        Some(Digest(out))
    }

    /// The 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        let mut s = String::with_capacity(64);
        for b in self.0 {
            s.push(HEX[(b >> 4) as usize] as char);
            s.push(HEX[(b & 0xf) as usize] as char);
        }
        s
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// What a path holds, with the data its kind carries. The three kinds of §5 as a
/// type, so that an impossible combination (a missing file with a digest, a symlink
/// with mode 100755) cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Content {
    /// A regular file: executable when any execute bit is set.
    File {
        /// Any of the three execute bits is set (mode `100755`).
        executable: bool,
        /// SHA-256 of the bytes (normalized for approval Tasks).
        digest: Digest,
    },
    /// A symbolic link, not followed.
    Symlink {
        /// SHA-256 of the link target bytes.
        digest: Digest,
    },
    /// The path is in the set but absent from the working tree.
    Missing,
}

/// One inventory entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Workspace-relative path.
    pub path: WorkspacePath,
    /// Kind, mode and digest.
    pub content: Content,
}

impl Entry {
    /// `file`, `symlink` or `missing`.
    pub fn kind(&self) -> &'static str {
        match self.content {
            Content::File { .. } => "file",
            Content::Symlink { .. } => "symlink",
            Content::Missing => "missing",
        }
    }

    /// `100644`, `100755`, `120000` or `-`.
    pub fn mode(&self) -> &'static str {
        match self.content {
            Content::File {
                executable: false, ..
            } => "100644",
            Content::File {
                executable: true, ..
            } => "100755",
            Content::Symlink { .. } => "120000",
            Content::Missing => "-",
        }
    }

    /// The digest, or `None` for a missing path.
    pub fn digest(&self) -> Option<Digest> {
        match self.content {
            Content::File { digest, .. } | Content::Symlink { digest } => Some(digest),
            Content::Missing => None,
        }
    }

    /// The digest as written in the byte stream: hex, or `-` for a missing path.
    pub fn digest_text(&self) -> String {
        self.digest().map_or_else(|| "-".to_owned(), |d| d.to_hex())
    }

    /// Builds an entry from its four text fields, as the vectors and the bindings
    /// give them, refusing any combination §5 does not allow.
    ///
    /// ```
    /// use ledger_core::expand::Entry;
    /// let e = Entry::from_parts("gone.md", "missing", "-", "-").unwrap();
    /// assert_eq!(e.kind(), "missing");
    /// assert!(Entry::from_parts("a", "symlink", "100644", &"0".repeat(64)).is_err());
    /// ```
    pub fn from_parts(path: &str, kind: &str, mode: &str, digest: &str) -> Result<Entry> {
        let bad = |reason: String| Error::BadEntry {
            path: DisplayPath::from(path),
            reason,
        };
        let parsed_digest = || {
            Digest::from_hex(digest)
                .ok_or_else(|| bad(format!("digest {digest:?} is not 64 lowercase hex digits")))
        };
        let content = match (kind, mode) {
            ("file", "100644") => Content::File {
                executable: false,
                digest: parsed_digest()?,
            },
            ("file", "100755") => Content::File {
                executable: true,
                digest: parsed_digest()?,
            },
            ("symlink", "120000") => Content::Symlink {
                digest: parsed_digest()?,
            },
            ("missing", "-") if digest == "-" => Content::Missing,
            ("missing", "-") => return Err(bad("a missing entry has digest '-'".into())),
            ("file" | "symlink" | "missing", _) => {
                return Err(bad(format!("mode {mode:?} is not valid for kind {kind:?}")));
            }
            _ => {
                return Err(bad(format!(
                    "kind {kind:?} is not one of file, symlink, missing"
                )));
            }
        };
        Ok(Entry {
            path: WorkspacePath::new(path)?,
            content,
        })
    }
}

/// Serialized as `{"path", "kind", "mode", "digest"}` with the same text as the
/// byte stream, so a record reads like the fingerprint input it stands for.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct EntryFields {
    path: String,
    kind: String,
    mode: String,
    digest: String,
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        EntryFields {
            path: self.path.as_str().to_owned(),
            kind: self.kind().to_owned(),
            mode: self.mode().to_owned(),
            digest: self.digest_text(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let f = EntryFields::deserialize(d)?;
        Entry::from_parts(&f.path, &f.kind, &f.mode, &f.digest).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn digest_hex_round_trip_and_refuses_uppercase() {
        let hex = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
        assert_eq!(Digest::from_hex(hex).unwrap().to_hex(), hex);
        assert!(Digest::from_hex(&hex.to_uppercase()).is_none());
        assert!(Digest::from_hex(&hex[1..]).is_none());
    }

    #[test]
    fn from_parts_refuses_impossible_combinations() {
        let d = "0".repeat(64);
        for (kind, mode, digest) in [
            ("file", "120000", d.as_str()),
            ("symlink", "100755", d.as_str()),
            ("missing", "-", d.as_str()),
            ("dir", "040000", d.as_str()),
            ("file", "100644", "-"),
        ] {
            let err = Entry::from_parts("a", kind, mode, digest).unwrap_err();
            assert_eq!(err.code(), "bad-entry", "{kind} {mode} {digest}");
        }
    }

    #[test]
    fn serde_uses_the_stream_text() {
        let e = Entry::from_parts("run.sh", "file", "100755", &"ab".repeat(32)).unwrap();
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            format!(
                r#"{{"path":"run.sh","kind":"file","mode":"100755","digest":"{}"}}"#,
                "ab".repeat(32)
            )
        );
        assert_eq!(serde_json::from_str::<Entry>(&json).unwrap(), e);
    }
}
