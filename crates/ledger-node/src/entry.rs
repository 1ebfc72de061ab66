//! Entries: one path of an inventory, in the text form of the v1 stream.

use napi_derive::napi;

use crate::error::Failure;

/// One path of an inventory: what the v1 fingerprint hashes for it.
#[napi(object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The workspace path (`/`-separated, relative).
    pub path: String,
    /// What is at the path.
    #[napi(ts_type = "EntryKind")]
    pub kind: String,
    /// Git's mode: `100644`, `100755` (executable), `120000` (symlink), `-` (missing).
    #[napi(ts_type = "EntryMode")]
    pub mode: String,
    /// 64 lowercase hex digits of SHA-256 (of the content, or of the link
    /// target); `-` for a missing path.
    pub digest: String,
}

impl From<&ledger_core::Entry> for Entry {
    fn from(entry: &ledger_core::Entry) -> Self {
        Entry {
            path: entry.path.as_str().to_owned(),
            kind: entry.kind().to_owned(),
            mode: entry.mode().to_owned(),
            digest: entry.digest_text(),
        }
    }
}

impl Entry {
    /// The core entry; the core refuses impossible combinations (`bad-entry`)
    /// and invalid paths.
    pub fn to_core(&self) -> Result<ledger_core::Entry, Failure> {
        Ok(ledger_core::Entry::from_parts(
            &self.path,
            &self.kind,
            &self.mode,
            &self.digest,
        )?)
    }
}
