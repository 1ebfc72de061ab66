//! Whether a verdict still stands: its state re-expanded and compared.

use serde::Serialize;

use crate::error::Result;
use crate::records::compare::Comparison;
use crate::records::store::{Provenance, Store};
use crate::verdict::record::{VerdictSummary, latest_verdict, verdict_ref};

/// The answer of [`check_verdict`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VerdictCheck {
    /// The verdict's name.
    pub name: String,
    /// Whether the latest verdict is still bound to the state on disk: no
    /// path of its scope changed since it was recorded (or downgraded).
    /// Whatever the verdict says (`PASS`, `FAIL`) is in `latest`.
    pub stands: bool,
    /// The latest record of the verdict (`None`: never recorded).
    pub latest: Option<VerdictSummary>,
    /// Its state compared with the disk now, path by path (`None`: never recorded).
    pub comparison: Option<Comparison>,
    /// Where the latest record came from and who signed it (docs/sharing.md).
    pub provenance: Option<Provenance>,
}

/// Whether the verdict `name` still stands: its latest record's scope
/// re-expanded in the store's workspace, compared entry by entry with the
/// state it was given on. A verdict never recorded does not stand.
///
/// `bad-ref-name` for a name that makes no store ref; `malformed-record` for
/// a record that is not a verdict of `name` or contradicts itself.
pub fn check_verdict(store: &Store, name: &str) -> Result<VerdictCheck> {
    let Some(latest) = latest_verdict(store, name)? else {
        return Ok(VerdictCheck {
            name: name.to_owned(),
            stands: false,
            latest: None,
            comparison: None,
            provenance: None,
        });
    };
    let comparison = latest.verdict.inventory.compare()?;
    let provenance = store
        .provenance(&verdict_ref(name))?
        .filter(|seen| seen.record == latest.id);
    Ok(VerdictCheck {
        name: name.to_owned(),
        stands: comparison.matches,
        latest: Some(latest.summary()),
        comparison: Some(comparison),
        provenance,
    })
}
