//! The verdict wing: the outcome of an audit (a review of a diff, a PR, a
//! plan, a release) bound to the fingerprint of the state it audited, so
//! that a later check says whether the verdict still stands or which paths
//! changed since (docs/verdicts.md).
//!
//! A verdict is recorded before the fixes it leads to, with the state
//! revision; a fix afterwards means a new audit ([`record_verdict`] again) or
//! an explicit downgrade ([`downgrade_verdict`]), never a verdict that
//! silently goes on standing. The records of a verdict form a chain on the
//! store ref `verdicts/<name>`, each written with compare-and-swap against the
//! head the writer read. A report kept inside the audited scope (e.g.
//! `reports/summary-<id>.md`) is excluded from it with [`REPORT_REASON`], so
//! writing it down does not invalidate the verdict.
//!
//! It stands on the records and expansion wings and knows nothing of
//! OpenSpec, approvals or gates.
//!
//! ```
//! use ledger_core::expand::Scope;
//! use ledger_core::records::Store;
//! use ledger_core::verdict::{VerdictRequest, check_verdict, record_verdict};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let workspace = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! std::fs::write(dir.path().join("plan.md"), "# Plan\n")?;
//! let store = Store::open(workspace)?;
//! let mut scope = Scope::new(workspace);
//! scope.add_root(".")?;
//! let mut request = VerdictRequest::new("plan-review", "PASS", "review:42", scope);
//! request.reports.push("reports/summary-42.md".to_owned());
//! record_verdict(&store, &request)?;
//!
//! // The report written after the verdict does not touch it...
//! std::fs::create_dir(dir.path().join("reports"))?;
//! std::fs::write(dir.path().join("reports/summary-42.md"), "PASS\n")?;
//! assert!(check_verdict(&store, "plan-review")?.stands);
//! // ...a fix does.
//! std::fs::write(dir.path().join("plan.md"), "# Plan, fixed\n")?;
//! assert!(!check_verdict(&store, "plan-review")?.stands);
//! # Ok(())
//! # }
//! ```

pub(crate) mod check;
pub(crate) mod record;
pub(crate) mod report;
pub(crate) mod write;

pub use check::{VerdictCheck, check_verdict};
pub use record::{
    AuditVerdict, Downgrade, REPORT_REASON, VERDICT_KIND, VerdictEvent, VerdictSummary,
    verdict_log, verdict_ref,
};
pub use write::{DowngradeRequest, VerdictRequest, downgrade_verdict, record_verdict};
