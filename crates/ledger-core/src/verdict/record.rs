//! A verdict as the store keeps it: the audit's outcome, its source and
//! findings, and the inventory of the state it was given on.

use serde::{Deserialize, Serialize};

use crate::error::{DisplayPath, Error, Result};
use crate::expand::fingerprint::Fingerprint;
use crate::expand::inventory::Inventory;
use crate::expand::revision::ObservedHead;
use crate::expand::scope::Scope;
use crate::platform::OsStrBytes;
use crate::records::store::{RecordId, Store, check_ref_name};

/// The kind of record holding an [`AuditVerdict`].
pub const VERDICT_KIND: &str = "verdict";

/// The reason recorded for a verdict's own report, excluded from its scope.
pub const REPORT_REASON: &str =
    "the verdict's own report: written after the audit, it cannot be part of the state it judges";

/// At most this many bytes in a verdict's label (`PASS`, `FAIL`, `ready`, …).
const LABEL_LIMIT: usize = 64;

/// At most this many bytes in a source, a finding or a reason.
const TEXT_LIMIT: usize = 16 * 1024;

/// At most this many findings in one verdict.
const FINDINGS_LIMIT: usize = 10_000;

/// The store reference of a verdict's chain.
pub fn verdict_ref(name: &str) -> String {
    format!("verdicts/{name}")
}

/// What a record of a verdict's chain did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictEvent {
    /// An audit gave the verdict on the state recorded with it (a first audit
    /// or a re-audit).
    Recorded,
    /// The verdict was lowered explicitly, after the state changed or for
    /// another reason; the lower verdict is bound to the state at the downgrade.
    Downgraded,
}

impl VerdictEvent {
    /// The name, as serialized: `recorded` or `downgraded`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictEvent::Recorded => "recorded",
            VerdictEvent::Downgraded => "downgraded",
        }
    }
}

/// What a downgrade lowered, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Downgrade {
    /// The verdict before the downgrade.
    pub from: String,
    /// Why it was lowered, as the caller observed it.
    pub reason: String,
    /// The fingerprint of the state the lowered verdict was given on.
    pub audited: Fingerprint,
}

/// One record of a verdict's chain.
///
/// Reading a verdict checks what it claims: its entries must give its
/// fingerprint, its scope must be valid and host-free, and a downgrade
/// record must say what it lowered; otherwise it is refused
/// (`malformed-record`) rather than trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditVerdict {
    /// The verdict's name, e.g. `pr-118` or `release-2.3`.
    pub name: String,
    /// Whether an audit recorded it or a downgrade lowered it.
    pub event: VerdictEvent,
    /// The verdict as it stands after this record, e.g. `PASS` or `FAIL`.
    pub verdict: String,
    /// Where the verdict came from (the audit's summary, a review id), as the
    /// caller observed it; a downgrade keeps the audit's.
    pub source: String,
    /// The audit's findings, in the order given.
    #[serde(default)]
    pub findings: Vec<String>,
    /// The verdict's own reports in its scope, excluded from it with [`REPORT_REASON`].
    #[serde(default)]
    pub reports: Vec<String>,
    /// What a downgrade lowered (`None` for an audit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downgrade: Option<Downgrade>,
    /// The state the verdict is bound to: its scope, entries and fingerprint.
    pub inventory: Inventory,
    /// The commit `HEAD` named when it was recorded, and whether that state
    /// was the commit's (`None`: no `HEAD` to observe, or a record written
    /// before ledger observed it). Whether it stands never depends on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<ObservedHead>,
}

impl AuditVerdict {
    /// The fingerprint of the state the verdict is bound to.
    pub fn fingerprint(&self) -> Fingerprint {
        self.inventory.fingerprint
    }

    /// What makes this record untrustworthy or incomplete, if anything.
    pub(crate) fn defect(&self) -> Option<String> {
        if let Err(e) = check_name(&self.name) {
            return Some(e.to_string());
        }
        if let Err(e) = check_label(&self.verdict, "verdict") {
            return Some(e.to_string());
        }
        if let Err(why) = self.inventory.check_stored() {
            return Some(format!("its inventory is invalid: {why}"));
        }
        if let Err(why) = self.inventory.scope.check_stored_workspace() {
            return Some(format!("its scope is invalid: {why}"));
        }
        match (self.event, &self.downgrade) {
            (VerdictEvent::Recorded, Some(_)) => {
                Some("an audit's record holds a downgrade".to_owned())
            }
            (VerdictEvent::Downgraded, None) => {
                Some("a downgrade's record does not say what it lowered".to_owned())
            }
            _ => None,
        }
    }

    /// This verdict as the store of `base` keeps it: its scope relative to `base`.
    pub(crate) fn stored_in(&self, base: &camino::Utf8Path) -> AuditVerdict {
        AuditVerdict {
            inventory: self.inventory.stored_in(base),
            ..self.clone()
        }
    }
}

/// A record of a verdict's chain without its entries: what `log` lists and
/// what `record`, `downgrade` and `check` answer with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct VerdictSummary {
    /// The record.
    pub record: RecordId,
    /// When it was written, RFC 3339 UTC.
    pub written_at: String,
    /// The verdict's name.
    pub name: String,
    /// Whether an audit recorded it or a downgrade lowered it.
    pub event: VerdictEvent,
    /// The verdict as it stands after this record.
    pub verdict: String,
    /// Where the verdict came from.
    pub source: String,
    /// The audit's findings.
    pub findings: Vec<String>,
    /// The verdict's own reports, excluded from its scope.
    pub reports: Vec<String>,
    /// What a downgrade lowered (`None` for an audit).
    pub downgrade: Option<Downgrade>,
    /// The fingerprint of the state the verdict is bound to (the state revision).
    pub fingerprint: Fingerprint,
    /// How many entries that state has.
    pub entries: usize,
    /// The scope, in the caller's workspace.
    pub scope: Scope,
    /// The commit `HEAD` named when it was recorded, and whether the state
    /// was that commit's (`None`: not observed).
    pub head: Option<ObservedHead>,
}

