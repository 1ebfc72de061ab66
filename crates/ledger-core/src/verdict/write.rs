//! Writing a verdict's chain: an audit's verdict, and its explicit downgrade.

use crate::error::{DisplayPath, Error, Result};
use crate::expand::inventory::Inventory;
use crate::expand::scope::Scope;
use crate::path::WorkspacePath;
use crate::quote::quote;
use crate::records::store::Store;
use crate::verdict::record::{
    Downgrade, REPORT_REASON, VERDICT_KIND, Verdict, VerdictEvent, VerdictSummary, check_findings,
    check_label, check_name, check_text, latest_verdict, read_verdict, verdict_ref,
};

/// The one verdict ledger knows the rank of: a downgrade never reaches it.
const PASS: &str = "PASS";

/// An audit's verdict, to be bound to the state of `scope` now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictRequest {
    /// The verdict's name (a store ref segment path, e.g. `pr-118`).
    pub name: String,
    /// The verdict, e.g. `PASS` or `FAIL`: 1 to 64 bytes of
    /// `A-Z a-z 0-9 . _ + -`, starting with a letter or digit.
    pub verdict: String,
    /// Where it came from, as the caller observed it (not blank).
    pub source: String,
    /// The audit's findings (each not blank).
    pub findings: Vec<String>,
    /// The verdict's own reports, workspace paths: each is excluded from the
    /// scope with [`REPORT_REASON`], so writing it does not invalidate the
    /// verdict. One the scope names exactly (a path or Tasks file) is refused.
    pub reports: Vec<String>,
    /// The audited state.
    pub scope: Scope,
}

impl VerdictRequest {
    /// A request with no findings and no reports.
    pub fn new(name: &str, verdict: &str, source: &str, scope: Scope) -> VerdictRequest {
        VerdictRequest {
            name: name.to_owned(),
            verdict: verdict.to_owned(),
            source: source.to_owned(),
            findings: Vec::new(),
            reports: Vec::new(),
            scope,
        }
    }
}

/// Records an audit's verdict on the state of its scope now, at the end of
/// the chain `verdicts/<name>` (a first audit or a re-audit), with
/// compare-and-swap against the head read before the state is expanded: a
/// verdict recorded meanwhile by another writer is `pointer-conflict`, and
/// nothing is overwritten.
///
/// `invalid-argument` for a label, source or finding that does not fit, or a
/// report the scope names exactly; `bad-ref-name` for a name that makes no ref.
pub fn record_verdict(store: &Store, request: &VerdictRequest) -> Result<VerdictSummary> {
    check_name(&request.name)?;
    check_label(&request.verdict, "verdict")?;
    check_text(&request.source, "source")?;
    check_findings(&request.findings)?;
    let mut scope = request.scope.clone();
    let mut reports = Vec::new();
    for report in &request.reports {
        reports.push(exclude_report(&mut scope, report)?);
    }
    let head = store.head(&verdict_ref(&request.name))?;
    let inventory = Inventory::expand(&scope)?;
    let verdict = Verdict {
        name: request.name.clone(),
        event: VerdictEvent::Recorded,
        verdict: request.verdict.clone(),
        source: request.source.clone(),
        findings: request.findings.clone(),
        reports,
        downgrade: None,
        inventory,
    };
    write(store, head.as_ref(), &verdict)
}

/// An explicit downgrade of a recorded verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DowngradeRequest {
    /// The verdict's name.
    pub name: String,
    /// The lower verdict (a label as [`VerdictRequest::verdict`]); never
    /// `PASS`, never the verdict it lowers.
    pub to: String,
    /// Why, as the caller observed it (not blank).
    pub reason: String,
}

/// Lowers the latest verdict of `request.name` to `request.to`, bound to the
/// state of the same scope now (a fix after the verdict is acknowledged, not
/// re-audited), with compare-and-swap against the record it lowers.
///
/// `invalid-argument` when no verdict of that name is recorded, when `to` is
/// the verdict it lowers or `PASS` (either needs a re-audit), or when the
/// reason is blank.
pub fn downgrade_verdict(store: &Store, request: &DowngradeRequest) -> Result<VerdictSummary> {
    check_label(&request.to, "downgraded verdict")?;
    check_text(&request.reason, "reason")?;
    let Some(latest) = latest_verdict(store, &request.name)? else {
        return Err(Error::InvalidArgument {
            message: format!(
                "no verdict \"{}\" is recorded in the store at {}: a downgrade lowers a recorded verdict",
                escaped(&request.name),
                quote(store.root().as_str())
            ),
        });
    };
    let from = &latest.verdict;
    if request.to == from.verdict {
        return Err(Error::InvalidArgument {
            message: format!(
                "verdict \"{}\" is {} already: a downgrade lowers it, and the same verdict on a changed state needs a new audit",
                escaped(&request.name),
                request.to
            ),
        });
    }
    if request.to.eq_ignore_ascii_case(PASS) {
        return Err(Error::InvalidArgument {
            message: format!(
                "verdict \"{}\" cannot be downgraded to {}: a PASS is given by an audit, never by a downgrade",
                escaped(&request.name),
                request.to
            ),
        });
    }
    let inventory = Inventory::expand(&from.inventory.scope)?;
    let verdict = Verdict {
        event: VerdictEvent::Downgraded,
        verdict: request.to.clone(),
        downgrade: Some(Downgrade {
            from: from.verdict.clone(),
            reason: request.reason.clone(),
            audited: from.fingerprint(),
        }),
        inventory,
        ..from.clone()
    };
    write(store, Some(&latest.id), &verdict)
}

/// Excludes a report from the scope with [`REPORT_REASON`]; the report as a
/// workspace path.
fn exclude_report(scope: &mut Scope, report: &str) -> Result<String> {
    let path = WorkspacePath::new(report)?;
    if scope.paths().contains(&path) || scope.task_rule(&path).is_some() {
        return Err(Error::InvalidArgument {
            message: format!(
                "the report {} is named by the scope (an exact path or a Tasks file): a verdict's report cannot be part of the state it judges",
                quote(path.as_str())
            ),
        });
    }
    scope.exclude(path.as_str(), REPORT_REASON)?;
    Ok(path.as_str().to_owned())
}

/// Writes `verdict` after `expected` on its ref, host-free, and reads it back.
fn write(
    store: &Store,
    expected: Option<&crate::records::store::RecordId>,
    verdict: &Verdict,
) -> Result<VerdictSummary> {
    let stored = match store.workspace() {
        Some(base) => verdict.stored_in(&base),
        None => verdict.clone(),
    };
    let reference = verdict_ref(&verdict.name);
    let id = store.commit(&reference, VERDICT_KIND, expected, &stored)?;
    Ok(read_verdict(store, &verdict.name, &id)?.summary())
}

fn escaped(text: &str) -> String {
    DisplayPath::from(text).0
}
