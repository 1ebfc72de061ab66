//! Verdicts of audits (docs/verdicts.md), as the doors call them: a verdict
//! bound to the fingerprint of a scope in the workspace, kept in the
//! workspace's store on `verdicts/<name>`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::approval::started_from;
use super::expand::ScopeOptions;
use super::{Verb, Workspace, text};
use crate::{
    Result,
    verdict::{DowngradeRequest, VerdictCheck, VerdictRequest, VerdictSummary},
};

/// Records an audit's verdict bound to the fingerprint of its scope now (a
/// first audit or a re-audit), with compare-and-swap against the verdict's
/// head as read; each report is excluded from the scope with the reason
/// "the verdict's own report".
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictRecordOptions {
    /// The verdict's name, e.g. `pr-118`.
    pub name: String,
    /// The verdict, e.g. `PASS` or `FAIL` (letters, digits, `.`, `_`, `+`, `-`).
    pub verdict: String,
    /// Where it came from (the audit's summary, a review id).
    pub source: String,
    /// The audited state: a scope in the workspace.
    #[serde(default)]
    pub scope: ScopeOptions,
    /// The audit's findings, in order.
    #[serde(default)]
    pub findings: Vec<String>,
    /// The verdict's own reports inside its scope (workspace paths, e.g.
    /// `reports/summary-42.md`): excluded, so that writing them does not
    /// invalidate the verdict.
    #[serde(default)]
    pub reports: Vec<String>,
    /// The verdict's record this audit started from (`no-record`: none
    /// was recorded): `pointer-conflict` when another writer advanced the chain.
    /// Default: the head as read now.
    #[schemars(with = "Option<crate::records::StartedFrom>")]
    #[serde(default)]
    pub expected: Option<String>,
}

fn verdict_record(ws: &Workspace, o: VerdictRecordOptions) -> Result<VerdictSummary> {
    let request = VerdictRequest {
        scope: ws.scope(&o.scope)?,
        findings: o.findings,
        reports: o.reports,
        expected: started_from(o.expected.as_deref())?,
        ..VerdictRequest::new(
            &o.name,
            &o.verdict,
            &o.source,
            crate::expand::Scope::new("."),
        )
    };
    crate::verdict::record_verdict(ws.store()?, &request)
}

/// Whether the verdict still stands: its state re-expanded in the workspace
/// and compared path by path (`stands` false, with no `latest`, for a verdict
/// never recorded).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictCheckOptions {
    /// The verdict's name.
    pub name: String,
}

fn verdict_check(ws: &Workspace, o: VerdictCheckOptions) -> Result<VerdictCheck> {
    crate::verdict::check_verdict(ws.store()?, &o.name)
}

/// Lowers the latest verdict explicitly, bound to the state of its scope now
/// (never to `PASS`, never to the verdict it has).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictDowngradeOptions {
    /// The verdict's name.
    pub name: String,
    /// The lower verdict, e.g. `FAIL`.
    pub to: String,
    /// Why, as observed (e.g. the fix made after the verdict).
    pub reason: String,
    /// The record the caller read as the verdict's head (`no-record`: none):
    /// `pointer-conflict` when another writer advanced the chain. Default:
    /// the head as read now.
    #[schemars(with = "Option<crate::records::StartedFrom>")]
    #[serde(default)]
    pub expected: Option<String>,
}

fn verdict_downgrade(ws: &Workspace, o: VerdictDowngradeOptions) -> Result<VerdictSummary> {
    let request = DowngradeRequest {
        name: o.name,
        to: o.to,
        reason: o.reason,
        expected: started_from(o.expected.as_deref())?,
    };
    crate::verdict::downgrade_verdict(ws.store()?, &request)
}

/// Every record of the verdict, newest first (empty: never recorded).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerdictLogOptions {
    /// The verdict's name.
    pub name: String,
}

