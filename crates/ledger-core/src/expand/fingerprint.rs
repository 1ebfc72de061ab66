//! Fingerprint v1 (docs/format.md §3): the streaming encoder and the `sha256:<hex>` type.
//!
//! Stream: `wealth-ledger-input-v1` NUL, then for each entry in ascending UTF-8
//! byte order of its path: `path` NUL `kind` NUL `mode` NUL `digest` NUL.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest as _, Sha256};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::entry::{Digest, Entry};

/// The ASCII prefix of a v1 stream (followed by one NUL).
pub const FORMAT_V1: &str = "wealth-ledger-input-v1";

/// A fingerprint: the SHA-256 of a v1 stream, printed as `sha256:<64 lowercase hex>`.
///
/// ```
/// use ledger_core::expand::Fingerprint;
/// let text = "sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99";
/// let fp: Fingerprint = text.parse().unwrap();
/// assert_eq!(fp.to_string(), text);
/// assert!("sha256:8A18".parse::<Fingerprint>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub Digest);

impl FromStr for Fingerprint {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        text.strip_prefix("sha256:")
            .and_then(Digest::from_hex)
            .map(Fingerprint)
            .ok_or_else(|| Error::BadFingerprint {
                text: text.chars().take(80).collect(),
            })
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Streams entries into a v1 fingerprint without holding them.
///
/// Entries must arrive in strictly ascending byte order of their paths; the
/// encoder refuses anything else rather than produce a fingerprint of an order
/// that another implementation would not reproduce.
pub struct Encoder {
    hasher: Sha256,
    /// The last path pushed (empty before the first: no path is empty).
    last: String,
    /// One entry's bytes, reused: no allocation per entry.
    record: Vec<u8>,
}

impl Default for Encoder {
    fn default() -> Self {
        let mut hasher = Sha256::new();
        hasher.update(FORMAT_V1.as_bytes());
        hasher.update([0u8]);
        Encoder {
            hasher,
            last: String::new(),
            record: Vec::with_capacity(256),
        }
    }
}

impl Encoder {
    /// Starts a stream (the prefix is written at once).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one entry.
    pub fn push(&mut self, entry: &Entry) -> Result<()> {
        let path = entry.path.as_str();
        if !self.last.is_empty() && self.last.as_str() >= path {
            return Err(if self.last == path {
                Error::DuplicateEntry {
                    path: DisplayPath::from(path),
                }
            } else {
                Error::BadEntry {
                    path: DisplayPath::from(path),
                    reason: format!(
                        "pushed after {}; entries must ascend by path bytes",
                        self.last
                    ),
                }
            });
        }
        let mut hex = [0u8; 64];
        self.record.clear();
        for field in [
            path.as_bytes(),
            entry.kind().as_bytes(),
            entry.mode().as_bytes(),
            digest_field(entry, &mut hex),
        ] {
            self.record.extend_from_slice(field);
            self.record.push(0);
        }
        self.hasher.update(&self.record);
        self.last.clear();
        self.last.push_str(path);
        Ok(())
    }

    /// Ends the stream.
    pub fn finish(self) -> Fingerprint {
        Fingerprint(Digest(self.hasher.finalize().into()))
    }
}

/// The digest field's bytes, hex-encoded into `buf` without allocating.
fn digest_field<'a>(entry: &Entry, buf: &'a mut [u8; 64]) -> &'a [u8] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match entry.digest() {
        None => b"-",
        Some(Digest(bytes)) => {
            for (i, b) in bytes.iter().enumerate() {
                buf[2 * i] = HEX[(b >> 4) as usize];
                buf[2 * i + 1] = HEX[(b & 0xf) as usize];
            }
            buf
        }
    }
}

