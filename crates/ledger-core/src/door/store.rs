//! The workspace's record store (docs/records.md), as the doors read it:
//! its check, its refs and the records they name. The store is always
//! `<workspace>/.ledger`; opening it creates nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Verb, Workspace};
use crate::{RecordId, RefHead, Result, StoreReport, StoredRecord};

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
    let report = ws.store().check()?;
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
    ws.store().head(&o.reference)
}

/// The records on a ref, newest first.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryOptions {
    /// The ref name, e.g. `changes/add-auth` or `gates/test`.
    pub reference: String,
}

fn history(ws: &Workspace, o: HistoryOptions) -> Result<Vec<RecordId>> {
    ws.store().history(&o.reference)
}

/// Every ref and the record it names, sorted by name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefsOptions {}

fn refs(ws: &Workspace, _: RefsOptions) -> Result<Vec<RefHead>> {
    let refs = ws.store().refs()?;
    Ok(refs
        .into_iter()
        .map(|(name, id)| RefHead { name, id })
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
    ws.store().read_record(&id)
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