impl VerdictSummary {
    pub(crate) fn of(
        record: RecordId,
        written_at: String,
        verdict: &AuditVerdict,
    ) -> VerdictSummary {
        VerdictSummary {
            record,
            written_at,
            name: verdict.name.clone(),
            event: verdict.event,
            verdict: verdict.verdict.clone(),
            source: verdict.source.clone(),
            findings: verdict.findings.clone(),
            reports: verdict.reports.clone(),
            downgrade: verdict.downgrade.clone(),
            fingerprint: verdict.fingerprint(),
            entries: verdict.inventory.entries.len(),
            scope: verdict.inventory.scope.clone(),
            head: verdict.head.clone(),
        }
    }
}

/// A verdict record read from the store: its id, when it was written, and
/// the verdict in the store's workspace.
pub(crate) struct ReadVerdict {
    pub(crate) id: RecordId,
    pub(crate) written_at: String,
    pub(crate) verdict: AuditVerdict,
}

impl ReadVerdict {
    pub(crate) fn summary(&self) -> VerdictSummary {
        VerdictSummary::of(self.id, self.written_at.clone(), &self.verdict)
    }
}

/// Reads one record of the chain of `name`, checked and re-rooted in the
/// store's workspace.
pub(crate) fn read_verdict(store: &Store, name: &str, id: &RecordId) -> Result<ReadVerdict> {
    let record = store.read_record_of_kind::<AuditVerdict>(id, VERDICT_KIND)?;
    let malformed = |reason: String| Error::MalformedRecord {
        record: DisplayPath::from_bytes(store.record_path(id).as_os_str().as_bytes()),
        reason: format!("on ref {}: {reason}", verdict_ref(name)),
    };
    let mut verdict = record.body;
    if verdict.name != name {
        return Err(malformed(format!(
            "a verdict named \"{}\", not \"{}\"",
            DisplayPath::from(verdict.name.as_str()).0,
            DisplayPath::from(name).0
        )));
    }
    if let Some(defect) = verdict.defect() {
        return Err(malformed(defect));
    }
    verdict.inventory = match store.workspace() {
        Some(base) => verdict.inventory.rerooted(&base).map_err(malformed)?,
        None if verdict.inventory.scope.workspace().is_absolute() => verdict.inventory,
        None => {
            return Err(malformed(
                "its scope is relative, in a store of no workspace".to_owned(),
            ));
        }
    };
    Ok(ReadVerdict {
        id: *id,
        written_at: record.written_at,
        verdict,
    })
}

/// The record the ref of `name` names now, read (`None`: never recorded).
pub(crate) fn latest_verdict(store: &Store, name: &str) -> Result<Option<ReadVerdict>> {
    check_name(name)?;
    match store.head(&verdict_ref(name))? {
        Some(id) => read_verdict(store, name, &id).map(Some),
        None => Ok(None),
    }
}

/// Every record of the verdict `name`, newest first (empty: never recorded).
pub fn verdict_log(store: &Store, name: &str) -> Result<Vec<VerdictSummary>> {
    check_name(name)?;
    (store.history(&verdict_ref(name))?.iter())
        .map(|id| read_verdict(store, name, id).map(|read| read.summary()))
        .collect()
}

/// A verdict's name must make a store ref (`bad-ref-name`).
pub(crate) fn check_name(name: &str) -> Result<()> {
    check_ref_name(&verdict_ref(name))
}

/// A verdict label: 1 to 64 bytes of `A-Z a-z 0-9 . _ + -`, starting with a
/// letter or digit (`invalid-argument` naming `what`).
pub(crate) fn check_label(label: &str, what: &str) -> Result<()> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-');
    let problem = if label.is_empty() {
        Some("it is empty")
    } else if label.len() > LABEL_LIMIT {
        Some("it is longer than 64 bytes")
    } else if !label.as_bytes()[0].is_ascii_alphanumeric() {
        Some("it does not start with a letter or digit")
    } else if !label.bytes().all(allowed) {
        Some("it has a character other than A-Z, a-z, 0-9, '.', '_', '+', '-'")
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(Error::InvalidArgument {
            message: format!(
                "the {what} \"{}\" is not a verdict: {problem}",
                DisplayPath::from(label.chars().take(80).collect::<String>().as_str()).0
            ),
        }),
    }
}

/// A source, finding or reason: not blank, at most 16 KiB (`invalid-argument`).
pub(crate) fn check_text(text: &str, what: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Err(Error::InvalidArgument {
            message: format!("a verdict needs its {what}: it is empty"),
        });
    }
    if text.len() > TEXT_LIMIT {
        return Err(Error::InvalidArgument {
            message: format!(
                "a verdict's {what} is {} bytes, more than 16 KiB",
                text.len()
            ),
        });
    }
    Ok(())
}

/// The findings: at most 10 000, each a text as [`check_text`] wants it.
pub(crate) fn check_findings(findings: &[String]) -> Result<()> {
    if findings.len() > FINDINGS_LIMIT {
        return Err(Error::InvalidArgument {
            message: format!(
                "a verdict holds at most 10000 findings, not {}",
                findings.len()
            ),
        });
    }
    findings.iter().try_for_each(|f| check_text(f, "finding"))
}
