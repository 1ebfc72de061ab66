//! A gate run's output, kept whole up to a bound (docs/gates.md, Output): the
//! diagnostic signal of a failure is never cut to a fixed number of lines.
//!
//! The bytes the command writes to stdout and stderr, in the order ledger
//! reads them, are kept whole up to [`OUTPUT_LIMIT`]. Past it, the first
//! [`OUTPUT_HEAD_BYTES`] and the last [`OUTPUT_TAIL_BYTES`] are kept and the
//! evidence says how many bytes were dropped between them. The kept bytes are
//! stored once in the store's `objects/`, named by their SHA-256; the evidence
//! holds that digest ([`KeptOutput`]).

use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::entry::Digest;
use crate::platform::OsStrBytes;
use crate::records::store::Store;

/// At most this many bytes of a run's output are kept.
pub const OUTPUT_LIMIT: usize = OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES;
/// Of an output past [`OUTPUT_LIMIT`], this many bytes of its start are kept…
pub const OUTPUT_HEAD_BYTES: usize = 256 * 1024;
/// …and this many of its end.
pub const OUTPUT_TAIL_BYTES: usize = 768 * 1024;

/// What the evidence says of the output it kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeptOutput {
    /// `sha256:<hex>` of the kept bytes: the name of the object holding them.
    pub digest: String,
    /// How many bytes the command wrote in all.
    pub total_bytes: u64,
    /// Set when the output was longer than the bound: what was dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    /// Set when ledger stopped reading before the output ended: a process
    /// that left the gate's process group still held its pipes (the kept
    /// bytes are what had arrived).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
}

/// The part of an output past the bound that was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Truncation {
    /// The kept bytes are these first bytes of the output…
    pub head_bytes: u64,
    /// …then, after this many dropped bytes, the rest of the kept bytes.
    pub dropped_bytes: u64,
}

impl KeptOutput {
    /// How many bytes were kept (and are stored).
    pub fn kept_bytes(&self) -> u64 {
        self.total_bytes - self.truncated.map_or(0, |t| t.dropped_bytes)
    }

    /// The object name of the kept bytes.
    pub fn object(&self) -> Option<Digest> {
        self.digest
            .strip_prefix("sha256:")
            .and_then(Digest::from_hex)
    }

    /// What contradicts itself in this description, if anything.
    pub(crate) fn defect(&self) -> Option<String> {
        if self.object().is_none() {
            return Some("its output digest is not sha256:<64 lowercase hex digits>".to_owned());
        }
        let Some(cut) = self.truncated else {
            return (self.total_bytes > OUTPUT_LIMIT as u64)
                .then(|| "its output is longer than the bound, and not truncated".to_owned());
        };
        let kept = self.total_bytes.checked_sub(cut.dropped_bytes);
        match kept {
            Some(kept) if cut.dropped_bytes > 0 && cut.head_bytes <= kept => None,
            _ => Some("its output's truncation does not fit its length".to_owned()),
        }
    }

    /// The kept bytes, read from `store` and checked against the digest and
    /// the length: `unreadable` when the object is gone, `corrupt-record` when
    /// its bytes are not the ones described.
    pub fn read(&self, store: &Store) -> Result<Vec<u8>> {
        let object = self.object().ok_or_else(|| Error::InvalidArgument {
            message: "the evidence's output digest is not sha256:<hex>".to_owned(),
        })?;
        let bytes = store.read_object(&object)?;
        if bytes.len() as u64 != self.kept_bytes() {
            return Err(Error::CorruptRecord {
                path: DisplayPath::from_bytes(store.object_path(&object).as_os_str().as_bytes()),
                reason: format!(
                    "it holds {} bytes, the evidence kept {}",
                    bytes.len(),
                    self.kept_bytes()
                ),
            });
        }
        Ok(bytes)
    }
}

/// Collects a run's output as it arrives, holding at most [`OUTPUT_LIMIT`]
/// bytes (plus one read's worth) whatever the command writes.
#[derive(Debug, Default)]
pub(crate) struct OutputKeeper {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
}

impl OutputKeeper {
    /// Takes the next bytes read.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.head.len() < OUTPUT_HEAD_BYTES {
            let room = (OUTPUT_HEAD_BYTES - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..room]);
            bytes = &bytes[room..];
        }
        self.tail.extend_from_slice(bytes);
        // Trimmed in steps, not per read: a drain moves the whole tail.
        if self.tail.len() > 2 * OUTPUT_TAIL_BYTES {
            let excess = self.tail.len() - OUTPUT_TAIL_BYTES;
            self.tail.drain(..excess);
        }
    }

    /// The kept bytes and what was dropped between the head and the tail.
    pub(crate) fn finish(&self) -> (Vec<u8>, u64, Option<Truncation>) {
        let tail_start = self.tail.len().saturating_sub(OUTPUT_TAIL_BYTES);
        let mut kept = self.head.clone();
        kept.extend_from_slice(&self.tail[tail_start..]);
        let dropped = self.total - kept.len() as u64;
        let truncation = (dropped > 0).then_some(Truncation {
            head_bytes: self.head.len() as u64,
            dropped_bytes: dropped,
        });
        (kept, self.total, truncation)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn an_output_within_the_bound_is_kept_whole() {
        let mut keeper = OutputKeeper::default();
        let text: Vec<u8> = (0..OUTPUT_LIMIT).map(|i| (i % 251) as u8).collect();
        for chunk in text.chunks(8191) {
            keeper.push(chunk);
        }
        let (kept, total, cut) = keeper.finish();
        assert_eq!(
            (kept == text, total, cut),
            (true, OUTPUT_LIMIT as u64, None)
        );
    }

    #[test]
    fn past_the_bound_the_head_and_tail_are_kept_and_the_rest_counted() {
        let mut keeper = OutputKeeper::default();
        let len = 3 * OUTPUT_LIMIT + 17;
        let text: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
        for chunk in text.chunks(8192) {
            keeper.push(chunk);
        }
        let (kept, total, cut) = keeper.finish();
        let cut = cut.unwrap();
        assert_eq!(total, len as u64);
        assert_eq!(kept.len(), OUTPUT_LIMIT);
        assert_eq!(cut.head_bytes, OUTPUT_HEAD_BYTES as u64);
        assert_eq!(cut.dropped_bytes, (len - OUTPUT_LIMIT) as u64);
        assert_eq!(kept[..OUTPUT_HEAD_BYTES], text[..OUTPUT_HEAD_BYTES]);
        assert_eq!(kept[OUTPUT_HEAD_BYTES..], text[len - OUTPUT_TAIL_BYTES..]);
        let described = KeptOutput {
            digest: format!("sha256:{}", "0".repeat(64)),
            total_bytes: total,
            truncated: Some(cut),
            incomplete: false,
        };
        assert_eq!(described.kept_bytes(), OUTPUT_LIMIT as u64);
        assert_eq!(described.defect(), None);
        let lie = KeptOutput {
            truncated: None,
            ..described
        };
        assert!(lie.defect().is_some());
    }
}
