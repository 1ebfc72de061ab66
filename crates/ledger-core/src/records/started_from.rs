//! The record a write started from: the base of the store's compare-and-swap,
//! as a writer names it (`--expect RECORD|no-record` in the CLI, `expected`
//! in the doors). "Nothing recorded" is spelled `no-record`, never `none`:
//! beside Python's `None` and JavaScript's `null` (the option left out: the
//! head as read now) a `"none"` would read as the same idea, and it is the
//! opposite one.

use std::fmt;

use crate::error::{Error, Result};
use crate::records::store::RecordId;

/// The record a write started from, as its writer read it: the write is
/// committed after it, or refused with `pointer-conflict` when the ref's head
/// is another one by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartedFrom {
    /// Nothing was recorded on the ref (`no-record` in the front doors).
    Nothing,
    /// This record was the head.
    Record(RecordId),
}

impl StartedFrom {
    /// How the doors spell [`StartedFrom::Nothing`].
    pub const NO_RECORD: &'static str = "no-record";

    /// The record, `None` for [`StartedFrom::Nothing`].
    pub fn record(&self) -> Option<&RecordId> {
        match self {
            StartedFrom::Nothing => None,
            StartedFrom::Record(id) => Some(id),
        }
    }
}

impl From<RecordId> for StartedFrom {
    fn from(id: RecordId) -> Self {
        StartedFrom::Record(id)
    }
}

impl std::str::FromStr for StartedFrom {
    type Err = Error;

    /// `no-record`, or a record id (`bad-record-id`); `none` is refused
    /// (`invalid-argument`) with what it may have meant.
    fn from_str(text: &str) -> Result<Self> {
        match text {
            StartedFrom::NO_RECORD => Ok(StartedFrom::Nothing),
            "none" | "None" | "null" => Err(Error::InvalidArgument {
                message: format!(
                    "expected {text:?} is neither a record id nor `no-record`: write `no-record` for a write that read that nothing is recorded, or leave it out to take the head as read now"
                ),
            }),
            id => id.parse().map(StartedFrom::Record),
        }
    }
}

impl fmt::Display for StartedFrom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartedFrom::Nothing => f.write_str(StartedFrom::NO_RECORD),
            StartedFrom::Record(id) => write!(f, "{id}"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn no_record_round_trips_and_none_is_refused_with_what_to_write() {
        let nothing: StartedFrom = "no-record".parse().unwrap();
        assert_eq!(nothing, StartedFrom::Nothing);
        assert_eq!(nothing.to_string(), "no-record");
        for text in ["none", "None", "null"] {
            let err = text.parse::<StartedFrom>().unwrap_err();
            assert_eq!(err.code(), "invalid-argument", "{text}");
            assert!(err.to_string().contains("no-record"), "{err}");
        }
        let id = "ab".repeat(32);
        assert_eq!(id.parse::<StartedFrom>().unwrap().to_string(), id);
        assert_eq!(
            "abc".parse::<StartedFrom>().unwrap_err().code(),
            "bad-record-id"
        );
    }
}
