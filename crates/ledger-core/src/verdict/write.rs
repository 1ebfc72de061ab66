//! Writing a verdict's chain: an audit's verdict, and its explicit downgrade.

use crate::error::{DisplayPath, Error, Result};
use crate::expand::inventory::Inventory;
use crate::expand::revision::ObservedHead;
use crate::expand::scope::Scope;
use crate::path::WorkspacePath;
use crate::quote::quote;
use crate::records::store::{RecordId, StartedFrom, Store};
use crate::verdict::record::{
    AuditVerdict, Downgrade, REPORT_REASON, VERDICT_KIND, VerdictEvent, VerdictSummary,
    check_findings, check_label, check_name, check_text, latest_verdict, read_verdict, verdict_ref,
};
use crate::verdict::report::{check_report, check_reports};

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
    /// The verdict's record this audit started from (`Nothing`: none was
    /// recorded): `pointer-conflict` when the chain's head is another one.
    /// `None`: the head as read now.
    pub expected: Option<StartedFrom>,
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
            expected: None,
        }
    }
}

/// Records an audit's verdict on the state of its scope now, at the end of
/// the chain `verdicts/<name>` (a first audit or a re-audit), with
/// compare-and-swap against the head read before the state is expanded: a
/// verdict recorded meanwhile by another writer is `pointer-conflict`, and
/// nothing is overwritten.
///
/// `invalid-argument` for a label, source or finding that does not fit, a
/// report the scope names exactly, or a scope that holds no file; `bad-ref-name` for a name that makes no ref;
/// `bad-report` for a report that exists and is not a regular file.
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
    for report in &reports {
        check_report(scope.workspace(), &WorkspacePath::new(report)?)?;
    }
    let head = match request.expected {
        Some(expected) => expected.record().cloned(),
        None => store.head(&verdict_ref(&request.name))?,
    };
    let inventory = Inventory::expand(&scope)?;
    if inventory.entries.is_empty() {
        return Err(Error::InvalidArgument {
            message: format!(
                "verdict \"{}\": its scope in {} holds no file, and a verdict on nothing stands whatever is fixed; name what was audited",
                escaped(&request.name),
                quote(scope.workspace().as_str())
            ),
        });
    }
    let verdict = AuditVerdict {
        name: request.name.clone(),
        event: VerdictEvent::Recorded,
        verdict: request.verdict.clone(),
        source: request.source.clone(),
        findings: request.findings.clone(),
        reports,
        downgrade: None,
        head: ObservedHead::observe(&inventory),
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
    /// The record the caller read as the verdict's head (`Nothing`: none):
    /// `pointer-conflict` when the chain's head is another one. `None`: the
    /// head as read now.
    pub expected: Option<StartedFrom>,
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
    if request.to.eq_ignore_ascii_case(PASS) {
        return Err(Error::InvalidArgument {
            message: format!(
                "verdict \"{}\" cannot be downgraded to {}: a PASS is given by an audit, never by a downgrade",
                escaped(&request.name),
                request.to
            ),
        });
    }
    if request.to == from.verdict {
        return Err(Error::InvalidArgument {
            message: format!(
                "verdict \"{}\" is {} already: a downgrade lowers it, and the same verdict on a changed state needs a new audit",
                escaped(&request.name),
                request.to
            ),
        });
    }
    check_reports(from.inventory.scope.workspace(), &from.reports)?;
    let scope = (from.inventory.scope.clone()).with_settings(store.settings().clone());
    let inventory = Inventory::expand(&scope)?;
    let verdict = AuditVerdict {
        event: VerdictEvent::Downgraded,
        verdict: request.to.clone(),
        downgrade: Some(Downgrade {
            from: from.verdict.clone(),
            reason: request.reason.clone(),
            audited: from.fingerprint(),
        }),
        head: ObservedHead::observe(&inventory),
        inventory,
        ..from.clone()
    };
    let expected = match request.expected {
        Some(expected) => expected.record().cloned(),
        None => Some(latest.id),
    };
    write(store, expected.as_ref(), &verdict)
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
    expected: Option<&RecordId>,
    verdict: &AuditVerdict,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::verdict::check::check_verdict;
    use crate::verdict::record::latest_verdict;

    fn setup() -> (tempfile::TempDir, Store, Scope) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        let workspace = camino::Utf8Path::from_path(dir.path()).unwrap().to_owned();
        let store = Store::open(&workspace).unwrap();
        let mut scope = Scope::new(workspace);
        scope.add_root(".").unwrap();
        (dir, store, scope)
    }

    #[test]
    fn a_writer_that_read_an_older_head_is_refused_and_nothing_is_overwritten() {
        let (_dir, store, scope) = setup();
        let first = record_verdict(
            &store,
            &VerdictRequest::new("v", "FAIL", "s1", scope.clone()),
        );
        let first = first.unwrap();
        // Another audit lands; a writer that still believes the chain is empty
        // (it read the head before) must not replace it.
        let second = record_verdict(&store, &VerdictRequest::new("v", "PASS", "s2", scope));
        let second = second.unwrap();
        let stale = latest_verdict(&store, "v").unwrap().unwrap().verdict;
        let refused = write(&store, Some(&first.record), &stale).unwrap_err();
        assert_eq!(refused.code(), "pointer-conflict");
        let refused = write(&store, None, &stale).unwrap_err();
        assert_eq!(refused.code(), "pointer-conflict");
        let head = check_verdict(&store, "v").unwrap().latest.unwrap();
        assert_eq!(head.record, second.record);
    }

    #[test]
    fn a_record_whose_entries_do_not_give_its_fingerprint_is_refused() {
        let (dir, store, scope) = setup();
        record_verdict(&store, &VerdictRequest::new("v", "PASS", "s", scope)).unwrap();
        let mut forged = latest_verdict(&store, "v").unwrap().unwrap();
        std::fs::write(dir.path().join("a.txt"), "changed\n").unwrap();
        // The forger claims the changed state without an audit.
        forged.verdict.inventory.fingerprint = Inventory::expand(&forged.verdict.inventory.scope)
            .unwrap()
            .fingerprint;
        let base = store.workspace().unwrap();
        let stored = forged.verdict.stored_in(&base);
        store
            .commit(&verdict_ref("v"), VERDICT_KIND, Some(&forged.id), &stored)
            .unwrap();
        let refused = check_verdict(&store, "v").unwrap_err();
        assert_eq!(refused.code(), "malformed-record", "{refused}");
    }

    #[test]
    fn a_downgrade_keeps_the_audit_and_says_what_it_lowered() {
        let (dir, store, scope) = setup();
        let mut request = VerdictRequest::new("v", "PASS", "audit-3", scope);
        request.findings.push("minor".to_owned());
        let audited = record_verdict(&store, &request).unwrap();
        std::fs::write(dir.path().join("a.txt"), "fixed\n").unwrap();
        let lowered = DowngradeRequest {
            name: "v".to_owned(),
            to: "PASS-WITH-RISKS".to_owned(),
            reason: "fixed after the verdict".to_owned(),
            expected: None,
        };
        let lowered = downgrade_verdict(&store, &lowered).unwrap();
        assert_eq!(
            (lowered.source.as_str(), lowered.findings.as_slice()),
            ("audit-3", ["minor".to_owned()].as_slice())
        );
        let downgrade = lowered.downgrade.unwrap();
        assert_eq!(
            (downgrade.from.as_str(), downgrade.audited),
            ("PASS", audited.fingerprint)
        );
        assert!(check_verdict(&store, "v").unwrap().stands);
    }

    #[test]
    fn a_named_expectation_that_is_not_the_head_records_nothing() {
        let (_dir, store, scope) = setup();
        let mut first = VerdictRequest::new("v", "FAIL", "s1", scope.clone());
        first.expected = Some(StartedFrom::Nothing);
        let first = record_verdict(&store, &first).unwrap();
        // A re-audit that believes nothing was recorded, or names the head: one wins.
        let mut blind = VerdictRequest::new("v", "PASS", "s2", scope.clone());
        blind.expected = Some(StartedFrom::Nothing);
        assert_eq!(
            record_verdict(&store, &blind).unwrap_err().code(),
            "pointer-conflict"
        );
        let mut informed = blind.clone();
        informed.expected = Some(StartedFrom::Record(first.record));
        let second = record_verdict(&store, &informed).unwrap();
        // A downgrade read from the first record is refused once the second landed.
        let stale = DowngradeRequest {
            name: "v".to_owned(),
            to: "FAIL".to_owned(),
            reason: "fixed".to_owned(),
            expected: Some(StartedFrom::Record(first.record)),
        };
        assert_eq!(
            downgrade_verdict(&store, &stale).unwrap_err().code(),
            "pointer-conflict"
        );
        let current = DowngradeRequest {
            expected: Some(StartedFrom::Record(second.record)),
            ..stale
        };
        downgrade_verdict(&store, &current).unwrap();
        assert_eq!(verdict_log_len(&store), 3);
    }

    fn verdict_log_len(store: &Store) -> usize {
        crate::verdict::verdict_log(store, "v").unwrap().len()
    }
}