/// The fingerprint of entries given in any order: they are sorted by path bytes
/// first; a path given twice is an error.
///
/// ```
/// use ledger_core::expand::{Entry, fingerprint_entries};
/// let fp = fingerprint_entries(vec![Entry::from_parts("gone.md", "missing", "-", "-").unwrap()]).unwrap();
/// assert!(fp.to_string().starts_with("sha256:"));
/// ```
pub fn fingerprint_entries(entries: impl IntoIterator<Item = Entry>) -> Result<Fingerprint> {
    let mut entries: Vec<Entry> = entries.into_iter().collect();
    entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    fingerprint_sorted(&entries)
}

/// The fingerprint of entries already in ascending path order (checked: a path
/// out of order or given twice is an error).
pub(crate) fn fingerprint_sorted(entries: &[Entry]) -> Result<Fingerprint> {
    let mut encoder = Encoder::new();
    for entry in entries {
        encoder.push(entry)?;
    }
    Ok(encoder.finish())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::path::WorkspacePath;
    use proptest::prelude::*;

    #[test]
    fn empty_set() {
        assert_eq!(
            Encoder::new().finish().to_string(),
            "sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99"
        );
    }

    #[test]
    fn bad_fingerprint_strings() {
        for bad in [
            "",
            "sha256:",
            "sha1:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99",
            "sha256:8A18FDB2A6E200DEB5EDC4025B5B0E99BECB62F3E387DC915EC196D04F65FE99",
            "sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe9",
            " sha256:8a18fdb2a6e200deb5edc4025b5b0e99becb62f3e387dc915ec196d04f65fe99",
        ] {
            assert_eq!(
                bad.parse::<Fingerprint>().unwrap_err().code(),
                "bad-fingerprint"
            );
        }
    }

    #[test]
    fn duplicates_and_disorder_are_refused() {
        let a = Entry::from_parts("a", "missing", "-", "-").unwrap();
        let b = Entry::from_parts("b", "missing", "-", "-").unwrap();
        let err = fingerprint_entries([a.clone(), a.clone()]).unwrap_err();
        assert_eq!(err.code(), "duplicate-entry");
        let mut enc = Encoder::new();
        enc.push(&b).unwrap();
        assert_eq!(enc.push(&a).unwrap_err().code(), "bad-entry");
    }

    fn arb_entry() -> impl Strategy<Value = Entry> {
        ("[a-z.\\-/é😀]{1,12}", 0u8..4, any::<[u8; 32]>()).prop_filter_map(
            "valid path",
            |(path, kind, digest)| {
                let path = WorkspacePath::new(path).ok()?;
                let digest = Digest(digest);
                let content = match kind {
                    0 => crate::expand::Content::File {
                        executable: false,
                        digest,
                    },
                    1 => crate::expand::Content::File {
                        executable: true,
                        digest,
                    },
                    2 => crate::expand::Content::Symlink { digest },
                    _ => crate::expand::Content::Missing,
                };
                Some(Entry { path, content })
            },
        )
    }

    proptest! {
        #[test]
        fn order_independent(
            entries in prop::collection::btree_map("[a-z]{1,3}(/[a-z.]{1,3}){0,2}", arb_entry(), 0..20),
            seed in any::<u64>(),
        ) {
            // Re-key the generated entries by unique paths, then shuffle.
            let mut list: Vec<Entry> = entries
                .into_iter()
                .filter_map(|(p, e)| Some(Entry { path: WorkspacePath::new(p).ok()?, content: e.content }))
                .collect();
            list.sort_by(|a, b| a.path.cmp(&b.path));
            list.dedup_by(|a, b| a.path == b.path);
            let sorted = fingerprint_entries(list.clone()).unwrap();
            let mut shuffled = list;
            let mut s = seed;
            for i in (1..shuffled.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                shuffled.swap(i, (s >> 33) as usize % (i + 1));
            }
            prop_assert_eq!(fingerprint_entries(shuffled).unwrap(), sorted);
        }

        #[test]
        fn fingerprint_text_round_trips(bytes in any::<[u8; 32]>()) {
            let fp = Fingerprint(Digest(bytes));
            prop_assert_eq!(fp.to_string().parse::<Fingerprint>().unwrap(), fp);
        }
    }
}
