//! A gate run's output, kept whole up to a bound (docs/gates.md, Output): the
//! diagnostic signal of a failure is never cut to a fixed number of lines.
//!
//! The bytes the command writes to stdout and stderr, in the order ledger
//! reads them, are kept whole up to an [`OutputBound`] (1 MiB unless the
//! caller or the gate's declaration sets another). Past it, the first quarter
//! of the bound and the last three quarters are kept, and a line inserted
//! between them (the elision marker, part of the kept bytes) says which bytes
//! and lines of the output were dropped there; the evidence says the same
//! ([`Truncation`]). The kept bytes are stored once in the store's `objects/`,
//! named by their SHA-256; the evidence holds that digest ([`KeptOutput`]).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::entry::Digest;
use crate::platform::OsStrBytes;
use crate::quote::escape;
use crate::records::store::Store;

/// At most this many bytes of a run's output are kept by default
/// ([`OutputBound::DEFAULT`]).
pub const OUTPUT_LIMIT: usize = OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES;
/// Of an output past the default bound, this many bytes of its start are kept…
pub const OUTPUT_HEAD_BYTES: usize = 256 * 1024;
/// …and this many of its end.
pub const OUTPUT_TAIL_BYTES: usize = 768 * 1024;

/// The longest an elision marker can be (it is far shorter: about 150 bytes).
const MARKER_LIMIT: u64 = 512;

/// How many bytes of a run's output are kept (`--keep-output`, a declared
/// gate's `keep-output`, the doors' `keep_output_bytes`): from 1 byte to
/// [`OutputBound::MAX`] (1 GiB), [`OutputBound::DEFAULT`] (1 MiB) unless set.
/// An output longer than the bound keeps its first quarter and its last three
/// quarters; ledger holds at most the bound in memory while the command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutputBound(u64);

impl Default for OutputBound {
    fn default() -> OutputBound {
        OutputBound::DEFAULT
    }
}

impl OutputBound {
    /// 1 MiB: the first 256 KiB and the last 768 KiB of a longer output.
    pub const DEFAULT: OutputBound = OutputBound(OUTPUT_LIMIT as u64);
    /// 1 GiB, the largest bound: ledger holds up to the bound in memory.
    pub const MAX: OutputBound = OutputBound(1 << 30);

    /// A bound of `bytes`; `invalid-argument` unless it is from 1 byte to
    /// [`OutputBound::MAX`].
    pub fn new(bytes: u64) -> Result<OutputBound> {
        OutputBound::checked(bytes).map_err(|reason| Error::InvalidArgument {
            message: format!("an output bound of {bytes} bytes: {reason}"),
        })
    }

    /// The bound a size says: a whole number of bytes (`4096`, `4096B`) or
    /// of a unit (`64KiB`, `1MiB`, `1GiB` of 1024s; `10kB`, `10MB`, `1GB` of
    /// 1000s; one space may come before the unit). `invalid-argument` naming
    /// `what` (the flag, e.g. `--keep-output`) otherwise, or when the size is
    /// zero or more than [`OutputBound::MAX`].
    pub fn parse(text: &str, what: &str) -> Result<OutputBound> {
        OutputBound::parse_described(text, what)
            .map_err(|message| Error::InvalidArgument { message })
    }

    /// [`OutputBound::parse`], the refusal as a message (a declaration's
    /// reason).
    pub(crate) fn parse_described(
        text: &str,
        what: &str,
    ) -> std::result::Result<OutputBound, String> {
        parse_size(text)
            .and_then(OutputBound::checked)
            .map_err(|reason| {
                format!(
                    "{what} '{}': {reason}; give a size from 1 byte to 1GiB, such as 4096, 64KiB, 1MiB or 10MB",
                    escape(text.as_bytes())
                )
            })
    }

    fn checked(bytes: u64) -> std::result::Result<OutputBound, String> {
        match bytes {
            0 => Err("a bound of zero would keep nothing".to_owned()),
            n if n > OutputBound::MAX.0 => Err(format!(
                "more than the largest bound, 1GiB ({} bytes)",
                OutputBound::MAX.0
            )),
            n => Ok(OutputBound(n)),
        }
    }

    /// The bound in bytes.
    pub fn bytes(self) -> u64 {
        self.0
    }

    /// Of an output past the bound, how many bytes of its start are kept: a
    /// quarter of the bound.
    pub fn head_bytes(self) -> u64 {
        self.0 / 4
    }