fn verdict_log(ws: &Workspace, o: VerdictLogOptions) -> Result<Vec<VerdictSummary>> {
    crate::verdict::verdict_log(ws.store()?, &o.name)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("verdict_record", &["name"], verdict_record).shown(text::verdict_written),
        Verb::method("verdict_check", &["name"], verdict_check).shown(text::verdict_check),
        Verb::method("verdict_downgrade", &["name"], verdict_downgrade)
            .shown(text::verdict_written),
        Verb::method("verdict_log", &["name"], verdict_log)
            .shown(|log: &Vec<VerdictSummary>| text::verdict_log(log)),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use crate::door::Case;
    use crate::door::testing::{call, code};

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.txt"), "a\n").unwrap();
        dir
    }

    #[test]
    fn a_verdict_is_recorded_checked_downgraded_and_logged() {
        let dir = workspace();
        let recorded = call(
            &dir,
            "verdict_record",
            json!({"name": "pr-1", "verdict": "PASS", "source": "summary-1",
                   "findings": ["minor: naming"], "reports": ["reports/summary-1.md"]}),
            Case::Camel,
        );
        assert_eq!(recorded["ok"]["verdict"], "PASS", "{recorded}");
        assert_eq!(recorded["ok"]["event"], "recorded", "{recorded}");
        assert_eq!(recorded["ok"]["findings"], json!(["minor: naming"]));
        let exclusion = &recorded["ok"]["scope"]["exclusions"][1];
        assert_eq!(exclusion["path"], "reports/summary-1.md", "{recorded}");

        std::fs::create_dir(dir.path().join("reports")).unwrap();
        std::fs::write(dir.path().join("reports/summary-1.md"), "PASS\n").unwrap();
        let stands = call(&dir, "verdict_check", json!({"name": "pr-1"}), Case::Camel);
        assert_eq!(stands["ok"]["stands"], true, "{stands}");

        std::fs::write(dir.path().join("src/a.txt"), "fixed\n").unwrap();
        let fallen = call(&dir, "verdict_check", json!({"name": "pr-1"}), Case::Snake);
        assert_eq!(fallen["ok"]["stands"], false, "{fallen}");
        assert_eq!(
            fallen["ok"]["comparison"]["changes"][0]["new"]["path"],
            "src/a.txt"
        );

        let same = json!({"name": "pr-1", "to": "PASS", "reason": "r"});
        let refused = call(&dir, "verdict_downgrade", same, Case::Camel);
        assert_eq!(code(&refused), "invalid-argument", "{refused}");
        let lowered = call(
            &dir,
            "verdict_downgrade",
            json!({"name": "pr-1", "to": "FAIL", "reason": "fixed after the verdict"}),
            Case::Camel,
        );
        assert_eq!(lowered["ok"]["downgrade"]["from"], "PASS", "{lowered}");
        assert_eq!(
            lowered["ok"]["downgrade"]["audited"],
            recorded["ok"]["fingerprint"]
        );
        let now = call(&dir, "verdict_check", json!({"name": "pr-1"}), Case::Camel);
        assert_eq!(now["ok"]["stands"], true, "{now}");
        assert_eq!(now["ok"]["latest"]["verdict"], "FAIL", "{now}");

        let log = call(&dir, "verdict_log", json!({"name": "pr-1"}), Case::Camel);
        let events: Vec<&str> = (log["ok"].as_array().unwrap().iter())
            .map(|r| r["event"].as_str().unwrap())
            .collect();
        assert_eq!(events, ["downgraded", "recorded"], "{log}");
    }

    #[test]
    fn a_verdict_never_recorded_does_not_stand_and_cannot_be_downgraded() {
        let dir = workspace();
        let none = call(&dir, "verdict_check", json!({"name": "x"}), Case::Camel);
        assert_eq!(
            (none["ok"]["stands"].as_bool(), &none["ok"]["latest"]),
            (Some(false), &json!(null))
        );
        let down = json!({"name": "x", "to": "FAIL", "reason": "r"});
        assert_eq!(
            code(&call(&dir, "verdict_downgrade", down, Case::Camel)),
            "invalid-argument"
        );
        let bad = json!({"name": "../x", "verdict": "PASS", "source": "s"});
        assert_eq!(
            code(&call(&dir, "verdict_record", bad, Case::Camel)),
            "bad-ref-name"
        );
        let label = json!({"name": "x", "verdict": "PASS!", "source": "s"});
        assert_eq!(
            code(&call(&dir, "verdict_record", label, Case::Camel)),
            "invalid-argument"
        );
        let named = json!({"name": "x", "verdict": "PASS", "source": "s",
                           "scope": {"paths": ["r.md"]}, "reports": ["r.md"]});
        assert_eq!(
            code(&call(&dir, "verdict_record", named, Case::Camel)),
            "invalid-argument"
        );
    }
}
