//! The workspace's record store (docs/records.md), as the doors read it:
//! its check, its refs and the records they name. The store is always
//! `<workspace>/.ledger`; opening it creates nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Verb, Workspace};
use crate::{
    Result,
    records::{RecordId, RefHead, StoreReport, StoredRecord},
};

/// What `store_check` finds, and whether the store is clean.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StoreCheck {
    /// The report (`ledger store check --json`).
    #[serde(flatten)]
    pub report: StoreReport,
    /// No orphan records, temp files, corrupt files or dangling refs (the
    /// digest cache never makes a store unclean).
    pub clean: bool,
}

/// Orphan records, leftover temp files, corrupt files and dangling refs of
/// the store (`ledger store check --json`), and whether it is clean; an
/// absent store is empty and clean.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreCheckOptions {}

fn store_check(ws: &Workspace, _: StoreCheckOptions) -> Result<StoreCheck> {
    let report = ws.store()?.check()?;
    let clean = report.is_clean();
    Ok(StoreCheck { report, clean })
}

/// The record a ref names, or null.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeadOptions {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub reference: String,
}

fn head(ws: &Workspace, o: HeadOptions) -> Result<Option<RecordId>> {
    ws.store()?.head(&o.reference)
}

/// The records on a ref, newest first.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryOptions {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub reference: String,
}

fn history(ws: &Workspace, o: HistoryOptions) -> Result<Vec<RecordId>> {
    ws.store()?.history(&o.reference)
}

/// Every ref and the record it names, sorted by name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefsOptions {}

fn refs(ws: &Workspace, _: RefsOptions) -> Result<Vec<RefHead>> {
    let refs = ws.store()?.refs()?;
    Ok(refs
        .into_iter()
        .map(|(name, id)| RefHead {
            name,
            id,
            remote: None,
        })
        .collect())
}

/// A record (its header and its body as stored), checked against its id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoredRecordOptions {
    /// The record's id (64 hex digits).
    pub id: String,
}

fn stored_record(
    ws: &Workspace,
    o: StoredRecordOptions,
) -> Result<StoredRecord<serde_json::Value>> {
    let id: RecordId = o.id.parse()?;
    ws.store()?.read_record(&id)
}

/// Every verb of this file, for the registry in door/mod.rs.
pub(super) fn verbs() -> Vec<Verb> {
    vec![
        Verb::method("store_check", &[], store_check),
        Verb::method("head", &["reference"], head),
        Verb::method("history", &["reference"], history),
        Verb::method("refs", &[], refs),
        Verb::method("stored_record", &["id"], stored_record),
    ]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::{Value, json};

    use crate::door::{Case, Hooks, respond};

    fn call(dir: &tempfile::TempDir, verb: &str, options: Value) -> Value {
        let ws = dir.path().to_str().unwrap();
        let reply = respond(
            Some(ws),
            verb,
            &options.to_string(),
            Case::Camel,
            &Hooks::default(),
        );
        serde_json::from_str(&reply).unwrap()
    }

    #[test]
    fn the_store_reads_its_refs_and_records_and_says_whether_it_is_clean() {
        let dir = tempfile::tempdir().unwrap();
        let empty = call(&dir, "store_check", json!({}));
        assert_eq!(
            (
                empty["ok"]["records"].as_u64(),
                empty["ok"]["clean"].as_bool()
            ),
            (Some(0), Some(true)),
            "{empty}"
        );
        assert_eq!(empty["ok"]["tempFiles"], json!([]));
        assert_eq!(call(&dir, "refs", json!({}))["ok"], json!([]));
        let change = dir.path().join("openspec/changes/add-auth");
        std::fs::create_dir_all(&change).unwrap();
        std::fs::write(change.join("proposal.md"), "# Why\n").unwrap();
        let approve = json!({"change": "add-auth", "artifact": "proposal", "source": "m"});
        assert!(call(&dir, "approve", approve,)["ok"].is_object());
        let refs = call(&dir, "refs", json!({}));
        let head = &refs["ok"][0];
        assert_eq!(head["name"], "changes/add-auth", "{refs}");
        let history = call(&dir, "history", json!({"reference": "changes/add-auth"}));
        assert_eq!(history["ok"], json!([head["id"]]));
        let record = call(&dir, "storedRecord", json!({"id": head["id"]}));
        assert_eq!(
            record["error"]["code"], "invalid-argument",
            "verbs are snake_case on the wire"
        );
        let record = call(&dir, "stored_record", json!({"id": head["id"]}));
        assert_eq!(record["ok"]["kind"], "state", "{record}");
        assert_eq!(record["ok"]["previous"], Value::Null);
        // The body is the record as stored: its keys are not re-cased.
        assert!(
            record["ok"]["body"]["bindings"][0]["observed_at"].is_string(),
            "{record}"
        );
        assert!(record["ok"]["writtenAt"].is_string());
        let bad = call(&dir, "stored_record", json!({"id": "abc"}));
        assert_eq!(bad["error"]["code"], "bad-record-id");
        let none = call(&dir, "head", json!({"reference": "gates/test"}));
        assert_eq!(none["ok"], Value::Null);
        let checked = call(&dir, "store_check", json!({}));
        assert_eq!(
            (
                checked["ok"]["records"].as_u64(),
                checked["ok"]["clean"].as_bool()
            ),
            (Some(1), Some(true))
        );
        std::fs::write(
            dir.path().join(".ledger/refs/changes/stray"),
            "0".repeat(64),
        )
        .unwrap();
        let dangling = call(&dir, "store_check", json!({}));
        assert_eq!(dangling["ok"]["clean"], false, "{dangling}");
    }
}
