//! The record a write started from: the base of the store's compare-and-swap,
//! as a writer names it (`--expect RECORD|none` in the CLI, `expected` in
//! the doors).

use std::fmt;

use crate::error::{Error, Result};
use crate::records::store::RecordId;

/// The record a write started from, as its writer read it: the write is
/// committed after it, or refused with `pointer-conflict` when the ref's head
/// is another one by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartedFrom {
    /// Nothing was recorded on the ref (`none` in the front doors).
    Nothing,
    /// This record was the head.
    Record(RecordId),
}

impl StartedFrom {
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

    /// `none`, or a record id (`bad-record-id`).
    fn from_str(text: &str) -> Result<Self> {
        match text {
            "none" => Ok(StartedFrom::Nothing),
            id => id.parse().map(StartedFrom::Record),
        }
    }
}

impl fmt::Display for StartedFrom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartedFrom::Nothing => f.write_str("none"),
            StartedFrom::Record(id) => write!(f, "{id}"),
        }
    }
}
