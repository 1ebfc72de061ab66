//! Whether a verdict still stands: its state re-expanded and compared.

use serde::Serialize;

use crate::error::Result;
use crate::expand::revision::ObservedHead;
use crate::records::compare::Comparison;
use crate::records::store::{Provenance, Store, why_unproven};
use crate::verdict::record::{VerdictSummary, latest_verdict, verdict_ref};
use crate::verdict::report::check_reports;

/// The answer of [`check_verdict`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VerdictCheck {
    /// The verdict's name.
    pub name: String,
    /// Whether the latest verdict is still bound to the state on disk: no
    /// path of its scope changed since it was recorded (or downgraded), and
    /// it is proven here (`unproven` is `None`). Whatever the verdict says
    /// (`PASS`, `FAIL`) is in `latest`.
    pub stands: bool,
    /// Why the latest record cannot stand as proof on this machine although
    /// its state may be unchanged: it was fetched from elsewhere and no
    /// allowed signer signed it, or the ref moved while it was read. `None`:
    /// this store wrote it, or an allowed signer signed it.
    pub unproven: Option<String>,
    /// The latest record of the verdict (`None`: never recorded).
    pub latest: Option<VerdictSummary>,
    /// Its state compared with the disk now, path by path (`None`: never recorded).
    pub comparison: Option<Comparison>,
    /// Where the latest record came from and who signed it (docs/sharing.md).
    pub provenance: Option<Provenance>,
    /// The commit `HEAD` names now (`None`: none to observe). When it is
    /// another than the one the latest record observed and the verdict
    /// stands, `HEAD` moved and the content did not: it still stands.
    pub head_now: Option<String>,
    /// Whether `HEAD` moved since the latest record observed it (both known
    /// and different).
    pub head_moved: bool,
}

/// Whether the verdict `name` still stands: its latest record's scope
/// re-expanded in the store's workspace, compared entry by entry with the
/// state it was given on. A verdict never recorded does not stand.
///
/// `bad-ref-name` for a name that makes no store ref; `malformed-record` for
/// a record that is not a verdict of `name` or contradicts itself;
/// `bad-report` when one of its reports has become something other than a
/// regular file (a directory would hide the files in it from the compare).
pub fn check_verdict(store: &Store, name: &str) -> Result<VerdictCheck> {
    crate::expand::opened_once(|| {
        let Some(latest) = latest_verdict(store, name)? else {
            return Ok(VerdictCheck {
                name: name.to_owned(),
                stands: false,
                unproven: None,
                latest: None,
                comparison: None,
                provenance: None,
                head_now: None,
                head_moved: false,
            });
        };
        check_reports(
            latest.verdict.inventory.scope.workspace(),
            &latest.verdict.reports,
        )?;
        let recorded = (latest.verdict.inventory.clone()).with_settings(store.settings().clone());
        let comparison = recorded.compare()?;
        let seen = store.provenance(&verdict_ref(name))?;
        // Judged by the rule gate evidence follows: a record from elsewhere
        // counts only when an allowed signer signed it.
        let unproven = why_unproven(&latest.id, seen.as_ref());
        let provenance = seen.filter(|seen| seen.record == latest.id);
        let head_now = ObservedHead::current(&recorded.scope);
        let head_then = latest.verdict.head.as_ref().map(|h| h.commit.as_str());
        let head_moved =
            matches!((head_then, head_now.as_deref()), (Some(then), Some(now)) if then != now);
        Ok(VerdictCheck {
            head_now,
            head_moved,
            name: name.to_owned(),
            stands: comparison.matches && unproven.is_none(),
            unproven,
            latest: Some(latest.summary()),
            comparison: Some(comparison),
            provenance,
        })
    })
}