    /// …and how many of its end: the rest of the bound.
    pub fn tail_bytes(self) -> u64 {
        self.0 - self.head_bytes()
    }
}

/// A size as `parse` takes it, in bytes; why not, otherwise.
fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err("not a size: it does not start with a number".to_owned());
    }
    let scale: u64 = match unit.strip_prefix(' ').unwrap_or(unit) {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        other if other.starts_with(['.', ',']) => {
            return Err("not a whole number of bytes or units (1536KiB, not 1.5MiB)".to_owned());
        }
        other => {
            return Err(format!(
                "'{}' is not a unit (B, KiB, MiB, GiB, kB, MB or GB)",
                escape(other.as_bytes())
            ));
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| "far more than the largest bound, 1GiB".to_owned())
}

impl<'de> Deserialize<'de> for OutputBound {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        // Refused inside the visitor, so that a door's reader sees the
        // failure at the option and names it (`keep_output_bytes`).
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = OutputBound;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole number of bytes from 1 to 1073741824 (1 GiB)")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<OutputBound, E> {
                OutputBound::checked(n).map_err(|reason| {
                    E::custom(format_args!(
                        "expected a whole number of bytes from 1 to 1073741824 (1 GiB), found {n}: {reason}"
                    ))
                })
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<OutputBound, E> {
                match u64::try_from(n) {
                    Ok(n) => self.visit_u64(n),
                    Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(n), &self)),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<OutputBound, E> {
                // A whole number written as a float (`4096.0`) is that number.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                match n.fract() == 0.0 && (1.0..=(OutputBound::MAX.0 as f64)).contains(&n) {
                    true => self.visit_u64(n as u64),
                    false => Err(E::invalid_value(serde::de::Unexpected::Float(n), &self)),
                }
            }
        }
        d.deserialize_u64(Bytes)
    }
}

impl schemars::JsonSchema for OutputBound {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "KeepOutputBytes".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "integer",
            "minimum": 1,
            "maximum": 1_073_741_824u64,
            "description": "How many bytes of a run's output are kept (from 1 to 1073741824, 1 GiB; default 1048576, 1 MiB): past it, the first quarter and the last three quarters, with a line between them saying what was dropped.",
        })
    }
}

