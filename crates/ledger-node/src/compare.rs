//! Comparisons: what changed, path by path, since an inventory was taken.
//! The objects have exactly the shape of `ledger verify --json`.

use napi_derive::napi;

use crate::entry::Entry;
use crate::error::Failure;

/// The answer of `inventory.compare()`.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Whether the fingerprints are equal.
    pub matches: bool,
    /// The recorded fingerprint.
    pub old: String,
    /// The fingerprint now.
    pub new: String,
    /// How many paths did not change.
    pub unchanged: u32,
    /// Every change, in path order (a path can change both mode and content).
    pub changes: Vec<Change>,
}

/// One change of one path.
#[napi(object, use_nullable = true)]
#[derive(Debug, Clone)]
pub struct Change {
    /// What changed.
    #[napi(ts_type = "ChangeKind")]
    pub change: String,
    /// The entry as recorded (`null` when the path is new).
    pub old: Option<Entry>,
    /// The entry now (`kind: 'missing'` when the path was removed).
    pub new: Entry,
}

impl Comparison {
    /// Translates the core's comparison; the change kinds keep the core's
    /// serialized names (`'kind-changed'`, ...).
    pub fn from_core(c: &ledger_core::Comparison) -> Result<Self, Failure> {
        let changes = c
            .changes
            .iter()
            .map(|change| Change {
                change: change.change.as_str().to_owned(),
                old: change.old.as_ref().map(Entry::from),
                new: Entry::from(&change.new),
            })
            .collect();
        Ok(Comparison {
            matches: c.matches,
            old: c.old.to_string(),
            new: c.new.to_string(),
            unchanged: u32::try_from(c.unchanged).unwrap_or(u32::MAX),
            changes,
        })
    }
}