fn default_bound() -> u64 {
    OutputBound::DEFAULT.0
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the evidence says of the output it kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeptOutput {
    /// `sha256:<hex>` of the kept bytes: the name of the object holding them.
    pub digest: String,
    /// How many bytes the command wrote in all.
    pub total_bytes: u64,
    /// The bound the run kept its output within, in bytes (1 MiB in records
    /// written before it could be set).
    #[serde(default = "default_bound")]
    pub bound_bytes: u64,
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
///
/// The kept bytes are the first `head_bytes` bytes of the output, then the
/// elision marker (`marker_bytes` long: a line saying what was dropped), then
/// the last bytes of the output; the `dropped_bytes` bytes between are gone.
/// The dropped bytes are those at offsets `head_bytes..head_bytes +
/// dropped_bytes` of the output (0-based, the end excluded), on its lines
/// `dropped_from_line` to `dropped_to_line` (1-based, both included; the
/// first and the last of them may be kept in part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Truncation {
    /// The kept bytes are these first bytes of the output…
    pub head_bytes: u64,
    /// …then, after this many dropped bytes, the rest of the kept bytes.
    pub dropped_bytes: u64,
    /// The line (1-based) of the first dropped byte: one more than the line
    /// feeds before it (absent in records written before lines were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_from_line: Option<u64>,
    /// The line (1-based) of the last dropped byte (absent with
    /// `dropped_from_line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_to_line: Option<u64>,
    /// How many bytes the elision marker takes in the kept bytes, right after
    /// the head (0, and absent, in records written before the marker).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub marker_bytes: u64,
}

impl Truncation {
    /// The offsets of the dropped bytes in the output: the start included,
    /// the end excluded.
    pub fn dropped_range(&self) -> std::ops::Range<u64> {
        self.head_bytes..self.head_bytes.saturating_add(self.dropped_bytes)
    }

    /// What was dropped: `bytes 262144..1310720 (lines 10234 to 20001)`
    /// (`line N` when it is one; no lines in records written before they
    /// were counted).
    pub fn describe(&self) -> String {
        let range = self.dropped_range();
        let lines = match (self.dropped_from_line, self.dropped_to_line) {
            (Some(from), Some(to)) if from == to => format!(" (line {from})"),
            (Some(from), Some(to)) => format!(" (lines {from} to {to})"),
            _ => String::new(),
        };
        format!("bytes {}..{}{lines}", range.start, range.end)
    }

    /// The elision marker written between the head and the tail: its line,
    /// after a line feed when the head does not end a line.
    fn marker(&self, total_bytes: u64, head_ends_a_line: bool) -> String {
        format!(
            "{}[ledger: output elided: {} of {total_bytes} bytes dropped; the start and the end are kept]\n",
            if head_ends_a_line { "" } else { "\n" },
            self.describe()
        )
    }
}

impl KeptOutput {
    /// How many bytes were kept (and are stored): the command's bytes kept
    /// and the elision marker.
    pub fn kept_bytes(&self) -> u64 {
        let cut = self.truncated;
        self.total_bytes
            .saturating_sub(cut.map_or(0, |t| t.dropped_bytes))
            .saturating_add(cut.map_or(0, |t| t.marker_bytes))
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
        if OutputBound::checked(self.bound_bytes).is_err() {
            return Some("its output bound is not from 1 byte to 1 GiB".to_owned());
        }
        let Some(cut) = self.truncated else {
            return (self.total_bytes > self.bound_bytes)
                .then(|| "its output is longer than its bound, and not truncated".to_owned());
        };
        // What was kept of the command's bytes is the bound, exactly.
        let kept = self.total_bytes.checked_sub(cut.dropped_bytes);
        let fits = cut.dropped_bytes > 0
            && kept == Some(self.bound_bytes)
            && cut.head_bytes <= self.bound_bytes;
        if !fits {
            return Some("its output's truncation does not fit its length".to_owned());
        }
        let lines = match (cut.dropped_from_line, cut.dropped_to_line) {
            (None, None) => cut.marker_bytes == 0,
            // No more line feeds before the dropped bytes than bytes, nor
            // between the first dropped byte and the last.
            (Some(from), Some(to)) => {
                (1..=cut.head_bytes.saturating_add(1)).contains(&from)
                    && (from..=from.saturating_add(cut.dropped_bytes - 1)).contains(&to)
                    && (1..=MARKER_LIMIT).contains(&cut.marker_bytes)
            }
            _ => false,
        };
        (!lines).then(|| "its output's dropped lines or elision marker do not fit".to_owned())
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

/// What an [`OutputKeeper`] kept, once the run is over.
#[derive(Debug)]
pub(crate) struct Kept {
    /// The kept bytes: the whole output, or its head, the elision marker and
    /// its tail.
    pub(crate) bytes: Vec<u8>,
    /// How many bytes the command wrote (as far as they were read).
    pub(crate) total_bytes: u64,
    /// The bound they were kept within.
    pub(crate) bound: OutputBound,
    /// What was dropped, if anything.
    pub(crate) truncated: Option<Truncation>,
}

/// Collects a run's output as it arrives, holding at most its bound whatever
/// the command writes: the head, and the tail in a ring that drops its oldest
/// bytes as new ones come, counting the line feeds it drops.
#[derive(Debug, Default)]
pub(crate) struct OutputKeeper {
    bound: OutputBound,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    dropped: Dropped,
}

/// What is known of the bytes dropped so far, without keeping them.
#[derive(Debug, Default)]
struct Dropped {
    /// Line feeds among them.
    newlines: u64,
    /// The last of them.
    last: Option<u8>,
}

impl Dropped {
    /// Counts `bytes`, the next ones dropped.
    fn add(&mut self, bytes: &[u8]) {
        if let Some(last) = bytes.last() {
            self.newlines += newlines(bytes);
            self.last = Some(*last);
        }
    }
}

/// How many line feeds `bytes` holds.
fn newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

impl OutputKeeper {
    /// A keeper of at most `bound` bytes.
    pub(crate) fn new(bound: OutputBound) -> OutputKeeper {
        OutputKeeper {
            bound,
            ..OutputKeeper::default()
        }
    }

    /// Takes the next bytes read.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let head_limit = usize::try_from(self.bound.head_bytes()).unwrap_or(usize::MAX);
        if self.head.len() < head_limit {
            let room = (head_limit - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..room]);
            bytes = &bytes[room..];
        }
        let tail_limit = usize::try_from(self.bound.tail_bytes()).unwrap_or(usize::MAX);
        // The oldest bytes of the tail, then of these, that do not fit.
        let excess = (self.tail.len() + bytes.len()).saturating_sub(tail_limit);
        let from_tail = excess.min(self.tail.len());
        let (front, back) = self.tail.as_slices();
        let in_front = from_tail.min(front.len());
        self.dropped.add(&front[..in_front]);
        self.dropped.add(&back[..from_tail - in_front]);
        self.tail.drain(..from_tail);
        let (gone, bytes) = bytes.split_at(excess - from_tail);
        self.dropped.add(gone);
        // Grown no further than the tail can hold.
        let wanted = self.tail.len() + bytes.len();
        if wanted > self.tail.capacity() {
            let target = (2 * self.tail.capacity()).max(wanted).min(tail_limit);
            self.tail.reserve_exact(target - self.tail.len());
        }
        self.tail.extend(bytes);
    }

    /// The kept bytes and what was dropped between the head and the tail.
    pub(crate) fn finish(self) -> Kept {
        let mut bytes = self.head;
        let kept = bytes.len() + self.tail.len();
        let dropped = self.total - kept as u64;
        let truncated = (dropped > 0).then(|| {
            let from = 1 + newlines(&bytes);
            // A dropped line feed that is the last dropped byte ends its line.
            let ends_a_line = u64::from(self.dropped.last == Some(b'\n'));
            let mut cut = Truncation {
                head_bytes: bytes.len() as u64,
                dropped_bytes: dropped,
                dropped_from_line: Some(from),
                dropped_to_line: Some(from + self.dropped.newlines - ends_a_line),
                marker_bytes: 0,
            };
            let head_ends_a_line = bytes.last().is_none_or(|b| *b == b'\n');
            let marker = cut.marker(self.total, head_ends_a_line);
            cut.marker_bytes = marker.len() as u64;
            bytes.reserve_exact(marker.len() + self.tail.len());
            bytes.extend_from_slice(marker.as_bytes());
            cut
        });
        bytes.extend(self.tail);
        Kept {
            bytes,
            total_bytes: self.total,
            bound: self.bound,
            truncated,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn keep(text: &[u8], bound: u64, chunk: usize) -> Kept {
        let mut keeper = OutputKeeper::new(OutputBound::new(bound).unwrap());
        for piece in text.chunks(chunk.max(1)) {
            keeper.push(piece);
        }
        keeper.push(b"");
        keeper.finish()
    }

    /// What must be kept of `text` within `bound`, worked out from the whole
    /// text: the head, the marker (written out here) and the tail.
    fn expected(text: &[u8], bound: usize) -> (Vec<u8>, Option<(u64, u64)>) {
        if text.len() <= bound {
            return (text.to_vec(), None);
        }
        let (head, tail) = (bound / 4, bound - bound / 4);
        let end = text.len() - tail;
        let line_of = |offset: usize| 1 + text[..offset].iter().filter(|b| **b == b'\n').count();
        let (from, to) = (line_of(head), line_of(end - 1));
        let lines = match from == to {
            true => format!("line {from}"),
            false => format!("lines {from} to {to}"),
        };
        let mut kept = text[..head].to_vec();
        if head > 0 && text[head - 1] != b'\n' {
            kept.push(b'\n');
        }
        kept.extend_from_slice(
            format!(
                "[ledger: output elided: bytes {head}..{end} ({lines}) of {} bytes dropped; the start and the end are kept]\n",
                text.len()
            )
            .as_bytes(),
        );
        kept.extend_from_slice(&text[end..]);
        (kept, Some((from as u64, to as u64)))
    }

    fn described(kept: &Kept) -> KeptOutput {
        KeptOutput {
            digest: format!("sha256:{}", "0".repeat(64)),
            total_bytes: kept.total_bytes,
            bound_bytes: kept.bound.bytes(),
            truncated: kept.truncated,
            incomplete: false,
        }
    }

    #[test]
    fn an_output_within_the_bound_is_kept_whole() {
        let mut keeper = OutputKeeper::default();
        let text: Vec<u8> = (0..OUTPUT_LIMIT).map(|i| (i % 251) as u8).collect();
        for chunk in text.chunks(8191) {
            keeper.push(chunk);
        }
        let kept = keeper.finish();
        assert_eq!(
            (kept.bytes == text, kept.total_bytes, kept.truncated),
            (true, OUTPUT_LIMIT as u64, None)
        );
        assert_eq!(described(&kept).defect(), None);
    }

    #[test]
    fn past_the_bound_the_head_and_tail_are_kept_and_the_rest_counted() {
        let mut keeper = OutputKeeper::default();
        let len = 3 * OUTPUT_LIMIT + 17;
        let text: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
        for chunk in text.chunks(8192) {
            keeper.push(chunk);
        }
        let kept = keeper.finish();
        let cut = kept.truncated.unwrap();
        assert_eq!(kept.total_bytes, len as u64);
        assert_eq!(cut.head_bytes, OUTPUT_HEAD_BYTES as u64);
        assert_eq!(cut.dropped_bytes, (len - OUTPUT_LIMIT) as u64);
        assert_eq!(
            kept.bytes.len() as u64,
            OUTPUT_LIMIT as u64 + cut.marker_bytes
        );
        assert_eq!(kept.bytes, expected(&text, OUTPUT_LIMIT).0);
        let output = described(&kept);
        assert_eq!(output.kept_bytes(), kept.bytes.len() as u64);
        assert_eq!(output.defect(), None);
        let lie = KeptOutput {
            truncated: None,
            ..output.clone()
        };
        assert!(lie.defect().is_some());
        let smaller = KeptOutput {
            bound_bytes: 1024,
            ..output.clone()
        };
        assert!(smaller.defect().is_some(), "the kept bytes are the bound");
        let no_marker = KeptOutput {
            truncated: Some(Truncation {
                marker_bytes: 0,
                ..cut
            }),
            ..output.clone()
        };
        assert!(no_marker.defect().is_some());
        let backwards = KeptOutput {
            truncated: Some(Truncation {
                dropped_to_line: Some(cut.dropped_from_line.unwrap() - 1),
                ..cut
            }),
            ..output
        };
        assert!(backwards.defect().is_some());
    }

    #[test]
    fn lines_are_counted_across_chunk_boundaries_without_keeping_the_middle() {
        let text: Vec<u8> = (1..=500)
            .flat_map(|i| format!("line {i}{}\n", "x".repeat(i % 7)).into_bytes())
            .collect();
        for bound in [1, 2, 3, 4, 5, 9, 100, 1000, 4096] {
            let (want, lines) = expected(&text, bound);
            for chunk in [1, 2, 3, 7, 64, 999, 4096, text.len()] {
                let kept = keep(&text, bound as u64, chunk);
                assert_eq!(
                    String::from_utf8_lossy(&kept.bytes),
                    String::from_utf8_lossy(&want),
                    "bound {bound}, chunks of {chunk}"
                );
                let cut = kept.truncated.unwrap();
                assert_eq!(
                    (cut.dropped_from_line, cut.dropped_to_line),
                    (lines.map(|l| l.0), lines.map(|l| l.1)),
                    "bound {bound}, chunks of {chunk}"
                );
                assert_eq!(described(&kept).defect(), None, "bound {bound}");
                assert_eq!(described(&kept).kept_bytes(), kept.bytes.len() as u64);
                // The keeper holds no more than the bound.
                assert!(kept.bytes.len() <= bound + cut.marker_bytes as usize);
            }
        }
    }

    #[test]
    fn exactly_at_the_bound_is_whole_and_one_byte_over_drops_one() {
        let text: Vec<u8> = b"1\n2\n3\n4\n".to_vec();
        let whole = keep(&text, 8, 3);
        assert_eq!((whole.bytes.as_slice(), whole.truncated), (&text[..], None));
        let mut over = text.clone();
        over.push(b'5');
        let kept = keep(&over, 8, 1);
        let cut = kept.truncated.unwrap();
        // The head is "1\n"; the byte dropped is "2" (offset 2, line 2).
        assert_eq!(
            (
                cut.head_bytes,
                cut.dropped_bytes,
                cut.dropped_from_line,
                cut.dropped_to_line
            ),
            (2, 1, Some(2), Some(2))
        );
        assert_eq!(
            String::from_utf8(kept.bytes).unwrap(),
            "1\n[ledger: output elided: bytes 2..3 (line 2) of 9 bytes dropped; the start and the end are kept]\n\n3\n4\n5"
        );
    }

    #[test]
    fn an_output_without_a_line_feed_is_one_line() {
        let text = vec![b'a'; 100];
        let kept = keep(&text, 40, 13);
        let cut = kept.truncated.unwrap();
        assert_eq!(
            (cut.dropped_from_line, cut.dropped_to_line),
            (Some(1), Some(1))
        );
        let shown = String::from_utf8(kept.bytes).unwrap();
        assert!(
            shown.starts_with(&format!(
                "{}\n[ledger: output elided: bytes 10..70 (line 1) of 100 bytes dropped;",
                "a".repeat(10)
            )),
            "{shown}"
        );
        assert!(
            shown.ends_with(&format!("kept]\n{}", "a".repeat(30))),
            "{shown}"
        );
    }

    #[test]
    fn crlf_line_endings_count_as_lines() {
        let lf: Vec<u8> = (1..=100)
            .flat_map(|i| format!("{i:03}\n").into_bytes())
            .collect();
        let crlf: Vec<u8> = (1..=100)
            .flat_map(|i| format!("{i:03}\r\n").into_bytes())
            .collect();
        let (lf, crlf) = (keep(&lf, 80, 7), keep(&crlf, 100, 7));
        let (a, b) = (lf.truncated.unwrap(), crlf.truncated.unwrap());
        // Lines of 4 bytes and of 5, the bound 20 lines' worth: the same
        // lines are dropped, from the 6th to the 85th.
        assert_eq!(
            (a.dropped_from_line, a.dropped_to_line),
            (Some(6), Some(85))
        );
        assert_eq!(
            (b.dropped_from_line, b.dropped_to_line),
            (Some(6), Some(85))
        );
        assert_eq!((b.head_bytes, b.dropped_bytes), (25, 400));
        let shown = String::from_utf8(crlf.bytes).unwrap();
        assert!(
            shown.contains("005\r\n[ledger: output elided: bytes 25..425 (lines 6 to 85) of 500 bytes dropped; the start and the end are kept]\n086\r\n"),
            "{shown}"
        );
    }

    #[test]
    fn sizes_are_whole_numbers_of_bytes_or_units_within_the_bounds() {
        for (text, bytes) in [
            ("4096", 4096),
            ("4096B", 4096),
            ("64KiB", 64 << 10),
            ("1MiB", 1 << 20),
            ("4 MiB", 4 << 20),
            ("1GiB", 1 << 30),
            ("10MB", 10_000_000),
            ("10kB", 10_000),
            ("10KB", 10_000),
            ("1GB", 1_000_000_000),
            ("1", 1),
        ] {
            let bound = OutputBound::parse(text, "--keep-output").unwrap();
            assert_eq!(bound.bytes(), bytes, "{text}");
        }
        for (text, says) in [
            ("0", "zero"),
            ("0KiB", "zero"),
            ("2GiB", "largest"),
            ("1073741825", "largest"),
            ("99999999999999999999999", "largest"),
            ("99999999999GiB", "largest"),
            ("1.5MiB", "whole"),
            ("10mb", "not a unit"),
            ("4M", "not a unit"),
            ("MiB", "number"),
            ("", "number"),
            ("-1", "number"),
            (" 4KiB", "number"),
            ("4KiB ", "not a unit"),
        ] {
            let err = OutputBound::parse(text, "--keep-output").unwrap_err();
            assert_eq!(err.code(), "invalid-argument");
            let message = err.to_string();
            assert!(
                message.contains("--keep-output") && message.contains(says),
                "{text}: {message}"
            );
        }
        assert_eq!(OutputBound::default().bytes(), OUTPUT_LIMIT as u64);
        assert_eq!(
            (
                OutputBound::DEFAULT.head_bytes(),
                OutputBound::DEFAULT.tail_bytes()
            ),
            (OUTPUT_HEAD_BYTES as u64, OUTPUT_TAIL_BYTES as u64)
        );
        assert!(OutputBound::new(0).is_err() && OutputBound::new(1 << 30).is_ok());
        let read = |json: &str| serde_json::from_str::<OutputBound>(json).map(OutputBound::bytes);
        assert_eq!(read("4096").unwrap(), 4096);
        assert_eq!(read("4096.0").unwrap(), 4096);
        for bad in ["0", "-1", "1.5", "1073741825", "\"1MiB\"", "null"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_record_written_before_the_marker_still_reads() {
        let old: KeptOutput = serde_json::from_str(&format!(
            r#"{{"digest": "sha256:{}", "total_bytes": 2097152, "truncated": {{"head_bytes": 262144, "dropped_bytes": 1048576}}}}"#,
            "0".repeat(64)
        ))
        .unwrap();
        assert_eq!(old.bound_bytes, OUTPUT_LIMIT as u64);
        assert_eq!(old.defect(), None);
        assert_eq!(old.kept_bytes(), OUTPUT_LIMIT as u64);
        assert_eq!(old.truncated.unwrap().describe(), "bytes 262144..1310720");
    }
}
